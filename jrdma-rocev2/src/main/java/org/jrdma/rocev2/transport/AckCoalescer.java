package org.jrdma.rocev2.transport;

import java.util.Arrays;
import org.jrdma.rocev2.stats.Counters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ACK coalescing (rxe sends one ACK per burst too, from {@code rxe_resp.c}'s acknowledge step): a
 * responder that owes an ACK puts its QP on this list once ({@link RxeQp#ackScheduled()}), and the
 * receiving thread sends every QP's latest ACK at the end of its receive burst ({@link #flush()}),
 * or, when an application thread received in poll and deferred them, after that thread's next
 * post ({@code jrdma.deferAcks}): the reply the application sends to a received message then
 * leaves before the ACK of that message.
 *
 * <p>Threads: {@link #schedule} and {@link #flush} run with the device's receive lock held (the
 * list is guarded by it); {@link #pending()} is a hint read without it. {@link #flush()} takes
 * each QP's lock in turn ({@link RxeQp#flushAck()}), never two at once. Allocation-free except
 * when the list grows past its largest size so far.
 */
final class AckCoalescer {
    private static final Logger LOG = LoggerFactory.getLogger(AckCoalescer.class);
    private final Counters counters;
    private RxeQp[] list = new RxeQp[16];
    /** ACKs waiting (written under the receive lock; read without it as a hint). */
    private volatile int count;

    AckCoalescer(Counters counters) {
        this.counters = counters;
    }

    /** Adds {@code qp}, whose responder owes an ACK; under the receive lock, at most once per flush. */
    void schedule(RxeQp qp) {
        int n = count;
        if (n == list.length) {
            list = Arrays.copyOf(list, n * 2);
        }
        list[n] = qp;
        count = n + 1;
    }

    /** Whether ACKs wait (a hint: read without the receive lock). */
    boolean pending() {
        return count != 0;
    }

    /** Sends every waiting ACK; under the receive lock. A QP's error is counted and logged, never thrown. */
    void flush() {
        int n = count;
        if (n == 0) {
            return; // no volatile write on the empty rounds of a polling loop
        }
        for (int i = 0; i < n; i++) {
            RxeQp qp = list[i];
            list[i] = null;
            try {
                qp.flushAck();
            } catch (RuntimeException e) {
                counters.increment(Counters.RCVD_DROP_INTERNAL);
                LOG.debug("error sending a coalesced ACK", e);
            }
        }
        count = 0;
    }
}
