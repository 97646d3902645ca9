package org.jrdma.bench.soak;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The self-describing message pattern of the soak: bytes 0..8 hold the message's id (its sender's
 * wr_id), bytes 8..16 its length, and every byte after that a function of the id and the byte's
 * position (a SplitMix64 word per 8 bytes, little-endian). A receiver can tell from the bytes alone
 * which message arrived and whether every byte of it is right, whatever the sender did since.
 * Called from the worker threads; stateless.
 */
final class Payload {
    /** Bytes of the id + length header; the smallest message. */
    static final int HEADER = 16;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private Payload() {
    }

    /** The pattern word {@code k} (k = 0 for bytes 16..24) of message {@code id}. */
    static long word(long id, long k) {
        long z = id * 0x9E3779B97F4A7C15L + (k + 1) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Writes message {@code id} of {@code len} bytes (≥ {@link #HEADER}) at {@code m[off..off+len)}. */
    static void fill(MemorySegment m, long off, int len, long id) {
        m.set(LONG, off, id);
        m.set(LONG, off + 8, len);
        int k = 0;
        int p = HEADER;
        for (; p + 8 <= len; p += 8, k++) {
            m.set(LONG, off + p, word(id, k));
        }
        if (p < len) {
            long w = word(id, k);
            for (int q = 0; p + q < len; q++) {
                m.set(ValueLayout.JAVA_BYTE, off + p + q, (byte) (w >>> (q * 8)));
            }
        }
    }

    /** The id in the header of the message at {@code off}. */
    static long id(MemorySegment m, long off) {
        return m.get(LONG, off);
    }

    /**
     * Checks that {@code m[off..off+len)} holds exactly message {@code id} of {@code len} bytes.
     *
     * @return -1 when every byte is right, else the offset of the first wrong byte
     */
    static long check(MemorySegment m, long off, int len, long id) {
        if (m.get(LONG, off) != id) {
            return firstDiff(m.get(LONG, off), id, 0);
        }
        if (m.get(LONG, off + 8) != len) {
            return firstDiff(m.get(LONG, off + 8), len, 8);
        }
        int k = 0;
        int p = HEADER;
        for (; p + 8 <= len; p += 8, k++) {
            long w = word(id, k);
            long got = m.get(LONG, off + p);
            if (got != w) {
                return firstDiff(got, w, p);
            }
        }
        if (p < len) {
            long w = word(id, k);
            for (int q = 0; p + q < len; q++) {
                if (m.get(ValueLayout.JAVA_BYTE, off + p + q) != (byte) (w >>> (q * 8))) {
                    return p + q;
                }
            }
        }
        return -1;
    }

    private static long firstDiff(long got, long want, int at) {
        return at + Long.numberOfTrailingZeros(got ^ want) / 8;
    }
}
