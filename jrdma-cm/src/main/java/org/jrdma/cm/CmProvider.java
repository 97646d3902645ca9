package org.jrdma.cm;

import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.QpAttr;

/**
 * The transport-specific half of the CM for one device: how connections are made on it. The IB CM
 * over QP1 ({@link IbCm}) serves RoCE v2 devices; iWARP (TCP + MPA) and native devices (librdmacm)
 * come as other implementations behind the same {@link CmId} API.
 *
 * <p>Every method is called under the CM lock ({@link CmService#lock}); events are posted through
 * {@link CmId#post}. Errors of the call itself throw {@link org.jrdma.verbs.VerbsException} with the
 * errno librdmacm gives.
 */
interface CmProvider {
    /** Starts (or widens) listening for connection requests to the listening ID's port space and port. */
    void listen(CmId listener);

    /** The listening ID is destroyed: stop listening for it (requests already delivered stay). */
    void unlisten(CmId listener);

    /** {@code rdma_connect} on an ID with a resolved route. */
    void connect(CmId id, ConnParam param);

    /** {@code rdma_accept} on an ID from a CONNECT_REQUEST; {@code param} null: the defaults from the request. */
    void accept(CmId id, ConnParam param);

    /** {@code rdma_reject} with private data. */
    void reject(CmId id, byte[] privateData);

    /** {@code rdma_establish}: completes an active connection after CONNECT_RESPONSE (no QP on the ID). */
    void establish(CmId id);

    /** {@code rdma_disconnect}. */
    void disconnect(CmId id);

    /** The ID is being destroyed: end its connection as the transport must (reject, DREQ, DREP); no more events. */
    void destroy(CmId id);

    /**
     * {@code rdma_init_qp_attr}: fills {@code attr} for the transition to {@code attr.qpState()}
     * (INIT, RTR or RTS) of the ID's connection.
     *
     * @return the attribute mask ({@link org.jrdma.verbs.QpAttrMask})
     */
    int initQpAttr(CmId id, QpAttr attr);

    /**
     * {@code rdma_notify}: the application saw {@code event} on the ID's QP (COMM_EST: the QP
     * received before the connection was established).
     *
     * @throws org.jrdma.verbs.VerbsException EINVAL for an event the transport does not take or a
     *         connection in a state where it means nothing (Linux's {@code cm_establish} gives
     *         EISCONN for an established one; jrdma EINVAL, as it has no EISCONN)
     */
    default void notify(CmId id, AsyncEventType event) {
        throw new org.jrdma.verbs.VerbsException(org.jrdma.verbs.Errno.EINVAL, "rdma_notify: " + event + " is not taken by this transport");
    }

    /** The process is exiting: end every connection as {@link #destroy} would (under the CM lock). */
    default void processExit() {
    }

    /** The transport's counters by name (see {@link CmStatistics}); none by default. */
    default java.util.Map<String, Long> counters() {
        return java.util.Map.of();
    }

    /** The private data limit of {@code rdma_connect}, bytes; -1: the port space's (the IB CM's). */
    default int maxConnectPrivateData() {
        return -1;
    }

    /** The private data limit of {@code rdma_accept}, bytes; -1: the port space's. */
    default int maxAcceptPrivateData() {
        return -1;
    }

    /** The private data limit of {@code rdma_reject}, bytes; -1: the port space's. */
    default int maxRejectPrivateData() {
        return -1;
    }
}
