package org.jrdma.cm;

/**
 * The state of a {@link CmId} at the rdma_cm level, {@code enum rdma_cm_state} of Linux's
 * {@code cma_priv.h}: what calls are allowed next. (The IB CM's connection states are {@link IbCmState}.)
 */
enum CmaState {
    IDLE, ADDR_QUERY, ADDR_RESOLVED, ROUTE_QUERY, ROUTE_RESOLVED, CONNECT, DISCONNECT, ADDR_BOUND, LISTEN,
    DEVICE_REMOVAL, DESTROYING
}
