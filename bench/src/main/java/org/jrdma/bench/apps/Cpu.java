package org.jrdma.bench.apps;

import java.lang.management.ManagementFactory;

/** The process's CPU time: all the JVM's threads ({@code com.sun.management.OperatingSystemMXBean#getProcessCpuTime}). */
final class Cpu {
    private Cpu() {
    }

    /** CPU nanoseconds used by this process so far, all threads, user + system. */
    static long processNs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
