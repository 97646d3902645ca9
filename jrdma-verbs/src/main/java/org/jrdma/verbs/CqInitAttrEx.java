package org.jrdma.verbs;

/**
 * Extended completion queue creation attributes, {@code struct ibv_cq_init_attr_ex}
 * ({@code ibv_create_cq_ex(3)}). Mutable and reusable.
 */
public final class CqInitAttrEx {
    /** comp_mask: {@link #flags()} is valid ({@code IBV_CQ_INIT_ATTR_MASK_FLAGS}). */
    public static final int MASK_FLAGS = 1;
    /** comp_mask: a parent domain ({@code IBV_CQ_INIT_ATTR_MASK_PD}); not supported (EOPNOTSUPP). */
    public static final int MASK_PD = 1 << 1;
    /** flags: only one thread uses the CQ ({@code IBV_CREATE_CQ_ATTR_SINGLE_THREADED}); a hint, accepted and ignored. */
    public static final int SINGLE_THREADED = 1;
    /** flags: do not treat an overrun as an error ({@code IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN}); not supported (EOPNOTSUPP). */
    public static final int IGNORE_OVERRUN = 1 << 1;

    private int cqe = 1;
    private CompletionChannel channel;
    private int compVector;
    private long wcFlags;
    private int compMask;
    private int flags;

    /** Minimum number of entries, 1..max_cqe. Default 1. */
    public int cqe() {
        return cqe;
    }

    public CqInitAttrEx cqe(int cqe) {
        this.cqe = cqe;
        return this;
    }

    /** The completion channel for events, or null (default). */
    public CompletionChannel channel() {
        return channel;
    }

    public CqInitAttrEx channel(CompletionChannel channel) {
        this.channel = channel;
        return this;
    }

    /** The completion vector, 0..num_comp_vectors-1. Default 0. */
    public int compVector() {
        return compVector;
    }

    public CqInitAttrEx compVector(int compVector) {
        this.compVector = compVector;
        return this;
    }

    /** {@link WcExFlags} bits: the completion fields to provide. Default 0 (wr_id, status, opcode, vendor_err and wc_flags only). */
    public long wcFlags() {
        return wcFlags;
    }

    public CqInitAttrEx wcFlags(long wcFlags) {
        this.wcFlags = wcFlags;
        return this;
    }

    /** Which optional fields are valid: {@code MASK_*} bits. */
    public int compMask() {
        return compMask;
    }

    public CqInitAttrEx compMask(int compMask) {
        this.compMask = compMask;
        return this;
    }

    /** {@code flags}: {@link #SINGLE_THREADED}, {@link #IGNORE_OVERRUN}. */
    public int flags() {
        return flags;
    }

    /** Sets {@code flags} and {@link #MASK_FLAGS}. */
    public CqInitAttrEx flags(int flags) {
        this.flags = flags;
        this.compMask |= MASK_FLAGS;
        return this;
    }
}
