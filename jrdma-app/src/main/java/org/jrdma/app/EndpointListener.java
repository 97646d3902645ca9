package org.jrdma.app;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.pool.RegisteredPool;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.VerbsException;

/**
 * A listening CM ID ({@link EndpointGroup#listen}): each {@link #accept} takes the next connection
 * request and makes its endpoint. Requests not taken within the CM's timeouts are rejected by the CM;
 * those still waiting at {@link #close()} are rejected then.
 *
 * <p>Threads: any; {@link #accept} blocks its caller and routes the listener channel's CM events
 * meanwhile (the progress thread does it otherwise).
 */
public final class EndpointListener implements AutoCloseable {
    private final EndpointGroup group;
    private final CmId id;
    private final CmDispatch dispatch;
    private final EndpointConfig cfg;
    private volatile boolean closed;

    EndpointListener(EndpointGroup group, CmId id, CmDispatch dispatch, EndpointConfig cfg) {
        this.group = group;
        this.id = id;
        this.dispatch = dispatch;
        this.cfg = cfg;
    }

    /** The address and port listened on (the port chosen when 0 was asked). */
    public InetSocketAddress localAddress() {
        return id.localAddress();
    }

    /**
     * The group's PD for the listener's device, for memory the application registers itself to
     * advertise to its clients (e.g. a table they READ).
     *
     * @throws VerbsException EINVAL when the listener is bound to the wildcard address (no one device)
     */
    public ProtectionDomain pd() {
        return group.device(context()).pd;
    }

    /** The group's pool for the listener's device (EINVAL on the wildcard address). */
    public RegisteredPool pool() {
        return group.device(context()).pool;
    }

    private org.jrdma.verbs.Context context() {
        if (id.verbs() == null) {
            throw new VerbsException(Errno.EINVAL, "EndpointListener: bound to the wildcard address, so to no one device");
        }
        return id.verbs();
    }

    /** Accepts the next connection request with no private data; see {@link #accept(Duration, byte[])}. */
    public Endpoint accept(Duration timeout) {
        return accept(timeout, null);
    }

    /**
     * Waits up to {@code timeout} for a connection request, creates its endpoint (QP, receive
     * buffers) and accepts with {@code privateData} (up to 196 bytes on RoCE; e.g. a
     * {@link RemoteBuffer#encode()} to advertise), then waits up to {@link EndpointConfig#timeout()}
     * for ESTABLISHED. The request's own private data is {@link Endpoint#peerPrivateData()}.
     *
     * @throws VerbsException ETIMEDOUT when no request came or the connection was not established in
     *         time; EINVAL when the listener is closed or the private data too long
     */
    public Endpoint accept(Duration timeout, byte[] privateData) {
        long end = System.nanoTime() + timeout.toNanos();
        CmEvent req;
        while ((req = dispatch.takeRequest()) == null) {
            if (closed) {
                throw new VerbsException(Errno.EINVAL, "accept: the listener is closed");
            }
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new VerbsException(Errno.ETIMEDOUT, "accept: no connection request within " + timeout.toMillis() + " ms");
            }
            dispatch.poll(Duration.ofNanos(Math.min(left, 10_000_000L)));
        }
        CmId cid = req.id();
        Endpoint ep;
        try {
            ep = new Endpoint(group, cid, dispatch, false, group.device(cid.verbs()), cfg);
        } catch (RuntimeException e) {
            try {
                cid.reject(null);
            } catch (VerbsException ignored) {
                // already gone
            }
            cid.destroy();
            throw e;
        }
        ep.setPeerPrivateData(req.privateData());
        ConnParam theirs = req.connParam();
        int depth = theirs == null ? cfg.rdAtomic() : Math.max(1, Math.min(cfg.rdAtomic(), theirs.responderResources()));
        try {
            cid.accept(new ConnParam().privateData(privateData).responderResources(cfg.rdAtomic()).initiatorDepth(depth)
                    .retryCount(cfg.retryCount()).rnrRetryCount(cfg.rnrRetryCount()));
        } catch (RuntimeException e) {
            ep.close();
            throw e;
        }
        ep.awaitEstablished(System.nanoTime() + cfg.timeout().toNanos(), "accept from " + cid.peerAddress());
        group.accepted(ep);
        return ep;
    }

    /** Routes the channel's CM events (the accepted endpoints' DISCONNECTED among them); from progress. */
    void progress() {
        if (!closed) {
            dispatch.tryPoll();
        }
    }

    /** Stops listening; requests not yet accepted are rejected. Accepted endpoints stay open. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        group.removed(this);
        id.destroy();
    }
}
