package org.jrdma.rocev2.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

import org.jrdma.rocev2.wire.DropReason;
import org.jrdma.verbs.ext.HardwareCounters;

/**
 * Per-device packet and error counters: one {@code long[]} indexed by counter id, with names. The first
 * 15 are Linux rxe's hw_counters with its names ({@code drivers/infiniband/sw/rxe/rxe_hw_counters.c},
 * shown under {@code /sys/class/infiniband/rxe0/ports/1/hw_counters/}); then one counter per
 * {@link DropReason}, named {@code rcvd_drop_<reason>}, which rxe does not have (it drops silently).
 *
 * <p>After the drop reasons come the transport's own counters ({@link #RCVD_DROP_UNKNOWN_QPN} ...), then
 * QP1's ({@code gsi_*}: MADs sent, delivered, resent, timed out, answered as unsupported, and dropped by
 * reason; {@link #GSI_SENT_MADS} ...), then DCQCN's with mlx5's names ({@code np_ecn_marked_roce_packets},
 * {@code np_cnp_sent}, {@code rp_cnp_handled}, {@code rp_cnp_ignored}).
 *
 * <p>Writers: {@link #increment} and {@link #add} are a plain read plus an opaque write, correct for a
 * single writing thread per counter (the I/O thread); {@link #incrementAtomic} and {@link #addAtomic}
 * are for counters several threads write (sent_pkts, send_err, retransmits). Readers on any thread use {@link #get} / {@link #snapshot} (opaque reads: each value is an exact
 * count at some recent moment; the set is not a consistent snapshot). Nothing allocates after
 * construction.
 *
 * <p>Applications read them through the verbs API as the device's {@link HardwareCounters}
 * ({@code ctx.extension(HardwareCounters.class)}): {@link #names()} in id order, the names
 * {@code jrdma stat} shows.
 */
