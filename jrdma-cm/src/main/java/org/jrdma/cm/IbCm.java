package org.jrdma.cm;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.jrdma.cm.CmCounters.Drop;
import org.jrdma.mad.Cm;
import org.jrdma.mad.CmDrep;
import org.jrdma.mad.CmDreq;
import org.jrdma.mad.CmMra;
import org.jrdma.mad.CmRej;
import org.jrdma.mad.CmRejReason;
import org.jrdma.mad.CmRep;
import org.jrdma.mad.CmReq;
import org.jrdma.mad.CmRtu;
import org.jrdma.mad.CmSidrRep;
import org.jrdma.mad.CmSidrReq;
import org.jrdma.mad.CmaHeader;
import org.jrdma.mad.MadHeader;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.ManagementDatagrams;
import org.jrdma.verbs.ext.ManagementDatagrams.MadAddress;

/**
 * The IB Communication Manager of one RoCE v2 device (IBTA Vol 1 chapter 12, with rdma_cm's use of
 * it as in Linux's {@code cm.c} and {@code cma.c}): REQ/REP/RTU, REJ, MRA, DREQ/DREP over QP1
 * ({@link ManagementDatagrams}, class CM version 2), the connection state machine with timewait.
 * Each arriving message has one handler with one switch on the connection's {@link IbCmState}.
 *
 * <p>What Linux does and jrdma does too: the service ID is {@code RDMA_PS << 16 | port}; the REQ's
 * private data begins with the 36-byte rdma_cm IP header; a REQ with no listener gets REJ 8 (invalid
 * service ID); a duplicate REQ (same remote communication ID and CA GUID) is no second connection:
 * it is answered with the owed MRA (rdma_cm delays its MRAs until a REQ comes again), with REJ 10
 * (stale connection) in timewait, and otherwise dropped; a REQ past the listener's backlog is
 * dropped unanswered, so that the peer retries (as ucma's backlog with {@code cm_destroy_id}'s
 * "do not reject to allow future retries"). What jrdma adds: a request neither accepted nor rejected
 * by the time its active side has given up is timed out ({@link PendingRequests}); a MAD whatever its
 * fields is handled or dropped and counted ({@link CmCounters}, public as {@link CmStatistics});
 * COMM_EST through {@code rdma_notify} establishes a passive connection whose RTU is late. The
 * flow label of the path is {@code (source port × 31 + destination port) mod 2^20} ({@code cma_get_roce_udp_flow_label}),
 * which the provider turns into the UDP source port of the QP's packets
 * ({@code rdma_flow_label_to_udp_sport}).
 *
 * <p>Threads: {@link #received} and {@link #sendFailed} run on the provider's thread and only queue
 * the work to the CM thread; everything else runs under the CM lock (see {@link CmService}).
 */
final class IbCm implements CmProvider, ManagementDatagrams.MadHandler {
    private final CmService cm = CmService.get();
    private final CmDevice dev;
    private final ManagementDatagrams.MadAgent agent;
    private final Random random = new SecureRandom();
    private final Map<Integer, IbConnection> byLocalId = new HashMap<>();
    private final Map<RemoteId, IbConnection> byRemoteId = new HashMap<>();
    private final Map<Long, IbConnection> byTid = new HashMap<>();
    private final CmCounters counters = new CmCounters();
    /** Received MADs handed to the CM thread and not yet taken by it (provider thread and CM thread, no lock). */
    private final java.util.concurrent.atomic.AtomicInteger waiting = new java.util.concurrent.atomic.AtomicInteger();
    private final PendingRequests pending;

    // the MAD being built or read, under the CM lock
    private final MemorySegment out = MemorySegment.ofArray(new byte[ManagementDatagrams.MAD_SIZE]);
    private final MadHeader hdr = new MadHeader();
    private final CmReq req = new CmReq();
    private final CmRep rep = new CmRep();
    private final CmRtu rtu = new CmRtu();
    private final CmRej rej = new CmRej();
    private final CmMra mra = new CmMra();
    private final CmDreq dreq = new CmDreq();
    private final CmDrep drep = new CmDrep();
    private final CmaHeader cma = new CmaHeader();
    /** SIDR (the PS_UDP IDs of the device), over the same agent; SIDR MADs and their send failures go to it. */
    private final Sidr sidr;

    private record RemoteId(int commId, long caGuid) {
    }

    IbCm(CmDevice dev, ManagementDatagrams mads) {
        this.dev = dev;
        // only Send, as Linux's ib_cm: a Get(ClassPortInfo) gets the MAD layer's "unsupported" answer
        this.pending = new PendingRequests(cm, this::onStaleRequest);
        this.agent = mads.register(CmId.PORT_NUM, MadHeader.MGMT_CLASS_CM, Cm.CLASS_VERSION, this, MadHeader.METHOD_SEND);
        this.sidr = new Sidr(dev, agent, byLocalId::containsKey);
    }

