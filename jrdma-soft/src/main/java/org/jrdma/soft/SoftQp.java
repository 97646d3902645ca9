package org.jrdma.soft;

import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;

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
        QpAttributes.require(cap.maxSendWr() >= 1 && cap.maxSendWr() <= SoftLimits.MAX_QP_WR, "max_send_wr " + cap.maxSendWr() + " not in 1.." + SoftLimits.MAX_QP_WR);
        QpAttributes.require(cap.maxRecvWr() >= 0 && cap.maxRecvWr() <= SoftLimits.MAX_QP_WR, "max_recv_wr " + cap.maxRecvWr() + " not in 0.." + SoftLimits.MAX_QP_WR);
        QpAttributes.require(cap.maxSendSge() >= 0 && cap.maxSendSge() <= SoftLimits.MAX_SGE, "max_send_sge " + cap.maxSendSge() + " not in 0.." + SoftLimits.MAX_SGE);
        QpAttributes.require(cap.maxRecvSge() >= 0 && cap.maxRecvSge() <= SoftLimits.MAX_SGE, "max_recv_sge " + cap.maxRecvSge() + " not in 0.." + SoftLimits.MAX_SGE);
        QpAttributes.require(cap.maxInlineData() >= 0 && cap.maxInlineData() <= SoftLimits.MAX_INLINE_DATA, "max_inline_data " + cap.maxInlineData() + " not in 0.." + SoftLimits.MAX_INLINE_DATA);
        this.pd = pd;
        this.sendCq = scq;
        this.recvCq = rcq;
        this.type = attr.qpType();
        this.qpn = qpn;
        this.sqSigAll = attr.sqSigAll();
        this.transport = transport;
        this.sq = new SendQueue(pd, type, cap.maxSendWr(), Math.max(1, cap.maxSendSge()), cap.maxInlineData(), wqes);
        this.rq = new RecvQueue(pd, cap.maxRecvWr(), Math.max(1, cap.maxRecvSge()));
        this.attrs = new QpAttributes(transport.portMaxMtu());
        this.states = new QpStateMachine(type);
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
            if (QpStateMachine.clearsOnEntry(cur, next)) {
                sq.clear();
                rq.clear();
            }
            transport.transition(cur, next, mask);
            if (QpStateMachine.flushesOnEntry(cur, next)) {
                flush();
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
            a.cap().maxSendWr(sq.maxWr()).maxRecvWr(rq.maxWr()).maxSendSge(sq.maxSge()).maxRecvSge(rq.maxSge())
                    .maxInlineData(sq.maxInline());
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
        RecvWqe r = rq.retireHead();
        push(recvCq, r.wrId, status, opcode, byteLen, immData, srcQp, wcFlags, 0, solicited);
    }

    private void push(SoftCq cq, long wrId, WcStatus status, WcOpcode opcode, int byteLen, int immData, int srcQp,
                      int wcFlags, int vendorErr, boolean solicited) {
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
            transport.transition(old, QpState.ERR, 0);
        }
        flush();
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

    /** Called by a CQ in error (no other QP lock held): moves this QP to ERR unless it is in RESET or ERR. */
    void cqFailed() {
        synchronized (lock) {
            QpState s = states.state();
            if (!closed && s != QpState.RESET && s != QpState.ERR) {
                enterError();
            }
        }
    }

    // ---------------------------------------------------------------- destroy

    @Override
    public void close() {
        transport.beforeDestroy();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            states.set(QpState.RESET);
            transport.destroyed();
        }
        pd.softContext().qpDestroyed(this);
        sendCq.detach(this);
        recvCq.detach(this);
        pd.release();
    }

    @Override
    public String toString() {
        return type + " QP 0x" + Integer.toHexString(qpn) + " (" + states.state() + ")";
    }

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    // ---- issue 10 (mw): memory windows, rereg_mr ----

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
