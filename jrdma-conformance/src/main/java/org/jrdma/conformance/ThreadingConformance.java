package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * Thread safety as libibverbs gives it: {@code ibv_post_send} from several threads at once on one QP
 * and {@code ibv_poll_cq} from another; every WR completes exactly once and each thread's WRs
 * complete in the order that thread posted them.
 */
public abstract class ThreadingConformance extends ConformanceBase {
    private static final int THREADS = 4;
    private static final int PER_THREAD = 2500;

    @Test
    void postFromSeveralThreadsPollFromAnother() throws InterruptedException {
        Pair p = connect(conn().depth(512, 16).cqe(1024));
        Semaphore credits = new Semaphore(256);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] next = new long[THREADS];
        Thread poller = Thread.ofPlatform().name("conformance-poller").start(() -> {
            WorkCompletion[] wc = new WorkCompletion[32];
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            int total = 0;
            long deadline = System.nanoTime() + 6 * LIVENESS_NS;
            try {
                while (total < THREADS * PER_THREAD) {
                    int n = p.sqa.poll(wc);
                    for (int k = 0; k < n; k++) {
                        assertEquals(WcStatus.SUCCESS, wc[k].status(), wc[k].toString());
                        int t = (int) (wc[k].wrId() >>> 32);
                        long seq = wc[k].wrId() & 0xFFFFFFFFL;
                        assertEquals(next[t], seq, "thread " + t + ": completion out of order or repeated");
                        next[t]++;
                    }
                    total += n;
                    credits.release(n);
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError("stuck at " + total + " completions");
                    }
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
                credits.release(1 << 20);
            }
        });
        Thread[] posters = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            posters[t] = Thread.ofPlatform().name("conformance-poster-" + t).start(() -> {
                SendWr w = new SendWr().opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                        .sgList(sge(p.mra, 4096L * id, 64)).rdma(p.mrb.addr() + 4096L * id, p.mrb.rkey());
                try {
                    for (int i = 0; i < PER_THREAD && failure.get() == null; i++) {
                        if (!credits.tryAcquire(LIVENESS_NS, TimeUnit.NANOSECONDS)) {
                            throw new AssertionError("thread " + id + " got no send credit");
                        }
                        p.a.postSend(w.wrId(((long) id << 32) | i));
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
        }
        for (Thread t : posters) {
            t.join(TimeUnit.NANOSECONDS.toMillis(6 * LIVENESS_NS));
        }
        poller.join(TimeUnit.NANOSECONDS.toMillis(6 * LIVENESS_NS));
        assertNull(failure.get(), () -> "failure: " + failure.get());
        for (int t = 0; t < THREADS; t++) {
            assertEquals(PER_THREAD, next[t], "completions of thread " + t);
        }
        assertCqEmpty(p.sqa, "no extra completion");
    }
}
