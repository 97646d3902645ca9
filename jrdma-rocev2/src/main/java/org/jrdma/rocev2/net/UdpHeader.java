package org.jrdma.rocev2.net;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Writes and reads the 8-byte UDP header (RFC 768): source port, destination port, length (header
 * + payload, bytes), checksum. Over IPv4 a checksum of 0 means "none" (RFC 768); Linux rxe sends 0
 * over IPv4 and IPv6. Static, allocation-free helpers; offsets in bytes.
 */
public final class UdpHeader {
    private UdpHeader() {
    }

    /** Header length: 8 bytes. */
    public static final int LENGTH = 8;

    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Writes a UDP header at {@code seg[off]}.
     *
     * @param length   header + payload in bytes, 8–65,535
     * @param checksum 0–65,535 (0: none, IPv4 only by RFC 768 — rxe also over IPv6)
     */
    public static void write(MemorySegment seg, long off, int sourcePort, int destinationPort, int length, int checksum) {
        if (length < LENGTH || length > 0xffff) {
            throw new IllegalArgumentException("UDP length " + length + " is not in 8..65535");
        }
        seg.set(BE16, off, (short) sourcePort);
        seg.set(BE16, off + 2, (short) destinationPort);
        seg.set(BE16, off + 4, (short) length);
        seg.set(BE16, off + 6, (short) checksum);
    }

    /** Source Port, 0–65,535. */
    public static int sourcePort(MemorySegment seg, long off) {
        return seg.get(BE16, off) & 0xffff;
    }

    /** Destination Port, 0–65,535. */
    public static int destinationPort(MemorySegment seg, long off) {
        return seg.get(BE16, off + 2) & 0xffff;
    }

    /** Length (header + payload), bytes. */
    public static int length(MemorySegment seg, long off) {
        return seg.get(BE16, off + 4) & 0xffff;
    }

    /** Checksum as stored, 0–65,535. */
    public static int checksum(MemorySegment seg, long off) {
        return seg.get(BE16, off + 6) & 0xffff;
    }
}
