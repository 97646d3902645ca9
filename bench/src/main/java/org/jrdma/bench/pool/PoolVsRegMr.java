package org.jrdma.bench.pool;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.jrdma.pool.Lease;
import org.jrdma.pool.PoolConfig;
import org.jrdma.pool.RegisteredPool;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.Verbs;

/**
 * Issue 15: what a message buffer costs with the pool ({@code org.jrdma.pool}: lease, write 8 bytes,
 * close) against registering per message ({@code ibv_reg_mr} on a buffer allocated once, write,
 * {@code ibv_dereg_mr}), and registering a freshly allocated buffer per message (allocate in a shared arena, register,
 * write, deregister, free), on each device named. One JVM, no peer: the cost is the verbs calls'.
 * Rounds interleave the kinds (the machine's speed drifts); the median round of each is printed.
 *
 * <pre>
 * PoolVsRegMr [DEVICES [SIZES [SECONDS [ROUNDS]]]]     defaults: jrxe0,jsiw0  4096,65536  1  3
 * </pre>
 *
 * Output: one line per device, size and kind, {@code RESULT device=... size=... kind=pool|regmr|alloc_regmr ns_per_op=...},
 * then the ratios.
 */
public final class PoolVsRegMr {
    private PoolVsRegMr() {
    }

    private interface Op {
        void run(long i);
    }

    public static void main(String[] args) {
        String[] devices = (args.length > 0 ? args[0] : "jrxe0,jsiw0").split(",");
        int[] sizes = Arrays.stream((args.length > 1 ? args[1] : "4096,65536").split(",")).mapToInt(Integer::parseInt).toArray();
        double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 1;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        for (String dev : devices) {
            try (Context ctx = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared()) {
                ProtectionDomain pd = ctx.allocPd();
                RegisteredPool pool = RegisteredPool.create(pd, new PoolConfig());
                for (int size : sizes) {
                    MemorySegment fixed = arena.allocate(size, 4096);
                    Op[] ops = {
                        i -> {
                            try (Lease l = pool.lease(size)) {
                                l.putLong(0, i);
                            }
                        },
                        i -> {
                            try (MemoryRegion mr = pd.regMr(fixed, AccessFlags.LOCAL_WRITE)) {
                                fixed.set(ValueLayout.JAVA_LONG, 0, i);
                            }
                        },
                        i -> {
                            try (Arena a = Arena.ofShared()) {        // a region must be reachable from the device's I/O thread
                                MemorySegment s = a.allocate(size, 4096);
                                try (MemoryRegion mr = pd.regMr(s, AccessFlags.LOCAL_WRITE)) {
                                    s.set(ValueLayout.JAVA_LONG, 0, i);
                                }
                            }
                        }};
                    String[] names = {"pool", "regmr", "alloc_regmr"};
                    for (Op op : ops) {
                        measure(op, 0.5);                       // warm-up
                    }
                    double[][] r = new double[ops.length][rounds];
                    for (int round = 0; round < rounds; round++) {
                        for (int k = 0; k < ops.length; k++) {
                            r[k][round] = measure(ops[k], seconds);
                        }
                    }
                    double[] med = new double[ops.length];
                    for (int k = 0; k < ops.length; k++) {
                        Arrays.sort(r[k]);
                        med[k] = r[k][rounds / 2];
                        System.out.printf("RESULT device=%s size=%d kind=%s ns_per_op=%.1f%n", dev, size, names[k], med[k]);
                    }
                    System.out.printf("RATIO device=%s size=%d regmr/pool=%.1f alloc_regmr/pool=%.1f%n", dev, size, med[1] / med[0],
                            med[2] / med[0]);
                }
                System.out.printf("POOL device=%s %s%n", dev, pool.metrics());
                pool.close();
                pd.close();
            }
        }
    }

    /** ns per operation over about {@code seconds}. */
    private static double measure(Op op, double seconds) {
        long budget = (long) (seconds * 1e9);
        long n = 0;
        long t0 = System.nanoTime();
        long t;
        do {
            for (int j = 0; j < 256; j++) {
                op.run(n++);
            }
            t = System.nanoTime() - t0;
        } while (t < budget);
        return (double) t / n;
    }
}