    /** The CM provider of the device's PS_UDP IDs. */
    Sidr sidr() {
        return sidr;
    }

    // ---- provider thread: hand over ----

    /**
     * How many received MADs may wait for the CM thread: the receive queue of Linux's QP1
     * ({@code IB_MAD_QP_RECV_SIZE}, ib_mad's {@code mad_recvq_size} default), past which a flood's
     * MADs find no receive WQE there and are lost; here they are dropped and counted
     * ({@code cm_drop_recv_queue_full}), so that a sender faster than the CM grows nothing.
     */
    static final int RECV_QUEUE = 512;

    @Override
    public void received(MadAddress from, MemorySegment mad) {
        if (waiting.incrementAndGet() > RECV_QUEUE) {
            waiting.decrementAndGet();
            counters.recvQueueFull.increment();
            return;
        }
        if (mad.byteSize() < ManagementDatagrams.MAD_SIZE) {
            // the MAD layer hands over whole MADs only; a short one is dropped here all the same
            cm.execute(() -> {
                waiting.decrementAndGet();
                drop(Drop.MALFORMED);
            });
            return;
        }
        byte[] copy = mad.asSlice(0, ManagementDatagrams.MAD_SIZE).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        cm.execute(() -> {
            waiting.decrementAndGet();
            dispatch(from, MemorySegment.ofArray(copy));
        });
    }

    @Override
    public void sendFailed(long transactionId) {
        cm.execute(() -> onTimeout(transactionId));
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> m = counters.snapshot(byLocalId.size(), pending.size());
        Map<Sidr.Drop, Long> sidrDrops = sidr.drops();
        for (Sidr.Drop d : Sidr.Drop.values()) {
            m.put("cm_drop_sidr_" + d.name().toLowerCase(java.util.Locale.ROOT), sidrDrops.getOrDefault(d, 0L));
        }
        return m;
    }

    private void drop(Drop why) {
        counters.drop(why);
    }

    /** One received MAD (CM thread, CM lock): whatever its fields hold, it is handled or dropped and counted, never thrown. */
    private void dispatch(MadAddress from, MemorySegment mad) {
        try {
            handle(from, mad);
        } catch (RuntimeException e) {
            // a field out of the range the CM's types take (an MTU code, a GID, a private data header):
            // the MAD is dropped whole; what it started before the failure is undone by its timers
            drop(Drop.MALFORMED);
        }
    }

    private void handle(MadAddress from, MemorySegment mad) {
        hdr.wrap(mad, 0);
        if (hdr.mgmtClass() != MadHeader.MGMT_CLASS_CM || hdr.classVersion() != Cm.CLASS_VERSION
                || hdr.method() != MadHeader.METHOD_SEND) {
            drop(Drop.NOT_CM_SEND);
            return;
        }
        switch (hdr.attributeId()) {
            case CmReq.ATTRIBUTE_ID -> onReq(from, req.wrap(mad, 0), hdr.transactionId());
            case CmMra.ATTRIBUTE_ID -> onMra(mra.wrap(mad, 0));
            case CmRej.ATTRIBUTE_ID -> onRej(rej.wrap(mad, 0));
            case CmRep.ATTRIBUTE_ID -> onRep(rep.wrap(mad, 0));
            case CmRtu.ATTRIBUTE_ID -> onRtu(rtu.wrap(mad, 0));
            case CmDreq.ATTRIBUTE_ID -> onDreq(from, dreq.wrap(mad, 0), hdr.transactionId());
            case CmDrep.ATTRIBUTE_ID -> onDrep(drep.wrap(mad, 0));
            case CmSidrReq.ATTRIBUTE_ID -> sidr.onSidrReq(from, mad, hdr.transactionId());
            case CmSidrRep.ATTRIBUTE_ID -> sidr.onSidrRep(mad);
            default -> drop(Drop.UNSUPPORTED_ATTRIBUTE);
        }
    }

    // ---- CmProvider: the application's calls ----

    @Override
    public void listen(CmId listener) {
        // the IB CM answers REQs for any service ID on QP1 already; the listeners are the CM's port
        // table (CmService.findListener), so there is nothing to start per device
    }

    @Override
    public void unlisten(CmId listener) {
        // as listen: the port table forgets the listener when its port is freed
    }

