package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Path;
import org.jrdma.fabric.net.Network;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's steady state allocates (almost) nothing per event: packets are pooled, the event queue
 * and the link FIFOs are arrays, DCQCN allocates nothing. Measured as the bytes the running thread
 * allocates in a run of 30 ms minus those of a run of 10 ms, per extra event (outputs sampled every
 * 1 ms, so their lines are few).
 */
class SteadyStateAllocationTest {
    private static final String SCENARIO = """
            topology incast senders=2 rate=40Gbps delay=1us
            buffer size=12MB
            ecn kmin=5KB kmax=200KB pmax=0.01
            pfc mode=xon-xoff
            dcqcn paper
            flow f1 src=h1 dst=h0 size=1GB
            flow f2 src=h2 dst=h0 size=1GB start=1ms
            sample interval=1ms
            """;

    // reached by reflection: the test runs in the module, which does not read jdk.management
    private static long allocated() {
        try {
            Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            Method m = Class.forName("com.sun.management.ThreadMXBean").getMethod("getThreadAllocatedBytes", long.class);
            return (Long) m.invoke(mx, Thread.currentThread().threadId());
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static long[] run(Path dir, String duration) throws Exception {
        long a0 = allocated();
        Network.Result r = Runs.run(SCENARIO + "duration " + duration + "\n", 1, dir);
        return new long[] {allocated() - a0, r.events()};
    }

    @Test
    void fewBytesPerEvent(@TempDir Path tmp) throws Exception {
        run(tmp.resolve("warm"), "10ms");
        long[] shortRun = run(tmp.resolve("a"), "10ms");
        long[] longRun = run(tmp.resolve("b"), "30ms");
        double perEvent = (double) (longRun[0] - shortRun[0]) / (longRun[1] - shortRun[1]);
        System.out.printf("steady state: %.4f bytes allocated per event (%d extra events)%n", perEvent,
                longRun[1] - shortRun[1]);
        assertTrue(longRun[1] - shortRun[1] > 500_000);
        assertTrue(perEvent < 0.5, perEvent + " bytes per event");
    }
}
