package org.jrdma.rocev2.wire;

/**
 * Why {@link PacketValidator} drops a received RoCE v2 packet: int codes (0 = not dropped) with names,
 * so that the receive path neither allocates nor throws. Linux rxe 6.1 drops such packets silently
 * (no hw_counter); jrdma counts each reason ({@code org.jrdma.rocev2.stats.Counters#drop}).
 */
public final class DropReason {
    /** Not dropped. */
    public static final int OK = 0;
    /** Shorter than BTH + ICRC (16 bytes). */
    public static final int TOO_SHORT = 1;
    /** The ICRC does not match (IBTA Annex A17.3.3; rxe: "bad ICRC"). */
    public static final int BAD_ICRC = 2;
    /** BTH TVer is not 0 (IBTA §9.2.5: only version 0 is defined). */
    public static final int BAD_TVER = 3;
    /** Unknown or reserved opcode, RD, or manufacturer-specific (IBTA table 38). */
    public static final int BAD_OPCODE = 4;
    /** Shorter than the opcode's BTH + extension headers + ICRC. */
    public static final int TRUNCATED_HEADER = 5;
    /**
     * Pad count inconsistent: larger than the bytes after the headers, non-zero on an opcode without a
     * payload, or non-zero on a First or Middle packet (whose payload is a full MTU, a multiple of 4).
     */
    public static final int BAD_PAD = 6;
    /**
     * Length inconsistent: the packet is not a multiple of 4 bytes (IBTA §9.2.4: payload + pad is), or an
     * opcode without payload carries extra bytes.
     */
    public static final int BAD_LENGTH = 7;
    /** Payload larger than the path MTU. */
    public static final int OVER_MTU = 8;
    /** The range given is outside the buffer (a caller's error, counted instead of thrown). */
    public static final int OUT_OF_BUFFER = 9;
    /** Number of codes, 0..COUNT-1. */
    public static final int COUNT = 10;

    private static final String[] NAMES = {
        "ok", "too_short", "bad_icrc", "bad_tver", "bad_opcode", "truncated_header", "bad_pad", "bad_length",
        "over_mtu", "out_of_buffer"};
    private static final String[] DESCRIPTIONS = {
        "ok", "shorter than BTH + ICRC", "bad ICRC", "BTH TVer not 0", "unknown or reserved opcode",
        "truncated extension headers", "pad count inconsistent with the length", "length not a multiple of 4 "
            + "or bytes after a header-only opcode", "payload larger than the path MTU", "range outside the buffer"};

    private DropReason() {
    }

    /** The snake_case name of a reason ("bad_icrc"), or "unknown" for a code outside 0..COUNT-1. */
    public static String name(int reason) {
        return reason >= 0 && reason < COUNT ? NAMES[reason] : "unknown";
    }

    /** A short English description of a reason. */
    public static String describe(int reason) {
        return reason >= 0 && reason < COUNT ? DESCRIPTIONS[reason] : "unknown drop reason " + reason;
    }
}
