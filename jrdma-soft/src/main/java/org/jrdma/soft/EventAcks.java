package org.jrdma.soft;

import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * The asynchronous events of one QP, CQ or SRQ that the application took and has not yet
 * acknowledged ({@code events_completed} against the kernel's {@code events_reported} in
 * libibverbs). Destroying the object waits for them ({@link #awaitAcknowledged(long)}).
 *
 * <p>Threads: any; guarded by this object's monitor (a leaf lock: nothing is called under it).
 */
final class EventAcks {
    /** How long a destroy waits for the events it finds unacknowledged: 1 s, then EBUSY. */
    static final long DESTROY_WAIT_NANOS = 1_000_000_000L;
    private int delivered;
    private int acknowledged;

    /** An event of the object was taken by {@code getAsyncEvent}. */
    synchronized void delivered() {
        delivered++;
    }

    /** {@code ibv_ack_async_event}. */
    synchronized void acknowledge() {
        acknowledged++;
        if (acknowledged == delivered) {
            notifyAll();
        }
    }

    /** The events taken and not yet acknowledged. */
    synchronized int unacknowledged() {
        return delivered - acknowledged;
    }

    /**
     * Waits until every event taken is acknowledged, at most {@code nanos}.
     *
     * @throws VerbsException EBUSY naming {@code what} when some still are not
     */
    synchronized void awaitAcknowledged(long nanos, String what) {
        long deadline = System.nanoTime() + nanos;
        boolean interrupted = false;
        try {
            while (delivered != acknowledged) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new VerbsException(Errno.EBUSY, what + " has " + (delivered - acknowledged)
                            + " asynchronous events not acknowledged (ibv_ack_async_event)");
                }
                try {
                    wait(Math.max(1, left / 1_000_000), 0);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
