package org.jrdma.ibverbs;

import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * Events taken and acknowledged for one CQ or QP. libibverbs' destroy of a CQ or QP waits, without
 * bound, until every event taken for it is acknowledged; the provider waits at most one second first
 * and then fails with EBUSY, leaving the object alive (as the soft providers do). Its own monitor; no
 * other lock is taken while holding it.
 */
final class EventCount {
    private long taken;
    private long acked;

    synchronized void taken() {
        taken++;
    }

    synchronized void acked(long n) {
        acked += n;
        notifyAll();
    }

    /** @throws VerbsException EBUSY when events stay unacknowledged for a second */
    synchronized void awaitAcked(String call) {
        long end = System.nanoTime() + 1_000_000_000L;
        while (acked < taken) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new VerbsException(Errno.EBUSY, call + ": " + (taken - acked) + " events are not acknowledged");
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new VerbsException(Errno.EBUSY, call + ": interrupted waiting for event acknowledgements");
            }
        }
    }
}
