package org.jrdma.rocev2.wire;

/**
 * The BTH OpCode table for RC, UC and UD (IBTA Vol 1 §9.2.1, table 38) plus the RoCE v2 CNP (Annex
 * A17.9.2), kept as data: per 8-bit opcode one int of property bits, the header length and the offset of
 * each extension header, filled once from the rows in the static initializer and then only indexed.
 *
 * <p>The opcode's top 3 bits are the transport ({@link #TRANSPORT_RC} 000, {@link #TRANSPORT_UC} 001,
 * RD 010, {@link #TRANSPORT_UD} 011, {@link #TRANSPORT_CNP} 100), the low 5 bits the operation. RD
 * opcodes (0x40-0x5F), the reserved codes (0x15, 0x18-0x1B, 0x1E-0x1F, 0x2C-0x3F, 0x60-0x63,
 * 0x66-0x7F, 0x80, 0x82-0xBF) and the manufacturer-specific 0xC0-0xFF are not valid here:
 * {@link #isValid} is false, {@link #headerLength} is -1, {@link #name} is "reserved 0xNN". The RC
 * opcodes of IBTA's Memory Placement Extensions (Vol 1 Annex A19) are rows as Linux rxe (6.2 and
 * later) has them: 0x1C {@link #RC_FLUSH} (BTH, FETH, RETH; no payload) and 0x1D
 * {@link #RC_ATOMIC_WRITE} (BTH, RETH, 8 bytes of payload); both are answered with an RDMA READ
 * response Only of no payload.
 *
 * <p>Extension headers follow BTH in this order (§9.2, Annex A19.4.1): DETH, FETH, RETH, AtomicETH, AETH,
 * AtomicAckETH, ImmDt, IETH; then the payload, 0..3 pad bytes and the 4-byte ICRC. A CNP carries 16
 * reserved bytes after BTH and no payload ({@link #CNP_RESERVED_LENGTH}); they count in its
 * {@link #headerLength}.
 *
 * <p>Every accessor takes any int and uses its low 8 bits; none throws or allocates.
 */
public final class Opcode {
    // ---- extension header flags (bits 0-6 and {@link #FETH}); their wire order is WIRE_ORDER ----
    /** Extension header flag: DETH, 8 bytes ({@link Deth}). */
    public static final int DETH = 1;
    /** Extension header flag: RETH, 16 bytes ({@link Reth}). */
    public static final int RETH = 1 << 1;
    /** Extension header flag: AtomicETH, 28 bytes ({@link AtomicEth}). */
    public static final int ATOMIC_ETH = 1 << 2;
    /** Extension header flag: AETH, 4 bytes ({@link Aeth}). */
    public static final int AETH = 1 << 3;
    /** Extension header flag: AtomicAckETH, 8 bytes ({@link AtomicAckEth}). */
    public static final int ATOMIC_ACK_ETH = 1 << 4;
    /** Extension header flag: ImmDt, 4 bytes ({@link ImmDt}). */
    public static final int IMM_DT = 1 << 5;
    /** Extension header flag: IETH, 4 bytes ({@link Ieth}). */
    public static final int IETH = 1 << 6;
    /** Extension header flag: FETH, 4 bytes ({@link Feth}); on the wire between DETH and RETH. */
    public static final int FETH = 1 << 15;
    /** The header flags in wire order; a header's slot in the offset table is its index here. */
    private static final int[] WIRE_ORDER = {DETH, FETH, RETH, ATOMIC_ETH, AETH, ATOMIC_ACK_ETH, IMM_DT, IETH};
    private static final int[] HEADER_SIZE = {
        Deth.LENGTH, Feth.LENGTH, Reth.LENGTH, AtomicEth.LENGTH, Aeth.LENGTH, AtomicAckEth.LENGTH, ImmDt.LENGTH,
        Ieth.LENGTH};
    private static final String[] HEADER_NAME = {"DETH", "FETH", "RETH", "AtomicETH", "AETH", "AtomicAckETH", "ImmDt",
        "IETH"};
    private static final int ALL_HEADERS = DETH | FETH | RETH | ATOMIC_ETH | AETH | ATOMIC_ACK_ETH | IMM_DT | IETH;

