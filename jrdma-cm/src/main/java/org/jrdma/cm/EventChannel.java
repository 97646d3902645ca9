package org.jrdma.cm;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * An event channel, {@code struct rdma_event_channel} ({@code rdma_create_event_channel(3)}): the
 * queue on which the CM reports the events of the {@link CmId}s created on it, in the order they
 * happened for each ID.
 *
 * <p>Threads: any thread may take events; the CM's thread ({@code jrdma-cm}) and the threads calling
 * {@link CmId} methods put them (a lock-free queue; no CM lock is held by a waiting taker).
 */
public final class EventChannel implements AutoCloseable {
    private final LinkedBlockingQueue<CmEvent> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger unacked = new AtomicInteger();
    private volatile boolean closed;

    private EventChannel() {
    }

    /** {@code rdma_create_event_channel(3)}. */
    public static EventChannel create() {
        return new EventChannel();
    }

    /**
     * Waits for the next event without limit ({@code rdma_get_cm_event(3)} on a blocking channel).
     *
     * @throws VerbsException EINTR-like {@code EIO} when the waiting thread is interrupted; EINVAL when closed
     */
    public CmEvent getEvent() {
        checkOpen();
        try {
            return taken(queue.take());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException(Errno.EIO, "rdma_get_cm_event: interrupted");
        }
    }

    /**
     * Waits at most {@code timeout} for the next event (a {@code poll(2)} on the channel's fd with a
     * timeout, then {@code rdma_get_cm_event}).
     *
     * @return the event, or empty when none came in time
     */
    public Optional<CmEvent> getEvent(Duration timeout) {
        checkOpen();
        try {
            CmEvent e = queue.poll(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
            return Optional.ofNullable(e == null ? null : taken(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException(Errno.EIO, "rdma_get_cm_event: interrupted");
        }
    }

    /** Events taken and not yet acknowledged. */
    public int unackedEvents() {
        return unacked.get();
    }

    /** {@code rdma_destroy_event_channel(3)}: the channel takes no more events. */
    @Override
    public void close() {
        closed = true;
        queue.clear();
    }

    private CmEvent taken(CmEvent e) {
        unacked.incrementAndGet();
        if (e.type() == CmEventType.CONNECT_REQUEST && e.listenId() != null) {
            e.listenId().requestTaken();
        }
        return e;
    }

    private void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "rdma_get_cm_event: the event channel is destroyed");
        }
    }

    /**
     * Queues an event (any thread, under the CM lock: every caller is a {@link CmId} post). Dropped
     * when the channel is closed. A queued event is recorded as the Flight Recorder event
     * {@code org.jrdma.CmEvent} when a recording takes it ({@link CmId#recordEvent}).
     */
    void post(CmEvent e) {
        if (!closed) {
            queue.add(e);
            e.id().recordEvent(e);
        }
    }

    /**
     * Takes back the CONNECT_REQUEST of {@code id} if nobody has taken it yet (CM thread, CM lock; a
     * taker at the same time gets it or not, never both).
     *
     * @return whether it was still queued
     */
    boolean withdrawRequest(CmId id) {
        return queue.removeIf(e -> e.type() == CmEventType.CONNECT_REQUEST && e.id() == id);
    }

    void acked(CmEvent e) {
        unacked.decrementAndGet();
    }
}
