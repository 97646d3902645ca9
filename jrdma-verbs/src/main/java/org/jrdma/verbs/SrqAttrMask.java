package org.jrdma.verbs;

/** The bits of {@code enum ibv_srq_attr_mask} ({@code ibv_modify_srq(3)}), with verbs.h's values. */
public final class SrqAttrMask {
    /** {@code IBV_SRQ_MAX_WR}: resize the SRQ to {@link SrqAttr#maxWr()}. */
    public static final int MAX_WR = 1;
    /** {@code IBV_SRQ_LIMIT}: arm the limit event at {@link SrqAttr#srqLimit()}. */
    public static final int LIMIT = 1 << 1;

    private SrqAttrMask() {
    }
}
