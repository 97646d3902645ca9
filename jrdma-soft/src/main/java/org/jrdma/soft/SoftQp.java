package org.jrdma.soft;

import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryWindow;
import org.jrdma.verbs.MwBind;
import org.jrdma.verbs.MwBindInfo;
import org.jrdma.verbs.MwType;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.SharedReceiveQueue;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.jfr.JrdmaEvents;

/**
 * A queue pair of a software device, composed of its {@link SendQueue}, {@link RecvQueue},
 * {@link QpAttributes} and {@link QpStateMachine}, with the wire protocol in a {@link QpTransport}
 * the provider supplies. The core implements the verbs (modify with libibverbs' mask rules,
 * query, post, destroy), completions and the flush rules; it calls the transport where the
 * protocol must act.
 *
 * <p>Threads and locks: one lock per QP, {@link #lock()}. Every verb takes it (from any thread);
 * the transport takes it for the work it does on its own threads (received packets, timers) and
 * holds it whenever it reads or changes the queues, the attributes or the state. Under it a thread
 * may take the lock of the QP's CQs (a completion), never the lock of another QP. The transport
 * is called with the lock held except for {@link QpTransport#afterSendPosted()} and
 * {@link QpTransport#beforeDestroy()}.
 *
 * <p>CQ overrun (IBTA Vol 1 chapter 11: an error): a completion that does not fit puts the CQ into
 * its error state ({@link SoftCq}); after the verb or transport step that hit it has released the
 * lock, {@link #raiseCqErrors()} moves every QP of that CQ to ERR, one QP lock at a time.
 *
 * <p>Flight Recorder (issue 15): every state change ({@code org.jrdma.QpStateChange}: modify, ERR by
 * the transport, RESET on destroy) and every completion whose status is not SUCCESS
 * ({@code org.jrdma.ErrorCompletion}) is emitted here, under the QP's lock, through
 * {@link JrdmaEvents}; a SUCCESS completion costs one comparison.
 */
public final class SoftQp implements QueuePair {
    private final Object lock = new Object();
    private final SoftPd pd;
    private final SoftCq sendCq;
    private final SoftCq recvCq;
    private final QpType type;
    private final int qpn;
    private final boolean sqSigAll;
    private final SendQueue sq;
    private final RecvQueue rq;
    private final QpAttributes attrs;
    private final QpStateMachine states;
    private final QpTransport transport;
    private boolean closed;
    /** Set (under the lock) when a completion of this QP did not fit its CQ; read by raiseCqErrors. */
    private volatile boolean cqOverrun;

