package org.jrdma.cm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.IntPredicate;
import org.jrdma.mad.Cm;
import org.jrdma.mad.CmSidrRep;
import org.jrdma.mad.CmSidrReq;
import org.jrdma.mad.CmaHeader;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.ManagementDatagrams;
import org.jrdma.verbs.ext.ManagementDatagrams.MadAddress;

/**
 * Service ID Resolution (IBTA Vol 1 §12.11, SIDR_REQ/SIDR_REP) for the UD IDs (PS_UDP) of one
 * RoCE v2 device, as Linux's {@code cm.c} and {@code cma.c} do it: the CM provider of PS_UDP IDs,
 * over the same QP1 agent as {@link IbCm}, which hands it the SIDR MADs and the send failures of
 * its SIDR_REQs.
 *
 * <p>Active side ({@code cma_resolve_ib_udp}, {@code ib_send_cm_sidr_req}): {@code rdma_connect}
 * sends a SIDR_REQ (request ID = a fresh local ID, P_Key 0xffff, service ID
 * {@code RDMA_PS_UDP << 16 | port}, private data = the 36-byte rdma_cm IP header and up to 180
 * bytes of the application's), resent by the MAD layer every {@code 2^(responseTimeout - 8)} ms
 * (4096 ms at the default 20, as {@code CMA_CM_RESPONSE_TIMEOUT}) up to {@code maxCmRetries}
 * times (15); no answer: UNREACHABLE {@code -ETIMEDOUT}. A SIDR_REP with status 0 gives ESTABLISHED
 * with the {@link UdParam} (the path's address, the peer's QPN and Q_Key); another status gives
 * UNREACHABLE with that status ({@code cma_sidr_rep_handler}); a Q_Key other than
 * {@link CmId#UDP_QKEY} for an ID with a QP gives ADDR_ERROR {@code -EINVAL} ({@code cma_set_qkey}).
 *
 * <p>Passive side ({@code cm_sidr_req_handler}): a SIDR_REQ for a service ID nobody listens on is
 * answered status 1 (service ID not supported); one whose private data is no rdma_cm IP header,
 * while someone listens on the port, status 2 (rejected: Linux's rdma_cm handler fails and
 * {@code cm_destroy_id} rejects); past the listener's backlog it is dropped unanswered (the peer
 * retries); else the listener gets CONNECT_REQUEST on a new ID. {@code rdma_accept} answers status 0
 * with the ID's QPN and Q_Key {@link CmId#UDP_QKEY}, {@code rdma_reject} status 2 with its private
 * data, destroying the ID first status 2 without. A SIDR_REQ again (same sender GID and request ID)
 * while the application decides is dropped (Linux counts it in {@code CM_RECV_DUPLICATES}); one
 * after the answer gets the same SIDR_REP again (the answer is kept for {@link #ANSWER_KEEP_MS} ms,
 * at most {@link #ANSWERS_KEPT} of them) and is never a second CONNECT_REQUEST. (Linux forgets the
 * request once it answered, so a retry that crossed its SIDR_REP there becomes a second request;
 * a SIDR_REP is not retried, so the kept answer also covers a lost SIDR_REP.)
 *
 * <p>Threads: everything runs under the CM lock ({@link CmService}): the application's calls through
 * {@link CmId}, the MADs and send failures on the CM thread (queued there by {@link IbCm}).
 */
final class Sidr implements CmProvider {
    /** Why a SIDR MAD was dropped. */
    enum Drop {
        /** A SIDR_REQ again while its first copy waits for the application. */
        DUPLICATE_SIDR_REQ,
        /** A SIDR_REQ beyond the listener's backlog (unanswered, the peer retries). */
        BACKLOG_FULL,
        /** A SIDR_REP whose request ID names no SIDR_REQ of ours in flight (late, duplicate or unsolicited). */
        UNKNOWN_REQUEST_ID
    }

    /** How long an answered SIDR_REQ's SIDR_REP is kept for its duplicates: the whole retry span of rdma_cm's defaults (16 × 4096 ms). */
    static final long ANSWER_KEEP_MS = 16 * 4096;
    /** At most this many answers are kept (the oldest go first). */
    static final int ANSWERS_KEPT = 1024;

