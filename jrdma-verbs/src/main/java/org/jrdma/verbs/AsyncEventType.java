package org.jrdma.verbs;

/**
 * The type of an asynchronous event, {@code enum ibv_event_type} of libibverbs' {@code verbs.h}
 * with its values ({@code ibv_get_async_event(3)}). Which element an event names
 * ({@link AsyncEvent#qp()}, {@link AsyncEvent#cq()}, {@link AsyncEvent#srq()},
 * {@link AsyncEvent#portNum()}) follows from its type, as in {@code struct ibv_async_event}.
 */
public enum AsyncEventType {
    /** A CQ is in error: a completion overran it (IBTA Vol 1 §11.6.2). Element: the CQ. */
    CQ_ERR(0),
    /** A QP went to ERR on an error that is not tied to one work request (e.g. its CQ overran). Element: the QP. */
    QP_FATAL(1),
    /** A QP's responder found an invalid request (NAK invalid request) and moved the QP to ERR. Element: the QP. */
    QP_REQ_ERR(2),
    /** A QP's responder found a remote access violation (NAK remote access error) and moved the QP to ERR. Element: the QP. */
    QP_ACCESS_ERR(3),
    /** The first packet arrived on a QP in RTR (communication established, IBTA Vol 1 §11.6.3.1). Element: the QP. */
    COMM_EST(4),
    /** A QP moved to SQD with the asynchronous notification requested has no send WR in flight. Element: the QP. */
    SQ_DRAINED(5),
    /** Automatic path migration completed. Element: the QP. */
    PATH_MIG(6),
    /** Automatic path migration failed. Element: the QP. */
    PATH_MIG_ERR(7),
    /** The device failed; its resources are unusable. No element. */
    DEVICE_FATAL(8),
    /** A port became active. Element: the port number. */
    PORT_ACTIVE(9),
    /** A port left the active state. Element: the port number. */
    PORT_ERR(10),
    /** A port's LID changed. Element: the port number. */
    LID_CHANGE(11),
    /** A port's P_Key table changed. Element: the port number. */
    PKEY_CHANGE(12),
    /** The subnet manager of a port changed. Element: the port number. */
    SM_CHANGE(13),
    /** An SRQ is in error. Element: the SRQ. */
    SRQ_ERR(14),
    /** The SRQ's WQE count fell below its armed limit; the limit is disarmed. Element: the SRQ. */
    SRQ_LIMIT_REACHED(15),
    /** A QP on an SRQ is in ERR and will take no further WQE from the SRQ. Element: the QP. */
    QP_LAST_WQE_REACHED(16),
    /** The subnet manager asks clients to re-register. Element: the port number. */
    CLIENT_REREGISTER(17),
    /** A port's GID table changed. Element: the port number. */
    GID_CHANGE(18),
    /** A work queue (ibv_wq) failed. Element: the WQ (not in jrdma's API). */
    WQ_FATAL(19);

    private final int value;

    AsyncEventType(int value) {
        this.value = value;
    }

    /** The {@code enum ibv_event_type} value. */
    public int value() {
        return value;
    }

    /** The type with libibverbs' value {@code v}. @throws IllegalArgumentException for an unknown value */
    public static AsyncEventType of(int v) {
        AsyncEventType[] all = values();
        if (v < 0 || v >= all.length) {
            throw new IllegalArgumentException("unknown ibv_event_type " + v);
        }
        return all[v];
    }

    /** libibverbs' {@code ibv_event_type_str(3)} text, e.g. {@code "CQ error"}. */
    public String description() {
        return switch (this) {
            case CQ_ERR -> "CQ error";
            case QP_FATAL -> "local work queue catastrophic error";
            case QP_REQ_ERR -> "invalid request local work queue error";
            case QP_ACCESS_ERR -> "local access violation work queue error";
            case COMM_EST -> "communication established";
            case SQ_DRAINED -> "send queue drained";
            case PATH_MIG -> "path migrated";
            case PATH_MIG_ERR -> "path migration request error";
            case DEVICE_FATAL -> "local catastrophic error";
            case PORT_ACTIVE -> "port active";
            case PORT_ERR -> "port error";
            case LID_CHANGE -> "LID change";
            case PKEY_CHANGE -> "P_Key change";
            case SM_CHANGE -> "SM change";
            case SRQ_ERR -> "SRQ catastrophic error";
            case SRQ_LIMIT_REACHED -> "SRQ limit reached";
            case QP_LAST_WQE_REACHED -> "last WQE reached";
            case CLIENT_REREGISTER -> "client reregistration";
            case GID_CHANGE -> "GID table change";
            case WQ_FATAL -> "WQ fatal";
        };
    }
}
