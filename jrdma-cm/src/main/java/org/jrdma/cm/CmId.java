package org.jrdma.cm;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.jfr.JrdmaEvents;

/**
 * A CM identifier, {@code struct rdma_cm_id} ({@code rdma_create_id(3)}): the CM's socket. An active
 * ID resolves an address and a route, gets a QP and connects; a passive ID binds and listens, and
 * each connection request brings a new ID ({@link CmEvent#id()}) to accept or reject.
 *
 * <pre>
 * client: create → resolveAddr → (ADDR_RESOLVED) resolveRoute → (ROUTE_RESOLVED) createQp → connect
 *         → ESTABLISHED | REJECTED | UNREACHABLE | CONNECT_ERROR ... disconnect → DISCONNECTED → TIMEWAIT_EXIT
 * server: create → bind → listen → (CONNECT_REQUEST: new id) createQp → accept → ESTABLISHED | reject
 * </pre>
 *
 * <p>Created on an {@link EventChannel}, the calls return at once and their outcome comes as events.
 * Created without one ({@link #create(PortSpace)}: librdmacm's synchronous mode) each call waits for
 * its outcome: {@link #resolveAddr} for ADDR_RESOLVED, {@link #connect} and {@link #accept} for
 * ESTABLISHED (a REJECTED connect throws ECONNREFUSED, an unanswered one ETIMEDOUT, within the CM
 * timeouts), {@link #getRequest} for a connection request. {@link #createEp} is {@code rdma_create_ep}.
 *
 * <p>Timeouts of the IB CM: a REQ or REP not answered within {@code 2 × 4.096 µs × 2^18} (packet
 * lifetime) + {@code 4.096 µs × 2^responseTimeout} is sent again, {@code maxCmRetries} times, then
 * the connection fails (UNREACHABLE); defaults 20 and 15 as Linux's {@code CMA_CM_RESPONSE_TIMEOUT}
 * and {@code CMA_MAX_CM_RETRIES} (about 6.1 s per try, 98 s in all), system properties
 * {@code jrdma.cm.responseTimeout} and {@code jrdma.cm.maxRetries}, or {@link #setCmTimeouts} per ID.
 *
 * <p>Threads: every method may be called from any thread; each takes the CM lock ({@link CmService})
 * for its work, never while it waits for an event.
 */
public final class CmId implements AutoCloseable {
    /** The port of a wildcard ID, {@code RDMA_PORT 1} of the device. */
    static final int PORT_NUM = 1;
    /** The Q_Key of UD QPs of PS_UDP ({@code RDMA_UDP_QKEY}). */
    public static final int UDP_QKEY = 0x01234567;

    private final CmService cm = CmService.get();
    private final EventChannel channel;
    private final boolean sync;
    private final Object context;
    private final PortSpace ps;
    private final CmId listener;

    // guarded by the CM lock
    private CmaState state = CmaState.IDLE;
    private InetAddress boundAddress;
    private int boundPort;
    private InetSocketAddress peer;
    private CmDevice device;
    private QueuePair qp;
    private int backlog;
    private int pendingRequests;
    private boolean listening;
    private int cmResponseTimeout = Integer.getInteger("jrdma.cm.responseTimeout", 20);
    private int maxCmRetries = Integer.getInteger("jrdma.cm.maxRetries", 15);
    private int tos;
    /** The provider's connection of this ID (e.g. {@link IbConnection}). */
    private Object connection;
    private final List<CmDevice> listenDevices = new ArrayList<>();

    private CmId(EventChannel channel, boolean sync, Object context, PortSpace ps, CmId listener) {
        this.channel = channel;
        this.sync = sync;
        this.context = context;
        this.ps = ps;
        this.listener = listener;
    }

    /**
     * {@code rdma_create_id(3)}: a new ID on {@code channel} in port space {@code ps}.
     *
     * @param context the application's context, returned by {@link #context()}
     */
    public static CmId create(EventChannel channel, Object context, PortSpace ps) {
        if (channel == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_create_id: channel is null (use create(PortSpace) for a synchronous ID)");
        }
        return new CmId(channel, false, context, ps, null);
    }