    @Override
    public void connect(CmId id, ConnParam p) {
        IbConnection c = new IbConnection(id, true);
        c.localCommId = newCommId();
        c.tid = IbTimeouts.formTid(c.localCommId);
        c.localGid = dev.gid;
        InetSocketAddress dst = id.peer();
        c.remoteGid = Gid.of(dst.getAddress());
        c.peer = MadAddress.gsi(c.remoteGid);
        QueuePair qp = id.qpLocked();
        c.localQpn = qp != null ? qp.qpNum() : p.qpNum();
        c.localPsn = random.nextInt() & 0xffffff;
        c.responderResources = p.responderResources();
        c.initiatorDepth = p.initiatorDepth();
        c.flowControl = p.flowControl() != 0;
        c.retryCount = Math.min(7, p.retryCount());
        c.rnrRetryCount = Math.min(7, p.rnrRetryCount());
        c.srq = p.srq();
        c.pathMtu = dev.activeMtu;
        c.flowLabel = roceFlowLabel(id.boundPort(), dst.getPort());
        c.trafficClass = id.tos();
        c.localAckTimeout = IbTimeouts.ackTimeout(IbTimeouts.CA_ACK_DELAY, IbTimeouts.PACKET_LIFETIME);
        c.sendTimeoutMs = IbTimeouts.requestMs(id.cmResponseTimeout());
        c.maxCmRetries = id.maxCmRetries();

        req.wrap(out, 0).clear(c.tid)
                .localCommId(c.localCommId)
                .serviceId(id.portSpace().serviceId(dst.getPort()))
                .localCaGuid(dev.guid)
                .localQKey(0)
                .localQpn(c.localQpn)
                .responderResources(c.responderResources)
                .initiatorDepth(c.initiatorDepth)
                .remoteCmResponseTimeout(id.cmResponseTimeout())
                .transportServiceType(Cm.TRANSPORT_RC)
                .endToEndFlowControl(c.flowControl)
                .startingPsn(c.localPsn)
                .localCmResponseTimeout(id.cmResponseTimeout())
                .retryCount(c.retryCount)
                .partitionKey(0xffff)
                .pathPacketPayloadMtu(c.pathMtu.value())
                .rnrRetryCount(c.rnrRetryCount)
                .maxCmRetries(c.maxCmRetries)
                .srq(c.srq)
                .primaryLocalPortLid(0xffff)
                .primaryRemotePortLid(0xffff)
                .primaryLocalPortGid(c.localGid.raw())
                .primaryRemotePortGid(c.remoteGid.raw())
                .primaryFlowLabel(c.flowLabel)
                .primaryTrafficClass(c.trafficClass)
                .primaryHopLimit(c.hopLimit)
                .primaryLocalAckTimeout(c.localAckTimeout);
        byte[] pd = new byte[CmReq.PRIVATE_DATA_LENGTH];
        MemorySegment pdSeg = MemorySegment.ofArray(pd);
        cma.wrap(pdSeg, 0).set(id.boundAddress(), id.boundPort(), dst.getAddress());
        byte[] user = p.privateData();
        System.arraycopy(user, 0, pd, CmaHeader.LENGTH, user.length);
        req.privateData(pd);

        id.connection(c);
        byLocalId.put(c.localCommId, c);
        c.state = IbCmState.REQ_SENT;
        sendRequest(c, c.tid);
    }

    @Override
    public void accept(CmId id, ConnParam p) {
        IbConnection c = conn(id, "rdma_accept");
        switch (c.state) {
            case REQ_RCVD, MRA_REQ_SENT -> {
                ConnParam r = c.request;
                if (p == null) {
                    c.responderResources = Math.min(r.initiatorDepth(), dev.maxQpRdAtom);
                    c.initiatorDepth = Math.min(r.responderResources(), dev.maxQpInitRdAtom);
                    c.rnrRetryCount = 7;
                } else {
                    c.responderResources = p.responderResources();
                    c.initiatorDepth = p.initiatorDepth();
                    c.rnrRetryCount = Math.min(7, p.rnrRetryCount());
                    c.flowControl = p.flowControl() != 0;
                }
                QueuePair qp = id.qpLocked();
                c.localQpn = qp != null ? qp.qpNum() : p.qpNum();
                c.srq = p != null && p.srq();
                if (qp != null) {
                    moveQp(c, qp, QpState.INIT);
                    moveQp(c, qp, QpState.RTR);
                    moveQp(c, qp, QpState.RTS);
                }
                rep.wrap(out, 0).clear(c.tid)
                        .localCommId(c.localCommId)
                        .remoteCommId(c.remoteCommId)
                        .localQKey(0)
                        .localQpn(c.localQpn)
                        .startingPsn(c.localPsn)
                        .responderResources(c.responderResources)
                        .initiatorDepth(c.initiatorDepth)
                        .targetAckDelay(IbTimeouts.CA_ACK_DELAY)
                        .failoverAccepted(0)
                        .endToEndFlowControl(c.flowControl)
                        .rnrRetryCount(c.rnrRetryCount)
                        .srq(c.srq)
                        .localCaGuid(dev.guid)
                        .privateData(p == null ? new byte[0] : p.privateData());
                pending.remove(c);
                c.state = IbCmState.REP_SENT;
                sendRequest(c, c.tid);
            }
            default -> throw new VerbsException(Errno.EINVAL, "rdma_accept: connection in state " + c.state);
        }
    }

