package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * RDMA Extended Transport Header flyweight, 16 bytes, big-endian (IBTA Vol 1 §9.3.3): carried by RDMA
 * WRITE First/Only and RDMA READ Request.
 *
 * <pre>
 * bytes 0-7    VA (64): remote virtual address
 * bytes 8-11   R_Key (32)
 * bytes 12-15  DMA Length (32): bytes of the whole message, 0..2^31
 * </pre>
 */
public final class Reth {
    /** Header length in bytes. */
    public static final int LENGTH = 16;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at {@code seg[offset, offset+16)}. @return this */
    public Reth wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** VA, the 64-bit remote virtual address. */
    public long va() {
        return Be.i64(seg, off);
    }

    /** Sets {@link #va()} (masked to the field width). @return this */
    public Reth va(long v) {
        Be.i64(seg, off, v);
        return this;
    }

    /** R_Key, 32 bits. */
    public int rkey() {
        return Be.i32(seg, off + 8);
    }

    /** Sets {@link #rkey()} (masked to the field width). @return this */
    public Reth rkey(int v) {
        Be.i32(seg, off + 8, v);
        return this;
    }

    /** DMA Length, an unsigned 32-bit byte count returned as int (use {@code Integer.toUnsignedLong}). */
    public int dmaLength() {
        return Be.i32(seg, off + 12);
    }

    /** Sets {@link #dmaLength()} (masked to the field width). @return this */
    public Reth dmaLength(int v) {
        Be.i32(seg, off + 12, v);
        return this;
    }
}