public final class Counters implements HardwareCounters {
    /** rxe hw_counter "sent_pkts". */
    public static final int SENT_PKTS = 0;
    /** rxe hw_counter "rcvd_pkts". */
    public static final int RCVD_PKTS = 1;
    /** rxe hw_counter "duplicate_request". */
    public static final int DUPLICATE_REQUEST = 2;
    /** rxe hw_counter "out_of_seq_request". */
    public static final int OUT_OF_SEQ_REQUEST = 3;
    /** rxe hw_counter "rcvd_rnr_err". */
    public static final int RCVD_RNR_ERR = 4;
    /** rxe hw_counter "send_rnr_err". */
    public static final int SEND_RNR_ERR = 5;
    /** rxe hw_counter "rcvd_seq_err". */
    public static final int RCVD_SEQ_ERR = 6;
    /** rxe hw_counter "ack_deferred". */
    public static final int ACK_DEFERRED = 7;
    /** rxe hw_counter "retry_exceeded_err". */
    public static final int RETRY_EXCEEDED_ERR = 8;
    /** rxe hw_counter "retry_rnr_exceeded_err". */
    public static final int RETRY_RNR_EXCEEDED_ERR = 9;
    /** rxe hw_counter "completer_retry_err". */
    public static final int COMPLETER_RETRY_ERR = 10;
    /** rxe hw_counter "send_err". */
    public static final int SEND_ERR = 11;
    /** rxe hw_counter "link_downed". */
    public static final int LINK_DOWNED = 12;
    /** rxe hw_counter "rdma_sends". */
    public static final int RDMA_SENDS = 13;
    /** rxe hw_counter "rdma_recvs". */
    public static final int RDMA_RECVS = 14;
    /** Id of the drop counter of {@link DropReason} r is {@code RCVD_DROP_BASE + r} (r = 1..). */
    public static final int RCVD_DROP_BASE = 15;
    /** Transport drop: no QP with the destination QPN. */
    public static final int RCVD_DROP_UNKNOWN_QPN = RCVD_DROP_BASE + DropReason.COUNT;
    /** Transport drop: the QP is not in a state that receives (RESET, INIT, ERR...). */
    public static final int RCVD_DROP_QP_STATE = RCVD_DROP_UNKNOWN_QPN + 1;
    /** Transport drop: an RC/UC packet from an address other than the QP's connected peer. */
    public static final int RCVD_DROP_WRONG_PEER = RCVD_DROP_UNKNOWN_QPN + 2;
    /** Transport drop: a response (ACK, READ response, atomic ACK) matching no outstanding request (e.g. a duplicate). */
    public static final int RCVD_DROP_UNEXPECTED_RESPONSE = RCVD_DROP_UNKNOWN_QPN + 3;
    /** Transport drop: a READ response out of PSN order. */
    public static final int RCVD_DROP_OUT_OF_SEQ_RESPONSE = RCVD_DROP_UNKNOWN_QPN + 4;
    /** Transport drop: an internal error while handling a packet (e.g. its memory was freed meanwhile). */
    public static final int RCVD_DROP_INTERNAL = RCVD_DROP_UNKNOWN_QPN + 5;
    /** Requests the responder refused with a NAK (invalid request, remote access or operational error). */
    public static final int RESP_NAK_ERR = RCVD_DROP_UNKNOWN_QPN + 6;
    /** UC messages dropped because no receive WQE was posted. */
    public static final int RCVD_DROP_NO_RECV_WQE = RCVD_DROP_UNKNOWN_QPN + 7;
    /** Go-back-N retransmissions started by the requester (timeouts and PSN sequence NAKs). */
    public static final int RETRANSMITS = RCVD_DROP_UNKNOWN_QPN + 8;
    /** Transport drop: a UD packet whose Q_Key is not the QP's. */
    public static final int RCVD_DROP_BAD_QKEY = RETRANSMITS + 1;
    /** Transport drop: a packet whose P_Key does not match the port's P_Key table (0xFFFF). */
    public static final int RCVD_DROP_BAD_PKEY = RCVD_DROP_BAD_QKEY + 1;
    /** Transport drop: an opcode of another transport than the QP's (e.g. a UC opcode for an RC QP). */
    public static final int RCVD_DROP_WRONG_TRANSPORT = RCVD_DROP_BAD_QKEY + 2;
    /** QP1 (GSI): MADs sent, first sends and resends, answers included (issue 11). */
    public static final int GSI_SENT_MADS = RCVD_DROP_WRONG_TRANSPORT + 1;
    /** QP1: MADs delivered to an agent. */
    public static final int GSI_RCVD_MADS = GSI_SENT_MADS + 1;
    /** QP1: requests sent again after their time per try passed without an answer. */
    public static final int GSI_RESENT_MADS = GSI_SENT_MADS + 2;
    /** QP1: requests that got no answer within their retries (the agent's {@code sendFailed}). */
    public static final int GSI_SEND_TIMEOUTS = GSI_SENT_MADS + 3;
    /** QP1: Gets and Sets no agent serves, answered with a GetResp of status 0x000C as Linux. */
    public static final int GSI_UNSUPPORTED_ANSWERS = GSI_SENT_MADS + 4;
    /** QP1 drop: not a UD SEND Only. */
    public static final int GSI_DROP_BAD_OPCODE = GSI_SENT_MADS + 5;
    /** QP1 drop: a payload other than one 256-byte MAD. */
    public static final int GSI_DROP_BAD_LENGTH = GSI_SENT_MADS + 6;
    /** QP1 drop: a DETH Q_Key other than 0x80010000. */
    public static final int GSI_DROP_BAD_QKEY = GSI_SENT_MADS + 7;
    /** QP1 drop: a MAD base version other than 1. */
    public static final int GSI_DROP_BAD_BASE_VERSION = GSI_SENT_MADS + 8;
    /** QP1 drop: a subnet management class (0x01, 0x81), which belongs to QP0. */
    public static final int GSI_DROP_SMI_CLASS = GSI_SENT_MADS + 9;
    /** QP1 drop: a CM MAD other than ClassPortInfo whose method is not Send (Linux's validate_mad). */
    public static final int GSI_DROP_BAD_CM_METHOD = GSI_SENT_MADS + 10;
    /** QP1 drop: a response matching no outstanding request (TID, class, peer). */
    public static final int GSI_DROP_UNSOLICITED = GSI_SENT_MADS + 11;
    /** QP1 drop: a request of a method other than Get/Set that no agent serves. */
    public static final int GSI_DROP_NO_AGENT = GSI_SENT_MADS + 12;
    /** QP1 drop: an agent's handler threw (the MAD is lost to it; the loop goes on). */
    public static final int GSI_DROP_HANDLER_ERROR = GSI_SENT_MADS + 13;
    /** QP1 drop: a datagram for QPN 1 in a process that does not own QP1 (slot 0) of the device. */
    public static final int GSI_DROP_NOT_OWNER = GSI_SENT_MADS + 14;
    /**
     * Tail-loss probes (issue 14): the requester sent its last packet again because no response came
     * for a few round trips, before the ACK timer.
     */
    public static final int TAIL_LOSS_PROBES = GSI_DROP_NOT_OWNER + 1;
    /**
     * DCQCN notification point (mlx5's name): RoCE packets received for an RC/UC QP with ECN-CE in
     * their IP header.
     */
    public static final int NP_ECN_MARKED_ROCE_PACKETS = TAIL_LOSS_PROBES + 1;
    /** DCQCN notification point (mlx5's name): CNPs sent in answer to CE-marked packets. */
    public static final int NP_CNP_SENT = NP_ECN_MARKED_ROCE_PACKETS + 1;
    /** DCQCN reaction point (mlx5's name): CNPs received that the QP's rate limiter took. */
    public static final int RP_CNP_HANDLED = NP_ECN_MARKED_ROCE_PACKETS + 2;
    /**
     * DCQCN reaction point (mlx5's name): CNPs received and ignored: DCQCN off on the device, for a
     * QP that does not send (not RTS or SQD), or for a UD QP.
     */
    public static final int RP_CNP_IGNORED = NP_ECN_MARKED_ROCE_PACKETS + 3;
    /** Number of counters. */
    public static final int COUNT = RP_CNP_IGNORED + 1;