    /**
     * Creates a QP in RESET. Called by the provider ({@link SoftContext#newQp}); only
     * {@link QpTransport#portMaxMtu()} is called on {@code transport} here (the initial path MTU).
     *
     * @param wqes creates the send queue's WQEs (a transport's subclass with its execution state)
     * @throws VerbsException EINVAL for CQs of another device or capabilities outside the device's limits
     */
    public SoftQp(SoftPd pd, QpInitAttr attr, int qpn, QpTransport transport, SendWqe.Factory wqes) {
        if (!(attr.sendCq() instanceof SoftCq scq) || !(attr.recvCq() instanceof SoftCq rcq)) {
            throw new VerbsException(Errno.EINVAL, "send and receive CQs must be CQs of this device");
        }
        var cap = attr.cap();
        SoftSrq s = srqOf(pd, attr);
        QpAttributes.require(cap.maxSendWr() >= 1 && cap.maxSendWr() <= SoftLimits.MAX_QP_WR, "max_send_wr " + cap.maxSendWr() + " not in 1.." + SoftLimits.MAX_QP_WR);
        if (s == null) { // on an SRQ max_recv_wr and max_recv_sge are ignored (rxe_qp_chk_cap)
            QpAttributes.require(cap.maxRecvWr() >= 0 && cap.maxRecvWr() <= SoftLimits.MAX_QP_WR, "max_recv_wr " + cap.maxRecvWr() + " not in 0.." + SoftLimits.MAX_QP_WR);
            QpAttributes.require(cap.maxRecvSge() >= 0 && cap.maxRecvSge() <= SoftLimits.MAX_SGE, "max_recv_sge " + cap.maxRecvSge() + " not in 0.." + SoftLimits.MAX_SGE);
        }
        QpAttributes.require(cap.maxSendSge() >= 0 && cap.maxSendSge() <= SoftLimits.MAX_SGE, "max_send_sge " + cap.maxSendSge() + " not in 0.." + SoftLimits.MAX_SGE);
        QpAttributes.require(cap.maxInlineData() >= 0 && cap.maxInlineData() <= SoftLimits.MAX_INLINE_DATA, "max_inline_data " + cap.maxInlineData() + " not in 0.." + SoftLimits.MAX_INLINE_DATA);
        this.pd = pd;
        this.sendCq = scq;
        this.recvCq = rcq;
        this.type = attr.qpType();
        this.qpn = qpn;
        this.sqSigAll = attr.sqSigAll();
        this.transport = transport;
        this.sq = new SendQueue(pd, type, cap.maxSendWr(), Math.max(1, cap.maxSendSge()), cap.maxInlineData(), wqes);
        this.srq = s;
        this.srqWqe = s == null ? null : new RecvWqe(s.maxSge());
        this.rq = s == null ? new RecvQueue(pd, cap.maxRecvWr(), Math.max(1, cap.maxRecvSge())) : new RecvQueue(pd, 0, 1);
        this.attrs = new QpAttributes(transport.portMaxMtu());
        this.states = new QpStateMachine(type);
        if (s != null) {
            s.attach(this);
        }
        scq.attach(this);
        rcq.attach(this);
    }

    /** The QP's lock: held by every verb and by the transport whenever it touches the QP. */
    public Object lock() {
        return lock;
    }

    public SendQueue sendQueue() {
        return sq;
    }

    public RecvQueue recvQueue() {
        return rq;
    }

    /** The attributes as set by {@code modify}. Under the lock. */
    public QpAttributes attributes() {
        return attrs;
    }

    /** The transport this QP was created with. */
    public QpTransport transport() {
        return transport;
    }

    /** The PD as the soft core type. */
    public SoftPd softPd() {
        return pd;
    }

    /** The name of the device this QP is on (for logs and Flight Recorder events); "" for a context without one. */
    public String deviceName() {
        Device d = pd.softContext().device();
        return d == null ? "" : d.name();
    }

    /** True when every send WR generates a completion ({@code sq_sig_all}). */
    public boolean signalsAll() {
        return sqSigAll;
    }

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public QpType qpType() {
        return type;
    }

