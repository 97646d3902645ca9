package org.jrdma.cm.spi;

import java.net.InetSocketAddress;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.PortSpace;
import org.jrdma.verbs.QueuePair;

/**
 * A {@link org.jrdma.cm.CmId} as its {@link CmTransport} sees it: its addresses, its QP, the
 * transport's connection state kept on it, and the events the transport posts for it. Two
 * endpoints of the same ID are {@code equals}. Every method is called under the CM lock (inside a
 * {@link CmTransport} call or a {@link CmHost#execute} task).
 */
public interface CmEndpoint {
    /** The address and port the ID is bound to (the wildcard for a wildcard listener). */
    InetSocketAddress localAddress();

    /** The peer's address and port (the destination of a connect, the source of a request), or null. */
    InetSocketAddress peerAddress();

    PortSpace portSpace();

    /** The ID's QP, or null. */
    QueuePair qp();

    /** For the ID of a connection request, its listener; else null. */
    CmEndpoint listener();

    /** The transport's connection object kept on the ID (null: none; {@link CmTransport#destroy} is called only with one). */
    Object connection();

    void connection(Object connection);

    /** True while the ID is not destroyed. */
    boolean alive();

    /** On a listener: true when one more request fits its backlog (and counts it); false: drop the request. */
    boolean admitRequest();

    /**
     * On a listener: a new passive ID for a connection request from {@code peer} to {@code local}
     * (state CONNECT, on the listener's channel and device).
     */
    CmEndpoint newRequest(InetSocketAddress local, InetSocketAddress peer);

    /** Posts this request ID's CONNECT_REQUEST on its listener's channel. */
    void postRequest(byte[] privateData, ConnParam peerParam);

    /** Posts an event for this ID (dropped once it is destroyed). */
    void post(CmEventType type, int status, byte[] privateData, ConnParam peerParam);

    /** The connection is being torn down ({@code rdma_cm}'s DISCONNECT state: no second disconnect). */
    void disconnecting();
}
