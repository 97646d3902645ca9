package org.jrdma.fabric.sim;

/**
 * The ordered event list: a binary min-heap keyed by (time in ps, sequence number), the sequence
 * being the order of scheduling — so events at equal times run in the order they were scheduled,
 * and a run is a pure function of its inputs (the design of ns-3's {@code MapScheduler} and htsim's
 * {@code EventList}; FABRIC-REFERENCE.md §2, §8).
 *
 * <p>The heap is parallel primitive and reference arrays, grown by doubling: scheduling and taking
 * an event allocate nothing once the arrays have grown to the run's peak. Not thread-safe (the
 * simulator is one thread).
 */
public final class EventQueue {
    private long[] time;
    private long[] seq;
    private EventHandler[] handler;
    private int[] kind;
    private Object[] payload;
    private int size;
    private long nextSeq;
    private EventHandler takenHandler;
    private int takenKind;
    private Object takenPayload;

    /** An empty queue with room for {@code capacity} events before it grows. */
    public EventQueue(int capacity) {
        int c = Math.max(16, capacity);
        time = new long[c];
        seq = new long[c];
        handler = new EventHandler[c];
        kind = new int[c];
        payload = new Object[c];
    }

    /** Events waiting. */
    public int size() {
        return size;
    }

    /** True if no event waits. */
    public boolean isEmpty() {
        return size == 0;
    }

    /** The time of the earliest event (ps); only when not empty. */
    public long peekTime() {
        return time[0];
    }

    /**
     * Adds an event.
     *
     * @param timePs  when it runs, in ps
     * @param h       who runs it
     * @param k       the handler's event code
     * @param p       its payload, or null
     */
    public void schedule(long timePs, EventHandler h, int k, Object p) {
        if (size == time.length) {
            grow();
        }
        long s = nextSeq++;
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!less(timePs, s, time[parent], seq[parent])) {
                break;
            }
            move(parent, i);
            i = parent;
        }
        set(i, timePs, s, h, k, p);
    }

    /**
     * Takes the earliest event off the queue and returns its time; its handler, kind and payload
     * are then {@link #takenHandler()}, {@link #takenKind()}, {@link #takenPayload()}.
     * Only when not empty.
     */
    public long take() {
        long t = time[0];
        takenHandler = handler[0];
        takenKind = kind[0];
        takenPayload = payload[0];
        int last = --size;
        long lt = time[last];
        long ls = seq[last];
        EventHandler lh = handler[last];
        int lk = kind[last];
        Object lp = payload[last];
        handler[last] = null;
        payload[last] = null;
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int c = 2 * i + 1;
            int r = c + 1;
            if (r < size && less(time[r], seq[r], time[c], seq[c])) {
                c = r;
            }
            if (!less(time[c], seq[c], lt, ls)) {
                break;
            }
            move(c, i);
            i = c;
        }
        if (size > 0) {
            set(i, lt, ls, lh, lk, lp);
        }
        return t;
    }

    /** The handler of the event {@link #take()} returned. */
    public EventHandler takenHandler() {
        return takenHandler;
    }

    /** The kind of the event {@link #take()} returned. */
    public int takenKind() {
        return takenKind;
    }

    /** The payload of the event {@link #take()} returned. */
    public Object takenPayload() {
        return takenPayload;
    }

    private static boolean less(long t1, long s1, long t2, long s2) {
        return t1 < t2 || (t1 == t2 && s1 < s2);
    }

    private void move(int from, int to) {
        time[to] = time[from];
        seq[to] = seq[from];
        handler[to] = handler[from];
        kind[to] = kind[from];
        payload[to] = payload[from];
    }

    private void set(int i, long t, long s, EventHandler h, int k, Object p) {
        time[i] = t;
        seq[i] = s;
        handler[i] = h;
        kind[i] = k;
        payload[i] = p;
    }

    private void grow() {
        int c = time.length * 2;
        time = java.util.Arrays.copyOf(time, c);
        seq = java.util.Arrays.copyOf(seq, c);
        handler = java.util.Arrays.copyOf(handler, c);
        kind = java.util.Arrays.copyOf(kind, c);
        payload = java.util.Arrays.copyOf(payload, c);
    }
}
