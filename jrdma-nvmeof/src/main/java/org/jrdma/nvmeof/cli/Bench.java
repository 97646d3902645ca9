package org.jrdma.nvmeof.cli;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import org.jrdma.nvmeof.IoBuffer;
import org.jrdma.nvmeof.NvmeController;
import org.jrdma.nvmeof.NvmeNamespace;

/**
 * The I/O loop of {@code jrdma nvme bench}: {@code ios} I/Os of {@code bs} bytes, at most
 * {@code iodepth} outstanding, spread over the controller's I/O queues (round robin), at distinct
 * block-aligned offsets (sequential, or a seeded random permutation), timing each from submission to
 * completion. {@code verify}: each block's bytes are a function of its LBA and the seed, written first,
 * then read back and compared. The caller's thread submits; completions run on the queues' pollers.
 */
final class Bench {
    /** What one pass measured. */
    record Result(String rw, long ios, long bytes, long nanos, long[] latNanos, long mismatches) {
        double iops() {
            return ios * 1e9 / nanos;
        }

        double mibPerSecond() {
            return bytes * 1e9 / nanos / (1 << 20);
        }

        long percentile(double p) {
            long[] l = latNanos.clone();
            Arrays.sort(l);
            return l.length == 0 ? 0 : l[(int) Math.min(l.length - 1, Math.ceil(p / 100 * l.length) - 1)];
        }
    }

    private Bench() {
    }

    /** The starting LBAs of {@code ios} distinct {@code bs}-byte slots of a namespace of {@code blockCount} blocks of {@code blockSize}. */
    static long[] offsets(long blockCount, int blockSize, int bs, int ios, boolean random, long seed) {
        long slots = blockCount * blockSize / bs;
        if (ios > slots) {
            throw new IllegalArgumentException(ios + " I/Os of " + bs + " bytes do not fit the namespace's " + slots + " slots");
        }
        long[] lba = new long[ios];
        int per = bs / blockSize;
        if (random) {
            // a partial Fisher-Yates over the slot indexes: distinct, seeded
            java.util.HashMap<Long, Long> swapped = new java.util.HashMap<>();
            Random r = new Random(seed);
            for (int i = 0; i < ios; i++) {
                long j = i + (long) (r.nextDouble() * (slots - i));
                long vi = swapped.getOrDefault((long) i, (long) i);
                long vj = swapped.getOrDefault(j, j);
                swapped.put(j, vi);
                lba[i] = vj * per;
            }
        } else {
            for (int i = 0; i < ios; i++) {
                lba[i] = (long) i * per;
            }
        }
        return lba;
    }

    /** The verify pattern of the block at {@code lba}: 8-byte words of lba × seed-mixed counters. */
    static void pattern(MemorySegment m, long off, int len, long lba, long seed) {
        for (int i = 0; i < len; i += 8) {
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, off + i, (lba * 0x9E3779B97F4A7C15L) ^ (seed + i));
        }
    }

    static Result run(NvmeController c, NvmeNamespace ns, boolean write, long[] lba, int bs, int iodepth, boolean verify,
            long seed) throws Exception {
        int blocks = bs / ns.blockSize();
        try (IoBuffer buf = c.allocBuffer((long) bs * iodepth)) {
            Semaphore depth = new Semaphore(iodepth);
            long[] lat = new long[lba.length];
            long[] mismatches = {0};
            AtomicReference<Throwable> failure = new AtomicReference<>();
            // a free list of buffer slots, one per outstanding I/O
            java.util.concurrent.ConcurrentLinkedQueue<Integer> free = new java.util.concurrent.ConcurrentLinkedQueue<>();
            for (int i = 0; i < iodepth; i++) {
                free.add(i);
            }
            List<CompletableFuture<Void>> last = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < lba.length && failure.get() == null; i++) {
                depth.acquire();
                int slot = free.poll();
                long off = (long) slot * bs;
                long l = lba[i];
                if (write && verify) {
                    pattern(buf.segment(), off, bs, l, seed);
                }
                int n = i;
                long start = System.nanoTime();
                CompletableFuture<Void> f = write ? ns.write(l, blocks, buf, off) : ns.read(l, blocks, buf, off);
                last.add(f.whenComplete((v, e) -> {
                    lat[n] = System.nanoTime() - start;
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    } else if (!write && verify) {
                        for (int w = 0; w < bs; w += 8) {
                            long want = (l * 0x9E3779B97F4A7C15L) ^ (seed + w);
                            if (buf.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, off + w) != want) {
                                synchronized (mismatches) {
                                    mismatches[0]++;
                                }
                                break;
                            }
                        }
                    }
                    free.add(slot);
                    depth.release();
                }));
                if (last.size() > 4 * iodepth) {
                    last.removeIf(CompletableFuture::isDone);
                }
            }
            CompletableFuture.allOf(last.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
            depth.acquire(iodepth);
            long nanos = System.nanoTime() - t0;
            if (failure.get() != null) {
                Throwable t = failure.get();
                throw t instanceof Exception ex ? ex : new RuntimeException(t);
            }
            return new Result(write ? "write" : "read", lba.length, (long) lba.length * bs, nanos, lat, mismatches[0]);
        }
    }

    /** A fio-like summary of one pass. */
    static void print(PrintWriter o, Result r, int bs, int iodepth, int queues) {
        o.printf("%s: bs=%d iodepth=%d queues=%d ios=%d%n", r.rw(), bs, iodepth, queues, r.ios());
        o.printf("  %s: IOPS=%.0f, BW=%.1fMiB/s (%d bytes in %.3f s)%n", r.rw(), r.iops(), r.mibPerSecond(), r.bytes(),
                r.nanos() / 1e9);
        o.printf("  lat (usec): p50=%.1f, p90=%.1f, p99=%.1f, p99.9=%.1f, max=%.1f%n", r.percentile(50) / 1e3,
                r.percentile(90) / 1e3, r.percentile(99) / 1e3, r.percentile(99.9) / 1e3, r.percentile(100) / 1e3);
    }
}
