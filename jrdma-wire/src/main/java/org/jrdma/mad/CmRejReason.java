package org.jrdma.mad;

/**
 * REJ reason codes (IBTA Vol 1 §12.6.7.2, table "Rejection Reason"; Linux {@code enum ib_cm_rej_reason}
 * and its {@code ibcm_reject_msg} names). {@link #code()} is the 16-bit value of {@link CmRej#reason()}.
 */
public enum CmRejReason {
    /** 1: no QP available. */
    NO_QP(1),
    /** 2: no EEC available. */
    NO_EEC(2),
    /** 3: no resources available. */
    NO_RESOURCES(3),
    /** 4: timeout (the REJ of a CM whose REQ or REP got no answer). */
    TIMEOUT(4),
    /** 5: unsupported request. */
    UNSUPPORTED(5),
    /** 6: invalid communication ID. */
    INVALID_COMM_ID(6),
    /** 7: invalid communication instance. */
    INVALID_COMM_INSTANCE(7),
    /** 8: invalid service ID (nobody listens on it). */
    INVALID_SERVICE_ID(8),
    /** 9: invalid transport service type. */
    INVALID_TRANSPORT_TYPE(9),
    /** 10: stale connection. */
    STALE_CONN(10),
    /** 11: RDC does not exist. */
    RDC_NOT_EXIST(11),
    /** 12: primary remote port GID rejected. */
    INVALID_GID(12),
    /** 13: primary remote port LID rejected. */
    INVALID_LID(13),
    /** 14: invalid primary SL. */
    INVALID_SL(14),
    /** 15: invalid primary traffic class. */
    INVALID_TRAFFIC_CLASS(15),
    /** 16: invalid primary hop limit. */
    INVALID_HOP_LIMIT(16),
    /** 17: invalid primary packet rate. */
    INVALID_PACKET_RATE(17),
    /** 18: alternate remote port GID rejected. */
    INVALID_ALT_GID(18),
    /** 19: alternate remote port LID rejected. */
    INVALID_ALT_LID(19),
    /** 20: invalid alternate SL. */
    INVALID_ALT_SL(20),
    /** 21: invalid alternate traffic class. */
    INVALID_ALT_TRAFFIC_CLASS(21),
    /** 22: invalid alternate hop limit. */
    INVALID_ALT_HOP_LIMIT(22),
    /** 23: invalid alternate packet rate. */
    INVALID_ALT_PACKET_RATE(23),
    /** 24: port CM redirect. */
    PORT_CM_REDIRECT(24),
    /** 25: port redirect. */
    PORT_REDIRECT(25),
    /** 26: invalid path MTU. */
    INVALID_MTU(26),
    /** 27: insufficient responder resources. */
    INSUFFICIENT_RESP_RESOURCES(27),
    /** 28: consumer reject (private data from the application: {@code rdma_reject}). */
    CONSUMER_DEFINED(28),
    /** 29: invalid RNR NAK retry count. */
    INVALID_RNR_RETRY(29),
    /** 30: duplicate local communication ID. */
    DUPLICATE_LOCAL_COMM_ID(30),
    /** 31: unsupported class version. */
    INVALID_CLASS_VERSION(31),
    /** 32: invalid primary flow label. */
    INVALID_FLOW_LABEL(32),
    /** 33: invalid alternate flow label. */
    INVALID_ALT_FLOW_LABEL(33),
    /** 35: vendor option not supported (ECE). */
    VENDOR_OPTION_NOT_SUPPORTED(35);

    private static final CmRejReason[] BY_CODE = new CmRejReason[36];

    static {
        for (CmRejReason r : values()) {
            BY_CODE[r.code] = r;
        }
    }

    private final int code;

    CmRejReason(int code) {
        this.code = code;
    }

    /** The reason's 16-bit code in the REJ. */
    public int code() {
        return code;
    }

    /** The reason with this code, or null for a code this table does not name (0, 34, 36 and up). */
    public static CmRejReason of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
