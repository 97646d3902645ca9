package org.jrdma.rocev2.net;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Writes and reads the 20-byte IPv4 header without options (RFC 791 §3.1) in native or heap memory,
 * as a {@link RawIpv4Socket} sender must supply it. Static, allocation-free helpers; offsets in
 * bytes; addresses as host-order {@code int}s (127.0.0.1 = {@code 0x7f000001}).
 *
 * <pre>
 *  0: version=4 | IHL=5    1: TOS (DSCP|ECN)     2-3: Total Length
 *  4-5: Identification      6-7: flags (DF 0x4000, MF 0x2000) | fragment offset
 *  8: TTL    9: Protocol (17 = UDP)    10-11: Header Checksum (RFC 1071)
 * 12-15: Source Address    16-19: Destination Address
 * </pre>
 * RoCE v2 note: the ICRC covers this header with TOS, TTL and Header Checksum masked to ones (IBTA
 * Vol 1 Annex A17, RoCEv2 ICRC; Linux {@code rxe_icrc.c}), so Identification, flags, Total Length,
 * Protocol and addresses must be final before the ICRC is computed.
 */
public final class Ipv4Header {
    private Ipv4Header() {
    }

    /** Header length without options: 20 bytes. */
    public static final int LENGTH = 20;
    /** The Don't Fragment flag in bytes 6–7. */
    public static final int FLAG_DF = 0x4000;
    /** The More Fragments flag in bytes 6–7. */
    public static final int FLAG_MF = 0x2000;
    /** IP protocol number of UDP. */
    public static final int PROTOCOL_UDP = 17;

    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Writes a 20-byte IPv4 header at {@code seg[off]} including its Header Checksum.
     *
     * @param tos            0–255
     * @param totalLength    header + payload, 20–65,535 bytes
     * @param identification 0–65,535; a raw socket's kernel replaces 0 with its own choice, so use
     *                       a non-zero value to keep it ({@code raw(7)})
     * @param dontFragment   sets DF
     * @param ttl            1–255
     * @param protocol       e.g. {@link #PROTOCOL_UDP}
     * @param source         host-order address; 0 lets a raw socket's kernel fill it in
     * @param destination    host-order address
     */
    public static void write(MemorySegment seg, long off, int tos, int totalLength, int identification,
                             boolean dontFragment, int ttl, int protocol, int source, int destination) {
        if (totalLength < LENGTH || totalLength > 0xffff) {
            throw new IllegalArgumentException("total length " + totalLength + " is not in 20..65535");
        }
        seg.set(ValueLayout.JAVA_BYTE, off, (byte) 0x45);
        seg.set(ValueLayout.JAVA_BYTE, off + 1, (byte) tos);
        seg.set(BE16, off + 2, (short) totalLength);
        seg.set(BE16, off + 4, (short) identification);
        seg.set(BE16, off + 6, (short) (dontFragment ? FLAG_DF : 0));
        seg.set(ValueLayout.JAVA_BYTE, off + 8, (byte) ttl);
        seg.set(ValueLayout.JAVA_BYTE, off + 9, (byte) protocol);
        seg.set(BE16, off + 10, (short) 0);
        seg.set(BE32, off + 12, source);
        seg.set(BE32, off + 16, destination);
        seg.set(BE16, off + 10, (short) checksum(seg, off, LENGTH));
    }

    /**
     * The Internet checksum (RFC 1071) of {@code length} bytes at {@code seg[off]}: the ones'
     * complement of the ones' complement sum of the big-endian 16-bit words (an odd last byte is
     * padded with zero). Over a header whose checksum field is correct it is 0.
     *
     * @return 0–65,535
     */
    public static int checksum(MemorySegment seg, long off, int length) {
        long sum = 0;
        int i = 0;
        for (; i + 1 < length; i += 2) {
            sum += seg.get(BE16, off + i) & 0xffff;
        }
        if (i < length) {
            sum += (seg.get(ValueLayout.JAVA_BYTE, off + i) & 0xff) << 8;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return (int) (~sum & 0xffff);
    }

    /** True if the header at {@code seg[off]} (of its IHL length) has a correct Header Checksum. */
    public static boolean checksumValid(MemorySegment seg, long off) {
        return checksum(seg, off, headerLength(seg, off)) == 0;
    }

    /** The Version field (4 for IPv4). */
    public static int version(MemorySegment seg, long off) {
        return (seg.get(ValueLayout.JAVA_BYTE, off) >> 4) & 0xf;
    }

    /** The header length in bytes (IHL × 4): 20–60. */
    public static int headerLength(MemorySegment seg, long off) {
        return (seg.get(ValueLayout.JAVA_BYTE, off) & 0xf) * 4;
    }

    /** The TOS byte, 0–255. */
    public static int tos(MemorySegment seg, long off) {
        return seg.get(ValueLayout.JAVA_BYTE, off + 1) & 0xff;
    }

    /** Total Length in bytes. */
    public static int totalLength(MemorySegment seg, long off) {
        return seg.get(BE16, off + 2) & 0xffff;
    }

    /** Identification, 0–65,535. */
    public static int identification(MemorySegment seg, long off) {
        return seg.get(BE16, off + 4) & 0xffff;
    }

    /** True if DF is set. */
    public static boolean dontFragment(MemorySegment seg, long off) {
        return (seg.get(BE16, off + 6) & FLAG_DF) != 0;
    }

    /** True if MF is set or the fragment offset is not 0: the datagram is a fragment. */
    public static boolean isFragment(MemorySegment seg, long off) {
        return (seg.get(BE16, off + 6) & 0x3fff) != 0;
    }

    /** TTL, 0–255. */
    public static int ttl(MemorySegment seg, long off) {
        return seg.get(ValueLayout.JAVA_BYTE, off + 8) & 0xff;
    }

    /** Protocol, 0–255. */
    public static int protocol(MemorySegment seg, long off) {
        return seg.get(ValueLayout.JAVA_BYTE, off + 9) & 0xff;
    }

    /** Header Checksum as stored, 0–65,535. */
    public static int headerChecksum(MemorySegment seg, long off) {
        return seg.get(BE16, off + 10) & 0xffff;
    }

    /** Source Address, host order. */
    public static int source(MemorySegment seg, long off) {
        return seg.get(BE32, off + 12);
    }

    /** Destination Address, host order. */
    public static int destination(MemorySegment seg, long off) {
        return seg.get(BE32, off + 16);
    }
}
