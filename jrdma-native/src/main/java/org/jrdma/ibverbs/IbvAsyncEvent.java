package org.jrdma.ibverbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.AsyncEvent;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SharedReceiveQueue;

/**
 * An asynchronous event taken with {@code ibv_get_async_event(3)}; its {@code struct ibv_async_event}
 * stays allocated until {@link #ack()} ({@code ibv_ack_async_event(3)}), which libibverbs requires
 * before the QP or CQ it names can be destroyed. Any thread; ack is idempotent.
 */
final class IbvAsyncEvent implements AsyncEvent {
    private final IbvContext context;
    private final Arena arena;
    private final MemorySegment event;
    private final AsyncEventType type;
    private final IbvQp qp;
    private final IbvCq cq;
    private final int portNum;
    private boolean acked; // guarded by this

    IbvAsyncEvent(IbvContext context, Arena arena, MemorySegment event, AsyncEventType type, IbvQp qp, IbvCq cq,
                  int portNum) {
        this.context = context;
        this.arena = arena;
        this.event = event;
        this.type = type;
        this.qp = qp;
        this.cq = cq;
        this.portNum = portNum;
    }

    @Override
    public AsyncEventType type() {
        return type;
    }

    @Override
    public QueuePair qp() {
        return qp;
    }

    @Override
    public CompletionQueue cq() {
        return cq;
    }

    /** Always null: the native provider has no SRQs yet. */
    @Override
    public SharedReceiveQueue srq() {
        return null;
    }

    @Override
    public int portNum() {
        return portNum;
    }

    @Override
    public synchronized void ack() {
        if (acked) {
            return;
        }
        acked = true;
        context.lib.ackAsyncEvent(event);
        arena.close();
        if (qp != null) {
            qp.asyncEvents.acked(1);
        }
        if (cq != null) {
            cq.asyncEvents.acked(1);
        }
    }

    @Override
    public String toString() {
        return "IbvAsyncEvent[" + type + (qp != null ? ", qp " + qp.qpNum() : "") + (cq != null ? ", cq" : "")
                + (portNum != 0 ? ", port " + portNum : "") + "]";
    }
}
