package org.jrdma.verbs;

/**
 * A completion queue, {@code struct ibv_cq} ({@code ibv_create_cq(3)}, {@code ibv_poll_cq(3)}).
 * Polling is thread-safe and allocates nothing: completions are copied into caller-owned,
 * reusable {@link WorkCompletion} objects.
 *
 * <p>Overrun: a CQ must be large enough for every completion its QPs can have outstanding. A
 * completion that finds the CQ full is not stored, and CQ overrun is an error (IBTA Vol 1
 * chapter 11): the CQ enters its error state for good, it stores no further completion (each is
 * counted in {@link #overruns()}), and the QPs that complete to it move to ERR (their outstanding
 * WRs are flushed; those flush completions are lost too, and counted). {@link #poll} still
 * returns the completions the CQ holds, then throws {@link VerbsException} EIO (where
 * {@code ibv_poll_cq} returns a negative value). The asynchronous events
 * ({@code IBV_EVENT_CQ_ERR}, {@code IBV_EVENT_QP_FATAL}) come with the async-event API.
 */
public interface CompletionQueue extends AutoCloseable {
    /** The number of entries the CQ holds (at least what was asked for). */
    int cqe();

    /**
     * {@code ibv_poll_cq}: moves up to {@code wc.length} completions, oldest first, into
     * {@code wc[0..n)}.
     *
     * @return n, the number of completions moved (0 when the CQ is empty)
     * @throws VerbsException EIO when the CQ is empty and in error after an overrun
     */
    int poll(WorkCompletion[] wc);

    /** Like {@link #poll(WorkCompletion[])} with at most {@code max} completions. */
    int poll(WorkCompletion[] wc, int max);

    /**
     * {@code ibv_req_notify_cq}: arms the CQ once. The next completion (with {@code solicitedOnly}, the
     * next receive completion of a solicited message or any error completion) raises one event on
     * the completion channel.
     *
     * @throws VerbsException EINVAL when the CQ has no completion channel
     */
    void reqNotify(boolean solicitedOnly);

    /** {@code ibv_ack_cq_events}: acknowledges {@code n} events taken from the channel. */
    void ackEvents(int n);

    /** The completion channel, or null. */
    CompletionChannel channel();

    /**
     * Completions that were not stored because the CQ was full or, after that, in error (IBTA: CQ
     * overrun; see the class comment). 0 in a correctly sized program.
     */
    long overruns();

    /** {@code ibv_destroy_cq(3)}. @throws VerbsException EBUSY while a QP still uses it */
    @Override
    void close();

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    /**
     * {@code ibv_resize_cq(3)}: makes the CQ hold at least {@code cqe} entries, larger or smaller.
     * The completions in it stay, in order; {@link #cqe()} gives the new size afterwards. Any
     * thread; posts and polls that race it wait for it (it holds the CQ's lock while it copies).
     *
     * @param cqe 1..{@link DeviceAttr#maxCqe()}, and at least the number of completions in the CQ
     * @throws VerbsException EINVAL when cqe is below 1, above max_cqe, or below the number of
     *                        completions the CQ holds (rdma_rxe's {@code rxe_cq_chk_attr})
     */
    void resize(int cqe);

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    // ---- issue 11 (cm): connection manager, QP1 ----
}
