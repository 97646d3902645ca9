package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * Atomic Acknowledge Extended Transport Header flyweight, 8 bytes, big-endian (IBTA Vol 1 §9.3.6):
 * follows the AETH of an ATOMIC Acknowledge.
 *
 * <pre>
 * bytes 0-7    OrigRemData (64): the value at the target address before the atomic operation
 * </pre>
 */
public final class AtomicAckEth {
    /** Header length in bytes. */
    public static final int LENGTH = 8;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at {@code seg[offset, offset+8)}. @return this */
    public AtomicAckEth wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** OrigRemData, 64 bits. */
    public long origRemoteData() {
        return Be.i64(seg, off);
    }

    /** Sets {@link #origRemoteData()} (masked to the field width). @return this */
    public AtomicAckEth origRemoteData(long v) {
        Be.i64(seg, off, v);
        return this;
    }
}
