package org.jrdma.soft;

import java.util.concurrent.atomic.AtomicBoolean;
import org.jrdma.verbs.AsyncEvent;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SharedReceiveQueue;
import org.jrdma.verbs.VerbsException;

/** An event as {@code getAsyncEvent} hands it out: made by the taking thread, acknowledged once. */
final class SoftAsyncEvent implements AsyncEvent {
    private final AsyncEventType type;
    private final Object element;
    private final int portNum;
    private final EventAcks acks;
    private final AtomicBoolean acked = new AtomicBoolean();

    SoftAsyncEvent(AsyncEventType type, Object element, int portNum, EventAcks acks) {
        this.type = type;
        this.element = element;
        this.portNum = portNum;
        this.acks = acks;
    }

    @Override
    public AsyncEventType type() {
        return type;
    }

    @Override
    public QueuePair qp() {
        return element instanceof QueuePair q ? q : null;
    }

    @Override
    public CompletionQueue cq() {
        return element instanceof CompletionQueue c ? c : null;
    }

    @Override
    public SharedReceiveQueue srq() {
        return element instanceof SharedReceiveQueue s ? s : null;
    }

    @Override
    public int portNum() {
        return portNum;
    }

    @Override
    public void ack() {
        if (!acked.compareAndSet(false, true)) {
            throw new VerbsException(Errno.EINVAL, "asynchronous event " + type + " was acknowledged already");
        }
        if (acks != null) {
            acks.acknowledge();
        }
    }

    @Override
    public String toString() {
        return type + (element != null ? " " + element : portNum != 0 ? " port " + portNum : "");
    }
}
