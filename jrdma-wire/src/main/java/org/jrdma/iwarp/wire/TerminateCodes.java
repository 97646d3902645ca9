package org.jrdma.iwarp.wire;

/**
 * The Terminate message's error layer, error type and error code values (RFC 5040 §7 for RDMAP, RFC 5041 §8
 * for DDP, RFC 5044 §8 and RFC 6581 §9 for the LLP = MPA), with siw's names ({@code iwarp.h}:
 * {@code term_elayer}, {@code rdmap_etype}, {@code rdmap_ecode}, {@code ddp_etype}, {@code ddp_ecode},
 * {@code llp_etype}, {@code llp_ecode}).
 *
 * <p>What siw sends (Linux 6.1 {@code siw_qp_rx.c}, {@code siw_cm.c}, {@code siw_qp.c}): a bad MPA CRC:
 * LLP / MPA / {@link #LLP_RECEIVED_CRC}; a DDP version other than 1: DDP / tagged or untagged buffer /
 * {@link #DDP_T_VERSION} or {@link #DDP_UT_VERSION}; an RDMAP version other than 1: RDMAP / remote operation /
 * {@link #RDMAP_VERSION}; a reserved opcode: RDMAP / remote operation / {@link #RDMAP_OPCODE}; a wrong reply key:
 * LLP / MPA / {@link #LLP_INVALID_REQ_RESP}; IRD/ORD that do not fit: {@link #LLP_INSUFFICIENT_IRD}; no common
 * RTR mode: {@link #LLP_NO_MATCHING_RTR}; STag, bounds and access errors of tagged placement: DDP / tagged /
 * the {@code DDP_T_*} code (access rights map to {@link #DDP_T_INVALID_STAG}); a failed Send with Invalidate:
 * RDMAP / remote protection or operation / {@link #RDMAP_CANNOT_INVALIDATE}; a QP moved to TERMINATE by the
 * application: RDMAP / catastrophic / {@link #RDMAP_UNSPECIFIED}.
 *
 * <p>{@link #pack} and friends carry a (layer, type, code) triple in one int so that per-FPDU code needs no
 * object.
 */
public final class TerminateCodes {
    /** Layer: RDMAP (RFC 5040 §4.8; TERM_ERROR_LAYER_RDMAP). */
    public static final int LAYER_RDMAP = 0x0;
    /** Layer: DDP (TERM_ERROR_LAYER_DDP). */
    public static final int LAYER_DDP = 0x1;
    /** Layer: the lower layer protocol, MPA (TERM_ERROR_LAYER_LLP). */
    public static final int LAYER_LLP = 0x2;

    /** RDMAP error type: local catastrophic (RDMAP_ETYPE_CATASTROPHIC). */
    public static final int RDMAP_ETYPE_CATASTROPHIC = 0x0;
    /** RDMAP error type: remote protection error (RDMAP_ETYPE_REMOTE_PROTECTION). */
    public static final int RDMAP_ETYPE_REMOTE_PROTECTION = 0x1;
    /** RDMAP error type: remote operation error (RDMAP_ETYPE_REMOTE_OPERATION). */
    public static final int RDMAP_ETYPE_REMOTE_OPERATION = 0x2;

    /** RDMAP error code: invalid STag. */
    public static final int RDMAP_INVALID_STAG = 0x00;
    /** RDMAP error code: base or bounds violation. */
    public static final int RDMAP_BASE_BOUNDS = 0x01;
    /** RDMAP error code: access rights violation. */
    public static final int RDMAP_ACCESS_RIGHTS = 0x02;
    /** RDMAP error code: STag not associated with RDMAP stream. */
    public static final int RDMAP_STAG_NOT_ASSOC = 0x03;
    /** RDMAP error code: TO wrap. */
    public static final int RDMAP_TO_WRAP = 0x04;
    /** RDMAP error code: invalid RDMAP version. */
    public static final int RDMAP_VERSION = 0x05;
    /** RDMAP error code: unexpected opcode. */
    public static final int RDMAP_OPCODE = 0x06;
    /** RDMAP error code: catastrophic error, localized to RDMAP stream. */
    public static final int RDMAP_CATASTROPHIC_STREAM = 0x07;
    /** RDMAP error code: catastrophic error, global. */
    public static final int RDMAP_CATASTROPHIC_GLOBAL = 0x08;
    /** RDMAP error code: STag cannot be invalidated. */
    public static final int RDMAP_CANNOT_INVALIDATE = 0x09;
    /** RDMAP error code: unspecified error. */
    public static final int RDMAP_UNSPECIFIED = 0xff;