    @Override
    public void reject(CmId id, byte[] privateData) {
        IbConnection c = conn(id, "rdma_reject");
        switch (c.state) {
            case REQ_RCVD, MRA_REQ_SENT -> {
                sendRej(c, Cm.REJ_REQ, CmRejReason.CONSUMER_DEFINED, privateData);
                forget(c);
            }
            case REP_RCVD, MRA_REP_SENT -> {
                sendRej(c, Cm.REJ_REP, CmRejReason.CONSUMER_DEFINED, privateData);
                forget(c);
            }
            default -> throw new VerbsException(Errno.EINVAL, "rdma_reject: connection in state " + c.state);
        }
    }

    @Override
    public void establish(CmId id) {
        IbConnection c = conn(id, "rdma_establish");
        switch (c.state) {
            case REP_RCVD, MRA_REP_SENT -> {
                sendRtu(c);
                c.state = IbCmState.ESTABLISHED;
            }
            default -> throw new VerbsException(Errno.EINVAL, "rdma_establish: connection in state " + c.state);
        }
    }

    @Override
    public void disconnect(CmId id) {
        IbConnection c = conn(id, "rdma_disconnect");
        switch (c.state) {
            case ESTABLISHED -> {
                qpToError(c);
                sendDreq(c, true);
                c.state = IbCmState.DREQ_SENT;
                id.state(CmaState.DISCONNECT);
            }
            case DREQ_RCVD -> {
                qpToError(c);
                sendDrep(c.peer, c.tid, c.localCommId, c.remoteCommId);
                enterTimewait(c);
                id.state(CmaState.DISCONNECT);
            }
            default -> throw new VerbsException(Errno.EINVAL, "rdma_disconnect: connection in state " + c.state);
        }
    }

    @Override
    public void destroy(CmId id) {
        IbConnection c = (IbConnection) id.connection();
        if (c == null) {
            return;
        }
        c.id = null;
        id.connection(null);
        // as ib_destroy_cm_id (cm_destroy_id)
        switch (c.state) {
            case REQ_SENT, MRA_REQ_RCVD -> {
                cancel(c);
                sendRej(c, Cm.REJ_REQ, CmRejReason.TIMEOUT, new byte[0]);
                forget(c);
            }
            case REQ_RCVD, MRA_REQ_SENT -> {
                sendRej(c, Cm.REJ_REQ, CmRejReason.CONSUMER_DEFINED, new byte[0]);
                forget(c);
            }
            case REP_RCVD, MRA_REP_SENT -> {
                sendRej(c, Cm.REJ_REP, CmRejReason.CONSUMER_DEFINED, new byte[0]);
                forget(c);
            }
            case REP_SENT, MRA_REP_RCVD -> {
                cancel(c);
                sendRej(c, Cm.REJ_REP, CmRejReason.CONSUMER_DEFINED, new byte[0]);
                forget(c);
            }
            case ESTABLISHED -> {
                sendDreq(c, false);
                enterTimewait(c);
            }
            case DREQ_SENT -> {
                cancel(c);
                enterTimewait(c);
            }
            case DREQ_RCVD -> {
                sendDrep(c.peer, c.tid, c.localCommId, c.remoteCommId);
                enterTimewait(c);
            }
            case TIMEWAIT -> {
                // the timewait runs out without an event
            }
            case IDLE -> forget(c);
        }
    }

    @Override
    public void processExit() {
        for (IbConnection c : new java.util.ArrayList<>(byLocalId.values())) {
            if (c.id != null) {
                destroy(c.id);
            }
        }
    }

    @Override
    public int initQpAttr(CmId id, QpAttr attr) {
        IbConnection c = (IbConnection) id.connection();
        if (c == null) {
            if (attr.qpState() == QpState.INIT) {
                // before a connection: cma_ib_init_qp_attr's defaults (access set when the connection is made)
                attr.pkeyIndex(0).portNum(CmId.PORT_NUM).qpAccessFlags(0);
                return QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS;
            }
            throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: " + attr.qpState() + " before a connection");
        }
        return c.initQpAttr(attr);
    }

    // ---- arriving messages: one switch on the state each ----

