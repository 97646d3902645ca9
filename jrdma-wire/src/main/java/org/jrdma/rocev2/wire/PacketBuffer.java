package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A packet buffer for pooling: one direct {@link ByteBuffer} and a {@link MemorySegment} over the same
 * native memory, plus the number of bytes in use. The header flyweights ({@link Bth}, {@link Reth}, ...)
 * wrap {@link #seg}; {@link Icrc} and socket I/O read {@link #bb}. Nothing here allocates after
 * {@link #allocate(int)}.
 *
 * <p>The byte order of {@link #bb} is irrelevant: the flyweights access {@link #seg} with explicit
 * big-endian layouts (IBTA Vol 1 §9.2: all transport header fields are big-endian). Position and limit
 * of {@link #bb} belong to the I/O code; nothing in this package changes them.
 *
 * <p>Not thread-safe: a buffer is owned by one thread at a time (the pool hands it over).
 */
public final class PacketBuffer {
    /** The direct buffer over the packet memory; capacity = {@link #capacity()}. */
    public final ByteBuffer bb;
    /** {@code MemorySegment.ofBuffer(bb)}: the same memory, {@link #capacity()} bytes. */
    public final MemorySegment seg;
    /** A private duplicate of {@link #bb} whose position/limit {@link Icrc} may move. */
    final ByteBuffer crcView;
    private int length;

    private PacketBuffer(ByteBuffer bb) {
        this.bb = bb;
        this.seg = MemorySegment.ofBuffer(bb);
        this.crcView = bb.duplicate();
    }

    /**
     * A new buffer of {@code capacity} bytes of zeroed direct memory, length 0.
     *
     * @param capacity bytes, 1..2^31-1 (a RoCE v2 packet is at most 4096 + 60 header bytes + 4 ICRC for
     *                 a 4096-byte path MTU; a UDP datagram at most 65507 bytes)
     * @throws IllegalArgumentException if {@code capacity < 1}
     */
    public static PacketBuffer allocate(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
        }
        return new PacketBuffer(ByteBuffer.allocateDirect(capacity));
    }

    /** The capacity in bytes. */
    public int capacity() {
        return bb.capacity();
    }

    /** The number of bytes in use, 0..{@link #capacity()}. */
    public int length() {
        return length;
    }

    /**
     * Sets the number of bytes in use.
     *
     * @param length 0..{@link #capacity()}
     * @return this
     * @throws IndexOutOfBoundsException if out of range
     */
    public PacketBuffer length(int length) {
        if (length < 0 || length > bb.capacity()) {
            throw new IndexOutOfBoundsException("length " + length + " outside 0.." + bb.capacity());
        }
        this.length = length;
        return this;
    }

    @Override
    public String toString() {
        return "PacketBuffer[length=" + length + ", capacity=" + bb.capacity() + "]";
    }
}
