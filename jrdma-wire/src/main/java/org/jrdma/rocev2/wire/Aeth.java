package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * ACK Extended Transport Header flyweight, 4 bytes, big-endian (IBTA Vol 1 §9.3.5, tables 42-44):
 * carried by Acknowledge, ATOMIC Acknowledge and RDMA READ response First/Last/Only.
 *
 * <pre>
 * byte 0       Syndrome (8): bit 7 reserved (0) | bits 6-5 type | bits 4-0 value
 *              type 00 = ACK,     value = credit count (0x1F: no credit count / "invalid")
 *              type 01 = RNR NAK, value = RNR timer code (table 45: 0 = 655.36 ms, 1 = 0.01 ms ... 31 = 491.52 ms)
 *              type 10 = reserved
 *              type 11 = NAK,     value = NAK code (0 PSN sequence error, 1 invalid request,
 *                                 2 remote access error, 3 remote operational error, 4 invalid RD request)
 * bytes 1-3    MSN (24): message sequence number
 * </pre>
 */
public final class Aeth {
    /** Header length in bytes. */
    public static final int LENGTH = 4;

    /** Syndrome type (bits 6-5): ACK. */
    public static final int TYPE_ACK = 0;
    /** Syndrome type: RNR NAK. */
    public static final int TYPE_RNR_NAK = 1;
    /** Syndrome type: reserved. */
    public static final int TYPE_RESERVED = 2;
    /** Syndrome type: NAK. */
    public static final int TYPE_NAK = 3;

    /** NAK code 0: PSN sequence error. */
    public static final int NAK_PSN_SEQUENCE_ERROR = 0;
    /** NAK code 1: invalid request. */
    public static final int NAK_INVALID_REQUEST = 1;
    /** NAK code 2: remote access error. */
    public static final int NAK_REMOTE_ACCESS_ERROR = 2;
    /** NAK code 3: remote operational error. */
    public static final int NAK_REMOTE_OPERATIONAL_ERROR = 3;
    /** NAK code 4: invalid RD request. */
    public static final int NAK_INVALID_RD_REQUEST = 4;

    /** Credit count value 0x1F: the responder does not report credits (rxe always sends it). */
    public static final int CREDIT_COUNT_INVALID = 0x1f;

    /** The syndrome of an ACK without a credit count (0x1F, "unlimited"), as rxe sends every ACK (rxe: AETH_ACK_UNLIMITED). */
    public static final int ACK_UNLIMITED = (TYPE_ACK << 5) | CREDIT_COUNT_INVALID;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at {@code seg[offset, offset+4)}. @return this */
    public Aeth wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** The syndrome byte, 0..255. */
    public int syndrome() {
        return Be.u8(seg, off);
    }

    /** Sets {@link #syndrome()} (masked to the field width). @return this */
    public Aeth syndrome(int v) {
        Be.u8(seg, off, v);
        return this;
    }

    /** MSN, 24 bits. */
    public int msn() {
        return Be.u24(seg, off + 1);
    }

    /** Sets {@link #msn()} (masked to the field width). @return this */
    public Aeth msn(int v) {
        Be.u24(seg, off + 1, v & 0xffffff);
        return this;
    }

    /** The syndrome type, {@link #TYPE_ACK} .. {@link #TYPE_NAK}. */
    public int type() {
        return syndromeType(syndrome());
    }

    /** The low 5 bits of the syndrome: credit count, RNR timer code or NAK code, by {@link #type()}. */
    public int value() {
        return syndromeValue(syndrome());
    }

    /** Bits 6-5 of a syndrome. */
    public static int syndromeType(int syndrome) {
        return (syndrome >>> 5) & 0x3;
    }

    /** Bits 4-0 of a syndrome. */
    public static int syndromeValue(int syndrome) {
        return syndrome & 0x1f;
    }

    /** The syndrome of an ACK with {@code creditCount} 0..31 (0x1F = no credit count). */
    public static int ackSyndrome(int creditCount) {
        return (TYPE_ACK << 5) | (creditCount & 0x1f);
    }

    /** The syndrome of an RNR NAK with RNR timer code {@code timer} 0..31 (IBTA table 45). */
    public static int rnrNakSyndrome(int timer) {
        return (TYPE_RNR_NAK << 5) | (timer & 0x1f);
    }

    /** The syndrome of a NAK with code {@code nakCode} ({@link #NAK_PSN_SEQUENCE_ERROR} ...). */
    public static int nakSyndrome(int nakCode) {
        return (TYPE_NAK << 5) | (nakCode & 0x1f);
    }

    /** True for an ACK syndrome. */
    public static boolean isAck(int syndrome) {
        return (syndrome & 0xe0) == 0;
    }

    /** True for an RNR NAK syndrome. */
    public static boolean isRnrNak(int syndrome) {
        return (syndrome & 0xe0) == (TYPE_RNR_NAK << 5);
    }

    /** True for a NAK syndrome. */
    public static boolean isNak(int syndrome) {
        return (syndrome & 0xe0) == (TYPE_NAK << 5);
    }

    /** A short text for a syndrome, e.g. "ACK credits=31", "RNR NAK timer=14", "NAK remote access error". */
    public static String describe(int syndrome) {
        int v = syndromeValue(syndrome);
        if ((syndrome & 0x80) != 0) {
            return "reserved syndrome 0x" + Integer.toHexString(syndrome);
        }
        return switch (syndromeType(syndrome)) {
            case TYPE_ACK -> "ACK credits=" + v;
            case TYPE_RNR_NAK -> "RNR NAK timer=" + v;
            case TYPE_NAK -> "NAK " + nakName(v);
            default -> "reserved syndrome 0x" + Integer.toHexString(syndrome);
        };
    }

    /** The spec's name of a NAK code (IBTA table 44), or "reserved NAK code N". */
    public static String nakName(int nakCode) {
        return switch (nakCode) {
            case NAK_PSN_SEQUENCE_ERROR -> "PSN sequence error";
            case NAK_INVALID_REQUEST -> "invalid request";
            case NAK_REMOTE_ACCESS_ERROR -> "remote access error";
            case NAK_REMOTE_OPERATIONAL_ERROR -> "remote operational error";
            case NAK_INVALID_RD_REQUEST -> "invalid RD request";
            default -> "reserved NAK code " + nakCode;
        };
    }
}