    private void onReq(MadAddress from, CmReq m, long tid) {
        IbConnection dup = byRemoteId.get(new RemoteId(m.localCommId(), m.localCaGuid()));
        if (dup != null) {
            // cm_dup_req_handler
            counters.duplicateReqs++;
            switch (dup.state) {
                case MRA_REQ_SENT -> {
                    sendMra(dup, Cm.MRA_REQ);
                    // the MRA extends the active side's wait, and so the request's life here
                    pending.arm(dup, IbTimeouts.toMs(IbTimeouts.MRA_SERVICE_TIMEOUT) + IbTimeouts.toMs(dup.localAckTimeout)
                            + PendingRequests.horizonMs(dup.remoteCmResponseTimeout, dup.maxCmRetries));
                }
                case TIMEWAIT -> sendRej(dup, Cm.REJ_REQ, CmRejReason.STALE_CONN, new byte[0]);
                default -> drop(Drop.DUPLICATE_REQ);
            }
            return;
        }
        long sid = m.serviceId();
        cma.wrap(m.privateDataSegment(), 0);
        if (!CmaHeader.isIpServiceId(sid) || cma.cmaVersion() != CmaHeader.CMA_VERSION || cma.dstAddress() == null
                || cma.srcAddress() == null) {
            rejectUnknown(from, m, tid, CmRejReason.INVALID_SERVICE_ID);
            return;
        }
        PortSpace ps = CmaHeader.portSpace(sid) == PortSpace.TCP.value() ? PortSpace.TCP
                : CmaHeader.portSpace(sid) == PortSpace.UDP.value() ? PortSpace.UDP : null;
        int port = CmaHeader.port(sid);
        InetAddress local = cma.dstAddress();
        CmId listener = ps == null ? null : cm.findListener(ps, port, local, dev);
        if (listener == null || (listener.device() != null && listener.device() != dev)) {
            rejectUnknown(from, m, tid, CmRejReason.INVALID_SERVICE_ID);
            return;
        }
        if (m.transportServiceType() != Cm.TRANSPORT_RC) {
            drop(Drop.BAD_REQ);
            rejectUnknown(from, m, tid, CmRejReason.INVALID_TRANSPORT_TYPE);
            return;
        }
        if (!listener.admitRequest()) {
            drop(Drop.BACKLOG_FULL);
            return;
        }
        CmId id = CmId.forRequest(listener, dev, local, port, new InetSocketAddress(cma.srcAddress(), cma.port()));
        IbConnection c = new IbConnection(id, false);
        c.localCommId = newCommId();
        c.remoteCommId = m.localCommId();
        c.remoteCaGuid = m.localCaGuid();
        c.tid = tid;
        c.peer = from;
        c.localGid = dev.gid;
        c.remoteGid = Gid.of(m.primaryLocalPortGid());
        c.remoteQpn = m.localQpn();
        c.remotePsn = m.startingPsn();
        c.localPsn = random.nextInt() & 0xffffff;
        c.retryCount = m.retryCount();
        c.rnrRetryCount = m.rnrRetryCount();
        c.flowControl = m.endToEndFlowControl();
        Mtu reqMtu = mtuOrNull(m.pathPacketPayloadMtu());
        c.pathMtu = reqMtu == null || reqMtu.value() > dev.activeMtu.value() ? dev.activeMtu : reqMtu;
        c.flowLabel = m.primaryFlowLabel();
        c.trafficClass = m.primaryTrafficClass();
        c.hopLimit = m.primaryHopLimit();
        c.localAckTimeout = m.primaryLocalAckTimeout();
        c.qpTimeout = IbTimeouts.ackTimeout(IbTimeouts.CA_ACK_DELAY, Math.max(0, c.localAckTimeout - 1));
        c.sendTimeoutMs = IbTimeouts.requestMs(m.localCmResponseTimeout());
        c.maxCmRetries = m.maxCmRetries();
        c.remoteCmResponseTimeout = m.remoteCmResponseTimeout();
        c.request = new ConnParam().responderResources(m.responderResources()).initiatorDepth(m.initiatorDepth())
                .flowControl(m.endToEndFlowControl() ? 1 : 0).retryCount(m.retryCount())
                .rnrRetryCount(m.rnrRetryCount()).srq(m.srq()).qpNum(m.localQpn());
        byte[] user = new byte[CmReq.PRIVATE_DATA_LENGTH - CmaHeader.LENGTH];
        MemorySegment.copy(m.privateDataSegment(), java.lang.foreign.ValueLayout.JAVA_BYTE, CmaHeader.LENGTH, user, 0, user.length);
        id.connection(c);
        byLocalId.put(c.localCommId, c);
        byRemoteId.put(new RemoteId(c.remoteCommId, c.remoteCaGuid), c);
        c.state = IbCmState.REQ_RCVD;
        id.postRequest(user, c.request.copy());
        // rdma_cm's MRA with IB_CM_MRA_FLAG_DELAY: owed, sent only if the REQ comes again
        c.state = IbCmState.MRA_REQ_SENT;
        pending.arm(c, PendingRequests.horizonMs(c.remoteCmResponseTimeout, c.maxCmRetries));
    }

    /**
     * A pending request's active side has given up (its REQ's retries are over) and the application
     * has neither accepted nor rejected it: it ends as a passive {@code ib_destroy_cm_id} in
     * MRA_REQ_SENT ends it (a REJ, here reason 4 timeout), and is counted. A CONNECT_REQUEST still
     * in the channel is withdrawn (the application never sees it; its backlog slot is free again),
     * else the ID gets UNREACHABLE -ETIMEDOUT (rdma_cm's event for a passive side's REP timeout).
     */
    private void onStaleRequest(IbConnection c) {
        if (c.state != IbCmState.REQ_RCVD && c.state != IbCmState.MRA_REQ_SENT) {
            return;
        }
        drop(Drop.STALE_REQUEST);
        CmId id = c.id;
        sendRej(c, Cm.REJ_REQ, CmRejReason.TIMEOUT, new byte[0]);
        forget(c);
        if (id != null) {
            id.requestTimedOut();
        }
    }

