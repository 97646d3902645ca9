package org.jrdma.verbs;

import java.lang.foreign.MemorySegment;

/**
 * The extended send API of a queue pair, {@code struct ibv_qp_ex} with its {@code ibv_wr_*}
 * builders ({@code ibv_wr_post(3)}); made by {@link Context#createQpEx} ({@code ibv_create_qp_ex} +
 * {@code ibv_qp_to_qp_ex}). {@link #qp()} is the queue pair itself (modify, query, postRecv, close;
 * {@code postSend} works too).
 *
 * <p>A batch: {@link #wrStart()}, then per work request one builder ({@code wrSend}, {@code wrRdmaWrite},
 * ...: it takes {@link #wrId()} and {@link #wrFlags()} as they are now and starts a new WR) followed by
 * the setters its operation needs ({@link #wrSetSge}, {@link #wrSetSgeList}, {@link #wrSetInlineData},
 * {@link #wrSetInlineDataList}, {@link #wrSetUdAddr}: they complete the WR built last), then
 * {@link #wrComplete()} posts the batch or {@link #wrAbort()} discards it. Nothing is posted before
 * {@code wrComplete}: the send queue, the wire and the CQs see nothing of a batch until then, and then
 * all of its WRs in order, or none.
 *
 * <p>Errors: a builder or setter that fails (an operation not in {@code send_ops_flags}: EOPNOTSUPP;
 * more WRs than max_send_wr: ENOSPC; a setter without a WR, too many SGEs, inline data over
 * max_inline_data, a negative length: EINVAL) only records its errno; later builders of the batch do
 * nothing, and {@code wrComplete} throws {@link VerbsException} with the first errno and posts
 * nothing. {@code wrComplete} also checks the batch as {@code ibv_post_send} checks a WR (QP state,
 * opcode on the QP type, SGEs, inline, atomics; the errnos of {@link QueuePair#postSend}) and
 * fails with ENOSPC when the send queue has no room for all of it. The builders of operations whose
 * feature a provider lacks post through the same send queue and fail there with its errno.
 *
 * <p>Threads: a batch belongs to the thread that called {@code wrStart} until its {@code wrComplete}
 * or {@code wrAbort} (like rxe's send queue lock, a second thread's {@code wrStart} waits for it); a
 * builder, setter, {@code wrComplete} or {@code wrAbort} from any other thread, or without
 * {@code wrStart}, throws EINVAL at once. A thread may poll CQs inside its batch; one that holds a
 * {@link CqEx} poll must not start a batch another thread's poll may wait behind (lock order: batch,
 * then poll). Nothing allocates: a batch's WRs live in objects made with
 * the QP (up to max_send_wr of them), and inline data is copied into the QP's own buffers when the
 * setter is called (the caller's buffer may be reused at once).
 */
public interface QpEx {
    /** The queue pair ({@code qp_ex->qp_base}). */
    QueuePair qp();

    /** The {@link SendOpsFlags} the QP was created with. */
    int sendOpsFlags();

    /** The wr_id the next builder gives its WR ({@code qp_ex->wr_id}). */
    long wrId();

    /** Sets {@code qp_ex->wr_id}. @return this */
    QpEx wrId(long wrId);

    /** The {@link SendFlags} the next builder gives its WR ({@code qp_ex->wr_flags}). */
    int wrFlags();

    /** Sets {@code qp_ex->wr_flags}. @return this */
    QpEx wrFlags(int wrFlags);

    /** {@code ibv_wr_start}: opens a batch. @throws VerbsException EINVAL when this thread has one open */
    void wrStart();

    /** {@code ibv_wr_rdma_write}: RDMA WRITE to {@code remoteAddr}/{@code rkey}; then set the SGEs or inline data. */
    void wrRdmaWrite(int rkey, long remoteAddr);

    /** {@code ibv_wr_rdma_write_imm}: RDMA WRITE with immediate ({@code immData}, host order). */
    void wrRdmaWriteImm(int rkey, long remoteAddr, int immData);

    /** {@code ibv_wr_rdma_read}: RDMA READ of {@code remoteAddr}/{@code rkey} into the SGEs set next. */
    void wrRdmaRead(int rkey, long remoteAddr);