    @Override
    public QpState state() {
        return states.state();
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public CompletionQueue sendCq() {
        return sendCq;
    }

    @Override
    public CompletionQueue recvCq() {
        return recvCq;
    }

    // ---------------------------------------------------------------- modify / query

    @Override
    public void modify(QpAttr attr, int mask) {
        synchronized (lock) {
            QpState cur = states.state();
            QpState next = states.checkModify(attr, mask);
            attrs.check(attr, mask, cur, transport.portMaxMtu());
            if ((mask & QpAttrMask.AV) != 0) {
                transport.checkAddressVector(attr.ahAttr());
            }
            transport.checkModify(attr, mask, cur, next);
            attrs.apply(attr, mask);
            states.set(next);
            if (next != cur) {
                JrdmaEvents.qpStateChange(deviceName(), qpn, cur, next, JrdmaEvents.CAUSE_MODIFY);
            }
            if (QpStateMachine.clearsOnEntry(cur, next)) {
                sq.clear();
                rq.clear();
                srqWqeHeld = false;
            }
            transport.transition(cur, next, mask);
            if (QpStateMachine.flushesOnEntry(cur, next)) {
                flush();
                lastWqeReached();
            }
        }
        raiseCqErrors();
    }

    @Override
    public void query(QpAttr a, int attrMask) {
        synchronized (lock) {
            QpState s = states.state();
            a.qpState(s).curQpState(s);
            attrs.query(a);
            a.cap().maxSendWr(sq.maxWr()).maxRecvWr(srq == null ? rq.maxWr() : 0).maxSendSge(sq.maxSge())
                    .maxRecvSge(srq == null ? rq.maxSge() : 0).maxInlineData(sq.maxInline());
        }
    }

    // ---------------------------------------------------------------- posting

    /**
     * {@code ibv_post_send}: the WRs of the chain before a refused one stay posted and run
     * ({@code bad_wr}); the refused one and those after it are not posted.
     */
    @Override
    public void postSend(SendWr wr) {
        try {
            synchronized (lock) {
                long before = sq.tail();
                try {
                    for (SendWr w = wr; w != null; w = w.next()) {
                        states.checkPostSend();
                        transport.checkSend(w);
                        sq.post(w);
                    }
                } finally {
                    if (sq.tail() != before) {
                        if (states.flushesPosts()) {
                            flush();
                        } else {
                            transport.sendPosted();
                        }
                    }
                }
            }
        } finally {
            transport.afterSendPosted();
            raiseCqErrors();
        }
    }

    @Override
    public void postRecv(RecvWr wr) {
        if (srq != null) {
            throw new VerbsException(Errno.EINVAL, "QP 0x" + Integer.toHexString(qpn)
                    + " takes its receive WQEs from an SRQ: post them with postSrqRecv (ibv_post_srq_recv)");
        }
        try {
            synchronized (lock) {
                long before = rq.tail();
                try {
                    for (RecvWr w = wr; w != null; w = w.next()) {
                        states.checkPostRecv();
                        rq.post(w);
                    }
                } finally {
                    if (rq.tail() != before) {
                        if (states.flushesPosts()) {
                            flush();
                        } else {
                            transport.recvPosted();
                        }
                    }
                }
            }
        } finally {
            raiseCqErrors();
        }
    }

    // ---------------------------------------------------------------- completions (under the lock)

    /**
     * Completes the send WQE at the head of the send queue: a CQE when it is signaled or failed
     * (an error always completes, IBTA Vol 1 §10.7.3.1), then its slot is free.
     */
    public void completeSendHead(WcStatus status, int byteLen, int vendorErr) {
        SendWqe w = sq.entry(sq.head());
        if (status != WcStatus.SUCCESS || w.signaled(sqSigAll)) {
            push(sendCq, w.wrId, status, WcOpcode.of(w.opcode), byteLen, 0, 0, 0, vendorErr, false);
        }
        sq.retireHead();
    }

    /**
     * Completes the receive WQE at the head of the receive queue with a CQE and frees its slot.
     *
     * @param srcQp the source QPN the CQE reports (the sender's, for UD)
     * @param wcFlags {@link org.jrdma.verbs.WcFlags}
     * @param solicited the message asked for a solicited event
     */
    public void completeRecvHead(WcStatus status, WcOpcode opcode, int byteLen, int immData, int srcQp, int wcFlags,
                                 boolean solicited) {
        RecvWqe r = srq == null ? rq.retireHead() : releaseSrqWqe();
        push(recvCq, r.wrId, status, opcode, byteLen, immData, srcQp, wcFlags, 0, solicited);
    }

    private void push(SoftCq cq, long wrId, WcStatus status, WcOpcode opcode, int byteLen, int immData, int srcQp,
                      int wcFlags, int vendorErr, boolean solicited) {
        if (status != WcStatus.SUCCESS) { // rare: a SUCCESS completion never touches Flight Recorder
            JrdmaEvents.errorCompletion(deviceName(), qpn, wrId, status, opcode, vendorErr);
        }
        if (!cq.push(wrId, status, opcode, byteLen, immData, qpn, srcQp, wcFlags, vendorErr, solicited)) {
            cqOverrun = true;
        }
    }

    /**
     * Moves the QP to ERR after an error completion (or a fatal error) and flushes both queues:
     * every outstanding WR completes with WR_FLUSH_ERR (IBTA Vol 1 §10.3.1, §11.6.2). The transport
     * sees {@code transition(old, ERR, 0)} and then {@code flushed()}.
     */
    public void enterError() {
        QpState old = states.state();
        if (old != QpState.ERR) {
            states.set(QpState.ERR);
            JrdmaEvents.qpStateChange(deviceName(), qpn, old, QpState.ERR, JrdmaEvents.CAUSE_ERROR);
            transport.transition(old, QpState.ERR, 0);
        }
        flush();
        if (old != QpState.ERR) {
            lastWqeReached();
        }
    }

    private void flush() {
        while (!sq.isEmpty()) {
            SendWqe w = sq.retireHead();
            push(sendCq, w.wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.of(w.opcode), 0, 0, 0, 0, 0, false);
        }
        while (!rq.isEmpty()) {
            RecvWqe r = rq.retireHead();
            push(recvCq, r.wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, 0, false);
        }
        if (srqWqeHeld) { // an SRQ's WQEs stay in the SRQ; only the one this QP took is flushed
            RecvWqe r = releaseSrqWqe();
            push(recvCq, r.wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, 0, false);
        }
        transport.flushed();
    }

    /**
     * After a completion of this QP overran a CQ: moves every QP of the CQs in error to ERR (IBTA
     * Vol 1 chapter 11: CQ overrun is an error; the QPs that complete to the CQ are in error).
     * Cheap when nothing overran (one volatile read). Called without any QP lock, at the end of
     * every verb of the core; a transport calls it after each piece of work it did under the lock
     * on its own threads.
     */
    public void raiseCqErrors() {
        if (!cqOverrun) {
            return;
        }
        cqOverrun = false;
        sendCq.failQps();
        if (recvCq != sendCq) {
            recvCq.failQps();
        }
    }

    /**
     * Called by a CQ in error (no other QP lock held): moves this QP to ERR unless it is in RESET or
     * ERR, and raises IBV_EVENT_QP_FATAL for it (an error no completion reports).
     */
    void cqFailed() {
        synchronized (lock) {
            QpState s = states.state();
            if (!closed && s != QpState.RESET && s != QpState.ERR) {
                raiseAsyncEvent(AsyncEventType.QP_FATAL); // before LAST_WQE_REACHED of a QP on an SRQ
                enterError();
            }
        }
    }

    // ---------------------------------------------------------------- destroy

    /**
     * {@code ibv_destroy_qp(3)}. Waits up to a second for the asynchronous events of this QP that
     * were taken to be acknowledged (libibverbs waits without limit).
     *
     * @throws VerbsException EBUSY when some are still unacknowledged; the QP stays as it was
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
        }
        eventAcks.awaitAcknowledged(EventAcks.DESTROY_WAIT_NANOS, "QP 0x" + Integer.toHexString(qpn));
        destroy();
    }

    /** Destroys the QP without waiting for its events' acknowledgements (its context is closing). */
    void destroy() {
        transport.beforeDestroy();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            QpState old = states.state();
            states.set(QpState.RESET);
            if (old != QpState.RESET) {
                JrdmaEvents.qpStateChange(deviceName(), qpn, old, QpState.RESET, JrdmaEvents.CAUSE_DESTROY);
            }
            srqWqeHeld = false;
            transport.destroyed();
        }
        pd.softContext().asyncEvents().drop(this);
        pd.softContext().qpDestroyed(this);
        sendCq.detach(this);
        recvCq.detach(this);
        if (srq != null) {
            srq.detach(this);
        }
        pd.release();
    }