    /**
     * {@code ib_cm_notify(IB_EVENT_COMM_EST)} ({@code cm_establish}): the passive side's QP received
     * before the RTU came (IBTA §12.9.7.2: a QP's first receive in RTR establishes the connection as
     * the RTU would), so the connection is ESTABLISHED now, the REP is no longer resent, and the RTU,
     * when it comes late, is dropped as WRONG_STATE.
     */
    @Override
    public void notify(CmId id, AsyncEventType event) {
        if (event != AsyncEventType.COMM_EST) {
            throw new VerbsException(Errno.EINVAL, "rdma_notify: " + event + " (the IB CM takes COMM_EST only)");
        }
        IbConnection c = conn(id, "rdma_notify");
        switch (c.state) {
            case REP_SENT, MRA_REP_RCVD -> {
                cancel(c);
                c.state = IbCmState.ESTABLISHED;
                counters.establishedByCommEst++;
                id.post(CmEventType.ESTABLISHED, 0, null, null);
            }
            default -> throw new VerbsException(Errno.EINVAL, "rdma_notify: COMM_EST on a connection in state " + c.state);
        }
    }

    private void onRep(CmRep m) {
        IbConnection c = byLocalId.get(m.remoteCommId());
        if (c == null) {
            drop(Drop.UNKNOWN_COMM_ID);
            return;
        }
        switch (c.state) {
            case REQ_SENT, MRA_REQ_RCVD -> {
                cancel(c);
                c.remoteCommId = m.localCommId();
                c.remoteCaGuid = m.localCaGuid();
                byRemoteId.put(new RemoteId(c.remoteCommId, c.remoteCaGuid), c);
                c.remoteQpn = m.localQpn();
                c.remotePsn = m.startingPsn();
                // cm_rep_handler: our READs in flight are bounded by the peer's responder resources, and back
                c.initiatorDepth = m.responderResources();
                c.responderResources = m.initiatorDepth();
                c.rnrRetryCount = m.rnrRetryCount();
                c.qpTimeout = IbTimeouts.ackTimeout(m.targetAckDelay(), Math.max(0, c.localAckTimeout - 1));
                c.state = IbCmState.REP_RCVD;
                ConnParam peer = new ConnParam().responderResources(m.responderResources())
                        .initiatorDepth(m.initiatorDepth()).flowControl(m.endToEndFlowControl() ? 1 : 0)
                        .rnrRetryCount(m.rnrRetryCount()).srq(m.srq()).qpNum(m.localQpn());
                byte[] pd = m.privateData();
                CmId id = c.id;
                QueuePair qp = id.qpLocked();
                if (qp == null) {
                    c.state = IbCmState.MRA_REP_SENT;
                    id.post(CmEventType.CONNECT_RESPONSE, 0, pd, peer);
                    return;
                }
                try {
                    moveQp(c, qp, QpState.INIT);
                    moveQp(c, qp, QpState.RTR);
                    moveQp(c, qp, QpState.RTS);
                } catch (VerbsException e) {
                    // cma_rep_recv failed: REJ and CONNECT_ERROR
                    sendRej(c, Cm.REJ_REP, CmRejReason.CONSUMER_DEFINED, new byte[0]);
                    forget(c);
                    id.post(CmEventType.CONNECT_ERROR, -e.errno(), null, null);
                    return;
                }
                sendRtu(c);
                c.state = IbCmState.ESTABLISHED;
                id.post(CmEventType.ESTABLISHED, 0, pd, peer);
            }
            case ESTABLISHED -> sendRtu(c);          // our RTU was lost: the peer resent its REP
            case MRA_REP_SENT -> sendMra(c, Cm.MRA_REP);
            default -> drop(Drop.WRONG_STATE);
        }
    }

    private void onRtu(CmRtu m) {
        IbConnection c = byLocalId.get(m.remoteCommId());
        if (c == null) {
            drop(Drop.UNKNOWN_COMM_ID);
            return;
        }
        switch (c.state) {
            case REP_SENT, MRA_REP_RCVD -> {
                cancel(c);
                c.state = IbCmState.ESTABLISHED;
                if (c.id != null) {
                    c.id.post(CmEventType.ESTABLISHED, 0, null, null);
                }
            }
            default -> drop(Drop.WRONG_STATE);
        }
    }

