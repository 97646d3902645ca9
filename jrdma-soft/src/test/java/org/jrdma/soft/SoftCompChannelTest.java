package org.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link SoftCompChannel}: an armed CQ's completion wakes a waiter (one event per arming, as
 * {@code ibv_get_cq_event}); a timed wait with no event returns null after its timeout; several
 * waiters each get one event; an interrupted waiter throws and leaves the event for the next; and a
 * wait allocates nothing, neither one that times out nor one that is woken (the idle progress thread
 * of {@code org.jrdma.app} waits here).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoftCompChannelTest {
    private final LoopbackContext ctx = new LoopbackContext();
    private final SoftCompChannel ch = (SoftCompChannel) ctx.createCompChannel();
    private final SoftCq cq = (SoftCq) ctx.createCq(64, ch);
    private long next;

    @AfterEach
    void close() {
        cq.close();
        ch.close();
        ctx.close();
    }

    private void complete(SoftCq q) {
        assertTrue(q.push(next++, WcStatus.SUCCESS, WcOpcode.RECV, 8, 0, 1, 0, 0, 0, false));
    }

    private static void drain(SoftCq q) {
        WorkCompletion[] wc = {new WorkCompletion()};
        while (q.poll(wc) > 0) {
            // empty it
        }
    }

    @Test
    void anArmedCqsCompletionIsOneEventAndAnUnarmedOneNone() throws Exception {
        complete(cq);                                        // not armed: no event
        assertNull(ch.getEvent(1, TimeUnit.MILLISECONDS));
        cq.reqNotify(false);
        complete(cq);
        complete(cq);                                        // the arming is spent by the first
        assertSame(cq, ch.getEvent(1, TimeUnit.SECONDS));
        cq.ackEvents(1);
        assertNull(ch.getEvent(0, TimeUnit.NANOSECONDS), "one event per arming");
        drain(cq);
    }

    @Test
    void aTimedWaitWithNoEventReturnsNullAfterItsTimeout() throws Exception {
        long t0 = System.nanoTime();
        assertNull(ch.getEvent(20, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(20), "waited its timeout");
    }

    @Test
    void aBlockedWaiterIsWokenByACompletionFromAnotherThread() throws Exception {
        cq.reqNotify(false);
        CompletableFuture<CompletionQueue> got = new CompletableFuture<>();
        Thread w = Thread.ofPlatform().start(() -> {
            try {
                got.complete(ch.getEvent());
            } catch (Throwable t) {
                got.completeExceptionally(t);
            }
        });
        while (w.getState() != Thread.State.WAITING) {       // parked in getEvent
            Thread.sleep(1);
        }
        complete(cq);
        assertSame(cq, got.get(10, TimeUnit.SECONDS));
        cq.ackEvents(1);
        drain(cq);
    }

    @Test
    void twoWaitersTwoEventsEachGetsOne() throws Exception {
        SoftCq cq2 = (SoftCq) ctx.createCq(64, ch);
        try {
            cq.reqNotify(false);
            cq2.reqNotify(false);
            AtomicReference<CompletionQueue> a = new AtomicReference<>();
            AtomicReference<CompletionQueue> b = new AtomicReference<>();
            Thread ta = Thread.ofPlatform().start(() -> a.set(waitQuietly()));
            Thread tb = Thread.ofPlatform().start(() -> b.set(waitQuietly()));
            while (ta.getState() != Thread.State.TIMED_WAITING || tb.getState() != Thread.State.TIMED_WAITING) {
                Thread.sleep(1);
            }
            complete(cq);
            complete(cq2);
            ta.join(10_000);
            tb.join(10_000);
            assertTrue(a.get() != null && b.get() != null, "both were woken with an event: " + a + ", " + b);
            assertTrue(a.get() != b.get(), "each got its own event");
            assertNull(ch.getEvent(0, TimeUnit.NANOSECONDS));
            cq.ackEvents(1);
            cq2.ackEvents(1);
            drain(cq);
            drain(cq2);
        } finally {
            cq2.close();
        }
    }

    private CompletionQueue waitQuietly() {
        try {
            return ch.getEvent(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            return null;
        }
    }

    @Test
    void anInterruptedWaiterThrowsAndTheNextEventIsStillDelivered() throws Exception {
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        Thread w = Thread.ofPlatform().start(() -> {
            try {
                ch.getEvent(10, TimeUnit.SECONDS);
                thrown.complete(null);
            } catch (Throwable t) {
                thrown.complete(t);
            }
        });
        while (w.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(1);
        }
        w.interrupt();
        assertTrue(thrown.get(10, TimeUnit.SECONDS) instanceof InterruptedException);
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> ch.getEvent(1, TimeUnit.SECONDS), "an interrupted caller");
        cq.reqNotify(false);
        complete(cq);
        assertSame(cq, ch.getEvent(1, TimeUnit.SECONDS), "the interrupted waiter left no registration behind that takes it");
        cq.ackEvents(1);
        drain(cq);
    }

    // ---- allocation ----

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

    private static long allocated(long tid) {
        try {
            return (Long) ALLOCATED.invoke(MX, tid);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** Bytes the current thread allocated over {@code n} calls of {@code r} (least of three attempts), after a warm-up of n. */
    private static long bytesOver(int n, ThrowingRunnable r) throws Exception {
        for (int i = 0; i < n; i++) {
            r.run();
        }
        long me = Thread.currentThread().threadId();
        long overhead = -allocated(me) + allocated(me);
        long least = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 3 && least != 0; attempt++) {
            long a0 = allocated(me);
            for (int i = 0; i < n; i++) {
                r.run();
            }
            least = Math.min(least, allocated(me) - a0 - overhead);
        }
        return least;
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void aWaitThatTimesOutAllocatesNothing() throws Exception {
        long bytes = bytesOver(2_000, () -> assertNull(ch.getEvent(20, TimeUnit.MICROSECONDS)));
        assertEquals(0, bytes, "bytes allocated by 2,000 timed waits that found no event");
    }

    @Test
    void aWaitThatIsWokenAllocatesNothing() throws Exception {
        // a partner thread completes on the armed CQ once it sees this thread parked; this thread waits
        java.util.concurrent.atomic.AtomicLong wanted = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong done = new java.util.concurrent.atomic.AtomicLong();
        Thread me = Thread.currentThread();
        Thread partner = Thread.ofPlatform().daemon().start(() -> {
            long seen = 0;
            while (!Thread.currentThread().isInterrupted()) {
                if (wanted.get() > seen && me.getState() == Thread.State.TIMED_WAITING) {
                    seen++;
                    complete(cq);
                    done.set(seen);
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        WorkCompletion[] wc = {new WorkCompletion()};
        try {
            long bytes = bytesOver(1_000, () -> {
                cq.reqNotify(false);
                wanted.incrementAndGet();
                CompletionQueue got = ch.getEvent(5, TimeUnit.SECONDS);
                if (got != cq) {
                    throw new AssertionError("no event within 5 s");
                }
                cq.ackEvents(1);
                while (done.get() < wanted.get()) {
                    Thread.onSpinWait();
                }
                while (cq.poll(wc) > 0) {
                    // empty it
                }
            });
            assertEquals(0, bytes, "bytes allocated by 1,000 waits woken by a completion");
        } finally {
            partner.interrupt();
            partner.join(5000);
        }
    }
}
