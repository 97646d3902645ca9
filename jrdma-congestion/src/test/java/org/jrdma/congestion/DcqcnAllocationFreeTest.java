package org.jrdma.congestion;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/** Driving an RP and an NP allocates nothing: the bytes this thread allocates do not grow with the iterations. */
class DcqcnAllocationFreeTest {
    // reached by reflection: the test runs in the module, which reads java.base only
    private static long allocated() {
        try {
            Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            Method m = Class.forName("com.sun.management.ThreadMXBean").getMethod("getThreadAllocatedBytes", long.class);
            return (Long) m.invoke(mx, Thread.currentThread().threadId());
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static long run(DcqcnReactionPoint rp, DcqcnNotificationPoint np, long t0, int n) {
        long t = t0;
        for (int i = 0; i < n; i++) {
            t += 700;
            if (np.onCongestionExperienced(t) && (i & 3) == 0) {
                rp.onCnp(t);
            }
            rp.onSent(t, 1000);
            rp.advance(t);
        }
        return t;
    }

    @Test
    void noAllocation() {
        for (DcqcnParameters p : new DcqcnParameters[] {DcqcnParameters.paper(), DcqcnParameters.nvidia()}) {
            DcqcnReactionPoint rp = new DcqcnReactionPoint(p, 100_000_000_000L);
            DcqcnNotificationPoint np = new DcqcnNotificationPoint(p.cnpIntervalNs());
            long t = run(rp, np, 0, 200_000); // warm-up (JIT)
            long a0 = allocated();
            t = run(rp, np, t, 1_000);
            long a1 = allocated();
            run(rp, np, t, 1_000_000);
            long a2 = allocated();
            assertTrue(a2 - a1 <= (a1 - a0) + 256, p.name() + ": " + (a1 - a0) + " then " + (a2 - a1) + " bytes");
        }
    }
}