    private void onMra(CmMra m) {
        IbConnection c = byLocalId.get(m.remoteCommId());
        if (c == null) {
            drop(Drop.UNKNOWN_COMM_ID);
            return;
        }
        long timeout = IbTimeouts.toMs(m.serviceTimeout()) + IbTimeouts.toMs(c.localAckTimeout);
        switch (c.state) {
            case REQ_SENT -> {
                if (m.messageMraed() != Cm.MRA_REQ) {
                    drop(Drop.WRONG_STATE);
                    return;
                }
                c.state = IbCmState.MRA_REQ_RCVD;
                agent.modify(c.outstandingTid, (int) Math.min(Integer.MAX_VALUE, timeout));
            }
            case REP_SENT -> {
                if (m.messageMraed() != Cm.MRA_REP) {
                    drop(Drop.WRONG_STATE);
                    return;
                }
                c.state = IbCmState.MRA_REP_RCVD;
                agent.modify(c.outstandingTid, (int) Math.min(Integer.MAX_VALUE, timeout));
            }
            default -> drop(Drop.WRONG_STATE);
        }
    }

    private void onRej(CmRej m) {
        IbConnection c = byLocalId.get(m.remoteCommId());
        if (c == null) {
            drop(Drop.UNKNOWN_COMM_ID);
            return;
        }
        int reason = m.reason();
        switch (c.state) {
            case REQ_SENT, MRA_REQ_RCVD, REP_SENT, MRA_REP_RCVD, REQ_RCVD, MRA_REQ_SENT, REP_RCVD, MRA_REP_SENT,
                 ESTABLISHED -> {
                cancel(c);
                qpToError(c);
                CmId id = c.id;
                if (reason == CmRejReason.STALE_CONN.code()) {
                    enterTimewait(c);
                } else {
                    forget(c);
                }
                if (id != null) {
                    id.post(CmEventType.REJECTED, reason, m.privateData(), null);
                }
            }
            default -> drop(Drop.WRONG_STATE);
        }
    }

    private void onDreq(MadAddress from, CmDreq m, long tid) {
        IbConnection c = byLocalId.get(m.remoteCommId());
        if (c == null || c.localQpn != m.remoteQpnEecn()) {
            // cm_dreq_handler: a DREQ for a connection we do not know is answered all the same
            drop(Drop.UNKNOWN_COMM_ID);
            sendDrep(from, tid, m.remoteCommId(), m.localCommId());
            return;
        }
        switch (c.state) {
            case REP_SENT, MRA_REP_RCVD, ESTABLISHED -> {
                cancel(c);
                c.tid = tid;
                c.state = IbCmState.DREQ_RCVD;
                reportDisconnect(c, 0);
            }
            case DREQ_SENT -> {
                // both sides disconnect at once: answer and end
                cancel(c);
                sendDrep(c.peer, tid, c.localCommId, c.remoteCommId);
                enterTimewait(c);
                reportDisconnect(c, 0);
            }
            case TIMEWAIT -> sendDrep(c.peer, tid, c.localCommId, c.remoteCommId); // our DREP was lost
            default -> drop(Drop.WRONG_STATE);
        }
    }

    private void onDrep(CmDrep m) {
        IbConnection c = byLocalId.get(m.remoteCommId());
        if (c == null) {
            drop(Drop.UNKNOWN_COMM_ID);
            return;
        }
        switch (c.state) {
            case DREQ_SENT -> {
                cancel(c);
                enterTimewait(c);
                reportDisconnect(c, 0);
            }
            default -> drop(Drop.WRONG_STATE);
        }
    }

    /** A request of ours got no answer after its retries (the MAD layer's send failure). */
    private void onTimeout(long tid) {
        if (sidr.sendFailed(tid)) {
            return;
        }
        IbConnection c = byTid.remove(tid);
        if (c == null || c.outstandingTid != tid) {
            return;
        }
        c.outstandingTid = 0;
        switch (c.state) {
            case REQ_SENT, MRA_REQ_RCVD, REP_SENT, MRA_REP_RCVD -> {
                // IB_CM_REQ_ERROR / IB_CM_REP_ERROR: rdma_cm reports both as UNREACHABLE
                CmId id = c.id;
                qpToError(c);
                forget(c);
                if (id != null) {
                    id.post(CmEventType.UNREACHABLE, -Errno.ETIMEDOUT, null, null);
                }
            }
            case DREQ_SENT -> {
                enterTimewait(c);
                reportDisconnect(c, -Errno.ETIMEDOUT);
            }
            default -> {
            }
        }
    }

    // ---- helpers ----

    private IbConnection conn(CmId id, String call) {
        IbConnection c = (IbConnection) id.connection();
        if (c == null) {
            throw new VerbsException(Errno.EINVAL, call + ": the ID has no connection");
        }
        return c;
    }

    private void reportDisconnect(IbConnection c, int status) {
        if (!c.disconnectReported && c.id != null) {
            c.disconnectReported = true;
            c.id.post(CmEventType.DISCONNECTED, status, null, null);
        }
    }

    /** {@code cm_enter_timewait}: the QP goes to ERR; after the timewait the connection is forgotten and TIMEWAIT_EXIT reported. */
    private void enterTimewait(IbConnection c) {
        cancel(c);
        pending.remove(c);
        qpToError(c);
        c.state = IbCmState.TIMEWAIT;
        long ms = IbTimeouts.toMs(c.qpTimeout > 0 ? c.qpTimeout : c.localAckTimeout);
        c.timewait = cm.schedule(() -> {
            if (c.state != IbCmState.TIMEWAIT) {
                return;
            }
            CmId id = c.id;
            forget(c);
            if (id != null) {
                id.post(CmEventType.TIMEWAIT_EXIT, 0, null, null);
            }
        }, ms);
    }