    @Override
    public String toString() {
        return type + " QP 0x" + Integer.toHexString(qpn) + " (" + states.state() + ")";
    }

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    /** The SRQ this QP takes its receive WQEs from, or null. */
    private final SoftSrq srq;
    /** The WQE this QP took from its SRQ for the message arriving (valid while {@link #srqWqeHeld}). */
    private final RecvWqe srqWqe;
    private boolean srqWqeHeld;
    /** This QP's asynchronous events taken and not yet acknowledged. */
    private final EventAcks eventAcks = new EventAcks();

    private static SoftSrq srqOf(SoftPd pd, QpInitAttr attr) {
        if (attr.srq() == null) {
            return null;
        }
        if (!(attr.srq() instanceof SoftSrq s) || s.softPd().resources() != pd.resources()) {
            throw new VerbsException(Errno.EINVAL, "srq is not an SRQ of this device");
        }
        return s;
    }

    /** The SRQ of the QP ({@link QpInitAttr#srq()}), or null. */
    public SharedReceiveQueue srq() {
        return srq;
    }

    /**
     * The responder needs a receive WQE for a message starting to arrive (rxe: {@code check_resource}):
     * true when the QP's receive queue holds one or, on an SRQ, when the QP holds one already or took
     * one from the SRQ now (which may raise the SRQ's limit event). Under the lock; allocation-free.
     */
    public boolean takeRecvWqe() {
        if (srq == null) {
            return !rq.isEmpty();
        }
        if (!srqWqeHeld) {
            srqWqeHeld = srq.take(srqWqe);
        }
        return srqWqeHeld;
    }

