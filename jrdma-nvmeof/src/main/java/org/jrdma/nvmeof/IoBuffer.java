package org.jrdma.nvmeof;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.MemoryRegion;

/**
 * Host memory registered for NVMe I/O ({@link NvmeController#allocBuffer(long)}): a page-aligned
 * off-heap segment, one memory region of the controller's protection domain with local write and
 * (when the device has memory windows) MW_BIND. No remote right is granted by the region itself: each
 * I/O grants the controller access to just its own range, for just its duration, through a memory
 * window of the command's slot (see {@link NvmeController}). Close it when done (after its I/Os).
 */
public final class IoBuffer implements AutoCloseable {
    private final Arena arena;
    private final MemorySegment segment;
    private final MemoryRegion mr;

    IoBuffer(Arena arena, MemorySegment segment, MemoryRegion mr) {
        this.arena = arena;
        this.segment = segment;
        this.mr = mr;
    }

    /** The memory, to fill before a write and read after a read. */
    public MemorySegment segment() {
        return segment;
    }

    /** Bytes. */
    public long size() {
        return segment.byteSize();
    }

    MemoryRegion mr() {
        return mr;
    }

    /** Deregisters the region and frees the memory. */
    @Override
    public void close() {
        mr.close();
        arena.close();
    }
}
