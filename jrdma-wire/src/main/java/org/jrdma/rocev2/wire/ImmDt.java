package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * Immediate Data extended header flyweight, 4 bytes (IBTA Vol 1 §9.3.7): carried by the "with Immediate"
 * SEND and RDMA WRITE opcodes. The 32 bits are opaque; libibverbs hands them over in network order
 * ({@code imm_data} is {@code __be32}), so {@link #immDt()} returns the value read big-endian.
 */
public final class ImmDt {
    /** Header length in bytes. */
    public static final int LENGTH = 4;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at {@code seg[offset, offset+4)}. @return this */
    public ImmDt wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** Immediate data, 32 bits read big-endian. */
    public int immDt() {
        return Be.i32(seg, off);
    }

    /** Sets {@link #immDt()} (masked to the field width). @return this */
    public ImmDt immDt(int v) {
        Be.i32(seg, off, v);
        return this;
    }
}
