package org.jrdma.iwarp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian (network order) field access on a MemorySegment, unaligned (RFC 5040/5041/5044: all fields are). */
final class Be {
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Be() {
    }

    static int u8(MemorySegment s, long off) {
        return s.get(ValueLayout.JAVA_BYTE, off) & 0xff;
    }

    static void u8(MemorySegment s, long off, int v) {
        s.set(ValueLayout.JAVA_BYTE, off, (byte) v);
    }

    static int u16(MemorySegment s, long off) {
        return s.get(SHORT, off) & 0xffff;
    }

    static void u16(MemorySegment s, long off, int v) {
        s.set(SHORT, off, (short) v);
    }

    static int i32(MemorySegment s, long off) {
        return s.get(INT, off);
    }

    static void i32(MemorySegment s, long off, int v) {
        s.set(INT, off, v);
    }

    static long i64(MemorySegment s, long off) {
        return s.get(LONG, off);
    }

    static void i64(MemorySegment s, long off, long v) {
        s.set(LONG, off, v);
    }

    static void bit(MemorySegment s, long off, int mask, boolean v) {
        int b = u8(s, off);
        u8(s, off, v ? (b | mask) : (b & ~mask));
    }
}
