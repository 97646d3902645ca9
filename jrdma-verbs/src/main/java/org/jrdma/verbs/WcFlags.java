package org.jrdma.verbs;

/** Work completion flags, {@code enum ibv_wc_flags} (verbs.h; {@code ibv_poll_cq(3)}). */
public final class WcFlags {
    /** A GRH is present (UD receives). */
    public static final int GRH = 1;
    /** The completion carries immediate data ({@link WorkCompletion#immData()}). */
    public static final int WITH_IMM = 1 << 1;
    public static final int IP_CSUM_OK = 1 << 2;
    /** A SEND_WITH_INV invalidated an rkey ({@link WorkCompletion#invalidatedRkey()}; {@code IBV_WC_WITH_INV}). */
    public static final int WITH_INV = 1 << 3;

    private WcFlags() {
    }
}
