package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * A completion channel, {@code struct ibv_comp_channel}: its fd is polled with {@code poll(2)} in
 * slices of at most 100 ms (so a waiting thread sees interrupts and close), then
 * {@code ibv_get_cq_event(3)} reads the event without blocking. The CQ comes back from the event's
 * {@code cq_context} (the id the context gave the CQ). Thread-safe: the channel's monitor serializes
 * waiters (one event goes to one of them).
 */
final class IbvCompChannel implements CompletionChannel {
    private static final int SLICE_MS = 100;

    final IbvContext context;
    final MemorySegment ch;
    private final int fd;
    private volatile boolean closed;

    IbvCompChannel(IbvContext context, MemorySegment ch) {
        this.context = context;
        this.ch = ch;
        this.fd = ch.get(JAVA_INT, IbvLayouts.COMP_CHANNEL_FD_OFF);
    }

    @Override
    public CompletionQueue getEvent() throws InterruptedException {
        CompletionQueue cq;
        while ((cq = getEvent(SLICE_MS, TimeUnit.MILLISECONDS)) == null) {
            // until an event, an interrupt or close
        }
        return cq;
    }

    @Override
    public synchronized CompletionQueue getEvent(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (closed) {
                throw new VerbsException(Errno.ENODEV, "ibv_get_cq_event: the completion channel is closed");
            }
            long left = deadline - System.nanoTime();
            int ms = (int) Math.max(0, Math.min(SLICE_MS, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
            if (context.lib.pollIn(fd, ms)) {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment out = a.allocate(ADDRESS.byteSize() * 2);
                    context.lib.getCqEvent(ch, out);
                    long id = out.get(ADDRESS, ADDRESS.byteSize()).address();
                    IbvCq cq = context.cqsById.get(id);
                    if (cq == null) {
                        throw new VerbsException(Errno.EIO, "ibv_get_cq_event: an event of an unknown CQ (cq_context " + id + ")");
                    }
                    cq.eventDelivered();
                    return cq;
                }
            }
            if (left <= 0) {
                return null;
            }
        }
    }

    /** {@code ibv_destroy_comp_channel(3)}: EBUSY while a CQ uses the channel. */
    @Override
    public void close() {
        synchronized (context.lock) {
            if (closed) {
                return;
            }
            context.lib.destroyCompChannel(ch);
            closed = true;
        }
        context.removed(this);
    }
}
