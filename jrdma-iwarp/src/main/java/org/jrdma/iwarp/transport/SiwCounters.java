package org.jrdma.iwarp.transport;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jrdma.iwarp.wire.TerminateCodes;
import org.jrdma.verbs.ext.HardwareCounters;

/**
 * The counters of one open iWARP device, read through {@link HardwareCounters}
 * ({@code ctx.extension(HardwareCounters.class)}, {@code jrdma stat}). Linux siw has no hw_counters
 * (it registers no {@code alloc_hw_port_stats}), so no name here is siw's; they follow rxe's style
 * ({@code sent_*}, {@code rcvd_*}, {@code rcvd_drop_*}).
 *
 * <p>The first block counts traffic and the connection handshake. Then comes one counter per cause
 * of a Terminate this device sent ({@code term_<layer>_<error>}: RFC 5040 §7, RFC 5041 §7, RFC 5044
 * §8, the codes siw sends for each check): every FPDU refused, whatever the reason, ends the
 * connection with exactly one Terminate, so these are also jrdma's drop reasons. {@code term_other}
 * counts a code outside the table (none today).
 *
 * <p>Writers on any thread (the I/O thread receives, posting threads transmit): atomic increments
 * on an {@link AtomicLongArray}, which allocate nothing. Readers on any thread; each value is exact
 * at some recent moment, the set is not a snapshot.
 */
public final class SiwCounters implements HardwareCounters {
    /** FPDUs handed to TCP. */
    public static final int SENT_FPDUS = 0;
    /** Whole FPDUs received (CRC checked when negotiated), before the DDP/RDMAP checks. */
    public static final int RCVD_FPDUS = 1;
    /** Terminate messages sent. */
    public static final int SENT_TERMINATES = 2;
    /** Terminate messages received (the QP went to ERR). */
    public static final int RCVD_TERMINATES = 3;
    /** MPA replies sent with the Reject bit (a bad request or {@code rdma_reject}). */
    public static final int MPA_REJECTS_SENT = 4;
    /** MPA replies received with the Reject bit. */
    public static final int MPA_REJECTS_RCVD = 5;
    /** MPA request or reply frames refused without an answer (bad key, revision above 2, too much private data, extra bytes): the TCP connection was closed. */
    public static final int RCVD_DROP_MPA_FRAME = 6;
    /** Zero-length RDMA WRITEs or READs sent as MPA peer-to-peer RTR frames (RFC 6581 §4). */
    public static final int SENT_RTR = 7;
    /** The first Terminate cause counter; see {@link #terminate}. */
    public static final int TERM_BASE = 8;

    private static final String[] BASE_NAMES = {
        "sent_fpdus", "rcvd_fpdus", "sent_terminates", "rcvd_terminates", "mpa_rejects_sent", "mpa_rejects_rcvd",
        "rcvd_drop_mpa_frame", "sent_rtr"};

