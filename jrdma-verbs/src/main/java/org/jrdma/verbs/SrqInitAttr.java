package org.jrdma.verbs;

/** SRQ creation attributes, {@code struct ibv_srq_init_attr} ({@code ibv_create_srq(3)}). */
public final class SrqInitAttr {
    private final SrqAttr attr = new SrqAttr();

    /** The requested sizes (mutable in place); {@code srq_limit} is ignored at creation, as by libibverbs. */
    public SrqAttr attr() {
        return attr;
    }
}