    // ---- property flags ----
    /** Property: a valid opcode for this implementation. */
    public static final int VALID = 1 << 7;
    /** Property: the packet carries a payload (possibly of 0 bytes). */
    public static final int PAYLOAD = 1 << 8;
    /** Property: First packet of a multi-packet message. */
    public static final int FIRST = 1 << 9;
    /** Property: Middle packet of a multi-packet message. */
    public static final int MIDDLE = 1 << 10;
    /** Property: Last packet of a multi-packet message. */
    public static final int LAST = 1 << 11;
    /** Property: the only packet of its message (also READ requests, atomics, acknowledges). */
    public static final int ONLY = 1 << 12;
    /** Property: sent by a requester. */
    public static final int REQUEST = 1 << 13;
    /** Property: sent by a responder (READ responses, acknowledges). */
    public static final int RESPONSE = 1 << 14;
    /** Operation: SEND. */
    public static final int OP_SEND = 1 << 16;
    /** Operation: RDMA WRITE. */
    public static final int OP_RDMA_WRITE = 1 << 17;
    /** Operation: RDMA READ (request or response). */
    public static final int OP_RDMA_READ = 1 << 18;
    /** Operation: an atomic (CmpSwap, FetchAdd) or its ATOMIC Acknowledge. */
    public static final int OP_ATOMIC = 1 << 19;
    /** Operation: Acknowledge (ACK or NAK). */
    public static final int OP_ACKNOWLEDGE = 1 << 20;
    /** Operation: congestion notification packet. */
    public static final int OP_CNP = 1 << 21;
    /** Operation: FLUSH (Annex A19; rxe {@code RXE_FLUSH_MASK}). */
    public static final int OP_FLUSH = 1 << 22;
    /** Operation: ATOMIC WRITE (Annex A19; rxe {@code RXE_ATOMIC_WRITE_MASK}). */
    public static final int OP_ATOMIC_WRITE = 1 << 23;

    /** Transport of opcodes 0x00-0x1F: Reliable Connection. */
    public static final int TRANSPORT_RC = 0;
    /** Transport of opcodes 0x20-0x3F: Unreliable Connection. */
    public static final int TRANSPORT_UC = 1;
    /** Transport of opcodes 0x40-0x5F: Reliable Datagram (not supported). */
    public static final int TRANSPORT_RD = 2;
    /** Transport of opcodes 0x60-0x7F: Unreliable Datagram. */
    public static final int TRANSPORT_UD = 3;
    /** Transport of opcodes 0x80-0x9F: CNP (RoCE v2 Annex A17.9). */
    public static final int TRANSPORT_CNP = 4;

    /** Bytes of reserved data after the BTH of a CNP (Annex A17.9.2). */
    public static final int CNP_RESERVED_LENGTH = 16;