    /** Terminate causes: layer, error type, error code, counter name. */
    private static final Object[][] CAUSES = {
        {TerminateCodes.LAYER_LLP, TerminateCodes.LLP_ETYPE_MPA, TerminateCodes.LLP_RECEIVED_CRC, "term_llp_crc_error"},
        {TerminateCodes.LAYER_LLP, TerminateCodes.LLP_ETYPE_MPA, TerminateCodes.LLP_INVALID_REQ_RESP, "term_llp_invalid_req_resp"},
        {TerminateCodes.LAYER_LLP, TerminateCodes.LLP_ETYPE_MPA, TerminateCodes.LLP_INSUFFICIENT_IRD, "term_llp_insufficient_ird"},
        {TerminateCodes.LAYER_LLP, TerminateCodes.LLP_ETYPE_MPA, TerminateCodes.LLP_NO_MATCHING_RTR, "term_llp_no_matching_rtr"},
        {TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC, TerminateCodes.DDP_CATASTROPHIC, "term_ddp_catastrophic"},
        {TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF, TerminateCodes.DDP_T_INVALID_STAG, "term_ddp_t_invalid_stag"},
        {TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF, TerminateCodes.DDP_T_BASE_BOUNDS, "term_ddp_t_base_bounds"},
        {TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF, TerminateCodes.DDP_T_STAG_NOT_ASSOC, "term_ddp_t_stag_not_assoc"},
        {TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF, TerminateCodes.DDP_T_VERSION, "term_ddp_t_version"},
        {TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_INVALID_QN, "term_ddp_ut_invalid_qn"},
        {TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_INVALID_MSN_NOBUF, "term_ddp_ut_no_buffer"},
        {TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_INVALID_MSN_RANGE, "term_ddp_ut_msn_range"},
        {TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_INVALID_MO, "term_ddp_ut_invalid_mo"},
        {TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_MSG_TOOLONG, "term_ddp_ut_msg_too_long"},
        {TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_VERSION, "term_ddp_ut_version"},
        {TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION, TerminateCodes.RDMAP_INVALID_STAG, "term_rdmap_invalid_stag"},
        {TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION, TerminateCodes.RDMAP_BASE_BOUNDS, "term_rdmap_base_bounds"},
        {TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION, TerminateCodes.RDMAP_ACCESS_RIGHTS, "term_rdmap_access_rights"},
        {TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION, TerminateCodes.RDMAP_STAG_NOT_ASSOC, "term_rdmap_stag_not_assoc"},
        {TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION, TerminateCodes.RDMAP_CANNOT_INVALIDATE, "term_rdmap_cannot_invalidate"},
        {TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION, TerminateCodes.RDMAP_VERSION, "term_rdmap_version"},
        {TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION, TerminateCodes.RDMAP_OPCODE, "term_rdmap_opcode"},
        {TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION, TerminateCodes.RDMAP_CATASTROPHIC_STREAM, "term_rdmap_catastrophic_stream"},
        {TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_CATASTROPHIC, TerminateCodes.RDMAP_UNSPECIFIED, "term_rdmap_catastrophic"},
    };
    private static final int[] CAUSE_KEYS = new int[CAUSES.length];
    /** Index of {@code term_other}. */
    public static final int TERM_OTHER = TERM_BASE + CAUSES.length;
    private static final List<String> NAMES;

    static {
        List<String> n = new ArrayList<>(List.of(BASE_NAMES));
        for (int i = 0; i < CAUSES.length; i++) {
            CAUSE_KEYS[i] = key((Integer) CAUSES[i][0], (Integer) CAUSES[i][1], (Integer) CAUSES[i][2]);
            n.add((String) CAUSES[i][3]);
        }
        n.add("term_other");
        NAMES = Collections.unmodifiableList(n);
    }

    private final AtomicLongArray values = new AtomicLongArray(NAMES.size());

    private static int key(int layer, int etype, int code) {
        return (layer & 0xf) << 12 | (etype & 0xf) << 8 | (code & 0xff);
    }

    /** The counter of a Terminate with these codes ({@link #TERM_OTHER} outside the table). */
    public static int terminate(int layer, int etype, int code) {
        int k = key(layer, etype, code);
        for (int i = 0; i < CAUSE_KEYS.length; i++) {
            if (CAUSE_KEYS[i] == k) {
                return TERM_BASE + i;
            }
        }
        return TERM_OTHER;
    }

    /** Adds one to counter {@code index} (any thread). */
    public void increment(int index) {
        values.getAndIncrement(index);
    }

    /** Counts a Terminate sent with these codes: {@code sent_terminates} and its cause (any thread). */
    void terminateSent(int layer, int etype, int code) {
        values.getAndIncrement(SENT_TERMINATES);
        values.getAndIncrement(terminate(layer, etype, code));
    }

    @Override
    public List<String> names() {
        return NAMES;
    }

    @Override
    public long get(int index) {
        return values.get(index);
    }
}
