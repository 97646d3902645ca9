package org.jrdma.pool;

import java.lang.ref.WeakReference;

/**
 * The buffers one thread keeps per size class for its next leases (a stack per class). Touched only by
 * its thread, except by {@link RegisteredPool} once that thread has ended (its buffers go back to the
 * shared free lists) and when the pool closes.
 */
final class ThreadCache {
    final WeakReference<Thread> owner;
    private final PooledBuffer[][] stacks;
    private final int[] counts;

    ThreadCache(Thread owner, int classes, int capacity) {
        this.owner = new WeakReference<>(owner);
        this.stacks = new PooledBuffer[classes][capacity];
        this.counts = new int[classes];
    }

    PooledBuffer pop(int cls) {
        int n = counts[cls];
        if (n == 0) {
            return null;
        }
        PooledBuffer b = stacks[cls][--n];
        stacks[cls][n] = null;
        counts[cls] = n;
        return b;
    }

    /** @return false when the class's stack is full */
    boolean push(PooledBuffer b) {
        int cls = b.sizeClass.index;
        int n = counts[cls];
        if (n == stacks[cls].length) {
            return false;
        }
        stacks[cls][n] = b;
        counts[cls] = n + 1;
        return true;
    }

    boolean ownerGone() {
        Thread t = owner.get();
        return t == null || !t.isAlive();
    }

    /** Moves every cached buffer back to its class's shared free list. */
    void drainTo(SizeClass[] classes) {
        for (int c = 0; c < counts.length; c++) {
            PooledBuffer b;
            while ((b = pop(c)) != null) {
                classes[c].push(b);
            }
        }
    }
}