    // ---- opcodes, names as in rxe's ib_pack.h (IB_OPCODE_RC_SEND_FIRST ...) ----
    /** 0x00: RC SEND First. */
    public static final int RC_SEND_FIRST = 0x00;
    /** 0x01: RC SEND Middle. */
    public static final int RC_SEND_MIDDLE = 0x01;
    /** 0x02: RC SEND Last. */
    public static final int RC_SEND_LAST = 0x02;
    /** 0x03: RC SEND Last with Immediate. */
    public static final int RC_SEND_LAST_WITH_IMMEDIATE = 0x03;
    /** 0x04: RC SEND Only. */
    public static final int RC_SEND_ONLY = 0x04;
    /** 0x05: RC SEND Only with Immediate. */
    public static final int RC_SEND_ONLY_WITH_IMMEDIATE = 0x05;
    /** 0x06: RC RDMA WRITE First. */
    public static final int RC_RDMA_WRITE_FIRST = 0x06;
    /** 0x07: RC RDMA WRITE Middle. */
    public static final int RC_RDMA_WRITE_MIDDLE = 0x07;
    /** 0x08: RC RDMA WRITE Last. */
    public static final int RC_RDMA_WRITE_LAST = 0x08;
    /** 0x09: RC RDMA WRITE Last with Immediate. */
    public static final int RC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09;
    /** 0x0a: RC RDMA WRITE Only. */
    public static final int RC_RDMA_WRITE_ONLY = 0x0a;
    /** 0x0b: RC RDMA WRITE Only with Immediate. */
    public static final int RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0b;
    /** 0x0c: RC RDMA READ Request. */
    public static final int RC_RDMA_READ_REQUEST = 0x0c;
    /** 0x0d: RC RDMA READ response First. */
    public static final int RC_RDMA_READ_RESPONSE_FIRST = 0x0d;
    /** 0x0e: RC RDMA READ response Middle. */
    public static final int RC_RDMA_READ_RESPONSE_MIDDLE = 0x0e;
    /** 0x0f: RC RDMA READ response Last. */
    public static final int RC_RDMA_READ_RESPONSE_LAST = 0x0f;
    /** 0x10: RC RDMA READ response Only. */
    public static final int RC_RDMA_READ_RESPONSE_ONLY = 0x10;
    /** 0x11: RC Acknowledge. */
    public static final int RC_ACKNOWLEDGE = 0x11;
    /** 0x12: RC ATOMIC Acknowledge. */
    public static final int RC_ATOMIC_ACKNOWLEDGE = 0x12;
    /** 0x13: RC CmpSwap. */
    public static final int RC_COMPARE_SWAP = 0x13;
    /** 0x14: RC FetchAdd. */
    public static final int RC_FETCH_ADD = 0x14;
    /** 0x16: RC SEND Last with Invalidate. */
    public static final int RC_SEND_LAST_WITH_INVALIDATE = 0x16;
    /** 0x17: RC SEND Only with Invalidate. */
    public static final int RC_SEND_ONLY_WITH_INVALIDATE = 0x17;
    /** 0x1c: RC FLUSH (Annex A19; rxe {@code IB_OPCODE_RC_FLUSH}). */
    public static final int RC_FLUSH = 0x1c;
    /** 0x1d: RC ATOMIC WRITE (Annex A19; rxe {@code IB_OPCODE_RC_ATOMIC_WRITE}). */
    public static final int RC_ATOMIC_WRITE = 0x1d;
    /** 0x20: UC SEND First. */
    public static final int UC_SEND_FIRST = 0x20;
    /** 0x21: UC SEND Middle. */
    public static final int UC_SEND_MIDDLE = 0x21;
    /** 0x22: UC SEND Last. */
    public static final int UC_SEND_LAST = 0x22;
    /** 0x23: UC SEND Last with Immediate. */
    public static final int UC_SEND_LAST_WITH_IMMEDIATE = 0x23;
    /** 0x24: UC SEND Only. */
    public static final int UC_SEND_ONLY = 0x24;
    /** 0x25: UC SEND Only with Immediate. */
    public static final int UC_SEND_ONLY_WITH_IMMEDIATE = 0x25;
    /** 0x26: UC RDMA WRITE First. */
    public static final int UC_RDMA_WRITE_FIRST = 0x26;
    /** 0x27: UC RDMA WRITE Middle. */
    public static final int UC_RDMA_WRITE_MIDDLE = 0x27;
    /** 0x28: UC RDMA WRITE Last. */
    public static final int UC_RDMA_WRITE_LAST = 0x28;
    /** 0x29: UC RDMA WRITE Last with Immediate. */
    public static final int UC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x29;
    /** 0x2a: UC RDMA WRITE Only. */
    public static final int UC_RDMA_WRITE_ONLY = 0x2a;
    /** 0x2b: UC RDMA WRITE Only with Immediate. */
    public static final int UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x2b;
    /** 0x64: UD SEND Only. */
    public static final int UD_SEND_ONLY = 0x64;
    /** 0x65: UD SEND Only with Immediate. */
    public static final int UD_SEND_ONLY_WITH_IMMEDIATE = 0x65;
    /** Congestion Notification Packet (Annex A17.9.2). */
    public static final int CNP = 0x81;

    // ---- the table ----
    private static final int[] MASK = new int[256];
    private static final byte[] HEADER_LENGTH = new byte[256];
    /** [op * 8 + slot in {@link #WIRE_ORDER}] = offset from the start of BTH, or -1. */
    private static final byte[] OFFSET = new byte[256 * 8];
    private static final String[] NAME = new String[256];

