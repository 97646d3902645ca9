package org.jrdma.rocev2.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The QPs of a device whose requester waits for its DCQCN rate (issue 16): a QP whose reaction
 * point has cut its rate sends no faster than that rate ({@link RxeQp#mayTransmit}); when its next
 * packet is not due yet the requester stops and hands the QP to the pacer with the time it is
 * due, and the device's I/O thread runs the requester again then ({@link #poll}). The I/O thread
 * never spins for it: the idle strategy blocks no longer than the next due time
 * ({@link #nanosToNext}, the device's timer/idle mechanism), and a QP added while it blocks for
 * longer wakes it ({@link DeviceAgent#wakeForPacing}).
 *
 * <p>Threads: {@link #add} from any thread (under the QP's lock): a CAS onto a lock-free stack of
 * the QP's own link field, no allocation. Everything else on the owner, the I/O thread, which
 * moves the pushed QPs into its array (grown on the control path only: a device with more paced
 * QPs than ever before) and resumes the due ones holding no lock (the requester takes the QP's).
 * A QP with nothing to pace costs nothing: while no QP was ever cut the pacer stays empty and
 * {@link #poll} is one volatile read.
 */
final class Pacer {
    private static final VarHandle QUEUED;

    static {
        try {
            QUEUED = MethodHandles.lookup().findVarHandle(RxeQp.class, "paceQueued", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final AtomicReference<RxeQp> pushed = new AtomicReference<>();
    // owner thread only
    private RxeQp[] waiting = new RxeQp[16];
    private int count;

    /**
     * {@code qp} waits for its rate until {@code qp.paceDeadline}; any thread, under the QP's lock.
     *
     * @return true when the QP was not waiting already (the caller may have to wake the owner)
     */
    boolean add(RxeQp qp) {
        if ((int) QUEUED.getVolatile(qp) != 0 || !QUEUED.compareAndSet(qp, 0, 1)) {
            return false;
        }
        RxeQp h;
        do {
            h = pushed.get();
            qp.paceNext = h;
        } while (!pushed.compareAndSet(h, qp));
        return true;
    }

    /**
     * Runs the requester of every waiting QP whose time has come (owner thread).
     *
     * @return the QPs resumed
     */
    int poll(long now) {
        if (pushed.get() != null) {
            drain();
        }
        int resumed = 0;
        for (int i = 0; i < count; ) {
            RxeQp qp = waiting[i];
            if (qp.paceDeadline - now > 0) {
                i++;
                continue;
            }
            waiting[i] = waiting[--count];
            waiting[count] = null;
            QUEUED.setVolatile(qp, 0); // before the run, which may add it again
            qp.resumePaced();
            resumed++;
        }
        return resumed;
    }

    /** ns until the next waiting QP is due (0 when one is due), or {@link Long#MAX_VALUE} when none waits (owner). */
    long nanosToNext(long now) {
        if (pushed.get() != null) {
            drain();
        }
        long min = Long.MAX_VALUE;
        for (int i = 0; i < count; i++) {
            min = Math.min(min, Math.max(0, waiting[i].paceDeadline - now));
        }
        return min;
    }

    /** QPs waiting (owner; for tests). */
    int waiting() {
        if (pushed.get() != null) {
            drain();
        }
        return count;
    }

    private void drain() {
        RxeQp qp = pushed.getAndSet(null);
        while (qp != null) {
            RxeQp next = qp.paceNext;
            qp.paceNext = null;
            if (count == waiting.length) {
                waiting = java.util.Arrays.copyOf(waiting, count * 2);
            }
            waiting[count++] = qp;
            qp = next;
        }
    }
}
