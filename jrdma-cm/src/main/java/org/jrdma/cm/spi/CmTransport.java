package org.jrdma.cm.spi;

import org.jrdma.cm.ConnParam;
import org.jrdma.verbs.QpAttr;

/**
 * How connections are made on one device: the transport half of the CM behind the
 * {@link org.jrdma.cm.CmId} API ({@code rdma_cm}'s {@code iw_cm}/{@code ib_cm} split). The IB CM
 * over QP1 is built in for RoCE v2 devices; other transports (iWARP: TCP + MPA) come through
 * {@link CmTransportProvider}.
 *
 * <p>Threads and locks: every method is called under the CM lock (one per JVM), on the thread of
 * the application's {@code CmId} call or on the CM thread ({@link CmHost#execute}). A transport's
 * own threads (its I/O thread) never take the CM lock: they hand their work over through
 * {@link CmHost#execute}, and post events only from there. Errors of a call throw
 * {@link org.jrdma.verbs.VerbsException} with the errno librdmacm gives.
 */
public interface CmTransport {
    /** {@code rdma_listen}: starts listening for connection requests to the listener's address (or the wildcard) and port. */
    void listen(CmEndpoint listener);

    /** The listening ID is destroyed: stop listening for it (requests already delivered stay). */
    void unlisten(CmEndpoint listener);

    /** {@code rdma_connect} on an ID with a resolved route ({@code param} checked by the CM). */
    void connect(CmEndpoint id, ConnParam param);

    /** {@code rdma_accept} on the ID of a CONNECT_REQUEST; {@code param} null: the defaults from the request. */
    void accept(CmEndpoint id, ConnParam param);

    /** {@code rdma_reject} with private data (length checked by the CM). */
    void reject(CmEndpoint id, byte[] privateData);

    /** {@code rdma_establish}: completes an active connection after CONNECT_RESPONSE (no QP on the ID). */
    void establish(CmEndpoint id);

    /** {@code rdma_disconnect}. */
    void disconnect(CmEndpoint id);

    /** The ID is being destroyed with a connection ({@link CmEndpoint#connection()} not null): end it; no more events. */
    void destroy(CmEndpoint id);

    /**
     * {@code rdma_init_qp_attr}: fills {@code attr} for the transition to {@code attr.qpState()}.
     *
     * @return the attribute mask ({@link org.jrdma.verbs.QpAttrMask})
     */
    int initQpAttr(CmEndpoint id, QpAttr attr);

    /**
     * The most private data {@code rdma_connect} may carry on this transport, bytes; -1 (the default):
     * the port space's, i.e. the IB CM's ({@link org.jrdma.cm.PortSpace#maxConnectPrivateData()}).
     */
    default int maxConnectPrivateData() {
        return -1;
    }

    /** The most private data of {@code rdma_accept}, bytes; -1: the port space's. */
    default int maxAcceptPrivateData() {
        return -1;
    }

    /** The most private data of {@code rdma_reject}, bytes; -1: the port space's. */
    default int maxRejectPrivateData() {
        return -1;
    }
}
