package org.jrdma.perftest;

import java.util.concurrent.TimeUnit;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;

/**
 * The SEND/RECV ping-pong loop of rdma-core's {@code rc_pingpong.c} and {@code ud_pingpong.c} (the same
 * loop in both): the client sends first; each side sends again once its previous send and the next
 * receive have completed; the receive queue is refilled when one receive is left. One buffer, one
 * send and one receive WR, reused: nothing is allocated per iteration. Runs in the calling thread.
 */
final class PingpongLoop {
    /** {@code PINGPONG_RECV_WRID}. */
    static final int RECV_WRID = 1;
    /** {@code PINGPONG_SEND_WRID}. */
    static final int SEND_WRID = 2;

    private PingpongLoop() {
    }

    /**
     * Runs {@code iters} exchanges on a QP whose receive queue holds {@code routs} receives.
     *
     * @param channel the CQ's completion channel when waiting for events ({@code -e}; the CQ is armed), else null
     * @param client true on the side that sends first
     * @return the elapsed time, µs
     * @throws PerftestException on a completion in error or a post that fails
     */
    static long run(QueuePair qp, CompletionQueue cq, CompletionChannel channel, RecvWr rwr, SendWr swr, int rxDepth,
                    int routs, long iters, boolean client) {
        int pending = RECV_WRID;
        if (client) {
            postSend(qp, swr);
            pending |= SEND_WRID;
        }
        long start = System.nanoTime();
        long rcnt = 0;
        long scnt = 0;
        long numCqEvents = 0;
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
        while (rcnt < iters || scnt < iters) {
            int ne;
            if (channel != null) {
                awaitEvent(channel, cq);
                numCqEvents++;
                cq.reqNotify(false);
                ne = cq.poll(wc, 2);
            } else {
                int idle = 0;
                while ((ne = cq.poll(wc, 2)) == 0) {
                    Spin.idle(idle++);
                }
            }
            for (int i = 0; i < ne; i++) {
                WorkCompletion c = wc[i];
                if (c.status() != WcStatus.SUCCESS) {
                    throw new PerftestException("Failed status " + c.status().str() + " (" + c.status().value()
                            + ") for wr_id " + c.wrId());
                }
                switch ((int) c.wrId()) {
                    case SEND_WRID -> scnt++;
                    case RECV_WRID -> {
                        if (--routs <= 1) {
                            routs += postRecv(qp, rwr, rxDepth - routs);
                            if (routs < rxDepth) {
                                throw new PerftestException("couldn't post receive (" + routs + ")");
                            }
                        }
                        rcnt++;
                    }
                    default -> throw new PerftestException("completion for unknown wr_id " + c.wrId());
                }
                pending &= ~(int) c.wrId();
                if (scnt < iters && pending == 0) {
                    postSend(qp, swr);
                    pending = RECV_WRID | SEND_WRID;
                }
            }
        }
        long end = System.nanoTime();
        if (numCqEvents > 0) {
            cq.ackEvents((int) Math.min(numCqEvents, Integer.MAX_VALUE));
        }
        return (end - start) / 1000;
    }

    /** {@code pp_post_recv}: posts up to {@code n} receives, returns how many it posted. */
    static int postRecv(QueuePair qp, RecvWr wr, int n) {
        int i = 0;
        try {
            for (; i < n; i++) {
                qp.postRecv(wr);
            }
        } catch (VerbsException e) {
            // as pp_post_recv: the count posted tells the caller
        }
        return i;
    }

    private static void postSend(QueuePair qp, SendWr wr) {
        try {
            qp.postSend(wr);
        } catch (VerbsException e) {
            throw new PerftestException("couldn't post send: " + e.getMessage());
        }
    }

    private static void awaitEvent(CompletionChannel channel, CompletionQueue cq) {
        try {
            CompletionQueue fired;
            while ((fired = channel.getEvent(1, TimeUnit.SECONDS)) == null) {
                Thread.onSpinWait();
            }
            if (fired != cq) {
                throw new PerftestException("CQ event for unknown CQ");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerftestException("interrupted while waiting for a CQ event");
        }
    }
}
