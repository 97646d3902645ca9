package org.jrdma.verbs;

/**
 * SRQ attributes, {@code struct ibv_srq_attr} ({@code ibv_create_srq(3)}, {@code ibv_modify_srq(3)},
 * {@code ibv_query_srq(3)}). Mutable and reusable.
 */
public final class SrqAttr {
    private int maxWr;
    private int maxSge;
    private int srqLimit;

    /** The number of outstanding receive WRs the SRQ holds (create: at least; query: the actual number). */
    public int maxWr() {
        return maxWr;
    }

    public SrqAttr maxWr(int v) {
        maxWr = v;
        return this;
    }

    /** The scatter/gather entries per receive WR (create: at least; query: the actual number). */
    public int maxSge() {
        return maxSge;
    }

    public SrqAttr maxSge(int v) {
        maxSge = v;
        return this;
    }

    /**
     * The limit: when armed (non-zero) and the number of WQEs in the SRQ drops below it, the SRQ
     * raises {@link AsyncEventType#SRQ_LIMIT_REACHED} once and disarms (query then gives 0). Ignored
     * by {@code ibv_create_srq} (the SRQ starts disarmed).
     */
    public int srqLimit() {
        return srqLimit;
    }

    public SrqAttr srqLimit(int v) {
        srqLimit = v;
        return this;
    }
}
