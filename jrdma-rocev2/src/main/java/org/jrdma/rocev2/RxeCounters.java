package org.jrdma.rocev2;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The counters of one software RoCE v2 device, named as Linux rdma_rxe names its hw_counters
 * ({@code /sys/class/infiniband/rxe0/ports/1/hw_counters/}) where it has one, plus jrdma's drop
 * reasons. Increments are atomic and allocation-free.
 */
public final class RxeCounters {
    /** Counter ids; {@link #NAMES} holds their names. */
    public static final int SENT_PKTS = 0, RCVD_PKTS = 1, DUPLICATE_REQUEST = 2, OUT_OF_SEQ_REQUEST = 3,
            RCVD_RNR_ERR = 4, SEND_RNR_ERR = 5, RCVD_SEQ_ERR = 6, COMPLETER_RETRY_ERR = 7, RETRY_EXCEEDED_ERR = 8,
            SEND_ERR = 9, RDMA_SENDS = 10, RDMA_RECVS = 11, DROP_ICRC = 12, DROP_MALFORMED = 13,
            DROP_UNKNOWN_QPN = 14, DROP_QP_STATE = 15, DROP_WRONG_PEER = 16, DROP_UNEXPECTED_RESPONSE = 17,
            DROP_INTERNAL = 18, RESPONDER_ERR = 19, RECV_DROPPED = 20, DROP_OUT_OF_SEQ_RESPONSE = 21, RETRANSMITS = 22;
    /** The names, indexed by id. */
    public static final String[] NAMES = {"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request",
        "rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "completer_retry_err", "retry_exceeded_err", "send_err",
        "rdma_sends", "rdma_recvs", "drop_icrc", "drop_malformed", "drop_unknown_qpn", "drop_qp_state",
        "drop_wrong_peer", "drop_unexpected_response", "drop_internal", "responder_err", "recv_dropped",
        "drop_out_of_seq_response", "retransmits"};

    private final AtomicLongArray values = new AtomicLongArray(NAMES.length);

    /** Adds one to counter {@code id}. */
    public void inc(int id) {
        values.getAndIncrement(id);
    }

    /** The value of counter {@code id}. */
    public long get(int id) {
        return values.get(id);
    }

    /** The value of the counter named {@code name}. @throws IllegalArgumentException for an unknown name */
    public long get(String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equals(name)) {
                return values.get(i);
            }
        }
        throw new IllegalArgumentException("no counter " + name);
    }

    /** A snapshot, name → value, in id order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < NAMES.length; i++) {
            m.put(NAMES[i], values.get(i));
        }
        return m;
    }

    // named increments used by the transport
    public void duplicateRequest() {
        inc(DUPLICATE_REQUEST);
    }

    public void outOfSequenceRequest() {
        inc(OUT_OF_SEQ_REQUEST);
    }

    public void sendRnrNak() {
        inc(SEND_RNR_ERR);
    }

    public void unexpectedResponse() {
        inc(DROP_UNEXPECTED_RESPONSE);
    }

    public void outOfSequenceResponse() {
        inc(DROP_OUT_OF_SEQ_RESPONSE);
    }

    public void responderError() {
        inc(RESPONDER_ERR);
    }

    public void receiveDropped() {
        inc(RECV_DROPPED);
    }
}
