package org.jrdma.app;

/**
 * What an {@link Endpoint} calls for a receive posted with a handler
 * ({@link Endpoint#receive(Object, EndpointReceiveHandler)}): the callback form of
 * {@link Endpoint#receive()}, which allocates nothing per message in steady state where the future
 * form allocates its {@link java.util.concurrent.CompletableFuture}, a {@link Received} and a fresh
 * pool {@link org.jrdma.pool.Lease} for the receive buffer it gives away.
 *
 * <p>Exactly one of the two methods is called, exactly once, per {@code receive} call that did not
 * throw: {@link #received} with the next message (receives are served in the order they were made,
 * messages in the order they arrived); {@link #failed} with
 * {@link java.util.concurrent.TimeoutException} when no message came within the receive's timeout
 * (the endpoint stays connected, and the receive takes no message), or with
 * {@link EndpointClosedException} when the endpoint closed or broke before a message came (in the
 * calling thread, before {@code receive} returns, when it was already broken or closed and no message
 * was waiting).
 *
 * <p>The message is a {@link ReceivedView}, a view of the endpoint's own posted receive buffer, valid
 * while {@link #received} runs: when it returns the buffer is posted again for the next message, unless
 * the handler called {@link ReceivedView#retain()} (then it stays valid, in any thread, until
 * {@link ReceivedView#release()}, and its buffer is not posted meanwhile). Copy out what must outlive
 * it. The view object is reused for later messages: keep no reference to it past its validity.
 *
 * <p>Threads: called by whoever progresses the endpoint (the group's progress thread, or the
 * application in {@link Endpoint#progress()}), or by the thread that closes or breaks it, with no
 * lock of the endpoint held. A handler may post (another receive, a SEND of the reply), must not block
 * (it holds up every endpoint of the group) and should not throw (what it throws goes to the thread's
 * uncaught-exception handler; the view is released and the endpoint goes on).
 *
 * @param <A> the type of the attachment, the caller's per-receive context (may be null)
 */
public interface EndpointReceiveHandler<A> {
    /**
     * A message arrived.
     *
     * @param message the message, valid until this returns (or, after {@link ReceivedView#retain()},
     *                until {@link ReceivedView#release()})
     * @param attachment what was given to {@code receive}
     */
    void received(ReceivedView message, A attachment);

    /**
     * No message will come for this receive (see the interface comment for the exceptions).
     *
     * @param exc why: {@link java.util.concurrent.TimeoutException} or {@link EndpointClosedException}
     * @param attachment what was given to {@code receive}
     */
    void failed(Throwable exc, A attachment);
}
