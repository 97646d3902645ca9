package org.jrdma.rocev2.transport;

import org.jrdma.verbs.ext.ManagementDatagrams.MadAddress;

/**
 * One MAD sent from QP1 with a timeout, until it is answered, cancelled or out of retries
 * ({@code ib_mad_send_wr_private} on ib_mad's wait list): a copy of its 256 bytes, where it went, its
 * time per try and the retries it has left. Guarded by the {@link Gsi}'s lock.
 */
final class MadRequest {
    final GsiAgent agent;
    final long tid;
    final int mgmtClass;
    final MadAddress to;
    final byte[] mad;
    long timeoutNanos;
    int retriesLeft;
    /** System.nanoTime when the current try times out. */
    long deadline;

    MadRequest(GsiAgent agent, long tid, int mgmtClass, MadAddress to, byte[] mad, long timeoutNanos, int retries,
               long deadline) {
        this.agent = agent;
        this.tid = tid;
        this.mgmtClass = mgmtClass;
        this.to = to;
        this.mad = mad;
        this.timeoutNanos = timeoutNanos;
        this.retriesLeft = retries;
        this.deadline = deadline;
    }
}
