package org.jrdma.iwarp.wire;

/**
 * Why {@link FpduDeframer} (or {@link FpduValidator}, {@link MpaFrame#validate}) refuses an MPA frame or an
 * FPDU: int codes (0 = not dropped) with names, so that the receive path neither allocates nor throws, and
 * the Terminate (layer, type, code) a receiver sends for each ({@link #terminateCodes}). The codes of the
 * version, opcode and CRC errors are siw's ({@code siw_get_hdr}, {@code siw_get_trailer}); the others are
 * jrdma's choice among the RFC codes where siw has no check of its own (named in each constant).
 */
public final class FpduDropReason {
    /** Not dropped. */
    public static final int OK = 0;
    /** The CRC32c of the FPDU does not match its CRC field (CRC negotiated). Terminate: LLP, MPA, CRC error. */
    public static final int BAD_CRC = 1;
    /**
     * The ULPDU is shorter than the DDP/RDMAP header its first bytes announce (at least 2 bytes are needed to
     * read those). Terminate: DDP, catastrophic, 0 (jrdma: siw reads the next bytes of the stream as the
     * rest of the header).
     */
    public static final int ULPDU_TOO_SHORT = 2;
    /**
     * ULPDU_Length above the receiver's limit ({@link FpduDeframer#maxUlpduLength()}). The stream cannot be
     * followed further: the deframer stops. Terminate: DDP, catastrophic, 0 (jrdma's choice).
     */
    public static final int ULPDU_TOO_LONG = 3;
    /** DDP version (DV) not 1. Terminate: DDP, tagged or untagged buffer, invalid DDP version (siw). */
    public static final int BAD_DDP_VERSION = 4;
    /** RDMAP version (RV) not 1. Terminate: RDMAP, remote operation, invalid RDMAP version (siw). */
    public static final int BAD_RDMAP_VERSION = 5;
    /** Reserved RDMAP opcode 8..15. Terminate: RDMAP, remote operation, unexpected opcode (siw). */
    public static final int BAD_OPCODE = 6;
    /**
     * The T bit disagrees with the opcode (a tagged Send, an untagged Write...). Terminate: RDMAP, remote
     * operation, unexpected opcode (jrdma's choice).
     */
    public static final int TAGGED_MISMATCH = 7;
    /**
     * An untagged segment on the wrong queue for its opcode (RFC 5040 §5.1). Terminate: DDP, untagged buffer,
     * invalid QN (siw checks the Send queue so in {@code siw_send_check_ntoh}).
     */
    public static final int BAD_QN = 8;
    /** A Read Request with bytes after its 46-byte header. Terminate: RDMAP, remote operation, unexpected opcode. */
    public static final int UNEXPECTED_PAYLOAD = 9;
    /** An MPA Request/Reply whose key is not the one expected. Terminate: LLP, MPA, invalid Request/Reply (siw). */
    public static final int MPA_BAD_KEY = 10;
    /** An MPA Request/Reply of a revision above 2 (siw aborts). Terminate: LLP, MPA, invalid Request/Reply. */
    public static final int MPA_BAD_REVISION = 11;
    /** MPA private data longer than the limit (512, siw 256). Terminate: LLP, MPA, invalid Request/Reply. */
    public static final int MPA_PRIVATE_DATA_TOO_LONG = 12;
    /** Revision 2 with Enhanced but under 4 bytes of private data (siw rejects). Terminate: LLP, MPA, invalid. */
    public static final int MPA_NO_IRD_ORD = 13;
    /** Bytes after the stream was stopped or failed; counted in bytes by the deframer, not as frames. */
    public static final int AFTER_STOP = 14;
    /** Number of codes, 0..COUNT-1. */
    public static final int COUNT = 15;

    private static final String[] NAMES = {
        "ok", "bad_crc", "ulpdu_too_short", "ulpdu_too_long", "bad_ddp_version", "bad_rdmap_version", "bad_opcode",
        "tagged_mismatch", "bad_qn", "unexpected_payload", "mpa_bad_key", "mpa_bad_revision",
        "mpa_private_data_too_long", "mpa_no_ird_ord", "after_stop"};
    private static final String[] DESCRIPTIONS = {
        "ok", "MPA CRC32c mismatch", "ULPDU shorter than its DDP/RDMAP header", "ULPDU_Length above the limit",
        "DDP version not 1", "RDMAP version not 1", "reserved RDMAP opcode", "DDP T bit disagrees with the opcode",
        "untagged segment on the wrong queue", "Read Request with payload", "MPA key not the one expected",
        "MPA revision above 2", "MPA private data too long", "MPA revision 2 Enhanced without IRD/ORD",
        "bytes after the stream stopped"};

    private FpduDropReason() {
    }

    /** The snake_case name of a reason ("bad_crc"), or "unknown" for a code outside 0..COUNT-1. */
    public static String name(int reason) {
        return reason >= 0 && reason < COUNT ? NAMES[reason] : "unknown";
    }

    /** A short English description of a reason. */
    public static String describe(int reason) {
        return reason >= 0 && reason < COUNT ? DESCRIPTIONS[reason] : "unknown drop reason " + reason;
    }

    /** True for the reasons found in the MPA Request/Reply exchange. */
    public static boolean isMpaHandshake(int reason) {
        return reason >= MPA_BAD_KEY && reason <= MPA_NO_IRD_ORD;
    }

    /**
     * The Terminate a receiver sends for a reason, {@link TerminateCodes#pack}ed, or -1 for {@link #OK} and
     * {@link #AFTER_STOP}.
     *
     * @param tagged the failed segment's T bit (chooses the DDP error type of {@link #BAD_DDP_VERSION})
     */
    public static int terminateCodes(int reason, boolean tagged) {
        return switch (reason) {
            case BAD_CRC -> TerminateCodes.pack(TerminateCodes.LAYER_LLP, TerminateCodes.LLP_ETYPE_MPA,
                TerminateCodes.LLP_RECEIVED_CRC);
            case ULPDU_TOO_SHORT, ULPDU_TOO_LONG -> TerminateCodes.pack(TerminateCodes.LAYER_DDP,
                TerminateCodes.DDP_ETYPE_CATASTROPHIC, TerminateCodes.DDP_CATASTROPHIC);
            case BAD_DDP_VERSION -> tagged
                ? TerminateCodes.pack(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF, TerminateCodes.DDP_T_VERSION)
                : TerminateCodes.pack(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_VERSION);
            case BAD_RDMAP_VERSION -> TerminateCodes.pack(TerminateCodes.LAYER_RDMAP,
                TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION, TerminateCodes.RDMAP_VERSION);
            case BAD_OPCODE, TAGGED_MISMATCH, UNEXPECTED_PAYLOAD -> TerminateCodes.pack(TerminateCodes.LAYER_RDMAP,
                TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION, TerminateCodes.RDMAP_OPCODE);
            case BAD_QN -> TerminateCodes.pack(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF,
                TerminateCodes.DDP_UT_INVALID_QN);
            case MPA_BAD_KEY, MPA_BAD_REVISION, MPA_PRIVATE_DATA_TOO_LONG, MPA_NO_IRD_ORD -> TerminateCodes.pack(
                TerminateCodes.LAYER_LLP, TerminateCodes.LLP_ETYPE_MPA, TerminateCodes.LLP_INVALID_REQ_RESP);
            default -> -1;
        };
    }
}
