package org.jrdma.verbs;

/**
 * An asynchronous event, {@code struct ibv_async_event} ({@code ibv_get_async_event(3)}): its
 * {@link #type()} and the element it is about. Every event taken with
 * {@link Context#getAsyncEvent()} must be acknowledged once ({@link #ack()},
 * {@code ibv_ack_async_event(3)}); destroying a QP, CQ or SRQ waits for its events to be
 * acknowledged (see {@link Context#getAsyncEvent()}).
 */
public interface AsyncEvent {
    /** The event's type. */
    AsyncEventType type();

    /** The QP of a QP event (QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG*, QP_LAST_WQE_REACHED), else null. */
    QueuePair qp();

    /** The CQ of CQ_ERR, else null. */
    CompletionQueue cq();

    /** The SRQ of SRQ_ERR and SRQ_LIMIT_REACHED, else null. */
    SharedReceiveQueue srq();

    /** The port of a port event (PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE), else 0. */
    int portNum();

    /**
     * {@code ibv_ack_async_event(3)}: acknowledges this event. Once per event.
     *
     * @throws VerbsException EINVAL when the event was acknowledged already
     */
    void ack();
}