    /** {@code rdma_create_id(3)} with a NULL channel: a synchronous ID, whose calls wait for their outcome. */
    public static CmId create(PortSpace ps) {
        return new CmId(EventChannel.create(), true, null, ps, null);
    }

    /**
     * {@code rdma_create_ep(3)}: a synchronous ID, for a client ({@code dst} given) resolved to
     * {@code dst} through {@code src} (null: routing's choice) with address and route resolved, for a
     * server ({@code dst} null) bound to {@code src}. With {@code qpInitAttr} an RC (PS_TCP) or UD
     * (PS_UDP) QP is created on it in {@code pd} (null: a PD the CM allocates on the device).
     *
     * @param timeout bound of the address and route resolution
     */
    public static CmId createEp(InetSocketAddress src, InetSocketAddress dst, PortSpace ps, ProtectionDomain pd,
                                QpInitAttr qpInitAttr, Duration timeout) {
        CmId id = create(ps);
        try {
            if (dst == null) {
                id.bind(src);
            } else {
                id.resolveAddr(src, dst, timeout);
                id.resolveRoute(timeout);
            }
            if (qpInitAttr != null) {
                if (id.device() == null) {
                    throw new VerbsException(Errno.EINVAL, "rdma_create_ep: a QP needs a device: bind to a device's address");
                }
                id.createQp(pd != null ? pd : id.verbs().allocPd(), qpInitAttr);
            }
            return id;
        } catch (RuntimeException e) {
            id.destroy();
            throw e;
        }
    }

    /** A new passive-side ID for a connection request on {@code listener} (under the CM lock). */
    static CmId forRequest(CmId listener, CmDevice device, InetAddress local, int port, InetSocketAddress peer) {
        CmId id = new CmId(listener.channel, listener.sync, listener.context, listener.ps, listener);
        id.device = device;
        id.boundAddress = local;
        id.boundPort = port;
        id.peer = peer;
        id.state = CmaState.CONNECT;
        id.cmResponseTimeout = listener.cmResponseTimeout;
        id.maxCmRetries = listener.maxCmRetries;
        return id;
    }

    // ---- what the ID is ----

    /** The application's context given at creation (for a request's ID: the listener's). */
    public Object context() {
        return context;
    }

    public PortSpace portSpace() {
        return ps;
    }

    /** The QP type of the port space: RC for TCP, UD for UDP. */
    public QpType qpType() {
        return ps == PortSpace.TCP ? QpType.RC : QpType.UD;
    }

    /** The event channel (for a synchronous ID its private one). */
    public EventChannel channel() {
        return channel;
    }

    /** {@code cm_id->verbs}: the device context the CM opened for this ID's device, shared by every ID on it; null before a device is known. */
    public Context verbs() {
        CmDevice d = device();
        return d == null ? null : d.context;
    }

    /** {@code cm_id->port_num}: 1 once a device is known, else 0. */
    public int portNum() {
        return device() == null ? 0 : PORT_NUM;
    }

    /** The QP created on the ID ({@link #createQp}), or null. */
    public QueuePair qp() {
        lock();
        try {
            return qp;
        } finally {
            unlock();
        }
    }

    /** {@code rdma_get_local_addr(3)}: the bound address and port, or null when unbound. */
    public InetSocketAddress localAddress() {
        lock();
        try {
            return boundAddress == null ? null : new InetSocketAddress(boundAddress, boundPort);
        } finally {
            unlock();
        }
    }

    /** {@code rdma_get_peer_addr(3)}: the peer's address and port, or null. */
    public InetSocketAddress peerAddress() {
        lock();
        try {
            return peer;
        } finally {
            unlock();
        }
    }

