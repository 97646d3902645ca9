package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CONN_PARAM;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_FLOW_CONTROL_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_INITIATOR_DEPTH_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_PRIVATE_DATA_LEN_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_PRIVATE_DATA_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_QP_NUM_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_RESPONDER_RESOURCES_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_RETRY_COUNT_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_RNR_RETRY_COUNT_OFF;
import static org.jrdma.ibverbs.bind.RdmaCmLayouts.CP_SRQ_OFF;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.spi.CmEndpoint;
import org.jrdma.cm.spi.CmHost;
import org.jrdma.cm.spi.CmTransport;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.ibverbs.bind.LibIbverbs;
import org.jrdma.ibverbs.bind.LibRdmacm;
import org.jrdma.ibverbs.bind.SockAddr;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.TransportType;
import org.jrdma.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection manager's transport on a native device: librdmacm ({@code rdma_cm(7)}) makes the
 * connections, the kernel's rdma_cm speaks the IB CM (RoCE) or MPA (iWARP) on the wire. A
 * {@link org.jrdma.cm.CmId} keeps its API and state; behind it is one librdmacm ID of port space
 * {@code RDMA_PS_TCP} per connection ({@code rdma_create_id} on the process's event channel,
 * {@link RdmaCmEvents}) and one per listening port ({@code rdma_bind_addr}, {@code rdma_listen}).
 *
 * <p>The application's QP is the one it created on the CM device's context (jrdma's own
 * {@code ibv_open_device}, not librdmacm's {@code id->verbs}); librdmacm is given its number
 * ({@code conn_param.qp_num}, no QP on the librdmacm ID, as {@code rdma_connect(3)} allows), and this
 * transport moves the QP with the attributes {@code rdma_init_qp_attr(3)} gives, as librdmacm does
 * for its own QPs: on the active side at CONNECT_RESPONSE (INIT again with the negotiated access
 * flags, RTR, RTS, then {@code rdma_establish}, and ESTABLISHED is posted), on the passive side in
 * {@code accept} (RTR, RTS, then {@code rdma_accept}). iWARP: only INIT is the application's; the
 * kernel's iw_cm moves the QP to RTS. Addresses: the CM resolves an address to the device locally;
 * the librdmacm ID resolves it again in {@code connect} ({@code rdma_resolve_addr}, then
 * {@code rdma_resolve_route}, 2 s each), and a failure there comes to the application as UNREACHABLE
 * with the kernel's status. Before a connection has a librdmacm ID, {@link #initQpAttr} for INIT gives
 * P_Key index 0, port 1 and LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ (RTR and RTS need the
 * connection: EINVAL).
 *
 * <p>Threads and locks: every method runs under the CM lock (the SPI's contract), on the
 * application's thread or the CM thread; the event thread hands its events to the CM thread
 * ({@link CmHost#execute}). The librdmacm calls made under the CM lock do not block on the network
 * ({@code rdma_destroy_id} waits only for events already acknowledged by the event thread).
 */
final class RdmaCmTransport implements CmTransport {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaCmTransport.class);
    /** rdma_resolve_addr / rdma_resolve_route timeout, ms (rping's and librdmacm's examples use 2000). */
    static final int RESOLVE_TIMEOUT_MS = 2000;
    private static final int KERNEL_BACKLOG = 128;

    /** The process-wide part: librdmacm, its event channel and the maps of its IDs (under the CM lock). */
    static final class Shared {
        final LibRdmacm lib;
        final RdmaCmEvents events;
        final CmHost host;
        /** librdmacm ID address → connection. */
        final Map<Long, Conn> conns = new HashMap<>();
        /** librdmacm ID address → listen. */
        final Map<Long, Listen> listens = new HashMap<>();
        /** The application's listening endpoint → its listen (a wildcard ID listens once for every device). */
        final Map<CmEndpoint, Listen> byListener = new HashMap<>();
        /** Device name → transport. */
        final Map<String, RdmaCmTransport> devices = new HashMap<>();

        Shared(LibRdmacm lib, CmHost host) {
            this.lib = lib;
            this.host = host;
            this.events = new RdmaCmEvents(lib, e -> host.execute(() -> dispatch(e)));
        }

        private void dispatch(RdmaCmEvents.Event e) {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                Listen l = listens.get(e.listenId());
                RdmaCmTransport t = e.device() == null ? null : devices.get(e.device());
                if (l == null || t == null) {
                    LOG.debug("librdmacm CONNECT_REQUEST on {} for no listener or device ({}): rejected", e.device(), e);
                    MemorySegment nid = MemorySegment.ofAddress(e.id());
                    rejectAndDestroy(nid);
                    return;
                }
                t.onRequest(l, e);
                return;
            }
            Conn c = conns.get(e.id());
            if (c == null) {
                LOG.debug("librdmacm event {} for an ID no longer known", e.type());
                return;
            }
            c.transport.onEvent(c, e);
        }

        void rejectAndDestroy(MemorySegment nid) {
            try {
                lib.reject(nid, MemorySegment.NULL, 0);
            } catch (VerbsException ex) {
                LOG.debug("rdma_reject of an unwanted request", ex);
            }
            lib.destroyId(nid);
        }
    }

    /** One listening librdmacm ID. */
    static final class Listen {
        final MemorySegment nid;
        final CmEndpoint listener;
        int refs = 1;

        Listen(MemorySegment nid, CmEndpoint listener) {
            this.nid = nid;
            this.listener = listener;
        }
    }

    enum State { ADDR_QUERY, ROUTE_QUERY, CONNECTING, REQUEST, ACCEPTED, ESTABLISHED, CLOSED }

    /** One connection's librdmacm ID. */
    static final class Conn {
        final MemorySegment nid;
        final RdmaCmTransport transport;
        CmEndpoint id;
        State state;
        ConnParam param;
        /** On a passive connection: the request's parameters (the passive side's view). */
        ConnParam request;

        Conn(MemorySegment nid, RdmaCmTransport transport, CmEndpoint id, State state) {
            this.nid = nid;
            this.transport = transport;
            this.id = id;
            this.state = state;
        }
    }

    private final Shared shared;
    private final LibRdmacm lib;
    private final IbvContext context;
    private final boolean iwarp;
    private final int maxRdAtom;
    private final int maxInitRdAtom;

    RdmaCmTransport(Shared shared, IbvContext context) {
        this.shared = shared;
        this.lib = shared.lib;
        this.context = context;
        this.iwarp = context.device().transportType() == TransportType.IWARP;
        DeviceAttr a = context.queryDevice();
        this.maxRdAtom = a.maxQpRdAtom();
        this.maxInitRdAtom = a.maxQpInitRdAtom();
        shared.devices.put(context.device().name(), this);
    }

    // ---------------------------------------------------------------- listen

    @Override
    public void listen(CmEndpoint listener) {
        Listen l = shared.byListener.get(listener);
        if (l != null) {
            l.refs++;
            return;
        }
        MemorySegment nid = lib.createId(shared.events.channel, LibRdmacm.PS_TCP);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sa = a.allocate(SockAddr.STORAGE, 8);
            SockAddr.write(sa, listener.localAddress());
            lib.bindAddr(nid, sa);
            lib.listen(nid, KERNEL_BACKLOG);
        } catch (RuntimeException e) {
            lib.destroyId(nid);
            throw e;
        }
        l = new Listen(nid, listener);
        shared.byListener.put(listener, l);
        shared.listens.put(nid.address(), l);
    }

    @Override
    public void unlisten(CmEndpoint listener) {
        Listen l = shared.byListener.get(listener);
        if (l == null || --l.refs > 0) {
            return;
        }
        shared.byListener.remove(listener);
        shared.listens.remove(l.nid.address());
        lib.destroyId(l.nid);
    }

    private void onRequest(Listen l, RdmaCmEvents.Event e) {
        MemorySegment nid = MemorySegment.ofAddress(e.id());
        CmEndpoint listener = l.listener;
        if (!listener.alive() || !listener.admitRequest() || e.local() == null || e.remote() == null) {
            shared.rejectAndDestroy(nid);
            return;
        }
        CmEndpoint id = listener.newRequest(e.local(), e.remote());
        Conn c = new Conn(nid, this, id, State.REQUEST);
        c.request = e.peer();
        shared.conns.put(e.id(), c);
        id.connection(c);
        id.postRequest(e.privateData(), e.peer());
    }

    // ---------------------------------------------------------------- active side

    @Override
    public void connect(CmEndpoint id, ConnParam param) {
        if (id.qp() != null && !(id.qp() instanceof IbvQp)) {
            throw new VerbsException(Errno.EINVAL, "rdma_connect: the ID's QP is not a QP of the native provider");
        }
        MemorySegment nid = lib.createId(shared.events.channel, LibRdmacm.PS_TCP);
        Conn c = new Conn(nid, this, id, State.ADDR_QUERY);
        c.param = param;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(SockAddr.STORAGE, 8);
            MemorySegment dst = a.allocate(SockAddr.STORAGE, 8);
            InetSocketAddress local = id.localAddress();
            SockAddr.write(src, new InetSocketAddress(local.getAddress(), 0));
            SockAddr.write(dst, id.peerAddress());
            lib.resolveAddr(nid, src, dst, RESOLVE_TIMEOUT_MS);
        } catch (RuntimeException e) {
            lib.destroyId(nid);
            throw e;
        }
        shared.conns.put(nid.address(), c);
        id.connection(c);
    }

    private void onEvent(Conn c, RdmaCmEvents.Event e) {
        CmEndpoint id = c.id;
        if (id == null || !id.alive()) {
            return;
        }
        switch (e.type()) {
            case ADDR_RESOLVED -> {
                if (c.state == State.ADDR_QUERY) {
                    c.state = State.ROUTE_QUERY;
                    step(c, () -> lib.resolveRoute(c.nid, RESOLVE_TIMEOUT_MS));
                }
            }
            case ROUTE_RESOLVED -> {
                if (c.state == State.ROUTE_QUERY) {
                    c.state = State.CONNECTING;
                    step(c, () -> {
                        try (Arena a = Arena.ofConfined()) {
                            lib.connect(c.nid, connParam(a, c.param, qpNum(id, c.param)));
                        }
                    });
                }
            }
            case ADDR_ERROR, ROUTE_ERROR -> failActive(c, CmEventType.UNREACHABLE, e.status(), null);
            case CONNECT_RESPONSE -> onResponse(c, e);
            case ESTABLISHED -> {
                c.state = State.ESTABLISHED;
                id.post(CmEventType.ESTABLISHED, 0, e.privateData(), e.peer());
            }
            case REJECTED, UNREACHABLE, CONNECT_ERROR -> failActive(c, e.type(), e.status(), e.privateData());
            case DISCONNECTED -> {
                c.state = State.CLOSED;
                id.disconnecting();
                id.post(CmEventType.DISCONNECTED, e.status(), null, null);
            }
            case TIMEWAIT_EXIT, DEVICE_REMOVAL, ADDR_CHANGE -> id.post(e.type(), e.status(), null, null);
            default -> LOG.debug("librdmacm event {} not taken", e.type());
        }
    }

    /** Runs the next librdmacm call of an active connection; a failure ends it with UNREACHABLE -errno. */
    private void step(Conn c, Runnable call) {
        try {
            call.run();
        } catch (VerbsException ex) {
            failActive(c, CmEventType.UNREACHABLE, -ex.errno(), null);
        }
    }

    private void failActive(Conn c, CmEventType type, int status, byte[] pd) {
        c.state = State.CLOSED;
        c.id.post(type, status, pd, null);
    }

    /** CONNECT_RESPONSE (the REP): with a QP on the ID it is moved to RTS and the RTU sent; else the application establishes. */
    private void onResponse(Conn c, RdmaCmEvents.Event e) {
        QueuePair qp = c.id.qp();
        if (qp == null) {
            c.id.post(CmEventType.CONNECT_RESPONSE, 0, e.privateData(), e.peer());
            return;
        }
        try {
            move(c, qp, QpState.INIT);
            move(c, qp, QpState.RTR);
            move(c, qp, QpState.RTS);
            lib.establish(c.nid);
        } catch (VerbsException ex) {
            LOG.debug("completing the connection on the native QP failed", ex);
            try {
                lib.reject(c.nid, MemorySegment.NULL, 0);
            } catch (VerbsException ignored) {
                // the connection is failed either way
            }
            failActive(c, CmEventType.CONNECT_ERROR, -ex.errno(), null);
            return;
        }
        c.state = State.ESTABLISHED;
        c.id.post(CmEventType.ESTABLISHED, 0, e.privateData(), e.peer());
    }

    private void move(Conn c, QueuePair qp, QpState s) {
        QpAttr a = new QpAttr().qpState(s);
        int mask = nativeInitQpAttr(c, a);
        qp.modify(a, mask);
    }

    private int nativeInitQpAttr(Conn c, QpAttr attr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(IbvLayouts.QP_ATTR);
            s.set(JAVA_INT, IbvLayouts.QP_ATTR.byteOffset(java.lang.foreign.MemoryLayout.PathElement.groupElement("qp_state")),
                    attr.qpState().value());
            int mask = lib.initQpAttr(c.nid, s);
            Structs.readQpAttr(s, attr);
            return mask;
        }
    }

    private static int qpNum(CmEndpoint id, ConnParam p) {
        return id.qp() != null ? id.qp().qpNum() : p.qpNum();
    }

    /** A {@code struct rdma_conn_param} in {@code a}. */
    private static MemorySegment connParam(Arena a, ConnParam p, int qpNum) {
        MemorySegment s = a.allocate(CONN_PARAM);
        byte[] pd = p.privateData();
        if (pd != null && pd.length > 0) {
            MemorySegment d = a.allocate(pd.length);
            MemorySegment.copy(pd, 0, d, JAVA_BYTE, 0, pd.length);
            s.set(ADDRESS, CP_PRIVATE_DATA_OFF, d);
            s.set(JAVA_BYTE, CP_PRIVATE_DATA_LEN_OFF, (byte) pd.length);
        }
        s.set(JAVA_BYTE, CP_RESPONDER_RESOURCES_OFF, (byte) p.responderResources());
        s.set(JAVA_BYTE, CP_INITIATOR_DEPTH_OFF, (byte) p.initiatorDepth());
        s.set(JAVA_BYTE, CP_FLOW_CONTROL_OFF, (byte) p.flowControl());
        s.set(JAVA_BYTE, CP_RETRY_COUNT_OFF, (byte) p.retryCount());
        s.set(JAVA_BYTE, CP_RNR_RETRY_COUNT_OFF, (byte) p.rnrRetryCount());
        s.set(JAVA_BYTE, CP_SRQ_OFF, (byte) (p.srq() ? 1 : 0));
        s.set(JAVA_INT, CP_QP_NUM_OFF, qpNum);
        return s;
    }

    // ---------------------------------------------------------------- passive side

    @Override
    public void accept(CmEndpoint id, ConnParam param) {
        Conn c = conn(id, "rdma_accept");
        if (c.state != State.REQUEST) {
            throw new VerbsException(Errno.EINVAL, "rdma_accept: the connection is " + c.state);
        }
        ConnParam p = param != null ? param : new ConnParam()
                .responderResources(Math.min(c.request.responderResources(), maxRdAtom))
                .initiatorDepth(Math.min(c.request.initiatorDepth(), maxInitRdAtom))
                .retryCount(7).rnrRetryCount(7);
        QueuePair qp = id.qp();
        if (qp != null && !iwarp) {
            move(c, qp, QpState.INIT);
            move(c, qp, QpState.RTR);
            move(c, qp, QpState.RTS);
        }
        try (Arena a = Arena.ofConfined()) {
            lib.accept(c.nid, connParam(a, p, qpNum(id, p)));
        }
        c.state = State.ACCEPTED;
    }

    @Override
    public void reject(CmEndpoint id, byte[] privateData) {
        Conn c = conn(id, "rdma_reject");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment d = MemorySegment.NULL;
            if (privateData.length > 0) {
                d = a.allocate(privateData.length);
                MemorySegment.copy(privateData, 0, d, JAVA_BYTE, 0, privateData.length);
            }
            lib.reject(c.nid, d, privateData.length);
        }
        c.state = State.CLOSED;
    }

    @Override
    public void establish(CmEndpoint id) {
        Conn c = conn(id, "rdma_establish");
        lib.establish(c.nid);
        c.state = State.ESTABLISHED;
        id.post(CmEventType.ESTABLISHED, 0, null, null);
    }

    // ---------------------------------------------------------------- teardown

    /** As librdmacm's {@code rdma_disconnect}: the QP to ERR (iWARP: SQD, the kernel closes the stream), then the DREQ. */
    @Override
    public void disconnect(CmEndpoint id) {
        Conn c = conn(id, "rdma_disconnect");
        id.disconnecting();
        QueuePair qp = id.qp();
        if (qp != null) {
            try {
                qp.modify(new QpAttr().qpState(iwarp ? QpState.SQD : QpState.ERR), QpAttrMask.STATE);
            } catch (VerbsException e) {
                LOG.debug("moving the QP for rdma_disconnect failed", e);
            }
        }
        lib.disconnect(c.nid);
    }

    @Override
    public void destroy(CmEndpoint id) {
        if (!(id.connection() instanceof Conn c)) {
            return;
        }
        id.connection(null);
        c.id = null;
        c.state = State.CLOSED;
        shared.conns.remove(c.nid.address());
        lib.destroyId(c.nid);
    }

    /**
     * {@code rdma_init_qp_attr(3)} of the connection's librdmacm ID; before there is one (an active ID
     * before {@code connect}), INIT as the class comment says.
     */
    @Override
    public int initQpAttr(CmEndpoint id, QpAttr attr) {
        if (id.connection() instanceof Conn c && c.state != State.ADDR_QUERY && c.state != State.ROUTE_QUERY) {
            return nativeInitQpAttr(c, attr);
        }
        if (attr.qpState() == QpState.INIT) {
            attr.pkeyIndex(0).portNum(1)
                    .qpAccessFlags(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            return QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS;
        }
        throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: " + attr.qpState()
                + " needs the connection's parameters (after the request or the response)");
    }

    private static Conn conn(CmEndpoint id, String call) {
        if (!(id.connection() instanceof Conn c)) {
            throw new VerbsException(Errno.EINVAL, call + ": the ID has no librdmacm connection");
        }
        return c;
    }

    // ---------------------------------------------------------------- discovery

    private static Shared process;
    private static String unavailable;

    /** The transport of a native device's context, or empty when librdmacm cannot be loaded (said at debug level). Under the CM lock. */
    static Optional<CmTransport> open(IbvContext context, CmHost host) {
        if (process == null && unavailable == null) {
            try {
                process = new Shared(LibRdmacm.load(), host);
            } catch (LibIbverbs.Unavailable | VerbsException e) {
                unavailable = e.getMessage();
            }
        }
        if (process == null) {
            LOG.debug("no librdmacm for native device {}: {}", context.device().name(), unavailable);
            return Optional.empty();
        }
        return Optional.of(new RdmaCmTransport(process, context));
    }
}