    private final CmService cm = CmService.get();
    private final CmDevice dev;
    private final ManagementDatagrams.MadAgent agent;
    /** Local IDs the IB CM uses (a SIDR request ID comes from the same space, so that TIDs stay unique on the agent). */
    private final IntPredicate commIdInUse;
    private final Random random = new SecureRandom();
    /** Active: our SIDR_REQs in flight, by request ID. */
    private final Map<Integer, Request> sent = new HashMap<>();
    private final Map<Long, Request> sentByTid = new HashMap<>();
    /** Passive: SIDR_REQs the application has not answered yet. */
    private final Map<Remote, Request> pending = new HashMap<>();
    /** Passive: the SIDR_REPs sent, for duplicates (insertion order = age). */
    private final LinkedHashMap<Remote, Answer> answered = new LinkedHashMap<>();
    private final EnumMap<Drop, Long> drops = new EnumMap<>(Drop.class);

    // the MAD being built or read, under the CM lock
    private final MemorySegment out = MemorySegment.ofArray(new byte[ManagementDatagrams.MAD_SIZE]);
    private final CmSidrReq req = new CmSidrReq();
    private final CmSidrRep rep = new CmSidrRep();
    private final CmaHeader cma = new CmaHeader();

    /** A SIDR_REQ's sender: its GID and request ID. */
    private record Remote(Gid gid, int requestId) {
    }

    private record Answer(byte[] mad, long atMs) {
    }

    /** One SIDR exchange of a UD ID: the ID's {@code connection()}. */
    static final class Request {
        final CmId id;
        final boolean active;
        final int requestId;
        final long tid;
        final MadAddress peer;
        final long serviceId;
        /** Active: the address of the path (the ESTABLISHED event's {@code ah_attr}). */
        AhAttr ah;
        /** Passive: the sender, the key of {@link #pending}. */
        Remote remote;
        /** False once answered (passive), answered or given up (active). */
        boolean open = true;

        Request(CmId id, boolean active, int requestId, long tid, MadAddress peer, long serviceId) {
            this.id = id;
            this.active = active;
            this.requestId = requestId;
            this.tid = tid;
            this.peer = peer;
            this.serviceId = serviceId;
        }
    }

    Sidr(CmDevice dev, ManagementDatagrams.MadAgent agent, IntPredicate commIdInUse) {
        this.dev = dev;
        this.agent = agent;
        this.commIdInUse = commIdInUse;
    }

    /** Drops so far, by reason (a copy; under the CM lock). */
    Map<Drop, Long> drops() {
        cm.lock.lock();
        try {
            return new EnumMap<>(drops);
        } finally {
            cm.lock.unlock();
        }
    }

    private void drop(Drop why) {
        drops.merge(why, 1L, Long::sum);
    }

    // ---- CmProvider: the application's calls on PS_UDP IDs ----

    @Override
    public void listen(CmId listener) {
        // SIDR_REQs for every service ID arrive at QP1 already; the CM's port table knows the listeners
    }

    @Override
    public void unlisten(CmId listener) {
    }

    @Override
    public void connect(CmId id, ConnParam p) {
        int rid = newRequestId();
        long tid = IbTimeouts.formTid(rid);
        InetSocketAddress dst = id.peer();
        Gid remoteGid = Gid.of(dst.getAddress());
        Request r = new Request(id, true, rid, tid, MadAddress.gsi(remoteGid), id.portSpace().serviceId(dst.getPort()));
        AhAttr ah = new AhAttr().isGlobal(true).dlid(0).sl(0).portNum(CmId.PORT_NUM);
        ah.grh().dgid(remoteGid).sgidIndex(0).flowLabel(IbCm.roceFlowLabel(id.boundPort(), dst.getPort()))
                .hopLimit(64).trafficClass(id.tos());
        r.ah = ah;

        byte[] pd = new byte[CmaHeader.LENGTH + p.privateData().length];
        cma.wrap(MemorySegment.ofArray(pd), 0).set(id.boundAddress(), id.boundPort(), dst.getAddress());
        System.arraycopy(p.privateData(), 0, pd, CmaHeader.LENGTH, p.privateData().length);
        req.wrap(out, 0).clear(tid).requestId(rid).partitionKey(0xffff).serviceId(r.serviceId).privateData(pd);

        id.connection(r);
        sent.put(rid, r);
        sentByTid.put(tid, r);
        // cma_resolve_ib_udp: timeout_ms = 1 << (CMA_CM_RESPONSE_TIMEOUT - 8), CMA_MAX_CM_RETRIES
        agent.send(r.peer, out, (int) Math.min(Integer.MAX_VALUE, IbTimeouts.toMs(id.cmResponseTimeout())), id.maxCmRetries());
    }

