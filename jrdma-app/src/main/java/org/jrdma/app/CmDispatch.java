package org.jrdma.app;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.EventChannel;

/**
 * Takes the events of one CM event channel and routes them: CONNECT_REQUEST to the listener's queue,
 * the rest to the endpoint of the event's ID. A client endpoint has a channel of its own; a listener's
 * channel also carries the events of the connections it accepted (the CM puts a request's ID on the
 * listener's channel, as librdmacm).
 *
 * <p>Threads: whoever progresses (the progress thread or the application, {@link #tryPoll()}: skips
 * when another thread is taking events) and a thread waiting in connect/accept ({@link #poll(Duration)}).
 * Lock: this dispatcher's {@code ReentrantLock}, held while taking and routing events; an endpoint's
 * handling of an event takes that endpoint's lock inside it (dispatcher lock → endpoint lock).
 */
final class CmDispatch implements AutoCloseable {
    private final EventChannel channel;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<CmId, Endpoint> endpoints = new ConcurrentHashMap<>();
    private final ArrayDeque<CmEvent> requests = new ArrayDeque<>();   // guarded by lock
    private volatile boolean closed;

    CmDispatch(EventChannel channel) {
        this.channel = channel;
    }

    EventChannel channel() {
        return channel;
    }

    void register(CmId id, Endpoint e) {
        endpoints.put(id, e);
    }

    void unregister(CmId id) {
        endpoints.remove(id);
    }

    /** Routes the events waiting now, unless another thread is at it. */
    void tryPoll() {
        if (!closed && lock.tryLock()) {
            try {
                drain(Duration.ZERO);
            } finally {
                lock.unlock();
            }
        }
    }

    /** Waits up to {@code wait} for an event, then routes it and all others waiting. */
    void poll(Duration wait) {
        lock.lock();
        try {
            if (!closed) {
                drain(wait);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The next connection request routed to the listener, or null. */
    CmEvent takeRequest() {
        lock.lock();
        try {
            return requests.pollFirst();
        } finally {
            lock.unlock();
        }
    }

    private void drain(Duration firstWait) {
        Duration wait = firstWait;
        while (true) {
            Optional<CmEvent> oe = channel.getEvent(wait);
            if (oe.isEmpty()) {
                return;
            }
            wait = Duration.ZERO;
            CmEvent e = oe.get();
            e.ack();
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                requests.addLast(e);
                continue;
            }
            Endpoint ep = endpoints.get(e.id());
            if (ep != null) {
                ep.onCmEvent(e);
            }
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            for (CmEvent r : requests) {
                r.id().destroy();      // requests never taken: the CM answers them with a REJ
            }
            requests.clear();
            channel.close();
        } finally {
            lock.unlock();
        }
    }
}
