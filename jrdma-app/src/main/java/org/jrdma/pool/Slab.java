package org.jrdma.pool;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;

/**
 * One allocation of native memory registered as one memory region, cut into the buffers of one size
 * class. Created under the pool's lock; freed (deregistered, its arena closed) only when the pool closes.
 */
final class Slab implements AutoCloseable {
    private final Arena arena;
    final MemorySegment segment;
    final MemoryRegion mr;

    Slab(ProtectionDomain pd, long bytes, long alignment, int access) {
        Arena a = Arena.ofShared();
        try {
            this.segment = a.allocate(bytes, alignment);
            this.mr = pd.regMr(segment, access);
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
        this.arena = a;
    }

    long bytes() {
        return segment.byteSize();
    }

    @Override
    public void close() {
        try {
            mr.close();
        } finally {
            arena.close();
        }
    }
}
