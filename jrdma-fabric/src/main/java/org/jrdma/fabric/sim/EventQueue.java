package org.jrdma.fabric.sim;

/**
 * The ordered event list: a binary min-heap keyed by (time in ps, sequence number), the sequence
 * being the order of scheduling — so events at equal times run in the order they were scheduled,
 * and a run is a pure function of its inputs (the design of ns-3's {@code MapScheduler} and htsim's
 * {@code EventList}; FABRIC-REFERENCE.md §2, §8).
 *
 * <p>The heap holds (time, sequence) keys interleaved in one {@code long[]} and, per position, the
 * index of a slot that keeps the handler, kind and payload (slots do not move while the heap
 * reorders); all arrays grow by doubling, so scheduling and taking an event allocate nothing once
 * they have grown to the run's peak. Not thread-safe (the
 * simulator is one thread).
 */
public final class EventQueue {
    // the heap: per position its (time, seq) key, interleaved so one comparison reads one cache line,
    // and the slot that holds its handler, kind and payload (slots never move)
    private long[] keys;
    private int[] slotAt;
    private EventHandler[] handler;
    private int[] kind;
    private Object[] payload;
    private int[] freeSlots;
    private int freeCount;
    private int size;
    private long nextSeq;
    private EventHandler takenHandler;
    private int takenKind;
    private Object takenPayload;

    /** An empty queue with room for {@code capacity} events before it grows. */
    public EventQueue(int capacity) {
        int c = Math.max(16, capacity);
        keys = new long[2 * c];
        slotAt = new int[c];
        handler = new EventHandler[c];
        kind = new int[c];
        payload = new Object[c];
        freeSlots = new int[c];
        for (int i = 0; i < c; i++) {
            freeSlots[i] = c - 1 - i;
        }
        freeCount = c;
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
        return keys[0];
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
        if (size == slotAt.length) {
            grow();
        }
        int slot = freeSlots[--freeCount];
        handler[slot] = h;
        kind[slot] = k;
        payload[slot] = p;
        long s = nextSeq++;
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            long pt = keys[2 * parent];
            if (timePs > pt || (timePs == pt && s > keys[2 * parent + 1])) {
                break;
            }
            keys[2 * i] = pt;
            keys[2 * i + 1] = keys[2 * parent + 1];
            slotAt[i] = slotAt[parent];
            i = parent;
        }
        keys[2 * i] = timePs;
        keys[2 * i + 1] = s;
        slotAt[i] = slot;
    }

    /**
     * Takes the earliest event off the queue and returns its time; its handler, kind and payload
     * are then {@link #takenHandler()}, {@link #takenKind()}, {@link #takenPayload()}.
     * Only when not empty.
     */
    public long take() {
        long t = keys[0];
        int top = slotAt[0];
        takenHandler = handler[top];
        takenKind = kind[top];
        takenPayload = payload[top];
        handler[top] = null;
        payload[top] = null;
        freeSlots[freeCount++] = top;
        int last = --size;
        if (last == 0) {
            return t;
        }
        long lt = keys[2 * last];
        long ls = keys[2 * last + 1];
        int lslot = slotAt[last];
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int c = 2 * i + 1;
            int r = c + 1;
            long ct = keys[2 * c];
            long cs = keys[2 * c + 1];
            if (r < size) {
                long rt = keys[2 * r];
                long rs = keys[2 * r + 1];
                if (rt < ct || (rt == ct && rs < cs)) {
                    c = r;
                    ct = rt;
                    cs = rs;
                }
            }
            if (lt < ct || (lt == ct && ls < cs)) {
                break;
            }
            keys[2 * i] = ct;
            keys[2 * i + 1] = cs;
            slotAt[i] = slotAt[c];
            i = c;
        }
        keys[2 * i] = lt;
        keys[2 * i + 1] = ls;
        slotAt[i] = lslot;
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

    private void grow() {
        int old = slotAt.length;
        int c = old * 2;
        keys = java.util.Arrays.copyOf(keys, 2 * c);
        slotAt = java.util.Arrays.copyOf(slotAt, c);
        handler = java.util.Arrays.copyOf(handler, c);
        kind = java.util.Arrays.copyOf(kind, c);
        payload = java.util.Arrays.copyOf(payload, c);
        freeSlots = java.util.Arrays.copyOf(freeSlots, c);
        for (int i = old; i < c; i++) {
            freeSlots[freeCount++] = i;
        }
    }
}