    /** The receive WQE the arriving message fills (after {@link #takeRecvWqe()} returned true). Under the lock. */
    public RecvWqe recvWqe() {
        return srq == null ? rq.entry(rq.head()) : srqWqe;
    }

    /** Resolves the SGEs of {@link #recvWqe()} (against the SRQ's PD on an SRQ); see {@link RecvQueue#resolve}. */
    public WcStatus resolveRecvWqe(RecvWqe r) {
        return srq == null ? rq.resolve(r) : srq.resolve(r);
    }

    /** Scatters into {@link #recvWqe()}; see {@link RecvQueue#scatter}. */
    public boolean scatterRecv(RecvWqe r, long msgOff, java.lang.foreign.MemorySegment src, long srcOff, int len) {
        return srq == null ? rq.scatter(r, msgOff, src, srcOff, len) : srq.scatter(r, msgOff, src, srcOff, len);
    }

    private RecvWqe releaseSrqWqe() {
        srqWqeHeld = false;
        return srqWqe;
    }

    /** A QP on an SRQ entered ERR: it takes no WQE from the SRQ any more (IBV_EVENT_QP_LAST_WQE_REACHED). */
    private void lastWqeReached() {
        if (srq != null) {
            raiseAsyncEvent(AsyncEventType.QP_LAST_WQE_REACHED);
        }
    }

    /**
     * Raises an asynchronous event about this QP on its context's queue ({@link AsyncEventQueue}):
     * COMM_EST, SQ_DRAINED, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, QP_LAST_WQE_REACHED. Under the lock
     * (any thread); allocation-free, never waits.
     */
    public void raiseAsyncEvent(AsyncEventType type) {
        if (!closed) {
            pd.softContext().asyncEvents().raise(type, this, eventAcks);
        }
    }

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    /** The WR {@link #bindMw} posts; reused under the lock. */
    private final SendWr bindWr = new SendWr().opcode(WrOpcode.BIND_MW);

