package org.jrdma.soft;

import java.util.function.IntFunction;

/**
 * The ring under a send or receive queue: pre-allocated WQEs between {@link #head()} (the oldest
 * not yet completed) and {@link #tail()} (the next free slot), indices counting up for ever (a
 * slot is {@code index & mask}, the size a power of two at least twice the queue's depth).
 * Nothing is allocated after construction. Threads: under the QP's lock.
 *
 * @param <W> the WQE type
 */
final class WqeRing<W> {
    private final Object[] slots;
    private final int mask;
    private long head;
    private long tail;

    /** A ring for up to {@code depth} outstanding WQEs, each slot made by {@code make} (its index). */
    WqeRing(int depth, IntFunction<W> make) {
        int size = Integer.highestOneBit(Math.max(1, depth) * 2 - 1);
        slots = new Object[size];
        for (int i = 0; i < size; i++) {
            slots[i] = make.apply(i);
        }
        mask = size - 1;
    }

    long head() {
        return head;
    }

    long tail() {
        return tail;
    }

    boolean isEmpty() {
        return head == tail;
    }

    /** WQEs between head and tail. */
    long outstanding() {
        return tail - head;
    }

    /** The WQE at {@code index}. */
    @SuppressWarnings("unchecked")
    W entry(long index) {
        return (W) slots[(int) (index & mask)];
    }

    /** The free slot at the tail, to be filled before {@link #advanceTail()}. */
    W atTail() {
        return entry(tail);
    }

    /** The tail slot was filled: it joins the queue. */
    void advanceTail() {
        tail++;
    }

    /** Frees the head slot; returns the WQE that was there. */
    W retireHead() {
        return entry(head++);
    }

    /** Forgets every WQE. */
    void clear() {
        head = tail;
    }
}
