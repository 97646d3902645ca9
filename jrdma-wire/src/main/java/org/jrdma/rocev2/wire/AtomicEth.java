package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * Atomic Extended Transport Header flyweight, 28 bytes, big-endian (IBTA Vol 1 §9.3.4): carried by
 * CmpSwap and FetchAdd requests.
 *
 * <pre>
 * bytes 0-7    VA (64): remote address, 8-byte aligned
 * bytes 8-11   R_Key (32)
 * bytes 12-19  Swap (or Add) Data (64)
 * bytes 20-27  Compare Data (64), used by CmpSwap only
 * </pre>
 */
public final class AtomicEth {
    /** Header length in bytes. */
    public static final int LENGTH = 28;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at {@code seg[offset, offset+28)}. @return this */
    public AtomicEth wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** VA, 64 bits. */
    public long va() {
        return Be.i64(seg, off);
    }

    /** Sets {@link #va()} (masked to the field width). @return this */
    public AtomicEth va(long v) {
        Be.i64(seg, off, v);
        return this;
    }

    /** R_Key, 32 bits. */
    public int rkey() {
        return Be.i32(seg, off + 8);
    }

    /** Sets {@link #rkey()} (masked to the field width). @return this */
    public AtomicEth rkey(int v) {
        Be.i32(seg, off + 8, v);
        return this;
    }

    /** Swap Data (CmpSwap) or Add Data (FetchAdd), 64 bits. */
    public long swapData() {
        return Be.i64(seg, off + 12);
    }

    /** Sets {@link #swapData()} (masked to the field width). @return this */
    public AtomicEth swapData(long v) {
        Be.i64(seg, off + 12, v);
        return this;
    }

    /** Compare Data, 64 bits (CmpSwap). */
    public long compareData() {
        return Be.i64(seg, off + 20);
    }

    /** Sets {@link #compareData()} (masked to the field width). @return this */
    public AtomicEth compareData(long v) {
        Be.i64(seg, off + 20, v);
        return this;
    }
}
