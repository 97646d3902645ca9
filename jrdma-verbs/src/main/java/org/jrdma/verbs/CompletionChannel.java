package org.jrdma.verbs;

import java.util.concurrent.TimeUnit;

/**
 * A completion event channel, {@code struct ibv_comp_channel} ({@code ibv_create_comp_channel(3)},
 * {@code ibv_get_cq_event(3)}). A CQ armed with {@link CompletionQueue#reqNotify(boolean)} delivers
 * one event here when its next (solicited) completion arrives.
 */
public interface CompletionChannel extends AutoCloseable {
    /**
     * Blocks until a CQ event arrives: {@code ibv_get_cq_event}. Every event must later be
     * acknowledged with {@link CompletionQueue#ackEvents(int)}.
     *
     * @return the CQ that fired
     * @throws InterruptedException if interrupted while waiting
     */
    CompletionQueue getEvent() throws InterruptedException;

    /**
     * Like {@link #getEvent()} with a time limit.
     *
     * @return the CQ that fired, or null when the time ran out
     */
    CompletionQueue getEvent(long timeout, TimeUnit unit) throws InterruptedException;

    /** {@code ibv_destroy_comp_channel(3)}. @throws VerbsException EBUSY while a CQ still uses it */
    @Override
    void close();
}
