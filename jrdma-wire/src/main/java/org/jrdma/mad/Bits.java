package org.jrdma.mad;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Big-endian bit fields on a MemorySegment, in the spec's Byte[Bit] notation: a field of {@code width} bits
 * (1..32) starts {@code bit} bits (0..7) below the most significant bit of byte {@code off} and may run over
 * up to five bytes. Unaligned.
 */
final class Bits {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Bits() {
    }

    static int get(MemorySegment s, long off, int bit, int width) {
        int n = (bit + width + 7) >>> 3;
        long v = 0;
        for (int i = 0; i < n; i++) {
            v = v << 8 | (s.get(ValueLayout.JAVA_BYTE, off + i) & 0xffL);
        }
        return (int) (v >>> (n * 8 - bit - width) & mask(width));
    }

    static void set(MemorySegment s, long off, int bit, int width, long value) {
        int n = (bit + width + 7) >>> 3;
        long v = 0;
        for (int i = 0; i < n; i++) {
            v = v << 8 | (s.get(ValueLayout.JAVA_BYTE, off + i) & 0xffL);
        }
        int shift = n * 8 - bit - width;
        long m = mask(width) << shift;
        v = v & ~m | value << shift & m;
        for (int i = n - 1; i >= 0; i--) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) v);
            v >>>= 8;
        }
    }

    private static long mask(int width) {
        return (1L << width) - 1;
    }

    static long u64(MemorySegment s, long off) {
        return s.get(LONG, off);
    }

    static void u64(MemorySegment s, long off, long v) {
        s.set(LONG, off, v);
    }

    static byte[] bytes(MemorySegment s, long off, int len) {
        byte[] out = new byte[len];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, off, out, 0, len);
        return out;
    }

    static void bytes(MemorySegment s, long off, int len, byte[] v) {
        if (v.length > len) {
            throw new IllegalArgumentException("at most " + len + " bytes, got " + v.length);
        }
        MemorySegment.copy(v, 0, s, ValueLayout.JAVA_BYTE, off, v.length);
        s.asSlice(off + v.length, len - v.length).fill((byte) 0);
    }

    /** Zeroes a MAD and writes a CM Send header, as Linux's {@code cm_format_mad_hdr}. */
    static void formatCm(MemorySegment s, long off, int attributeId, long transactionId) {
        s.asSlice(off, MadHeader.MAD_LENGTH).fill((byte) 0);
        s.set(ValueLayout.JAVA_BYTE, off, (byte) MadHeader.BASE_VERSION);
        s.set(ValueLayout.JAVA_BYTE, off + 1, (byte) MadHeader.MGMT_CLASS_CM);
        s.set(ValueLayout.JAVA_BYTE, off + 2, (byte) Cm.CLASS_VERSION);
        s.set(ValueLayout.JAVA_BYTE, off + 3, (byte) MadHeader.METHOD_SEND);
        u64(s, off + 8, transactionId);
        set(s, off + 16, 0, 16, attributeId);
    }
}
