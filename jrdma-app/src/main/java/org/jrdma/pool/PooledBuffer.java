package org.jrdma.pool;

import java.lang.foreign.MemorySegment;

/** One buffer of a slab: a fixed slice of the slab's registered memory, handed out by one lease at a time. */
final class PooledBuffer {
    final SizeClass sizeClass;
    final Slab slab;
    /** The buffer's memory, {@code sizeClass.size} bytes, living as long as its slab. */
    final MemorySegment segment;

    PooledBuffer(SizeClass sizeClass, Slab slab, MemorySegment segment) {
        this.sizeClass = sizeClass;
        this.slab = slab;
        this.segment = segment;
    }
}
