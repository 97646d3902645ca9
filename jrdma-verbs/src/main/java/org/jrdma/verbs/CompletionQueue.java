package org.jrdma.verbs;

/**
 * A completion queue, {@code struct ibv_cq} ({@code ibv_create_cq(3)}, {@code ibv_poll_cq(3)}).
 * Polling is thread-safe and allocates nothing: completions are copied into caller-owned,
 * reusable {@link WorkCompletion} objects.
 */
public interface CompletionQueue extends AutoCloseable {
    /** The number of entries the CQ holds (at least what was asked for). */
    int cqe();

    /**
     * {@code ibv_poll_cq}: moves up to {@code wc.length} completions, oldest first, into
     * {@code wc[0..n)}.
     *
     * @return n, the number of completions moved (0 when the CQ is empty)
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
     * Completions that did not fit because the CQ was full (IBTA: CQ overrun, an asynchronous error
     * that moves the QPs to ERR). 0 in a correctly sized program.
     */
    long overruns();

    /** {@code ibv_destroy_cq(3)}. @throws VerbsException EBUSY while a QP still uses it */
    @Override
    void close();
}
