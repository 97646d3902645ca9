package org.jrdma.soft;

import org.jrdma.verbs.AsyncEvent;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * The asynchronous events of one context, oldest first ({@code ibv_get_async_event(3)}): a ring of
 * records (type, element, port) that raising only writes into, so that the thread raising an event
 * (the device's I/O thread, a polling or posting application thread, under a QP's, CQ's or SRQ's
 * lock) allocates nothing and never waits for the consumer. The ring starts with 64 records and
 * doubles when full (the kernel's event queue is unbounded too), which is the only allocation.
 * The taking thread makes the {@link AsyncEvent} object.
 *
 * <p>Threads and locks: any thread; one monitor (this object), a leaf of the provider's lock order
 * (taken inside a QP's, CQ's or SRQ's lock, nothing taken inside it; {@link EventAcks}' monitor is
 * taken by the consumer after leaving it).
 */
public final class AsyncEventQueue {
    private AsyncEventType[] types = new AsyncEventType[64];
    private Object[] elements = new Object[64];
    private EventAcks[] acks = new EventAcks[64];
    private int[] ports = new int[64];
    private int head;
    private int count;
    private int waiters;
    private boolean closed;

    /** Raises an event about a QP, CQ or SRQ of this context. */
    void raise(AsyncEventType type, Object element, EventAcks elementAcks) {
        add(type, element, elementAcks, 0);
    }

    /** Raises a port event ({@code portNum} 1) or, with {@code portNum} 0, a device event. */
    public void raisePort(AsyncEventType type, int portNum) {
        add(type, null, null, portNum);
    }

    private synchronized void add(AsyncEventType type, Object element, EventAcks elementAcks, int port) {
        if (closed) {
            return;
        }
        if (count == types.length) {
            grow();
        }
        int i = (head + count) & (types.length - 1);
        types[i] = type;
        elements[i] = element;
        acks[i] = elementAcks;
        ports[i] = port;
        count++;
        if (waiters != 0) {
            notifyAll();
        }
    }

    private void grow() {
        int n = types.length;
        AsyncEventType[] t = new AsyncEventType[n * 2];
        Object[] e = new Object[n * 2];
        EventAcks[] a = new EventAcks[n * 2];
        int[] p = new int[n * 2];
        for (int k = 0; k < count; k++) {
            int i = (head + k) & (n - 1);
            t[k] = types[i];
            e[k] = elements[i];
            a[k] = acks[i];
            p[k] = ports[i];
        }
        types = t;
        elements = e;
        acks = a;
        ports = p;
        head = 0;
    }

    /**
     * Takes the oldest event, waiting at most {@code timeoutNanos} (negative: without limit).
     *
     * @return the event, or null when none came in time
     * @throws VerbsException ENODEV when the context is closed (also while waiting)
     */
    AsyncEvent take(long timeoutNanos) {
        AsyncEventType type;
        Object element;
        EventAcks elementAcks;
        int port;
        synchronized (this) {
            long deadline = System.nanoTime() + timeoutNanos;
            boolean interrupted = false;
            try {
                while (count == 0 && !closed) {
                    long left = timeoutNanos < 0 ? Long.MAX_VALUE : deadline - System.nanoTime();
                    if (left <= 0) {
                        return null;
                    }
                    waiters++;
                    try {
                        if (timeoutNanos < 0) {
                            wait();
                        } else {
                            wait(left / 1_000_000, (int) (left % 1_000_000));
                        }
                    } catch (InterruptedException e) {
                        interrupted = true;
                        return null;
                    } finally {
                        waiters--;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            if (closed) {
                throw new VerbsException(Errno.ENODEV, "context is closed");
            }
            type = types[head];
            element = elements[head];
            elementAcks = acks[head];
            port = ports[head];
            elements[head] = null;
            acks[head] = null;
            head = (head + 1) & (types.length - 1);
            count--;
        }
        if (elementAcks != null) {
            elementAcks.delivered();
        }
        return new SoftAsyncEvent(type, element, port, elementAcks);
    }

    /** Forgets the events about {@code element} not yet taken (it is destroyed; the kernel drops them too). */
    synchronized void drop(Object element) {
        int n = types.length;
        int kept = 0;
        for (int k = 0; k < count; k++) {
            int from = (head + k) & (n - 1);
            if (elements[from] == element) {
                continue;
            }
            int to = (head + kept) & (n - 1);
            types[to] = types[from];
            elements[to] = elements[from];
            acks[to] = acks[from];
            ports[to] = ports[from];
            kept++;
        }
        for (int k = kept; k < count; k++) {
            int i = (head + k) & (n - 1);
            elements[i] = null;
            acks[i] = null;
        }
        count = kept;
    }

    /** The number of events waiting to be taken. */
    public synchronized int size() {
        return count;
    }

    /** The context closed: waiting takers get ENODEV, later events are not kept. */
    synchronized void close() {
        closed = true;
        notifyAll();
    }
}
