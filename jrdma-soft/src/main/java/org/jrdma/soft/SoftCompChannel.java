package org.jrdma.soft;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * A completion channel: a queue of CQ events. A CQ raises at most one event per arming
 * ({@code ibv_req_notify_cq}), so the queue never holds more events than there are armed CQs.
 */
public final class SoftCompChannel implements CompletionChannel {
    private final ArrayBlockingQueue<SoftCq> events = new ArrayBlockingQueue<>(SoftLimits.MAX_CQ);
    final AtomicInteger users = new AtomicInteger();
    private final SoftContext context;

    SoftCompChannel(SoftContext context) {
        this.context = context;
    }

    void signal(SoftCq cq) {
        events.offer(cq);
    }

    @Override
    public CompletionQueue getEvent() throws InterruptedException {
        SoftCq cq = events.poll();
        if (cq == null) {
            context.blockingForEvents();
            cq = events.take();
        }
        cq.eventDelivered();
        return cq;
    }

    @Override
    public CompletionQueue getEvent(long timeout, TimeUnit unit) throws InterruptedException {
        SoftCq cq = events.poll();
        if (cq == null && timeout > 0) {
            context.blockingForEvents();
            cq = events.poll(timeout, unit);
        }
        if (cq != null) {
            cq.eventDelivered();
        }
        return cq;
    }

    @Override
    public void close() {
        if (users.get() != 0) {
            throw new VerbsException(Errno.EBUSY, "completion channel still used by " + users.get() + " CQs");
        }
    }
}
