package org.jrdma.iwarp.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The MPA CRC (RFC 5044 §4.4, appendix B): CRC32c (Castagnoli, as {@link CRC32C}) over the whole FPDU
 * before the CRC field (ULPDU_Length, ULPDU, pad), stored least significant byte first in the last 4 bytes
 * of the FPDU (what siw and Wireshark do; checked against every FPDU of {@code siw-crc-*.pcap}).
 *
 * <p>Incremental use for an FPDU gathered from pieces (header buffer, memory-region payload, pad):
 * {@link #reset()}, {@link #update} per piece, {@link #value()}. {@code update} reads the given range
 * without moving the buffer's position or limit (it sets and restores them: do not share the buffer with
 * another thread meanwhile). Allocates nothing. Not thread-safe: one per thread.
 */
public final class FpduCrc {
    private static final byte[] ZEROS = new byte[3];

    private final CRC32C crc = new CRC32C();

    /** Starts a new CRC. @return this */
    public FpduCrc reset() {
        crc.reset();
        return this;
    }

    /**
     * Adds {@code buf[pos, pos+len)}.
     *
     * @return this
     * @throws IndexOutOfBoundsException if the range is outside the buffer's capacity
     */
    public FpduCrc update(ByteBuffer buf, int pos, int len) {
        if (pos < 0 || len < 0 || pos > buf.capacity() - len) {
            throw new IndexOutOfBoundsException("CRC range [" + pos + ", " + pos + "+" + len + ") outside 0.." + buf.capacity());
        }
        int p = buf.position();
        int l = buf.limit();
        if (pos + len > l) {
            buf.limit(pos + len).position(pos);
        } else {
            buf.position(pos).limit(pos + len);
        }
        crc.update(buf);
        buf.limit(l).position(p);
        return this;
    }

    /** Adds {@code n} (0..3) zero pad bytes. @return this */
    public FpduCrc updatePad(int n) {
        crc.update(ZEROS, 0, n);
        return this;
    }

    /** The CRC32c so far, as the 32-bit value (the CRC field holds it little-endian). */
    public int value() {
        return (int) crc.getValue();
    }

    /** The CRC32c of {@code buf[pos, pos+len)} in one call. */
    public int compute(ByteBuffer buf, int pos, int len) {
        return reset().update(buf, pos, len).value();
    }

    /** Reads a CRC field stored little-endian at {@code buf[pos, pos+4)}. */
    public static int read(ByteBuffer buf, int pos) {
        return (buf.get(pos) & 0xff) | (buf.get(pos + 1) & 0xff) << 8 | (buf.get(pos + 2) & 0xff) << 16
            | (buf.get(pos + 3) & 0xff) << 24;
    }

    /** Stores {@code crc} little-endian at {@code buf[pos, pos+4)}. */
    public static void write(ByteBuffer buf, int pos, int crc) {
        buf.put(pos, (byte) crc);
        buf.put(pos + 1, (byte) (crc >>> 8));
        buf.put(pos + 2, (byte) (crc >>> 16));
        buf.put(pos + 3, (byte) (crc >>> 24));
    }
}
