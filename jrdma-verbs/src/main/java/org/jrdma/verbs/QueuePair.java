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

    /**
     * {@code ibv_bind_mw(3)}: binds a type 1 window by posting a {@link WrOpcode#BIND_MW} work request
     * with {@code bind}'s wr_id and send flags and the window's next rkey ({@link SendWr#incRkey}), and
     * sets {@link MemoryWindow#rkey()} to it. The bind executes in order with the QP's other work
     * requests; its completion (when SIGNALED, or on error) has opcode {@link WcOpcode#BIND_MW}, status
     * SUCCESS or {@link WcStatus#MW_BIND_ERR} (see {@link MwBindInfo}); an error moves the QP to ERR.
     *
     * @return the window's new rkey
     * @throws VerbsException EINVAL for a type 2 window, a window or region of another device, no region
     *     but an address or length, ZERO_BASED rights, or as {@link #postSend} (QP state, UD QP);
     *     EPERM when the region's PD is not the window's; ENOMEM when the send queue is full;
     *     EOPNOTSUPP where the provider has no memory windows
     */
    default int bindMw(MemoryWindow mw, MwBind bind) {
        throw new VerbsException(Errno.EOPNOTSUPP, "memory windows are not supported by this provider");
    }

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    // ---- issue 11 (cm): connection manager, QP1 ----
}
