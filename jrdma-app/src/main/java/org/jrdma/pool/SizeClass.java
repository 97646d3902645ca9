package org.jrdma.pool;

import java.util.ArrayDeque;

/** The buffers of one size: the shared free list (guarded by this object's monitor). */
final class SizeClass {
    final int index;
    final int size;
    private final ArrayDeque<PooledBuffer> free = new ArrayDeque<>();

    SizeClass(int index, int size) {
        this.index = index;
        this.size = size;
    }

    synchronized PooledBuffer poll() {
        return free.pollFirst();
    }

    synchronized void push(PooledBuffer b) {
        free.addFirst(b);
    }

    synchronized int freeCount() {
        return free.size();
    }
}
