package org.jrdma.iwarp.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The iWARP header layouts this transport reads and writes, big-endian (RFC 5044 §4 FPDU, RFC 5041
 * §5 DDP tagged/untagged headers, RFC 5040 §4 RDMAP control, Read Request and Terminate headers).
 * Offsets are from the start of an FPDU (its MPA length field).
 */
final class Iw {
    private Iw() {
    }

    static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt LE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** MPA: the ULPDU length field. */
    static final int MPA_HDR = 2;
    /** MPA: the CRC trailer (always present; zero when CRC is off). */
    static final int MPA_CRC = 4;

    /** DDP/RDMAP control (16 bits): T, L, DDP version 1, RDMAP version 1, opcode. */
    static final int CTRL_TAGGED = 0x8000;
    static final int CTRL_LAST = 0x4000;
    static final int CTRL_DDP_V1 = 0x0100;
    static final int CTRL_DDP_VERSION_MASK = 0x0300;
    static final int CTRL_RDMAP_V1 = 0x0040;
    static final int CTRL_RDMAP_VERSION_MASK = 0x00C0;
    static final int CTRL_OPCODE_MASK = 0x000F;

    /** RDMAP opcodes (RFC 5040 §4.2). */
    static final int OP_WRITE = 0;
    static final int OP_READ_REQUEST = 1;
    static final int OP_READ_RESPONSE = 2;
    static final int OP_SEND = 3;
    static final int OP_SEND_INV = 4;
    static final int OP_SEND_SE = 5;
    static final int OP_SEND_SE_INV = 6;
    static final int OP_TERMINATE = 7;

    /** Untagged queue numbers (RFC 5040 §5.1). */
    static final int QN_SEND = 0;
    static final int QN_READ_REQUEST = 1;
    static final int QN_TERMINATE = 2;

    /** Offsets in an FPDU. */
    static final int OFF_CTRL = 2;
    static final int OFF_STAG = 4; // tagged: STag; untagged: the RDMAP "reserved for ULP" word (Invalidate STag)
    static final int OFF_TO = 8;
    static final int TAGGED_HDR = 16;    // MPA len + ctrl + STag + TO
    static final int OFF_QN = 8;
    static final int OFF_MSN = 12;
    static final int OFF_MO = 16;
    static final int UNTAGGED_HDR = 20;  // MPA len + ctrl + ULP word + QN + MSN + MO
    /** Read Request payload (RFC 5040 §4.4): sink STag, sink TO, size, source STag, source TO. */
    static final int READ_REQUEST_LEN = 28;
    /** Terminate header (RFC 5040 §4.8): layer, error type, code, header-control bits. */
    static final int TERMINATE_LEN = 4;

    /** Terminate layers and codes (RFC 5040 §4.8, RFC 5041 §7.2, RFC 5044 §8, RFC 6581). */
    static final int LAYER_RDMAP = 0;
    static final int LAYER_DDP = 1;
    static final int LAYER_LLP = 2;
    static final int RDMAP_ETYPE_REMOTE_PROTECTION = 0;
    static final int RDMAP_ETYPE_REMOTE_OPERATION = 1;
    static final int RDMAP_ECODE_INVALID_STAG = 0x00;
    static final int RDMAP_ECODE_BASE_BOUNDS = 0x01;
    static final int RDMAP_ECODE_ACCESS_RIGHTS = 0x02;
    static final int RDMAP_ECODE_UNEXPECTED_OPCODE = 0x06;
    static final int RDMAP_ECODE_CANNOT_INVALIDATE = 0x09;
    static final int DDP_ETYPE_CATASTROPHIC = 0;
    static final int DDP_ETYPE_TAGGED = 1;
    static final int DDP_ETYPE_UNTAGGED = 2;
    static final int DDP_ECODE_T_INVALID_STAG = 0x00;
    static final int DDP_ECODE_T_BASE_BOUNDS = 0x01;
    static final int DDP_ECODE_UT_INVALID_QN = 0x01;
    static final int DDP_ECODE_UT_NO_BUFFER = 0x02;
    static final int DDP_ECODE_UT_INVALID_MSN_RANGE = 0x03;
    static final int DDP_ECODE_UT_INVALID_MO = 0x04;
    static final int DDP_ECODE_UT_TOO_LONG = 0x05;
    static final int DDP_ECODE_UT_INVALID_VERSION = 0x06;
    static final int LLP_ETYPE_MPA = 0;
    static final int LLP_ECODE_CRC = 0x02;
    static final int LLP_ECODE_INSUFFICIENT_IRD = 0x06;

    static int pad(int ulpduLen) {
        return -(MPA_HDR + ulpduLen) & 3;
    }

    /** Bytes of a whole FPDU carrying a ULPDU of {@code ulpduLen} bytes. */
    static int fpduLength(int ulpduLen) {
        return MPA_HDR + ulpduLen + pad(ulpduLen) + MPA_CRC;
    }

    static int u16(MemorySegment s, long off) {
        return s.get(BE16, off) & 0xFFFF;
    }

    static int i32(MemorySegment s, long off) {
        return s.get(BE32, off);
    }

    static long i64(MemorySegment s, long off) {
        return s.get(BE64, off);
    }

    static void put16(MemorySegment s, long off, int v) {
        s.set(BE16, off, (short) v);
    }

    static void put32(MemorySegment s, long off, int v) {
        s.set(BE32, off, v);
    }

    static void put64(MemorySegment s, long off, long v) {
        s.set(BE64, off, v);
    }
}