    private static final String[] NAMES = new String[COUNT];
    private static final VarHandle AA = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        String[] rxe = {"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err",
            "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err", "retry_rnr_exceeded_err",
            "completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs"};
        System.arraycopy(rxe, 0, NAMES, 0, rxe.length);
        for (int r = 0; r < DropReason.COUNT; r++) {
            NAMES[RCVD_DROP_BASE + r] = "rcvd_drop_" + DropReason.name(r);
        }
        String[] transport = {"rcvd_drop_unknown_qpn", "rcvd_drop_qp_state", "rcvd_drop_wrong_peer",
            "rcvd_drop_unexpected_response", "rcvd_drop_out_of_seq_response", "rcvd_drop_internal", "resp_nak_err",
            "rcvd_drop_no_recv_wqe", "retransmits", "rcvd_drop_bad_qkey", "rcvd_drop_bad_pkey",
            "rcvd_drop_wrong_transport"};
        System.arraycopy(transport, 0, NAMES, RCVD_DROP_UNKNOWN_QPN, transport.length);
        String[] gsi = {"gsi_sent_mads", "gsi_rcvd_mads", "gsi_resent_mads", "gsi_send_timeouts",
            "gsi_unsupported_answers", "gsi_drop_bad_opcode", "gsi_drop_bad_length", "gsi_drop_bad_qkey",
            "gsi_drop_bad_base_version", "gsi_drop_smi_class", "gsi_drop_bad_cm_method", "gsi_drop_unsolicited",
            "gsi_drop_no_agent", "gsi_drop_handler_error", "gsi_drop_not_owner"};
        System.arraycopy(gsi, 0, NAMES, GSI_SENT_MADS, gsi.length);
        NAMES[TAIL_LOSS_PROBES] = "tail_loss_probes";
        NAMES[NP_ECN_MARKED_ROCE_PACKETS] = "np_ecn_marked_roce_packets";
        NAMES[NP_CNP_SENT] = "np_cnp_sent";
        NAMES[RP_CNP_HANDLED] = "rp_cnp_handled";
        NAMES[RP_CNP_IGNORED] = "rp_cnp_ignored";
    }

    private static final List<String> NAME_LIST;

    static {
        NAME_LIST = List.of(NAMES);
    }

    private final long[] values = new long[COUNT];

    /** Every counter name in id order: rxe's 15 hw_counters first, then jrdma's. */
    @Override
    public List<String> names() {
        return NAME_LIST;
    }

    /** The name of counter {@code id} ("rcvd_pkts", "rcvd_drop_bad_icrc"), or null outside 0..COUNT-1. */
    public static String name(int id) {
        return id >= 0 && id < COUNT ? NAMES[id] : null;
    }

    /** The id of the counter named {@code name}, or -1. */
    public static int id(String name) {
        for (int i = 0; i < COUNT; i++) {
            if (NAMES[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** Adds 1 to counter {@code id} (single writer). @throws ArrayIndexOutOfBoundsException for a bad id */
    public void increment(int id) {
        AA.setOpaque(values, id, (long) AA.getOpaque(values, id) + 1);
    }

    /** Adds {@code n} to counter {@code id} (single writer). */
    public void add(int id, long n) {
        AA.setOpaque(values, id, (long) AA.getOpaque(values, id) + n);
    }

    /** Adds {@code n} to counter {@code id} atomically (any number of writers). */
    public void addAtomic(int id, long n) {
        AA.getAndAdd(values, id, n);
    }

    /** Counts a packet dropped for {@code reason} ({@link DropReason}); {@link DropReason#OK} or unknown: no-op. */
    public void drop(int reason) {
        if (reason > 0 && reason < DropReason.COUNT) {
            increment(RCVD_DROP_BASE + reason);
        }
    }

    /** The current value of counter {@code id}. @throws IndexOutOfBoundsException outside 0..COUNT-1 */
    @Override
    public long get(int id) {
        return (long) AA.getOpaque(values, id);
    }

    /** Adds 1 to counter {@code id} atomically (any number of writers). */
    public void incrementAtomic(int id) {
        AA.getAndAdd(values, id, 1L);
    }

    /** The counters as name → value, in id order (control path). */
    public java.util.Map<String, Long> toMap() {
        java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < COUNT; i++) {
            m.put(NAMES[i], get(i));
        }
        return m;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < COUNT; i++) {
            long v = get(i);
            if (v != 0) {
                sb.append(sb.length() > 1 ? ", " : "").append(NAMES[i]).append('=').append(v);
            }
        }
        return sb.append('}').toString();
    }

    /** Copies all counters into {@code into[0, COUNT)}. */
    @Override
    public void snapshot(long[] into) {
        for (int i = 0; i < COUNT; i++) {
            into[i] = (long) AA.getOpaque(values, i);
        }
    }
}
