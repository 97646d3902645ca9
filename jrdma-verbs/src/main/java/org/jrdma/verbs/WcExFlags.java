package org.jrdma.verbs;

/**
 * The completion fields an extended CQ is asked to provide, {@code enum ibv_create_cq_wc_flags}
 * (verbs.h; {@code ibv_create_cq_ex(3)}): {@link CqInitAttrEx#wcFlags} requests them, and only the
 * requested ones may be read ({@link CqEx}'s {@code read*} accessors). Combine with {@code |}.
 */
public final class WcExFlags {
    public static final long WITH_BYTE_LEN = 1;
    public static final long WITH_IMM = 1 << 1;
    public static final long WITH_QP_NUM = 1 << 2;
    public static final long WITH_SRC_QP = 1 << 3;
    public static final long WITH_SLID = 1 << 4;
    public static final long WITH_SL = 1 << 5;
    public static final long WITH_DLID_PATH_BITS = 1 << 6;
    /** The completion time on the device's clock ({@link CqEx#readCompletionTs()}). */
    public static final long WITH_COMPLETION_TIMESTAMP = 1 << 7;
    public static final long WITH_CVLAN = 1 << 8;
    public static final long WITH_FLOW_TAG = 1 << 9;
    public static final long WITH_TM_INFO = 1 << 10;
    /** The completion time in ns of the wall clock ({@link CqEx#readCompletionWallclockNs()}). */
    public static final long WITH_COMPLETION_TIMESTAMP_WALLCLOCK = 1 << 11;
    /** {@code IBV_WC_STANDARD_FLAGS}: byte_len, imm, qp_num, src_qp, slid, sl, dlid_path_bits. */
    public static final long STANDARD_FLAGS = WITH_BYTE_LEN | WITH_IMM | WITH_QP_NUM | WITH_SRC_QP | WITH_SLID
            | WITH_SL | WITH_DLID_PATH_BITS;

    private WcExFlags() {
    }
}