    static {
        java.util.Arrays.fill(HEADER_LENGTH, (byte) -1);
        java.util.Arrays.fill(OFFSET, (byte) -1);
        for (int op = 0; op < 256; op++) {
            NAME[op] = String.format("reserved 0x%02x", op);
        }
        final int req = VALID | REQUEST;
        final int rsp = VALID | RESPONSE;
        final int send = req | OP_SEND | PAYLOAD;
        final int write = req | OP_RDMA_WRITE | PAYLOAD;
        final int readRsp = rsp | OP_RDMA_READ | PAYLOAD;
        // Table 38. RC = 0x00 + code, UC = 0x20 + code (UC has SEND and RDMA WRITE only).
        for (int base : new int[] {0x00, 0x20}) {
            String t = base == 0 ? "RC " : "UC ";
            row(base + 0x00, t + "SEND First", send | FIRST);
            row(base + 0x01, t + "SEND Middle", send | MIDDLE);
            row(base + 0x02, t + "SEND Last", send | LAST);
            row(base + 0x03, t + "SEND Last with Immediate", send | LAST | IMM_DT);
            row(base + 0x04, t + "SEND Only", send | ONLY);
            row(base + 0x05, t + "SEND Only with Immediate", send | ONLY | IMM_DT);
            row(base + 0x06, t + "RDMA WRITE First", write | FIRST | RETH);
            row(base + 0x07, t + "RDMA WRITE Middle", write | MIDDLE);
            row(base + 0x08, t + "RDMA WRITE Last", write | LAST);
            row(base + 0x09, t + "RDMA WRITE Last with Immediate", write | LAST | IMM_DT);
            row(base + 0x0a, t + "RDMA WRITE Only", write | ONLY | RETH);
            row(base + 0x0b, t + "RDMA WRITE Only with Immediate", write | ONLY | RETH | IMM_DT);
        }
        row(0x0c, "RC RDMA READ Request", req | OP_RDMA_READ | ONLY | RETH);
        row(0x0d, "RC RDMA READ response First", readRsp | FIRST | AETH);
        row(0x0e, "RC RDMA READ response Middle", readRsp | MIDDLE);
        row(0x0f, "RC RDMA READ response Last", readRsp | LAST | AETH);
        row(0x10, "RC RDMA READ response Only", readRsp | ONLY | AETH);
        row(0x11, "RC Acknowledge", rsp | OP_ACKNOWLEDGE | ONLY | AETH);
        row(0x12, "RC ATOMIC Acknowledge", rsp | OP_ATOMIC | ONLY | AETH | ATOMIC_ACK_ETH);
        row(0x13, "RC CmpSwap", req | OP_ATOMIC | ONLY | ATOMIC_ETH);
        row(0x14, "RC FetchAdd", req | OP_ATOMIC | ONLY | ATOMIC_ETH);
        row(0x16, "RC SEND Last with Invalidate", send | LAST | IETH);
        row(0x17, "RC SEND Only with Invalidate", send | ONLY | IETH);
        row(0x1c, "RC FLUSH", req | OP_FLUSH | ONLY | FETH | RETH);
        row(0x1d, "RC ATOMIC WRITE", req | OP_ATOMIC_WRITE | PAYLOAD | ONLY | RETH);
        row(0x64, "UD SEND Only", send | ONLY | DETH);
        row(0x65, "UD SEND Only with Immediate", send | ONLY | DETH | IMM_DT);
        row(0x81, "CNP", VALID | OP_CNP | ONLY);
    }

    private static void row(int op, String name, int mask) {
        MASK[op] = mask;
        NAME[op] = name;
        int off = Bth.LENGTH;
        for (int i = 0; i < WIRE_ORDER.length; i++) {
            if ((mask & WIRE_ORDER[i]) != 0) {
                OFFSET[op * 8 + i] = (byte) off;
                off += HEADER_SIZE[i];
            }
        }
        if ((mask & OP_CNP) != 0) {
            off += CNP_RESERVED_LENGTH;
        }
        HEADER_LENGTH[op] = (byte) off;
    }

    private Opcode() {
    }

    /** True if {@code op} is an opcode this implementation knows (RC, UC, UD or CNP). */
    public static boolean isValid(int op) {
        return (MASK[op & 0xff] & VALID) != 0;
    }

    /** All header and property bits of {@code op} ({@link #RETH}, {@link #PAYLOAD}, {@link #OP_SEND}, ...); 0 if invalid. */
    public static int mask(int op) {
        return MASK[op & 0xff];
    }

    /** True if {@code op} has every bit of {@code flags} (header flags or properties). */
    public static boolean has(int op, int flags) {
        return (MASK[op & 0xff] & flags) == flags;
    }

    /**
     * Bytes from the start of BTH to the payload (BTH + extension headers; for a CNP also its 16 reserved
     * bytes), 12..60; -1 for an invalid opcode.
     */
    public static int headerLength(int op) {
        return HEADER_LENGTH[op & 0xff];
    }

