package org.jrdma.verbs;

/**
 * A shared receive queue, {@code struct ibv_srq} ({@code ibv_create_srq(3)}): receive WRs that any
 * QP created on it ({@link QpInitAttr#srq(SharedReceiveQueue)}) consumes for its incoming SENDs and
 * RDMA WRITEs with immediate, in the order they were posted. A QP takes a WQE from the SRQ when a
 * message that needs one starts arriving; the completion goes to that QP's receive CQ, with its QPN.
 * An SRQ's WQEs are not flushed when one of its QPs enters ERR (IBTA Vol 1 §10.2.9.5): the QP raises
 * {@link AsyncEventType#QP_LAST_WQE_REACHED} instead, and only a WQE it had already taken completes
 * with WR_FLUSH_ERR. The lkeys of its WRs are checked against the SRQ's PD.
 *
 * <p>Thread-safe: posting, modify and query serialize on the SRQ; posting allocates nothing.
 */
public interface SharedReceiveQueue extends AutoCloseable {
    /** The protection domain the SRQ was created in. */
    ProtectionDomain pd();

    /**
     * {@code ibv_modify_srq(3)}: {@link SrqAttrMask#MAX_WR} resizes the SRQ (where the provider can;
     * the WQEs in it are kept), {@link SrqAttrMask#LIMIT} arms the limit event at
     * {@code attr.srqLimit()} (0 disarms).
     *
     * @throws VerbsException EINVAL for a mask with other bits, max_wr not in 1..max_srq_wr, max_wr
     *                        below the armed limit or the WQEs now in the SRQ, srq_limit above the
     *                        SRQ's size; EOPNOTSUPP for MAX_WR where the provider cannot resize
     */
    void modify(SrqAttr attr, int attrMask);

    /** {@code ibv_query_srq(3)}: fills {@code attr} with max_wr, max_sge and the armed limit (0 when disarmed). */
    void query(SrqAttr attr);

    /**
     * {@code ibv_post_srq_recv(3)}: posts a receive work request (and the chain behind it). WRs of
     * the chain before a refused one stay posted.
     *
     * @throws VerbsException EINVAL for more SGEs than max_sge or SGE lengths adding up to more
     *                        than 2^31 bytes; ENOMEM when max_wr WRs are in the SRQ
     */
    void postSrqRecv(RecvWr wr);

    /** {@code ibv_destroy_srq(3)}. @throws VerbsException EBUSY while a QP still uses it or its events are not acknowledged */
    @Override
    void close();
}