    @Override
    public void accept(CmId id, ConnParam p) {
        Request r = passive(id, "rdma_accept");
        QueuePair qp = id.qpLocked();
        int qpn = qp != null ? qp.qpNum() : p.qpNum();
        answer(r, Cm.SIDR_SUCCESS, qpn, CmId.UDP_QKEY, p == null ? new byte[0] : p.privateData());
    }

    @Override
    public void reject(CmId id, byte[] privateData) {
        Request r = passive(id, "rdma_reject");
        answer(r, Cm.SIDR_REJECT, 0, 0, privateData);
    }

    @Override
    public void establish(CmId id) {
        throw new VerbsException(Errno.EINVAL, "rdma_establish: a UD ID (PS_UDP) has no connection to establish");
    }

    /** {@code rdma_disconnect} of a UD ID: as Linux, the QP goes to ERR; no message, no event. */
    @Override
    public void disconnect(CmId id) {
        QueuePair qp = id.qpLocked();
        if (qp != null && qp.state() != QpState.ERR && qp.state() != QpState.RESET) {
            qp.modify(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE);
        }
    }

    /** {@code cm_destroy_id}: a SIDR_REQ in flight is cancelled, one not answered yet is rejected (status 2). */
    @Override
    public void destroy(CmId id) {
        if (!(id.connection() instanceof Request r)) {
            return;
        }
        id.connection(null);
        if (!r.open) {
            return;
        }
        if (r.active) {
            forgetSent(r);
            agent.cancel(r.tid);
        } else {
            answer(r, Cm.SIDR_REJECT, 0, 0, new byte[0]);
        }
    }

    @Override
    public int initQpAttr(CmId id, QpAttr attr) {
        return UdQpAttr.init(attr);
    }

    // ---- arriving messages (the CM thread, from IbCm) ----

    /** A SIDR_REQ from {@code from} with transaction ID {@code tid}. */
    void onSidrReq(MadAddress from, MemorySegment mad, long tid) {
        CmSidrReq m = req.wrap(mad, 0);
        Remote remote = new Remote(from.gid(), m.requestId());
        if (pending.containsKey(remote)) {
            drop(Drop.DUPLICATE_SIDR_REQ);
            return;
        }
        Answer a = keptAnswer(remote);
        if (a != null) {
            MemorySegment.copy(a.mad(), 0, out, ValueLayout.JAVA_BYTE, 0, a.mad().length);
            agent.send(from, out, 0, 0);
            return;
        }
        long sid = m.serviceId();
        if (!CmaHeader.isIpServiceId(sid) || CmaHeader.portSpace(sid) != PortSpace.UDP.value()) {
            // not an rdma_cm service ID of PS_UDP: nobody serves it here (PS_IPOIB, PS_IB are not offered)
            reply(from, tid, m.requestId(), sid, Cm.SIDR_UNSUPPORTED);
            return;
        }
        int port = CmaHeader.port(sid);
        cma.wrap(m.privateDataSegment(), 0);
        boolean ip = cma.cmaVersion() == CmaHeader.CMA_VERSION && cma.dstAddress() != null && cma.srcAddress() != null;
        InetAddress local = ip ? cma.dstAddress() : null;
        CmId listener = cm.findListener(PortSpace.UDP, port, local, dev);
        if (listener == null || (listener.device() != null && listener.device() != dev)) {
            reply(from, tid, m.requestId(), sid, Cm.SIDR_UNSUPPORTED);
            return;
        }
        if (!ip) {
            reply(from, tid, m.requestId(), sid, Cm.SIDR_REJECT);
            return;
        }
        if (!listener.admitRequest()) {
            drop(Drop.BACKLOG_FULL);
            return;
        }
        CmId id = CmId.forRequest(listener, dev, local, port, new InetSocketAddress(cma.srcAddress(), cma.port()));
        Request r = new Request(id, false, m.requestId(), tid, from, sid);
        r.remote = remote;
        byte[] user = new byte[CmSidrReq.PRIVATE_DATA_LENGTH - CmaHeader.LENGTH];
        MemorySegment.copy(m.privateDataSegment(), ValueLayout.JAVA_BYTE, CmaHeader.LENGTH, user, 0, user.length);
        id.connection(r);
        pending.put(remote, r);
        id.postUdRequest(new UdParam(user, null, 0, 0));
    }

