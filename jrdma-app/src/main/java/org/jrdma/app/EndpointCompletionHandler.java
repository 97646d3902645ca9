package org.jrdma.app;

/**
 * What an {@link Endpoint} calls when a work request posted with a handler completes: the callback
 * form of its operations (as {@link java.nio.channels.CompletionHandler} for NIO's asynchronous
 * channels), which allocates nothing per operation in steady state where the future form allocates
 * its {@link java.util.concurrent.CompletableFuture}.
 *
 * <p>Exactly one of the two methods is called, exactly once, per operation that was posted (an
 * operation refused at post with {@link org.jrdma.verbs.VerbsException} EINVAL or ENOMEM is not
 * posted and calls neither): {@link #completed} when its work completion is polled with status
 * SUCCESS; {@link #failed} with {@link WorkRequestException} for an error status, with
 * {@link java.util.concurrent.TimeoutException} when no completion came within
 * {@link EndpointConfig#timeout()}, with {@link EndpointClosedException} when the endpoint closed or
 * broke while it was outstanding or before it was posted. A completion that comes after the
 * operation was failed (a timed-out READ whose answer comes late, a flushed one after
 * {@link Endpoint#close()}) calls nothing.
 *
 * <p>Threads: called by whoever progresses the endpoint (the group's progress thread, or the
 * application in {@link Endpoint#progress()}), by the thread that closes or breaks it, or by the
 * posting thread itself when the endpoint is not connected, with no lock of the endpoint held: a
 * handler may post the next operation, but must not block (it holds up every endpoint of the
 * group) and should not throw (what it throws goes to the thread's uncaught-exception handler and
 * the endpoint goes on).
 *
 * @param <A> the type of the attachment, the caller's per-operation context (may be null)
 */
public interface EndpointCompletionHandler<A> {
    /**
     * The operation completed successfully.
     *
     * @param value for compare-and-swap and fetch-and-add the 8 remote bytes before the operation
     *              (host order); 0 for SEND, WRITE, WRITE with immediate and READ
     * @param attachment what was given at post
     */
    void completed(long value, A attachment);

    /**
     * The operation failed (see the interface comment for the exceptions).
     *
     * @param exc why: {@link WorkRequestException}, {@link java.util.concurrent.TimeoutException} or
     *            {@link EndpointClosedException}
     * @param attachment what was given at post
     */
    void failed(Throwable exc, A attachment);
}
