package org.jrdma.iwarp.wire;

import java.nio.ByteBuffer;

/**
 * Writes the MPA framing around a DDP segment (RFC 5044 §4.1, without markers): the ULPDU_Length before it,
 * the zero pad after it and the CRC field (CRC32c when negotiated, else zero), as siw sends FPDUs.
 *
 * <p>Contiguous use: build the DDP segment (headers with {@link DdpHeader} etc., then payload) at
 * {@code buf[off + 2, off + 2 + ulpduLength)}, call {@link #frame}, send {@code buf[off, off + fpduLength)}.
 * Gathered use (payload sent from another buffer): {@link #header} before, CRC via {@link FpduCrc} over the
 * pieces, {@link #trailer} after. Writes with absolute puts; positions, limits and byte order of the buffers
 * are not used or changed (except transiently by {@link FpduCrc#update}). Allocates nothing. Not thread-safe.
 */
public final class FpduFramer {
    private final FpduCrc crc = new FpduCrc();
    private boolean crcEnabled;

    /** A framer with CRC off (siw's default, {@code mpa_crc_required = false}). */
    public FpduFramer() {
    }

    /** True if CRC32c is written; false writes zero in the CRC field. */
    public boolean crcEnabled() {
        return crcEnabled;
    }

    /** Sets {@link #crcEnabled()}: true once both sides agreed on C in the MPA exchange. @return this */
    public FpduFramer crcEnabled(boolean on) {
        this.crcEnabled = on;
        return this;
    }

    /**
     * Frames the ULPDU at {@code buf[off + 2, off + 2 + ulpduLength)}: writes ULPDU_Length at {@code off},
     * the pad (zeros) and the CRC field.
     *
     * @param ulpduLength 0..65535 bytes (an FPDU carries a DDP header: 14 or more in practice)
     * @return the FPDU's length, {@link Mpa#fpduLength}{@code (ulpduLength)}
     * @throws IllegalArgumentException  if {@code ulpduLength} is outside 0..65535
     * @throws IndexOutOfBoundsException if the FPDU does not fit in the buffer
     */
    public int frame(ByteBuffer buf, int off, int ulpduLength) {
        int total = checkedLength(buf, off, ulpduLength);
        header(buf, off, ulpduLength);
        int pad = Mpa.padLength(ulpduLength);
        int padAt = off + Mpa.HEADER_LENGTH + ulpduLength;
        for (int i = 0; i < pad; i++) {
            buf.put(padAt + i, (byte) 0);
        }
        int c = crcEnabled ? crc.compute(buf, off, Mpa.HEADER_LENGTH + ulpduLength + pad) : 0;
        FpduCrc.write(buf, padAt + pad, c);
        return total;
    }

    /**
     * Writes ULPDU_Length (big-endian) at {@code buf[off, off + 2)}.
     *
     * @throws IllegalArgumentException if {@code ulpduLength} is outside 0..65535
     */
    public static void header(ByteBuffer buf, int off, int ulpduLength) {
        if (ulpduLength < 0 || ulpduLength > Mpa.MAX_ULPDU_LENGTH) {
            throw new IllegalArgumentException("ULPDU length must be 0..65535: " + ulpduLength);
        }
        buf.put(off, (byte) (ulpduLength >>> 8));
        buf.put(off + 1, (byte) ulpduLength);
    }

    /**
     * Writes the trailer of an FPDU gathered from pieces: {@link Mpa#padLength}{@code (ulpduLength)} zero
     * bytes and the CRC field at {@code buf[off, ...)}; the CRC is {@code crcValue} when CRC is enabled
     * (computed by the caller with {@link FpduCrc} over header, ULPDU and {@link FpduCrc#updatePad pad}), else 0.
     *
     * @return the trailer's length, pad + 4
     */
    public int trailer(ByteBuffer buf, int off, int ulpduLength, int crcValue) {
        int pad = Mpa.padLength(ulpduLength);
        for (int i = 0; i < pad; i++) {
            buf.put(off + i, (byte) 0);
        }
        FpduCrc.write(buf, off + pad, crcEnabled ? crcValue : 0);
        return pad + Mpa.CRC_LENGTH;
    }

    private static int checkedLength(ByteBuffer buf, int off, int ulpduLength) {
        if (ulpduLength < 0 || ulpduLength > Mpa.MAX_ULPDU_LENGTH) {
            throw new IllegalArgumentException("ULPDU length must be 0..65535: " + ulpduLength);
        }
        int total = Mpa.fpduLength(ulpduLength);
        if (off < 0 || off > buf.capacity() - total) {
            throw new IndexOutOfBoundsException("FPDU of " + total + " bytes at " + off + " outside a buffer of "
                + buf.capacity());
        }
        return total;
    }
}