    private void forget(IbConnection c) {
        cancel(c);
        pending.remove(c);
        c.state = IbCmState.IDLE;
        byLocalId.remove(c.localCommId);
        byRemoteId.remove(new RemoteId(c.remoteCommId, c.remoteCaGuid));
        if (c.timewait != null) {
            c.timewait.cancel(false);
        }
    }

    private void cancel(IbConnection c) {
        if (c.outstandingTid != 0) {
            agent.cancel(c.outstandingTid);
            byTid.remove(c.outstandingTid);
            c.outstandingTid = 0;
        }
    }

    private void qpToError(IbConnection c) {
        QueuePair qp = c.id == null ? null : c.id.qpLocked();
        if (qp != null && qp.state() != QpState.ERR && qp.state() != QpState.RESET) {
            try {
                qp.modify(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE);
            } catch (VerbsException e) {
                // a QP the application destroyed or moved itself: nothing to stop
            }
        }
    }

    private static void moveQp(IbConnection c, QueuePair qp, QpState to) {
        QpAttr a = new QpAttr().qpState(to);
        qp.modify(a, c.initQpAttr(a));
    }

    /** Sends {@link #out} as a request the MAD layer resends until cancelled (REQ, REP, DREQ). */
    private void sendRequest(IbConnection c, long tid) {
        cancel(c);
        c.outstandingTid = tid;
        byTid.put(tid, c);
        agent.send(c.peer, out, (int) Math.min(Integer.MAX_VALUE, c.sendTimeoutMs), c.maxCmRetries);
    }

    private void sendRtu(IbConnection c) {
        rtu.wrap(out, 0).clear(c.tid).localCommId(c.localCommId).remoteCommId(c.remoteCommId);
        agent.send(c.peer, out, 0, 0);
    }

    private void sendMra(IbConnection c, int which) {
        mra.wrap(out, 0).clear(c.tid).localCommId(c.localCommId).remoteCommId(c.remoteCommId)
                .messageMraed(which).serviceTimeout(IbTimeouts.MRA_SERVICE_TIMEOUT);
        agent.send(c.peer, out, 0, 0);
    }

    private void sendDreq(IbConnection c, boolean retried) {
        long tid = IbTimeouts.formTid(c.localCommId);
        dreq.wrap(out, 0).clear(tid).localCommId(c.localCommId).remoteCommId(c.remoteCommId)
                .remoteQpnEecn(c.remoteQpn);
        if (retried) {
            sendRequest(c, tid);
        } else {
            agent.send(c.peer, out, 0, 0);
        }
    }

    private void sendDrep(MadAddress to, long tid, int localCommId, int remoteCommId) {
        drep.wrap(out, 0).clear(tid).localCommId(localCommId).remoteCommId(remoteCommId);
        agent.send(to, out, 0, 0);
    }

    private void sendRej(IbConnection c, int which, CmRejReason reason, byte[] privateData) {
        rej.wrap(out, 0).clear(c.tid).localCommId(c.localCommId).remoteCommId(c.remoteCommId)
                .messageRejected(which).reason(reason.code()).privateData(privateData);
        if (reason == CmRejReason.TIMEOUT) {
            // ARI: our CA GUID, as cm_destroy_id sends it
            byte[] ari = new byte[8];
            java.nio.ByteBuffer.wrap(ari).putLong(dev.guid);
            rej.rejectedInfoLength(8).ari(ari);
        }
        agent.send(c.peer, out, 0, 0);
    }

    /** {@code cm_issue_rej}: a REJ for a REQ no connection was made for. */
    private void rejectUnknown(MadAddress from, CmReq m, long tid, CmRejReason reason) {
        if (reason == CmRejReason.INVALID_SERVICE_ID) {
            counters.rejectedInvalidServiceId++;
        }
        int remote = m.localCommId();
        rej.wrap(out, 0).clear(tid).localCommId(0).remoteCommId(remote).messageRejected(Cm.REJ_REQ)
                .reason(reason.code());
        agent.send(from, out, 0, 0);
    }

    private int newCommId() {
        int id;
        do {
            id = random.nextInt();
        } while (id == 0 || byLocalId.containsKey(id));
        return id;
    }

    private static Mtu mtuOrNull(int v) {
        try {
            return Mtu.ofValue(v);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** {@code cma_get_roce_udp_flow_label} for an IPv4 or flow-label-less path: {@code (sport × 31 + dport) mod 2^20}. */
    static int roceFlowLabel(int srcPort, int dstPort) {
        return (srcPort * 31 + dstPort) & 0xfffff;
    }
}
