package org.jrdma.nvmeof.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Little-endian, unaligned field access: every multi-byte field of NVMe and of NVMe-oF is little
 * endian (NVMe Base 2.0 §1.4.1), unlike the big-endian IBTA headers that carry them.
 */
final class Le {
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Le() {
    }

    static int u8(MemorySegment s, long off) {
        return s.get(ValueLayout.JAVA_BYTE, off) & 0xff;
    }

    static void u8(MemorySegment s, long off, int v) {
        s.set(ValueLayout.JAVA_BYTE, off, (byte) v);
    }

    static int u16(MemorySegment s, long off) {
        return s.get(U16, off) & 0xffff;
    }

    static void u16(MemorySegment s, long off, int v) {
        s.set(U16, off, (short) v);
    }

    static int u24(MemorySegment s, long off) {
        return u8(s, off) | u8(s, off + 1) << 8 | u8(s, off + 2) << 16;
    }

    static void u24(MemorySegment s, long off, int v) {
        u8(s, off, v);
        u8(s, off + 1, v >>> 8);
        u8(s, off + 2, v >>> 16);
    }

    static int u32(MemorySegment s, long off) {
        return s.get(U32, off);
    }

    static void u32(MemorySegment s, long off, int v) {
        s.set(U32, off, v);
    }

    static long u64(MemorySegment s, long off) {
        return s.get(U64, off);
    }

    static void u64(MemorySegment s, long off, long v) {
        s.set(U64, off, v);
    }

    /**
     * An ASCII field of {@code len} bytes as NVMe strings are: NQNs end at the first NUL, the
     * Identify strings (serial, model, firmware) are padded with spaces; both are trimmed here.
     */
    static String ascii(MemorySegment s, long off, int len) {
        byte[] b = s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
        int n = 0;
        while (n < len && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII).stripTrailing();
    }

    /** Writes {@code v} into a field of {@code len} bytes, NUL-padded (an NQN field). */
    static void ascii(MemorySegment s, long off, int len, String v) {
        byte[] b = v.getBytes(StandardCharsets.US_ASCII);
        if (b.length >= len) {
            throw new IllegalArgumentException("'" + v + "' is " + b.length + " bytes; the field holds " + (len - 1) + " and a NUL");
        }
        s.asSlice(off, len).fill((byte) 0);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, off, b.length);
    }
}