    /**
     * {@code ibv_bind_mw(3)} as libibverbs and rxe's provider do it: checks, then posts a BIND_MW WR with
     * the window's next rkey and sets the window's rkey to it. Any thread; the QP's lock.
     */
    @Override
    public int bindMw(MemoryWindow mw, MwBind bind) {
        if (!(mw instanceof SoftMw w) || !w.belongsTo(pd.resources())) {
            throw new VerbsException(Errno.EINVAL, "mw is null or a window of another device");
        }
        if (w.type() != MwType.TYPE_1) {
            throw new VerbsException(Errno.EINVAL, "ibv_bind_mw binds type 1 windows; bind a type 2 window with IBV_WR_BIND_MW");
        }
        MwBindInfo info = bind.bindInfo();
        if (info.mr() == null && (info.addr() != 0 || info.length() != 0)) {
            throw new VerbsException(Errno.EINVAL, "bind_info.mr is null but addr or length is not 0");
        }
        if ((info.mwAccessFlags() & AccessFlags.ZERO_BASED) != 0) {
            throw new VerbsException(Errno.EINVAL, "a type 1 window cannot be zero-based (mw_access_flags ZERO_BASED)");
        }
        if (info.mr() != null && info.mr().pd() != w.pd()) {
            throw new VerbsException(Errno.EPERM, "bind_info.mr is of another protection domain than the window");
        }
        try {
            synchronized (lock) {
                int key = SendWr.incRkey(w.rkey());
                bindWr.wrId(bind.wrId()).sendFlags(bind.sendFlags()).bindMw(w, key, info);
                try {
                    states.checkPostSend();
                    sq.post(bindWr);
                } finally {
                    bindWr.bindMw(null, 0, bindWr.bindInfo().set(null, 0, 0, 0));
                }
                if (states.flushesPosts()) {
                    flush();
                } else {
                    transport.sendPosted();
                }
                return key;
            }
        } finally {
            transport.afterSendPosted();
            raiseCqErrors();
        }
    }

    /**
     * Executes a local operation at its turn in the send queue (rxe {@code rxe_do_local_ops}), for the
     * transport's requester: BIND_MW (MW_BIND_ERR on failure) or LOCAL_INV (LOC_QP_OP_ERR). Under the lock.
     *
     * @return SUCCESS or the WQE's error status
     */
    public WcStatus executeLocalOperation(SendWqe w) {
        return switch (w.opcode) {
            case BIND_MW -> w.bindMw.bind(this, w);
            case LOCAL_INV -> pd.resources().invalidate(this, w.invalidateRkey, false) ? WcStatus.SUCCESS
                    : WcStatus.LOC_QP_OP_ERR;
            default -> throw new IllegalArgumentException(w.opcode + " is not a local operation");
        };
    }

    /** The memory {@code rkey} grants a request on this QP ({@link SoftResources#remote}), or null. Lock-free. */
    public RemoteRange remoteRange(int rkey, int access) {
        return pd.resources().remote(this, rkey, access);
    }

    /** A SEND_WITH_INV's IETH arrived on this QP: invalidates {@code rkey} ({@link SoftResources#invalidate}). */
    public boolean invalidateRemote(int rkey) {
        return pd.resources().invalidate(this, rkey, true);
    }

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    /**
     * {@code ibv_wr_complete} of a {@link SoftQpEx} batch: checks the QP state, room for all
     * {@code n} WRs and every WR as {@link #postSend} does, then posts all of them in order, or, when
     * any check fails, none. Runs in the posting thread under the QP's lock, like {@code postSend}.
     *
     * @throws VerbsException ENOSPC without room for {@code n} WRs; otherwise as {@link #postSend}
     */
    void postSendBatch(SendWr[] wrs, int n) {
        try {
            synchronized (lock) {
                if (n == 0) {
                    return;
                }
                states.checkPostSend();
                if (sq.free() < n) {
                    throw new VerbsException(Errno.ENOSPC, "send queue has room for " + sq.free() + " WRs, the batch has " + n);
                }
                for (int i = 0; i < n; i++) {
                    transport.checkSend(wrs[i]);
                    sq.check(wrs[i]);
                }
                for (int i = 0; i < n; i++) {
                    sq.copy(wrs[i]);
                }
                if (states.flushesPosts()) {
                    flush();
                } else {
                    transport.sendPosted();
                }
            }
        } finally {
            transport.afterSendPosted();
            raiseCqErrors();
        }
    }

    // ---- issue 11 (cm): connection manager, QP1 ----
}
