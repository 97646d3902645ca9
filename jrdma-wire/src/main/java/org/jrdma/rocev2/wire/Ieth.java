package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * Invalidate Extended Transport Header flyweight, 4 bytes (IBTA Vol 1 §9.3.8): carried by SEND Last/Only
 * with Invalidate; names the R_Key the responder invalidates.
 */
public final class Ieth {
    /** Header length in bytes. */
    public static final int LENGTH = 4;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at {@code seg[offset, offset+4)}. @return this */
    public Ieth wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** R_Key to invalidate, 32 bits. */
    public int rkey() {
        return Be.i32(seg, off);
    }

    /** Sets {@link #rkey()} (masked to the field width). @return this */
    public Ieth rkey(int v) {
        Be.i32(seg, off, v);
        return this;
    }
}