    /** {@code ibv_wr_send}: a SEND of the SGEs or inline data set next. */
    void wrSend();

    /** {@code ibv_wr_send_imm}: SEND with immediate ({@code immData}, host order). */
    void wrSendImm(int immData);

    /** {@code ibv_wr_send_inv}: SEND with Invalidate of the responder's {@code invalidateRkey} (memory windows). */
    void wrSendInv(int invalidateRkey);

    /** {@code ibv_wr_atomic_cmp_swp}: CmpSwap of the 8 bytes at {@code remoteAddr}; the original lands in the 8-byte SGE set next. */
    void wrAtomicCmpSwp(int rkey, long remoteAddr, long compare, long swap);

    /** {@code ibv_wr_atomic_fetch_add}: FetchAdd of {@code add}; the original lands in the 8-byte SGE set next. */
    void wrAtomicFetchAdd(int rkey, long remoteAddr, long add);

    /**
     * {@code ibv_wr_atomic_write}: writes the 8 bytes of {@code value} (host byte order, see
     * {@link SendWr#atomicWriteValue()}) atomically at the 8-byte aligned {@code remoteAddr}
     * (IBTA Vol 1 Annex A19); needs no SGE.
     */
    void wrAtomicWrite(int rkey, long remoteAddr, long value);

    /**
     * {@code ibv_wr_flush}: FLUSH of {@code length} bytes at {@code remoteAddr} (or the whole region,
     * {@code level} {@link SendWr#FLUSH_MR}) for {@code type} {@link SendWr#FLUSH_GLOBAL} and/or
     * {@link SendWr#FLUSH_PERSISTENT} (IBTA Vol 1 Annex A19); needs no SGE.
     */
    void wrFlush(int rkey, long remoteAddr, long length, int type, int level);

    /** {@code ibv_wr_local_inv}: invalidates the local {@code invalidateRkey} (memory windows / fast registration). */
    void wrLocalInv(int invalidateRkey);

    /**
     * {@code ibv_wr_bind_mw}: binds {@code mw} as {@code info} says (copied now) and gives it the key
     * byte of {@code rkey} ({@code ibv_inc_rkey(mw.rkey())}, {@link SendWr#incRkey}); as
     * {@link WrOpcode#BIND_MW} in {@link QueuePair#postSend}: no SGEs (setting some makes
     * {@code wrComplete} fail with EINVAL), a failed bind completes with {@link WcStatus#MW_BIND_ERR}.
     * {@code mw.rkey()} takes the new key when the batch is posted. A null {@code info} is recorded as
     * EINVAL.
     */
    void wrBindMw(MemoryWindow mw, int rkey, MwBindInfo info);

    /** {@code ibv_wr_set_sge}: the WR built last gathers (or, for READ and atomics, scatters) one SGE. */
    void wrSetSge(int lkey, long addr, int length);

    /** {@code ibv_wr_set_sge_list}: the first {@code numSge} entries of {@code sgList} (copied). */
    void wrSetSgeList(int numSge, Sge[] sgList);

    /** {@code ibv_wr_set_inline_data}: the bytes of {@code data}, copied now, as the WR's inline payload. */
    void wrSetInlineData(MemorySegment data);

    /** {@code ibv_wr_set_inline_data_list}: the first {@code numBuf} buffers of {@code bufList}, concatenated and copied now. */
    void wrSetInlineDataList(int numBuf, MemorySegment[] bufList);

    /** {@code ibv_wr_set_ud_addr}: the destination of a UD WR. */
    void wrSetUdAddr(AddressHandle ah, int remoteQpn, int remoteQkey);

    /**
     * {@code ibv_wr_complete}: posts the batch (all of it, in order) and closes it.
     *
     * @throws VerbsException the first errno a builder or setter recorded, or what the send queue
     *     refuses (EINVAL, EOPNOTSUPP as {@link QueuePair#postSend}; ENOSPC without room for the
     *     whole batch); nothing of the batch is posted then, and the batch is closed
     */
    void wrComplete();

    /** {@code ibv_wr_abort}: discards the batch and closes it. */
    void wrAbort();
}
