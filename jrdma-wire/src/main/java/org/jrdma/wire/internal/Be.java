package org.jrdma.wire.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Big-endian (network order) field access on a MemorySegment, unaligned: every field of the RoCE v2
 * headers (IBTA Vol 1 §9) and of MPA/DDP/RDMAP (RFC 5040/5041/5044) is network order and at any
 * byte offset. Shared by {@code org.jrdma.rocev2.wire} and {@code org.jrdma.iwarp.wire}; this
 * package is not exported.
 */
public final class Be {
    public static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Be() {
    }

    public static int u8(MemorySegment s, long off) {
        return s.get(ValueLayout.JAVA_BYTE, off) & 0xff;
    }

    public static void u8(MemorySegment s, long off, int v) {
        s.set(ValueLayout.JAVA_BYTE, off, (byte) v);
    }

    public static int u16(MemorySegment s, long off) {
        return s.get(SHORT, off) & 0xffff;
    }

    public static void u16(MemorySegment s, long off, int v) {
        s.set(SHORT, off, (short) v);
    }

    /** 24-bit big-endian value at off (3 bytes). */
    public static int u24(MemorySegment s, long off) {
        return (u8(s, off) << 16) | u16(s, off + 1);
    }

    public static void u24(MemorySegment s, long off, int v) {
        u8(s, off, v >>> 16);
        u16(s, off + 1, v);
    }

    public static int i32(MemorySegment s, long off) {
        return s.get(INT, off);
    }

    public static void i32(MemorySegment s, long off, int v) {
        s.set(INT, off, v);
    }

    public static long i64(MemorySegment s, long off) {
        return s.get(LONG, off);
    }

    public static void i64(MemorySegment s, long off, long v) {
        s.set(LONG, off, v);
    }

    public static void bit(MemorySegment s, long off, int mask, boolean v) {
        int b = u8(s, off);
        u8(s, off, v ? (b | mask) : (b & ~mask));
    }
}