    /**
     * Offset of an extension header from the start of BTH, or -1 if {@code op} does not carry it.
     *
     * @param headerFlag exactly one of {@link #DETH}, {@link #FETH}, {@link #RETH}, {@link #ATOMIC_ETH},
     *                   {@link #AETH}, {@link #ATOMIC_ACK_ETH}, {@link #IMM_DT}, {@link #IETH}; -1 for anything else
     */
    public static int offset(int op, int headerFlag) {
        int slot = slot(headerFlag);
        return slot < 0 ? -1 : OFFSET[((op & 0xff) << 3) | slot];
    }

    /** The slot of one header flag in {@link #WIRE_ORDER}, or -1 when it is not exactly one header flag. */
    private static int slot(int headerFlag) {
        if (headerFlag == 0 || (headerFlag & (headerFlag - 1)) != 0 || (headerFlag & ALL_HEADERS) == 0) {
            return -1;
        }
        if (headerFlag == FETH) {
            return 1;
        }
        return headerFlag == DETH ? 0 : Integer.numberOfTrailingZeros(headerFlag) + 1;
    }

    /**
     * The opcode's name as IBTA table 38 spells it with the transport in front, e.g. "RC SEND First",
     * "RC RDMA WRITE Only with Immediate", "RC RDMA READ response Last", "UD SEND Only", "CNP"; for an
     * invalid opcode "reserved 0xNN". Interned, no allocation.
     */
    public static String name(int op) {
        return NAME[op & 0xff];
    }

    /** The transport, the opcode's top 3 bits: {@link #TRANSPORT_RC} .. {@link #TRANSPORT_CNP} (5-7: reserved / vendor). */
    public static int transport(int op) {
        return (op & 0xff) >>> 5;
    }

    /** True if the opcode carries a payload. */
    public static boolean hasPayload(int op) {
        return (MASK[op & 0xff] & PAYLOAD) != 0;
    }

    /** True for a First or Only packet (starts a message). */
    public static boolean isStart(int op) {
        return (MASK[op & 0xff] & (FIRST | ONLY)) != 0;
    }

    /** True for a Last or Only packet (ends a message). */
    public static boolean isEnd(int op) {
        return (MASK[op & 0xff] & (LAST | ONLY)) != 0;
    }

    /** True for a request opcode (sent by a requester). */
    public static boolean isRequest(int op) {
        return (MASK[op & 0xff] & REQUEST) != 0;
    }

    /** True for a response opcode (READ responses, Acknowledge, ATOMIC Acknowledge). */
    public static boolean isResponse(int op) {
        return (MASK[op & 0xff] & RESPONSE) != 0;
    }

    /** The property bits {@link #of} selects on: operation, position, direction, ImmDt and IETH. */
    private static final int SELECT = OP_SEND | OP_RDMA_WRITE | OP_RDMA_READ | OP_ATOMIC | OP_ACKNOWLEDGE | OP_CNP
            | OP_FLUSH | OP_ATOMIC_WRITE | FIRST | MIDDLE | LAST | ONLY | REQUEST | RESPONSE | IMM_DT | IETH;

    /**
     * The opcode of {@code transport} ({@link #TRANSPORT_RC}, {@link #TRANSPORT_UC}, {@link #TRANSPORT_UD})
     * whose operation, position and direction are exactly {@code properties}, e.g.
     * {@code of(TRANSPORT_RC, REQUEST | OP_SEND | LAST | IMM_DT)} = {@link #RC_SEND_LAST_WITH_IMMEDIATE};
     * -1 when the table has none. The other extension headers (RETH, AETH, ...) follow from the
     * opcode. Scans the transport's 32 codes; no allocation.
     */
    public static int of(int transport, int properties) {
        int base = (transport & 0x7) << 5;
        for (int op = base; op < base + 32; op++) {
            if ((MASK[op] & VALID) != 0 && (MASK[op] & SELECT) == properties) {
                return op;
            }
        }
        return -1;
    }

    /** The position property of a packet that starts and / or ends its message: {@link #ONLY}, {@link #FIRST}, {@link #MIDDLE} or {@link #LAST}. */
    public static int position(boolean first, boolean last) {
        return first ? (last ? ONLY : FIRST) : (last ? LAST : MIDDLE);
    }

    /** The spec's name of one extension header flag ("RETH", "AETH", ...), or "?" for anything else. */
    public static String headerName(int headerFlag) {
        int slot = slot(headerFlag);
        return slot < 0 ? "?" : HEADER_NAME[slot];
    }
}
