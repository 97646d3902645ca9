package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * Datagram Extended Transport Header flyweight, 8 bytes, big-endian (IBTA Vol 1 §9.3.2): carried by
 * every UD packet.
 *
 * <pre>
 * bytes 0-3    Q_Key (32); a Q_Key with the high bit set is a controlled Q_Key (QP1 uses 0x80010000)
 * byte 4       reserved (8)
 * bytes 5-7    SrcQP (24): the sender's QPN
 * </pre>
 */
public final class Deth {
    /** Header length in bytes. */
    public static final int LENGTH = 8;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at {@code seg[offset, offset+8)}. @return this */
    public Deth wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** Q_Key, 32 bits. */
    public int qkey() {
        return Be.i32(seg, off);
    }

    /** Sets {@link #qkey()} (masked to the field width). @return this */
    public Deth qkey(int v) {
        Be.i32(seg, off, v);
        return this;
    }

    /** SrcQP, 24 bits. */
    public int srcQpn() {
        return Be.u24(seg, off + 5);
    }

    /** Sets {@link #srcQpn()} (masked to the field width). @return this */
    public Deth srcQpn(int v) {
        Be.u24(seg, off + 5, v & 0xffffff);
        return this;
    }
}
