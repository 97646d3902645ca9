package org.jrdma.cm;

/**
 * The kinds of CM event, {@code enum rdma_cm_event_type} of {@code rdma_cma.h}, in librdmacm's order
 * and with its values ({@link #value()}); meanings as {@code rdma_get_cm_event(3)} gives them.
 */
public enum CmEventType {
    /** Address resolution ({@link CmId#resolveAddr}) completed. */
    ADDR_RESOLVED,
    /** Address resolution failed; {@link CmEvent#status()} is {@code -errno}. */
    ADDR_ERROR,
    /** Route resolution ({@link CmId#resolveRoute}) completed. */
    ROUTE_RESOLVED,
    /** Route resolution failed. */
    ROUTE_ERROR,
    /** A connection request arrived on a listening ID; {@link CmEvent#id()} is the new ID. */
    CONNECT_REQUEST,
    /** The peer accepted and the active side has no QP on its ID: call {@link CmId#establish()}. */
    CONNECT_RESPONSE,
    /** An error occurred while establishing the connection (e.g. the QP could not be moved to RTR/RTS). */
    CONNECT_ERROR,
    /** The peer did not answer (REQ or REP timed out after the CM's retries); status {@code -ETIMEDOUT}. */
    UNREACHABLE,
    /** The peer rejected the connection; status is the REJ reason (28 = consumer reject). */
    REJECTED,
    /** The connection is established. */
    ESTABLISHED,
    /** The connection was disconnected (by either side, or a DREQ timed out: status {@code -ETIMEDOUT}). */
    DISCONNECTED,
    /** The device of the ID was removed. */
    DEVICE_REMOVAL,
    /** A multicast join completed (not offered by jrdma yet). */
    MULTICAST_JOIN,
    /** A multicast join failed (not offered by jrdma yet). */
    MULTICAST_ERROR,
    /** The address of the ID changed. */
    ADDR_CHANGE,
    /** The QP of a disconnected connection left its timewait state and may be reused. */
    TIMEWAIT_EXIT,
    /** {@code rdma_resolve_addrinfo} completed (not offered by jrdma yet). */
    ADDRINFO_RESOLVED,
    /** {@code rdma_resolve_addrinfo} failed (not offered by jrdma yet). */
    ADDRINFO_ERROR;

    /** The value of {@code RDMA_CM_EVENT_*} in {@code rdma_cma.h} (0 .. 17). */
    public int value() {
        return ordinal();
    }

    /** The name {@code rdma_event_str(3)} gives, e.g. {@code "RDMA_CM_EVENT_ESTABLISHED"}. */
    public String eventStr() {
        return "RDMA_CM_EVENT_" + name();
    }
}