    /** DDP error type: catastrophic (DDP_ETYPE_CATASTROPHIC; code 0 = unspecified). */
    public static final int DDP_ETYPE_CATASTROPHIC = 0x0;
    /** DDP error type: tagged buffer error (DDP_ETYPE_TAGGED_BUF). */
    public static final int DDP_ETYPE_TAGGED_BUF = 0x1;
    /** DDP error type: untagged buffer error (DDP_ETYPE_UNTAGGED_BUF). */
    public static final int DDP_ETYPE_UNTAGGED_BUF = 0x2;
    /** DDP error type: reserved for use by the LLP (DDP_ETYPE_RSVD). */
    public static final int DDP_ETYPE_RSVD = 0x3;

    /** DDP catastrophic error code: unspecified. */
    public static final int DDP_CATASTROPHIC = 0x00;
    /** DDP tagged buffer error code: invalid STag. */
    public static final int DDP_T_INVALID_STAG = 0x00;
    /** DDP tagged buffer error code: base or bounds violation. */
    public static final int DDP_T_BASE_BOUNDS = 0x01;
    /** DDP tagged buffer error code: STag not associated with DDP stream. */
    public static final int DDP_T_STAG_NOT_ASSOC = 0x02;
    /** DDP tagged buffer error code: TO wrap. */
    public static final int DDP_T_TO_WRAP = 0x03;
    /** DDP tagged buffer error code: invalid DDP version. */
    public static final int DDP_T_VERSION = 0x04;
    /** DDP untagged buffer error code: invalid QN. */
    public static final int DDP_UT_INVALID_QN = 0x01;
    /** DDP untagged buffer error code: invalid MSN, no buffer available. */
    public static final int DDP_UT_INVALID_MSN_NOBUF = 0x02;
    /** DDP untagged buffer error code: invalid MSN, MSN range. */
    public static final int DDP_UT_INVALID_MSN_RANGE = 0x03;
    /** DDP untagged buffer error code: invalid MO. */
    public static final int DDP_UT_INVALID_MO = 0x04;
    /** DDP untagged buffer error code: DDP message too long for the available buffer. */
    public static final int DDP_UT_MSG_TOOLONG = 0x05;
    /** DDP untagged buffer error code: invalid DDP version. */
    public static final int DDP_UT_VERSION = 0x06;

    /** LLP error type: MPA (LLP_ETYPE_MPA). */
    public static final int LLP_ETYPE_MPA = 0x0;
    /** MPA error code: TCP connection closed, terminated or lost (LLP_ECODE_TCP_STREAM_LOST). */
    public static final int LLP_TCP_STREAM_LOST = 0x01;
    /** MPA error code: received MPA CRC does not match (LLP_ECODE_RECEIVED_CRC). */
    public static final int LLP_RECEIVED_CRC = 0x02;
    /** MPA error code: marker and ULPDU_Length mismatch (LLP_ECODE_FPDU_START). */
    public static final int LLP_FPDU_START = 0x03;
    /** MPA error code: invalid MPA Request or Reply (LLP_ECODE_INVALID_REQ_RESP). */
    public static final int LLP_INVALID_REQ_RESP = 0x04;
    /** RFC 6581 error code: local catastrophic (LLP_ECODE_LOCAL_CATASTROPHIC). */
    public static final int LLP_LOCAL_CATASTROPHIC = 0x05;
    /** RFC 6581 error code: insufficient IRD resources (LLP_ECODE_INSUFFICIENT_IRD). */
    public static final int LLP_INSUFFICIENT_IRD = 0x06;
    /** RFC 6581 error code: no matching RTR option (LLP_ECODE_NO_MATCHING_RTR). */
    public static final int LLP_NO_MATCHING_RTR = 0x07;

    private TerminateCodes() {
    }

    /** Packs (layer 0..15, type 0..15, code 0..255) into {@code layer << 12 | type << 8 | code}. */
    public static int pack(int layer, int etype, int ecode) {
        return (layer & 0xf) << 12 | (etype & 0xf) << 8 | (ecode & 0xff);
    }

    /** The layer of a {@link #pack}ed triple. */
    public static int layer(int packed) {
        return (packed >>> 12) & 0xf;
    }

    /** The error type of a {@link #pack}ed triple. */
    public static int etype(int packed) {
        return (packed >>> 8) & 0xf;
    }

