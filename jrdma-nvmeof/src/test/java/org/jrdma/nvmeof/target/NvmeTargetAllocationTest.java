package org.jrdma.nvmeof.target;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.jrdma.nvmeof.IoBuffer;
import org.jrdma.nvmeof.NvmeConnectOptions;
import org.jrdma.nvmeof.NvmeController;
import org.jrdma.nvmeof.NvmeNamespace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The target's data path allocates nothing: the bytes its I/O queue's thread ({@code nvmet-q1}, which
 * also runs soft RoCE's receive path when it polls) allocates around N commands (4 KiB Reads, 4 KiB
 * in-capsule Writes, 8 KiB keyed Writes) do not grow with N, measured with
 * com.sun.management.ThreadMXBean#getThreadAllocatedBytes (by reflection: the test compiles inside
 * module org.jrdma.nvmeof, which does not read jdk.management), as jrdma-rocev2's AllocationFreeTest.
 */
@Timeout(300)
class NvmeTargetAllocationTest {
    private static final String NET = pick();
    private static final Object MX;
    private static final Method ALLOCATED;

    static {
        try {
            MX = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean").getMethod("getThreadAllocatedBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static String pick() {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        String net = "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + ".";
        System.setProperty("jrdma.devices", "jrxe0=" + net + "1,jrxe1=" + net + "2");
        return net;
    }

    private static long allocated(Thread t) throws ReflectiveOperationException {
        return (Long) ALLOCATED.invoke(MX, t.threadId());
    }

    private static void ios(NvmeNamespace ns, IoBuffer b, int n) {
        for (int i = 0; i < n; i++) {
            switch (i % 3) {
                case 0 -> ns.readSync(8L * (i % 1000), 8, b, 0);
                case 1 -> ns.writeSync(8L * (i % 1000), 8, b, 4096);
                default -> ns.writeSync(16L * (i % 1000), 16, b, 8192);
            }
        }
    }

    @Test
    void theTargetsQueueThreadAllocatesNothingPerCommand() throws Exception {
        InetSocketAddress at = new InetSocketAddress(InetAddress.getByName(NET + "1"), 4420);
        try (NvmeTarget target = NvmeTarget.start(new NvmeTargetOptions().address(at).namespace(16L << 20))) {
            NvmeConnectOptions o = new NvmeConnectOptions().target(at).source(new InetSocketAddress(InetAddress.getByName(NET + "2"), 0))
                    .subsysNqn(target.subsysNqn()).ioQueues(1).queueSize(32).keepAliveTimeoutMs(0)
                    .commandTimeout(Duration.ofSeconds(20)).connectTimeout(Duration.ofSeconds(20));
            try (NvmeController c = NvmeController.connect(o); IoBuffer b = c.allocBuffer(16384)) {
                NvmeNamespace ns = c.namespace(1);
                Thread q = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("nvmet-q1"))
                        .findFirst().orElse(null);
                assertNotNull(q, "the target's I/O queue thread");
                ios(ns, b, 6000);
                long small = Long.MAX_VALUE;
                long large = Long.MAX_VALUE;
                // the least of three samples each: a one-off (a JIT deoptimization, a GC's TLAB retire) is not the data path
                for (int round = 0; round < 3; round++) {
                    long a0 = allocated(q);
                    ios(ns, b, 1500);
                    small = Math.min(small, allocated(q) - a0);
                    long a1 = allocated(q);
                    ios(ns, b, 6000);
                    large = Math.min(large, allocated(q) - a1);
                }
                assertTrue(large <= small + 1024, "6000 commands allocated " + large + " bytes on nvmet-q1, 1500 allocated "
                        + small + ": " + (large - small) / 4500.0 + " bytes per command");
            }
        }
    }
}
