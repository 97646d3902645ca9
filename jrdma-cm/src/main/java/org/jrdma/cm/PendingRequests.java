package org.jrdma.cm;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

/**
 * The passive connections of one {@link IbCm} whose REQ the application has not accepted or rejected
 * yet (states REQ_RCVD and MRA_REQ_SENT), each with the time by which its active side has given up.
 *
 * <p>Linux's CM keeps such a connection until the application acts (no timer guards REQ_RCVD); jrdma
 * times it out instead, so that REQs nobody answers (a storm of forged ones, or an application that
 * takes its CONNECT_REQUESTs and never decides) leave nothing behind. The horizon is what the active
 * side waits before it reports the REQ unanswered ({@code ib_send_cm_req}: every try of
 * {@code 2 × packet lifetime + remote CM response timeout}, the REQ's "max CM retries" + 1 of them),
 * plus one try as a margin; an MRA we send for a repeated REQ extends it by the MRA's service timeout,
 * as it extends the active side's wait ({@code cm_mra_handler}).
 *
 * <p>The number of these is bounded without the timer: a listener admits at most its backlog of
 * CONNECT_REQUESTs not yet taken from its channel ({@link CmId#admitRequest}), and the timer bounds
 * how long the taken ones live.
 *
 * <p>Threads: the CM lock guards the table; the expiry runs on {@code jrdma-cm} under it.
 */
final class PendingRequests {
    private final CmService cm;
    private final Consumer<IbConnection> onExpiry;
    private final Map<IbConnection, ScheduledFuture<?>> timers = new IdentityHashMap<>();

    /** @param onExpiry what to do with a connection whose deadline passed (CM thread, CM lock) */
    PendingRequests(CmService cm, Consumer<IbConnection> onExpiry) {
        this.cm = cm;
        this.onExpiry = onExpiry;
    }

    /** The active side's whole wait for an answer to a REQ: (retries + 1) tries and one more. */
    static long horizonMs(int remoteCmResponseTimeout, int maxCmRetries) {
        return (maxCmRetries + 2L) * IbTimeouts.requestMs(remoteCmResponseTimeout);
    }

    /** Starts (or restarts) the deadline of {@code c}, {@code ms} from now. */
    void arm(IbConnection c, long ms) {
        ScheduledFuture<?> old = timers.put(c, cm.schedule(() -> expire(c), ms));
        if (old != null) {
            old.cancel(false);
        }
    }

    /** The application (or the peer) decided: {@code c} is no longer pending. */
    void remove(IbConnection c) {
        ScheduledFuture<?> f = timers.remove(c);
        if (f != null) {
            f.cancel(false);
        }
    }

    /** How many connection requests are pending on this device. */
    int size() {
        return timers.size();
    }

    private void expire(IbConnection c) {
        if (timers.remove(c) != null) {
            onExpiry.accept(c);
        }
    }
}
