package org.jrdma.soft;

import java.lang.foreign.MemorySegment;

/**
 * The memory a remote key grants at one moment: a memory region's translation, or a memory window's
 * binding (IBTA Vol 1 §10.6.3.2 for regions, §10.6.7 for windows). Immutable apart from
 * {@link #isAccessible()}: a responder that resolved an rkey keeps the range for the request (as rxe
 * keeps its MR reference) and places bytes at {@link #offsetOf} into {@link #segment()}, whatever
 * happens to the key meanwhile; bounds are those of the range, never more.
 *
 * <p>Threads: read by any thread, without locks.
 */
public interface RemoteRange {
    /** The memory the range lies in (a region's whole segment). */
    MemorySegment segment();

    /**
     * The offset into {@link #segment()} of the remote range [va, va + len), or -1 when it is not
     * entirely inside this range. {@code len} 0 is inside when va is in [start, end].
     */
    long offsetOf(long va, long len);

    /** The offset into {@link #segment()} of the range's first byte (a FLUSH of level MR flushes the whole range). */
    long base();

    /** The range's length, bytes. */
    long length();

    /** True when every bit of {@code required} ({@link org.jrdma.verbs.AccessFlags}) is granted. */
    boolean allows(int required);

    /** True while the key still names this range and its memory is there. */
    boolean isAccessible();
}