    /** A SIDR_REP: the answer to one of our SIDR_REQs ({@code cm_sidr_rep_handler}, {@code cma_sidr_rep_handler}). */
    void onSidrRep(MemorySegment mad) {
        CmSidrRep m = rep.wrap(mad, 0);
        Request r = sent.get(m.requestId());
        if (r == null || !r.open) {
            drop(Drop.UNKNOWN_REQUEST_ID);
            return;
        }
        agent.cancel(r.tid);
        forgetSent(r);
        CmId id = r.id;
        byte[] pd = m.privateData();
        int status = m.status();
        if (status != Cm.SIDR_SUCCESS) {
            id.postUd(CmEventType.UNREACHABLE, status, new UdParam(pd, null, 0, 0));
            return;
        }
        int qkey = m.qKey();
        if (qkey == 0 || (id.qpLocked() != null && qkey != CmId.UDP_QKEY)) {
            // cma_set_qkey: the ID's QP has RDMA_UDP_QKEY already
            id.postUd(CmEventType.ADDR_ERROR, -Errno.EINVAL, new UdParam(pd, null, 0, 0));
            return;
        }
        id.postUd(CmEventType.ESTABLISHED, 0, new UdParam(pd, r.ah, m.qpn(), qkey));
    }

    /**
     * The MAD layer gave up on a request: true when it was one of our SIDR_REQs (IB_CM_SIDR_REQ_ERROR:
     * UNREACHABLE {@code -ETIMEDOUT}), false when it is the IB CM's.
     */
    boolean sendFailed(long tid) {
        Request r = sentByTid.get(tid);
        if (r == null) {
            return false;
        }
        forgetSent(r);
        r.id.postUd(CmEventType.UNREACHABLE, -Errno.ETIMEDOUT, new UdParam(null, null, 0, 0));
        return true;
    }

    // ---- helpers ----

    private Request passive(CmId id, String call) {
        if (!(id.connection() instanceof Request r) || r.active || !r.open) {
            throw new VerbsException(Errno.EINVAL, call + ": no SIDR request waits for an answer on the ID");
        }
        return r;
    }

    /** Sends the SIDR_REP of a pending request, keeps it for duplicates, closes the request. */
    private void answer(Request r, int status, int qpn, int qkey, byte[] privateData) {
        rep.wrap(out, 0).clear(r.tid).requestId(r.requestId).status(status).qpn(qpn).serviceId(r.serviceId)
                .qKey(qkey).privateData(privateData);
        r.open = false;
        pending.remove(r.remote);
        keep(r.remote, out.toArray(ValueLayout.JAVA_BYTE));
        agent.send(r.peer, out, 0, 0);
    }

    /** {@code cm_sidr_req_handler}'s answers without a request (nobody listens, bad header): not kept. */
    private void reply(MadAddress to, long tid, int requestId, long serviceId, int status) {
        rep.wrap(out, 0).clear(tid).requestId(requestId).status(status).serviceId(serviceId);
        agent.send(to, out, 0, 0);
    }

    private void keep(Remote remote, byte[] mad) {
        long now = System.currentTimeMillis();
        prune(now);
        answered.remove(remote);
        answered.put(remote, new Answer(mad, now));
        if (answered.size() > ANSWERS_KEPT) {
            Iterator<Remote> it = answered.keySet().iterator();
            it.next();
            it.remove();
        }
    }

    private Answer keptAnswer(Remote remote) {
        prune(System.currentTimeMillis());
        return answered.get(remote);
    }

    private void prune(long now) {
        Iterator<Answer> it = answered.values().iterator();
        while (it.hasNext() && now - it.next().atMs() > ANSWER_KEEP_MS) {
            it.remove();
        }
    }

    private void forgetSent(Request r) {
        r.open = false;
        sent.remove(r.requestId);
        sentByTid.remove(r.tid);
    }

    private int newRequestId() {
        int id;
        do {
            id = random.nextInt();
        } while (id == 0 || sent.containsKey(id) || commIdInUse.test(id));
        return id;
    }
}