    /**
     * The IB CM timeouts of this ID's connections (a jrdma option; librdmacm fixes them): the CM
     * response timeout exponent (0..31, 4.096 µs × 2^value, default 20) and the retries (0..15, default 15).
     *
     * @throws VerbsException EINVAL out of range or once connecting
     */
    public void setCmTimeouts(int responseTimeout, int maxRetries) {
        if (responseTimeout < 0 || responseTimeout > 31 || maxRetries < 0 || maxRetries > 15) {
            throw new VerbsException(Errno.EINVAL, "CM timeouts: response timeout " + responseTimeout
                    + " not in 0..31 or max retries " + maxRetries + " not in 0..15");
        }
        lock();
        try {
            requireNot(EnumSet.of(CmaState.CONNECT, CmaState.DISCONNECT, CmaState.DESTROYING), "set CM timeouts");
            cmResponseTimeout = responseTimeout;
            maxCmRetries = maxRetries;
        } finally {
            unlock();
        }
    }

    /** {@code rdma_set_option(RDMA_OPTION_ID_TOS)}: the traffic class of the connection's packets (0..255). */
    public void setTos(int tos) {
        if (tos < 0 || tos > 255) {
            throw new VerbsException(Errno.EINVAL, "rdma_set_option: tos " + tos + " not in 0..255");
        }
        lock();
        try {
            this.tos = tos;
        } finally {
            unlock();
        }
    }

    // ---- calls ----

    /**
     * {@code rdma_bind_addr(3)}: binds to an address (a device's, or the wildcard) and port (0: ephemeral).
     *
     * @throws VerbsException EINVAL unless the ID is idle; EADDRNOTAVAIL when no device has the address;
     *         EADDRINUSE when the port is taken
     */
    public void bind(InetSocketAddress address) {
        lock();
        try {
            require(CmaState.IDLE, "rdma_bind_addr");
            InetAddress a = address.getAddress();
            CmDevice d = a.isAnyLocalAddress() ? null : CmDevice.open(AddressResolver.device(a));
            boundPort = cm.bindPort(this, a, address.getPort());
            boundAddress = a;
            device = d;
            state = CmaState.ADDR_BOUND;
        } finally {
            unlock();
        }
    }

