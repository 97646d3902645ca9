package org.jrdma.iwarp.wire;

/**
 * RDMAP opcodes (RFC 5040 §4.1, figure "RDMA Message Definitions"; siw {@code enum rdma_opcode}), the
 * low 4 bits of the RDMAP control byte, with whether each travels as a tagged DDP segment, on which
 * untagged queue (RFC 5040 §5.1: QN 0 Send, 1 Read Request, 2 Terminate) and the length of its
 * DDP + RDMAP header (the ULPDU bytes before the payload).
 */
public final class RdmapOpcode {
    /** RDMA Write: tagged, carries data. */
    public static final int RDMA_WRITE = 0;
    /** RDMA Read Request: untagged QN 1, a 28-byte RDMAP header ({@link ReadRequest}), no payload. */
    public static final int RDMA_READ_REQUEST = 1;
    /** RDMA Read Response: tagged, carries data. */
    public static final int RDMA_READ_RESPONSE = 2;
    /** Send: untagged QN 0. */
    public static final int SEND = 3;
    /** Send with Invalidate: untagged QN 0, the STag to invalidate in the DDP RsvdULP word. */
    public static final int SEND_WITH_INVALIDATE = 4;
    /** Send with Solicited Event: untagged QN 0. */
    public static final int SEND_WITH_SE = 5;
    /** Send with Solicited Event and Invalidate: untagged QN 0, Invalidate STag in RsvdULP. */
    public static final int SEND_WITH_SE_AND_INVALIDATE = 6;
    /** Terminate: untagged QN 2, a 4-byte Terminate control and optional copied headers ({@link Terminate}). */
    public static final int TERMINATE = 7;
    /** Opcodes 0..COUNT-1 are defined; 8..15 are reserved (RFC 5040 §4.1; siw: RDMAP_ECODE_OPCODE). */
    public static final int COUNT = 8;

    /** The RDMAP version (RV, RFC 5040 §4.1): 1; siw {@code RDMAP_VERSION}. */
    public static final int RDMAP_VERSION = 1;

    private static final String[] NAMES = {
        "RDMA Write", "RDMA Read Request", "RDMA Read Response", "Send", "Send with Invalidate",
        "Send with SE", "Send with SE and Invalidate", "Terminate"};

    private RdmapOpcode() {
    }

    /** True if {@code op} is 0..7. */
    public static boolean isValid(int op) {
        return op >= 0 && op < COUNT;
    }

    /** The RFC's name ("RDMA Read Request"), or "reserved opcode N". */
    public static String name(int op) {
        return isValid(op) ? NAMES[op] : "reserved opcode " + op;
    }

    /** True for RDMA Write and RDMA Read Response, which are tagged DDP segments; false for the others. */
    public static boolean isTagged(int op) {
        return op == RDMA_WRITE || op == RDMA_READ_RESPONSE;
    }

    /** True for the four Send opcodes (3..6). */
    public static boolean isSend(int op) {
        return op >= SEND && op <= SEND_WITH_SE_AND_INVALIDATE;
    }

    /** True for Send with Invalidate and Send with SE and Invalidate. */
    public static boolean isInvalidate(int op) {
        return op == SEND_WITH_INVALIDATE || op == SEND_WITH_SE_AND_INVALIDATE;
    }

    /** True for Send with SE and Send with SE and Invalidate. */
    public static boolean isSolicited(int op) {
        return op == SEND_WITH_SE || op == SEND_WITH_SE_AND_INVALIDATE;
    }

    /**
     * The untagged queue number an untagged opcode must carry (RFC 5040 §5.1): 0 for the Sends, 1 for Read
     * Request, 2 for Terminate; -1 for tagged and reserved opcodes.
     */
    public static int queueNumber(int op) {
        if (isSend(op)) {
            return DdpHeader.QN_SEND;
        }
        return op == RDMA_READ_REQUEST ? DdpHeader.QN_READ_REQUEST : op == TERMINATE ? DdpHeader.QN_TERMINATE : -1;
    }

    /**
     * Bytes of DDP + RDMAP header at the start of the ULPDU (siw {@code iwarp_pktinfo[].hdr_len} minus the
     * 2-byte MPA length): 14 for Write and Read Response, 18 for the Sends, 46 for Read Request, 22 for
     * Terminate (without its optional copied headers); -1 for a reserved opcode.
     */
    public static int headerLength(int op) {
        if (isTagged(op)) {
            return DdpHeader.TAGGED_LENGTH;
        }
        if (isSend(op)) {
            return DdpHeader.UNTAGGED_LENGTH;
        }
        return op == RDMA_READ_REQUEST ? DdpHeader.UNTAGGED_LENGTH + ReadRequest.LENGTH
            : op == TERMINATE ? DdpHeader.UNTAGGED_LENGTH + Terminate.CONTROL_LENGTH : -1;
    }
}
