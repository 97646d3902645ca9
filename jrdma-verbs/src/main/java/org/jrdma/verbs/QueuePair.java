package org.jrdma.verbs;

/**
 * A queue pair, {@code struct ibv_qp} ({@code ibv_create_qp(3)}, {@code ibv_modify_qp(3)},
 * {@code ibv_post_send(3)}, {@code ibv_post_recv(3)}). Posting is thread-safe and allocates nothing:
 * each work request is copied into the queue at post time.
 */
public interface QueuePair extends AutoCloseable {
    /** The QPN, 24 bits. */
    int qpNum();

    /** RC, UC or UD. */
    QpType qpType();

    /** The current state. */
    QpState state();

    /** The protection domain. */
    ProtectionDomain pd();

    /** The send CQ. */
    CompletionQueue sendCq();

    /** The receive CQ. */
    CompletionQueue recvCq();

    /**
     * {@code ibv_modify_qp}: applies the attributes selected by {@code attrMask} and moves to
     * {@code attr.qpState()} when {@link QpAttrMask#STATE} is set. The mask must hold exactly the
     * bits the transition requires and may hold the bits it allows (IBTA Vol 1 §11.2.5.1 table 91;
     * libibverbs {@code ibv_modify_qp(3)}). Moving to ERR flushes every outstanding WR with
     * WR_FLUSH_ERR; moving to RESET empties the queues.
     *
     * @throws VerbsException EINVAL for a transition not allowed from the current state, a missing
     *                        required bit, a bit the transition does not allow, or a value out of range;
     *                        nothing is changed then
     */
    void modify(QpAttr attr, int attrMask);

    /** {@code ibv_query_qp}: fills {@code attr} (every field, whatever the mask). */
    void query(QpAttr attr, int attrMask);

    /**
     * {@code ibv_post_send}: posts a work request (and the chain behind it).
     *
     * @throws VerbsException EINVAL when the QP is in RESET, INIT or RTR, too many SGEs, SGE lengths
     *                        adding up to more than 2^31 bytes, inline data over the limit or an
     *                        opcode the QP type does not allow; ENOMEM when the
     *                        send queue is full. WRs of a chain before the bad one stay posted.
     */
    void postSend(SendWr wr);

    /**
     * {@code ibv_post_recv}: posts a receive work request (and the chain behind it).
     *
     * @throws VerbsException EINVAL in RESET, with too many SGEs or SGE lengths adding up to more than
     *                        2^31 bytes; ENOMEM when the receive queue is full
     */
    void postRecv(RecvWr wr);

    /** {@code ibv_destroy_qp(3)}. */
    @Override
    void close();

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    // ---- issue 11 (cm): connection manager, QP1 ----
}