    /**
     * {@code rdma_resolve_addr(3)}: finds the local device for {@code dst} (through {@code src} when
     * given, else the routing's source address), binds to it (an ephemeral port unless bound), and
     * reports ADDR_RESOLVED or ADDR_ERROR ({@code -EADDRNOTAVAIL}, {@code -ENETUNREACH}).
     *
     * @param timeout the bound of the resolution (jrdma resolves locally, at once)
     * @throws VerbsException EINVAL unless idle or bound
     */
    public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, Duration timeout) {
        lock();
        try {
            if (state != CmaState.IDLE && state != CmaState.ADDR_BOUND) {
                throw misuse("rdma_resolve_addr");
            }
            state = CmaState.ADDR_QUERY;
            peer = dst;
        } finally {
            unlock();
        }
        cm.execute(() -> {
            if (state != CmaState.ADDR_QUERY) {
                return;
            }
            try {
                InetAddress local = boundAddress != null && !boundAddress.isAnyLocalAddress() ? boundAddress
                        : AddressResolver.source(src == null ? null : src.getAddress(), dst.getAddress());
                CmDevice d = CmDevice.open(AddressResolver.device(local));
                if (boundAddress == null) {
                    boundPort = cm.bindPort(this, local, src == null ? 0 : src.getPort());
                }
                boundAddress = local;
                device = d;
                state = CmaState.ADDR_RESOLVED;
                post(CmEventType.ADDR_RESOLVED, 0, null, null);
            } catch (VerbsException e) {
                state = boundAddress == null ? CmaState.IDLE : CmaState.ADDR_BOUND;
                post(CmEventType.ADDR_ERROR, -e.errno(), null, null);
            }
        });
        if (sync) {
            await(CmEventType.ADDR_RESOLVED, timeout, "rdma_resolve_addr");
        }
    }

    /**
     * {@code rdma_resolve_route(3)}: on RoCE the route is the IP route the address resolution chose;
     * reports ROUTE_RESOLVED.
     *
     * @throws VerbsException EINVAL unless the address is resolved
     */
    public void resolveRoute(Duration timeout) {
        lock();
        try {
            require(CmaState.ADDR_RESOLVED, "rdma_resolve_route");
            state = CmaState.ROUTE_QUERY;
        } finally {
            unlock();
        }
        cm.execute(() -> {
            if (state == CmaState.ROUTE_QUERY) {
                state = CmaState.ROUTE_RESOLVED;
                post(CmEventType.ROUTE_RESOLVED, 0, null, null);
            }
        });
        if (sync) {
            await(CmEventType.ROUTE_RESOLVED, timeout, "rdma_resolve_route");
        }
    }

    /**
     * {@code rdma_listen(3)}: waits for connection requests; at most {@code backlog} of them wait to be
     * taken from the channel at once (more are dropped unanswered, so that the peer's CM retries).
     * An unbound ID binds to the wildcard first. A wildcard ID listens on every jrdma device (and so
     * opens each, taking its QP1 for this process).
     *
     * @throws VerbsException EINVAL unless bound or idle, or with backlog &lt; 0
     */
    public void listen(int backlog) {
        if (backlog < 0) {
            throw new VerbsException(Errno.EINVAL, "rdma_listen: backlog " + backlog + " < 0");
        }
        lock();
        try {
            if (state == CmaState.IDLE) {
                boundPort = cm.bindPort(this, anyLocal(), 0);
                boundAddress = anyLocal();
                state = CmaState.ADDR_BOUND;
            }
            require(CmaState.ADDR_BOUND, "rdma_listen");
            List<CmDevice> devices = new ArrayList<>();
            if (device != null) {
                devices.add(device);
            } else {
                for (var d : CmDevice.addressed()) {
                    devices.add(CmDevice.open(d));
                }
            }
            this.backlog = backlog == 0 ? 128 : backlog;
            for (CmDevice d : devices) {
                d.provider(ps).listen(this);
            }
            listenDevices.addAll(devices);
            listening = true;
            state = CmaState.LISTEN;
        } finally {
            unlock();
        }
    }

    /**
     * {@code rdma_get_request(3)}: on a synchronous listening ID, waits at most {@code timeout} for
     * the next connection request and returns its new ID (empty when none came).
     */
    public Optional<CmId> getRequest(Duration timeout) {
        if (!sync) {
            throw new VerbsException(Errno.EINVAL, "rdma_get_request: the ID has an event channel (take CONNECT_REQUEST events)");
        }
        Optional<CmEvent> e = channel.getEvent(timeout);
        if (e.isEmpty()) {
            return Optional.empty();
        }
        CmEvent ev = e.get();
        ev.ack();
        if (ev.type() != CmEventType.CONNECT_REQUEST) {
            throw new VerbsException(Errno.EIO, "rdma_get_request: unexpected " + ev);
        }
        return Optional.of(ev.id());
    }

    /**
     * {@code rdma_create_qp(3)}: creates the ID's QP in {@code pd} (which must be on {@link #verbs()})
     * with {@code attr} (its type is set from the port space), and moves it to INIT (UD: to RTS, with
     * Q_Key {@link #UDP_QKEY}); the CM moves an RC QP to RTR and RTS when the connection is made.
     *
     * @throws VerbsException EINVAL without a device, with a PD of another context, or when the ID has a QP
     */
    public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        lock();
        try {
            if (device == null) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the ID has no device yet (resolve an address or bind to a device's address)");
            }
            if (pd.context() != device.context) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: pd is not on the ID's verbs context (allocate it on cmId.verbs())");
            }
            if (qp != null) {
                throw new VerbsException(Errno.EINVAL, "rdma_create_qp: the ID already has a QP");
            }
            attr.qpType(qpType());
            QueuePair q = pd.createQp(attr);
            try {
                QpAttr a = new QpAttr().qpState(QpState.INIT);
                q.modify(a, initQpAttrLocked(a));
                if (qpType() == QpType.UD) {
                    a = new QpAttr().qpState(QpState.RTR);
                    q.modify(a, initQpAttrLocked(a));
                    a = new QpAttr().qpState(QpState.RTS);
                    q.modify(a, initQpAttrLocked(a));
                }
            } catch (RuntimeException e) {
                q.close();
                throw e;
            }
            qp = q;
            return q;
        } finally {
            unlock();
        }
    }

    /** {@code rdma_destroy_qp(3)}: destroys the ID's QP. */
    public void destroyQp() {
        lock();
        try {
            if (qp != null) {
                qp.close();
                qp = null;
            }
        } finally {
            unlock();
        }
    }

    /**
     * {@code rdma_init_qp_attr(3)}: the attributes and mask for moving the ID's QP (or one the
     * application made itself) to {@code attr.qpState()}: INIT (P_Key index, port, access flags; for
     * UD the Q_Key), RTR (address vector with the path's GID, flow label, hop limit, traffic class;
     * path MTU, destination QPN, receive PSN, max_dest_rd_atomic = responder resources, min_rnr_timer
     * 0 = 655 ms as {@code rdma_accept(3)} says), RTS (ACK timeout of the path, retry and RNR retry
     * counts, send PSN, max_rd_atomic = initiator depth).
     *
     * @return the mask
     * @throws VerbsException EINVAL for another state or before the connection's parameters are known
     */
    public int initQpAttr(QpAttr attr) {
        lock();
        try {
            return initQpAttrLocked(attr);
        } finally {
            unlock();
        }
    }

    private int initQpAttrLocked(QpAttr attr) {
        if (device == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: the ID has no device");
        }
        if (qpType() == QpType.UD) {
            return UdQpAttr.init(attr);
        }
        return device.provider.initQpAttr(this, attr);
    }

    /**
     * {@code rdma_connect(3)}: sends the connection request. The ID needs a QP or
     * {@code param.qpNum()}. Outcome: ESTABLISHED (the QP is in RTS), CONNECT_RESPONSE (no QP on the
     * ID: call {@link #establish()}), REJECTED, UNREACHABLE or CONNECT_ERROR.
     *
     * <p>On PS_UDP ({@code cma_resolve_ib_udp}) it sends a SIDR_REQ (private data up to 180 bytes
     * after the rdma_cm IP header); outcome ESTABLISHED with {@link CmEvent#udParam()} (the address,
     * QPN and Q_Key to send to), or UNREACHABLE (status {@code -ETIMEDOUT} unanswered after the CM's
     * retries, else the SIDR_REP's status: 1 nobody listens, 2 rejected), as Linux's rdma_cm.
     *
     * @throws VerbsException EINVAL unless the route is resolved, for private data over 56 bytes
     *         (PS_UDP: 180; iWARP: 255) or parameters out of range, or (PS_TCP) without a QP and qp_num;
     *         synchronous: ECONNREFUSED when rejected (with the reason in the message), ETIMEDOUT when
     *         unanswered, on PS_UDP the SIDR_REP's status as the errno (as librdmacm's {@code ucma_complete})
     */
    public void connect(ConnParam param) {
        ConnParam p = param == null ? new ConnParam() : param.copy();
        long waitMs;
        lock();
        try {
            p.check(maxPrivateData(CmProvider::maxConnectPrivateData, ps.maxConnectPrivateData()), "rdma_connect");
            require(CmaState.ROUTE_RESOLVED, "rdma_connect");
            if (ps == PortSpace.TCP && qp == null && p.qpNum() == 0) {
                // a SIDR_REQ carries no QPN: a UD ID connects without one, as librdmacm's
                throw new VerbsException(Errno.EINVAL, "rdma_connect: the ID has no QP and qp_num is 0");
            }
            state = CmaState.CONNECT;
            try {
                device.provider(ps).connect(this, p);
            } catch (RuntimeException e) {
                state = CmaState.ROUTE_RESOLVED;
                throw e;
            }
            waitMs = connectWaitMs();
        } finally {
            unlock();
        }
        if (sync) {
            CmEvent e = await(EnumSet.of(CmEventType.ESTABLISHED, CmEventType.CONNECT_RESPONSE),
                    Duration.ofMillis(waitMs), "rdma_connect");
            if (e.type() == CmEventType.CONNECT_RESPONSE) {
                establish();
            }
        }
    }

    /**
     * {@code rdma_accept(3)} on the ID of a CONNECT_REQUEST: moves its QP to RTR and RTS and answers
     * with a REP; ESTABLISHED follows the peer's RTU. {@code param} null: responder resources and
     * initiator depth from the request (bounded by the device), retry and RNR retry counts 7.
     * On PS_UDP it answers the SIDR_REQ with a SIDR_REP status 0, the QPN (of the ID's QP, else
     * {@code param.qpNum()}), Q_Key {@link #UDP_QKEY} and up to 136 bytes of private data; no event
     * follows on this side (a synchronous ID returns at once), as with librdmacm.
     *
     * @throws VerbsException EINVAL unless a connection request is pending on the ID, for private data
     *         over 196 bytes (iWARP: 252), or without a QP (and no {@code qpNum})
     */
    public void accept(ConnParam param) {
        ConnParam p = param == null ? null : param.copy();
        long waitMs;
        lock();
        try {
            if (p != null) {
                p.check(maxPrivateData(CmProvider::maxAcceptPrivateData, ps.maxAcceptPrivateData()), "rdma_accept");
            }
            if (listener == null || state != CmaState.CONNECT) {
                throw misuse("rdma_accept");
            }
            if (qp == null && (p == null || p.qpNum() == 0)) {
                throw new VerbsException(Errno.EINVAL, "rdma_accept: the ID has no QP and qp_num is 0");
            }
            device.provider(ps).accept(this, p);
            waitMs = connectWaitMs();
        } finally {
            unlock();
        }
        if (sync && ps == PortSpace.TCP) {
            await(EnumSet.of(CmEventType.ESTABLISHED), Duration.ofMillis(waitMs), "rdma_accept");
        }
    }

    /**
     * {@code rdma_reject(3)}: refuses a connection request (REJ reason 28, consumer reject) with up to
     * 148 bytes of private data, which the peer gets in its REJECTED event. On PS_UDP a SIDR_REP with
     * status 2 (rejected) and up to 136 bytes of private data: the peer gets UNREACHABLE status 2.
     *
     * @throws VerbsException EINVAL unless a request is pending, or for longer private data
     */
    public void reject(byte[] privateData) {
        byte[] pd = privateData == null ? new byte[0] : privateData.clone();
        lock();
        try {
            int max = maxPrivateData(CmProvider::maxRejectPrivateData, ps.maxRejectPrivateData());
            if (pd.length > max) {
                throw new VerbsException(Errno.EINVAL, "rdma_reject: private_data_len " + pd.length + " > " + max);
            }
            if (state != CmaState.CONNECT) {
                throw misuse("rdma_reject");
            }
            device.provider(ps).reject(this, pd);
        } finally {
            unlock();
        }
    }

    /** {@code rdma_establish(3)}: after CONNECT_RESPONSE (no QP on the ID), completes the connection (RTU). */
    public void establish() {
        lock();
        try {
            require(CmaState.CONNECT, "rdma_establish");
            device.provider(ps).establish(this);
        } finally {
            unlock();
        }
    }

    /**
     * {@code rdma_disconnect(3)}: moves the QP to ERR and tears the connection down (DREQ, or DREP
     * when the peer disconnected first). DISCONNECTED follows, then TIMEWAIT_EXIT.
     *
     * @throws VerbsException EINVAL unless connected
     */
    public void disconnect() {
        lock();
        try {
            if (state != CmaState.CONNECT) {
                throw misuse("rdma_disconnect");
            }
            device.provider(ps).disconnect(this);
        } finally {
            unlock();
        }
    }

    /**
     * {@code rdma_notify(3)}: tells the CM of an asynchronous event of the ID's QP. The one the IB CM
     * takes is {@link AsyncEventType#COMM_EST}: the passive side's QP received a packet before the
     * RTU came (the peer is connected and sending, its RTU late or lost); the connection becomes
     * ESTABLISHED at once (an ESTABLISHED event follows) and a late RTU is harmless. librdmacm leaves
     * the call to the application, which sees COMM_EST through {@code ibv_get_async_event}
     * ({@link org.jrdma.verbs.Context#getAsyncEvent}); so does jrdma.
     *
     * @throws VerbsException EINVAL for another event, an ID without a connection, or a connection
     *         that is not waiting for its RTU
     */
    public void notify(AsyncEventType event) {
        lock();
        try {
            if (device == null || connection == null) {
                throw new VerbsException(Errno.EINVAL, "rdma_notify: the ID has no connection");
            }
            device.provider.notify(this, event);
        } finally {
            unlock();
        }
    }

    /**
     * {@code rdma_destroy_id(3)}: ends the ID's connection as the IB CM does for a destroyed ID (REJ
     * while connecting, DREQ or DREP when connected), frees its port; no more events come for it.
     * Its QP stays (destroy it with {@link #destroyQp()} or {@code close()} on the QP). Idempotent.
     */
    public void destroy() {
        lock();
        try {
            if (state == CmaState.DESTROYING) {
                return;
            }
            if (device != null && connection != null) {
                device.provider(ps).destroy(this);
            }
            if (listening) {
                for (CmDevice d : listenDevices) {
                    d.provider(ps).unlisten(this);
                }
                listening = false;
            }
            if (boundAddress != null && listener == null) {
                cm.unbindPort(this, boundPort);
            }
            state = CmaState.DESTROYING;
        } finally {
            unlock();
        }
        if (sync) {
            channel.close();
        }
    }

    @Override
    public void close() {
        destroy();
    }

    // ---- for the CM and its providers (under the CM lock) ----

    CmDevice device() {
        lock();
        try {
            return device;
        } finally {
            unlock();
        }
    }

    InetAddress boundAddress() {
        return boundAddress;
    }

    int boundPort() {
        return boundPort;
    }

    InetSocketAddress peer() {
        return peer;
    }

    CmId listener() {
        return listener;
    }

    QueuePair qpLocked() {
        return qp;
    }

    int cmResponseTimeout() {
        return cmResponseTimeout;
    }

    int maxCmRetries() {
        return maxCmRetries;
    }

    int tos() {
        return tos;
    }

    boolean isListening() {
        return listening;
    }

    boolean destroyed() {
        return state == CmaState.DESTROYING;
    }

    CmaState state() {
        return state;
    }

    void state(CmaState s) {
        if (state != CmaState.DESTROYING) {
            state = s;
        }
    }

    Object connection() {
        return connection;
    }

    void connection(Object c) {
        connection = c;
    }

    /** A listener takes one more pending request unless its backlog is full. */
    boolean admitRequest() {
        if (pendingRequests >= backlog) {
            return false;
        }
        pendingRequests++;
        return true;
    }

    /** A CONNECT_REQUEST of this listener was taken from the channel (any thread). */
    void requestTaken() {
        lock();
        try {
            if (pendingRequests > 0) {
                pendingRequests--;
            }
        } finally {
            unlock();
        }
    }

    /**
     * Records {@code e}, just queued for this ID, as the Flight Recorder event {@code org.jrdma.CmEvent}
     * ({@link JrdmaEvents#cmEvent}) when a recording takes it; nothing is gathered otherwise (under
     * the CM lock).
     */
    void recordEvent(CmEvent e) {
        if (JrdmaEvents.cmEventEnabled()) {
            JrdmaEvents.cmEvent(e.type().name(), e.status(), device == null ? null : device.device.name(), ps.name(),
                    qp == null ? 0 : qp.qpNum(), boundAddress == null ? null : new InetSocketAddress(boundAddress, boundPort),
                    peer);
        }
    }

    /** Posts an event for this ID unless it is destroyed (under the CM lock). */
    void post(CmEventType type, int status, byte[] privateData, ConnParam peerParam) {
        if (state == CmaState.DESTROYING) {
            return;
        }
        channel.post(new CmEvent(channel, type, this, null, status, privateData, peerParam));
    }

    /**
     * The connection request of this passive ID timed out unanswered (under the CM lock): a
     * CONNECT_REQUEST the application has not taken is withdrawn and the ID ends unseen (its
     * listener's backlog slot is free again); else the ID gets UNREACHABLE -ETIMEDOUT.
     */
    void requestTimedOut() {
        if (channel.withdrawRequest(this)) {
            listener.requestTaken();
            connection = null;
            state = CmaState.DESTROYING;
        } else {
            post(CmEventType.UNREACHABLE, -Errno.ETIMEDOUT, null, null);
        }
    }

    /** Posts the CONNECT_REQUEST of this new ID on its listener's channel (under the CM lock). */
    void postRequest(byte[] privateData, ConnParam peerParam) {
        channel.post(new CmEvent(channel, CmEventType.CONNECT_REQUEST, this, listener, 0, privateData, peerParam));
    }

    /** Posts a SIDR event (ESTABLISHED, UNREACHABLE, ADDR_ERROR) of this UD ID unless it is destroyed (under the CM lock). */
    void postUd(CmEventType type, int status, UdParam ud) {
        if (state == CmaState.DESTROYING) {
            return;
        }
        channel.post(new CmEvent(channel, type, this, null, status, ud));
    }

    /** Posts the CONNECT_REQUEST of this new UD ID (a SIDR_REQ) on its listener's channel (under the CM lock). */
    void postUdRequest(UdParam ud) {
        channel.post(new CmEvent(channel, CmEventType.CONNECT_REQUEST, this, listener, 0, ud));
    }

    /** How long a synchronous connect or accept may wait: every try of the REQ or REP, and a margin. */
    private long connectWaitMs() {
        long perTry = 2 * IbTimeouts.toMs(IbTimeouts.PACKET_LIFETIME) + IbTimeouts.toMs(cmResponseTimeout);
        return perTry * (maxCmRetries + 1) + 5000;
    }

    private CmEvent await(CmEventType ok, Duration timeout, String call) {
        return await(EnumSet.of(ok), timeout, call);
    }

    /** Waits for the outcome of a synchronous call; every other event is a failure of the call. */
    private CmEvent await(EnumSet<CmEventType> ok, Duration timeout, String call) {
        Optional<CmEvent> e = channel.getEvent(timeout);
        if (e.isEmpty()) {
            throw new VerbsException(Errno.ETIMEDOUT, call + ": no answer within " + timeout.toMillis() + " ms");
        }
        CmEvent ev = e.get();
        ev.ack();
        if (ok.contains(ev.type())) {
            return ev;
        }
        if (ev.type() == CmEventType.REJECTED) {
            throw new VerbsException(Errno.ECONNREFUSED, call + ": rejected by the peer, reason " + ev.status());
        }
        int errno = ev.status() < 0 ? -ev.status() : ev.status() > 0 ? ev.status() : Errno.EIO;
        throw new VerbsException(errno, call + ": " + ev);
    }

    private void require(CmaState s, String call) {
        if (state != s) {
            throw misuse(call);
        }
    }

    private void requireNot(EnumSet<CmaState> s, String call) {
        if (s.contains(state)) {
            throw misuse(call);
        }
    }

    private VerbsException misuse(String call) {
        return new VerbsException(Errno.EINVAL, call + ": not allowed in state " + state);
    }

    private static InetAddress anyLocal() {
        try {
            return InetAddress.getByAddress(new byte[4]);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The private data limit of a call: the device's transport's when it sets one (iWARP: 255 for
     * connect and reject, 252 for accept, as librdmacm and siw), else the port space's (the IB CM's).
     * Under the CM lock.
     */
    private int maxPrivateData(java.util.function.ToIntFunction<CmProvider> transportLimit, int portSpaceLimit) {
        if (device != null) {
            try {
                int v = transportLimit.applyAsInt(device.provider(ps));
                if (v >= 0) {
                    return v;
                }
            } catch (VerbsException e) {
                // no provider for this port space on the device: the call itself reports it
            }
        }
        return portSpaceLimit;
    }

    private void lock() {
        cm.lock.lock();
    }

    private void unlock() {
        cm.lock.unlock();
    }

    @Override
    public String toString() {
        return "CmId[" + ps + " " + state + (boundAddress != null ? " " + boundAddress.getHostAddress() + ":" + boundPort : "")
                + (peer != null ? " -> " + peer : "") + "]";
    }
}