    /** The error code of a {@link #pack}ed triple. */
    public static int ecode(int packed) {
        return packed & 0xff;
    }

    /** "layer LLP, type MPA, code 0x02 (CRC error)"-style text for logs. Allocates. */
    public static String describe(int layer, int etype, int ecode) {
        String l = switch (layer) {
            case LAYER_RDMAP -> "RDMAP";
            case LAYER_DDP -> "DDP";
            case LAYER_LLP -> "LLP";
            default -> "layer " + layer;
        };
        String t;
        String c = null;
        if (layer == LAYER_RDMAP) {
            t = switch (etype) {
                case RDMAP_ETYPE_CATASTROPHIC -> "catastrophic";
                case RDMAP_ETYPE_REMOTE_PROTECTION -> "remote protection";
                case RDMAP_ETYPE_REMOTE_OPERATION -> "remote operation";
                default -> "type " + etype;
            };
            c = switch (ecode) {
                case RDMAP_INVALID_STAG -> "invalid STag";
                case RDMAP_BASE_BOUNDS -> "base or bounds violation";
                case RDMAP_ACCESS_RIGHTS -> "access rights violation";
                case RDMAP_STAG_NOT_ASSOC -> "STag not associated with RDMAP stream";
                case RDMAP_TO_WRAP -> "TO wrap";
                case RDMAP_VERSION -> "invalid RDMAP version";
                case RDMAP_OPCODE -> "unexpected opcode";
                case RDMAP_CATASTROPHIC_STREAM -> "catastrophic, localized to RDMAP stream";
                case RDMAP_CATASTROPHIC_GLOBAL -> "catastrophic, global";
                case RDMAP_CANNOT_INVALIDATE -> "STag cannot be invalidated";
                case RDMAP_UNSPECIFIED -> "unspecified";
                default -> null;
            };
        } else if (layer == LAYER_DDP) {
            t = switch (etype) {
                case DDP_ETYPE_CATASTROPHIC -> "catastrophic";
                case DDP_ETYPE_TAGGED_BUF -> "tagged buffer";
                case DDP_ETYPE_UNTAGGED_BUF -> "untagged buffer";
                default -> "type " + etype;
            };
            if (etype == DDP_ETYPE_TAGGED_BUF) {
                c = switch (ecode) {
                    case DDP_T_INVALID_STAG -> "invalid STag";
                    case DDP_T_BASE_BOUNDS -> "base or bounds violation";
                    case DDP_T_STAG_NOT_ASSOC -> "STag not associated with DDP stream";
                    case DDP_T_TO_WRAP -> "TO wrap";
                    case DDP_T_VERSION -> "invalid DDP version";
                    default -> null;
                };
            } else if (etype == DDP_ETYPE_UNTAGGED_BUF) {
                c = switch (ecode) {
                    case DDP_UT_INVALID_QN -> "invalid QN";
                    case DDP_UT_INVALID_MSN_NOBUF -> "invalid MSN, no buffer available";
                    case DDP_UT_INVALID_MSN_RANGE -> "invalid MSN, MSN range";
                    case DDP_UT_INVALID_MO -> "invalid MO";
                    case DDP_UT_MSG_TOOLONG -> "message too long";
                    case DDP_UT_VERSION -> "invalid DDP version";
                    default -> null;
                };
            } else if (etype == DDP_ETYPE_CATASTROPHIC && ecode == DDP_CATASTROPHIC) {
                c = "unspecified";
            }
        } else {
            t = etype == LLP_ETYPE_MPA && layer == LAYER_LLP ? "MPA" : "type " + etype;
            if (layer == LAYER_LLP) {
                c = switch (ecode) {
                    case LLP_TCP_STREAM_LOST -> "TCP connection lost";
                    case LLP_RECEIVED_CRC -> "CRC error";
                    case LLP_FPDU_START -> "marker and ULPDU_Length mismatch";
                    case LLP_INVALID_REQ_RESP -> "invalid MPA Request or Reply";
                    case LLP_LOCAL_CATASTROPHIC -> "local catastrophic";
                    case LLP_INSUFFICIENT_IRD -> "insufficient IRD";
                    case LLP_NO_MATCHING_RTR -> "no matching RTR";
                    default -> null;
                };
            }
        }
        return "layer " + l + ", type " + t + ", code " + String.format("0x%02x", ecode) + (c != null ? " (" + c + ")" : "");
    }
}
