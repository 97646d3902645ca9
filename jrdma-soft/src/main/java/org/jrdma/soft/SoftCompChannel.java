package org.jrdma.soft;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * A completion channel: a queue of CQ events. A CQ raises at most one event per arming
 * ({@code ibv_req_notify_cq}), so the queue never holds more events than there are armed CQs
 * ({@link SoftLimits#MAX_CQ}; an event past that is dropped, as the bounded queue always did).
 *
 * <p>Waiting allocates nothing: the queue is a ring of CQs under the channel's monitor, and a thread
 * that finds it empty registers itself in a small array of waiters (grown only when more threads wait
 * at once than ever before) and parks ({@link LockSupport#parkNanos(Object, long)}); {@link #signal}
 * unparks every registered waiter, each of which looks at the ring again. (The
 * {@code ArrayBlockingQueue.poll(timeout)} this replaces made an AQS condition node, 32 bytes, per wait
 * that found the queue empty, the only allocation left on an idle progress thread's path.) A waiter
 * that wakes without an event (a spurious wake-up, or another waiter took it) parks again for what is
 * left of its timeout.
 */
public final class SoftCompChannel implements CompletionChannel {
    private final SoftCq[] ring = new SoftCq[SoftLimits.MAX_CQ];      // guarded by this
    private int head;                                                 // guarded by this
    private int count;                                                // guarded by this
    private Thread[] waiters = new Thread[2];                         // guarded by this; null entries are free
    final AtomicInteger users = new AtomicInteger();
    private final SoftContext context;

    SoftCompChannel(SoftContext context) {
        this.context = context;
    }

    /** Queues {@code cq}'s event and wakes the waiting threads (any thread; the CQ's lock is not held). */
    synchronized void signal(SoftCq cq) {
        if (count == ring.length) {
            return;                                       // cannot happen: one event per armed CQ
        }
        ring[(head + count) % ring.length] = cq;
        count++;
        for (Thread t : waiters) {
            if (t != null) {
                LockSupport.unpark(t);                    // does not block; each looks at the ring again
            }
        }
    }

    /** The next event, or null; under the monitor. */
    private SoftCq pollLocked() {
        if (count == 0) {
            return null;
        }
        SoftCq cq = ring[head];
        ring[head] = null;
        head = (head + 1) % ring.length;
        count--;
        return cq;
    }

    private synchronized SoftCq poll() {
        return pollLocked();
    }

    /** Takes an event, or registers {@code me} as a waiter when there is none (returns null then). */
    private synchronized SoftCq pollOrRegister(Thread me) {
        SoftCq cq = pollLocked();
        if (cq == null) {
            register(me);
        }
        return cq;
    }

    /** Takes an event, or leaves {@code me} registered; {@code last}: deregisters {@code me} either way. */
    private synchronized SoftCq pollAgain(Thread me, boolean last) {
        SoftCq cq = pollLocked();
        if (cq != null || last) {
            deregister(me);
        }
        return cq;
    }

    private void register(Thread me) {
        for (int i = 0; i < waiters.length; i++) {
            if (waiters[i] == null) {
                waiters[i] = me;
                return;
            }
        }
        Thread[] w = java.util.Arrays.copyOf(waiters, waiters.length * 2);
        w[waiters.length] = me;
        waiters = w;
    }

    private void deregister(Thread me) {
        for (int i = 0; i < waiters.length; i++) {
            if (waiters[i] == me) {
                waiters[i] = null;
                return;
            }
        }
    }

    private synchronized void deregisterLocked(Thread me) {
        deregister(me);
    }

    @Override
    public CompletionQueue getEvent() throws InterruptedException {
        return await(Long.MAX_VALUE, true);
    }

    @Override
    public CompletionQueue getEvent(long timeout, TimeUnit unit) throws InterruptedException {
        if (timeout <= 0) {
            SoftCq cq = poll();
            if (cq != null) {
                cq.eventDelivered();
            }
            return cq;
        }
        return await(unit.toNanos(timeout), false);
    }

    /** Waits up to {@code nanos} ({@code forever}: without limit) for an event. */
    private CompletionQueue await(long nanos, boolean forever) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Thread me = Thread.currentThread();
        SoftCq cq = pollOrRegister(me);
        if (cq == null) {
            context.blockingForEvents();
            long deadline = System.nanoTime() + nanos;
            while (true) {
                long left = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (left <= 0) {
                    cq = pollAgain(me, true);
                    break;
                }
                if (forever) {
                    LockSupport.park(this);
                } else {
                    LockSupport.parkNanos(this, left);
                }
                if (Thread.interrupted()) {
                    deregisterLocked(me);
                    throw new InterruptedException();
                }
                cq = pollAgain(me, false);
                if (cq != null) {
                    break;
                }
            }
        }
        if (cq != null) {
            cq.eventDelivered();
        }
        return cq;
    }

    @Override
    public void close() {
        if (users.get() != 0) {
            throw new VerbsException(Errno.EBUSY, "completion channel still used by " + users.get() + " CQs");
        }
    }
}
