package org.jrdma.soft;

import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;

/**
 * What every software QP shares: the state machine with libibverbs' attribute-mask rules
 * ({@link QpTransitions}), the send and receive queues as rings of pre-allocated WQEs, local key
 * resolution, gather/scatter, completions and the flush rules (IBTA Vol 1 §10.3, §10.8, §11.2.5).
 *
 * <p>Threading: every method that reads or writes QP state holds {@link #lock}. Posting threads
 * and the device's I/O thread both take it; the transport may send packets while holding it.
 */
public abstract class SoftQp implements QueuePair {
    /** Guards all QP state. */
    protected final Object lock = new Object();
    protected final SoftPd pd;
    protected final SoftCq sendCq;
    protected final SoftCq recvCq;
    protected final QpType type;
    protected final int qpn;
    protected final boolean sqSigAll;
    protected final int maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInline;

    protected volatile QpState state = QpState.RESET;
    protected Mtu pathMtu = Mtu.MTU_1024;
    protected int destQpn;
    protected int rqPsn;
    protected int sqPsn;
    protected int qpAccessFlags;
    protected int qkey;
    protected int pkeyIndex;
    protected int portNum = 1;
    protected int timeout;
    protected int retryCnt;
    protected int rnrRetry;
    protected int minRnrTimer;
    protected int maxRdAtomic;
    protected int maxDestRdAtomic;
    protected final org.jrdma.verbs.AhAttr av = new org.jrdma.verbs.AhAttr();

    protected final SendWqe[] sq;
    protected final int sqMask;
    /** Oldest send WQE not yet completed. */
    protected long sqHead;
    /** Next free send slot. */
    protected long sqTail;
    protected final RecvWqe[] rq;
    protected final int rqMask;
    protected long rqHead;
    protected long rqTail;
    private boolean closed;

    protected SoftQp(SoftPd pd, QpInitAttr attr, int qpn, Mtu maxMtu) {
        if (!(attr.sendCq() instanceof SoftCq scq) || !(attr.recvCq() instanceof SoftCq rcq)) {
            throw new VerbsException(Errno.EINVAL, "send and receive CQs must be CQs of this device");
        }
        var cap = attr.cap();
        check(cap.maxSendWr() >= 1 && cap.maxSendWr() <= SoftLimits.MAX_QP_WR, "max_send_wr " + cap.maxSendWr() + " not in 1.." + SoftLimits.MAX_QP_WR);
        check(cap.maxRecvWr() >= 0 && cap.maxRecvWr() <= SoftLimits.MAX_QP_WR, "max_recv_wr " + cap.maxRecvWr() + " not in 0.." + SoftLimits.MAX_QP_WR);
        check(cap.maxSendSge() >= 0 && cap.maxSendSge() <= SoftLimits.MAX_SGE, "max_send_sge " + cap.maxSendSge() + " not in 0.." + SoftLimits.MAX_SGE);
        check(cap.maxRecvSge() >= 0 && cap.maxRecvSge() <= SoftLimits.MAX_SGE, "max_recv_sge " + cap.maxRecvSge() + " not in 0.." + SoftLimits.MAX_SGE);
        check(cap.maxInlineData() >= 0 && cap.maxInlineData() <= SoftLimits.MAX_INLINE_DATA, "max_inline_data " + cap.maxInlineData() + " not in 0.." + SoftLimits.MAX_INLINE_DATA);
        this.pd = pd;
        this.sendCq = scq;
        this.recvCq = rcq;
        this.type = attr.qpType();
        this.qpn = qpn;
        this.sqSigAll = attr.sqSigAll();
        this.maxSendSge = Math.max(1, cap.maxSendSge());
        this.maxRecvSge = Math.max(1, cap.maxRecvSge());
        this.maxInline = cap.maxInlineData();
        int sqSize = Integer.highestOneBit(cap.maxSendWr() * 2 - 1);
        int rqSize = Integer.highestOneBit(Math.max(1, cap.maxRecvWr()) * 2 - 1);
        this.maxSendWr = cap.maxSendWr();
        this.maxRecvWr = cap.maxRecvWr();
        this.sq = new SendWqe[sqSize];
        for (int i = 0; i < sqSize; i++) {
            sq[i] = newSendWqe(maxSendSge, maxInline);
        }
        this.sqMask = sqSize - 1;
        this.rq = new RecvWqe[rqSize];
        for (int i = 0; i < rqSize; i++) {
            rq[i] = new RecvWqe(maxRecvSge);
        }
        this.rqMask = rqSize - 1;
        this.pathMtu = maxMtu;
        scq.users.incrementAndGet();
        rcq.users.incrementAndGet();
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new VerbsException(Errno.EINVAL, what);
        }
    }

    /** Creates the send WQE of one slot; transports return their own subclass. */
    protected SendWqe newSendWqe(int maxSge, int maxInlineData) {
        return new SendWqe(maxSge, maxInlineData);
    }

    /** The largest path MTU this QP's port supports. */
    protected abstract Mtu portMaxMtu();

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
        return state;
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
            QpState cur = state;
            QpState next = (mask & QpAttrMask.STATE) != 0 ? attr.qpState() : cur;
            QpTransitions.check(cur, next, type, mask);
            validateValues(attr, mask, cur);
            apply(attr, mask);
            state = next;
            onModify(cur, next, mask);
            if (next == QpState.ERR && cur != QpState.ERR) {
                flush();
            } else if (next == QpState.RESET && cur != QpState.RESET) {
                sqHead = sqTail;
                rqHead = rqTail;
                onReset();
            }
        }
    }

    private void validateValues(QpAttr a, int mask, QpState cur) {
        if ((mask & QpAttrMask.CUR_STATE) != 0 && a.curQpState() != cur) {
            throw new VerbsException(Errno.EINVAL, "cur_qp_state " + a.curQpState() + " is not the QP's state " + cur);
        }
        if ((mask & QpAttrMask.PORT) != 0) {
            check(a.portNum() == 1, "port " + a.portNum() + " does not exist (only port 1)");
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0) {
            check(a.pkeyIndex() == 0, "pkey_index " + a.pkeyIndex() + " outside the P_Key table (1 entry)");
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0) {
            int ok = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
            check((a.qpAccessFlags() & ~ok) == 0, "qp_access_flags 0x" + Integer.toHexString(a.qpAccessFlags()) + " has unknown bits");
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0) {
            check(a.pathMtu() != null && a.pathMtu().bytes() <= portMaxMtu().bytes(), "path_mtu " + a.pathMtu() + " above the port's " + portMaxMtu());
        }
        if ((mask & QpAttrMask.TIMEOUT) != 0) {
            check(a.timeout() >= 0 && a.timeout() <= 31, "timeout " + a.timeout() + " not in 0..31");
        }
        if ((mask & QpAttrMask.RETRY_CNT) != 0) {
            check(a.retryCnt() >= 0 && a.retryCnt() <= 7, "retry_cnt " + a.retryCnt() + " not in 0..7");
        }
        if ((mask & QpAttrMask.RNR_RETRY) != 0) {
            check(a.rnrRetry() >= 0 && a.rnrRetry() <= 7, "rnr_retry " + a.rnrRetry() + " not in 0..7");
        }
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0) {
            check(a.minRnrTimer() >= 0 && a.minRnrTimer() <= 31, "min_rnr_timer " + a.minRnrTimer() + " not in 0..31");
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0) {
            check(a.maxRdAtomic() >= 0 && a.maxRdAtomic() <= SoftLimits.MAX_QP_RD_ATOM, "max_rd_atomic " + a.maxRdAtomic() + " not in 0.." + SoftLimits.MAX_QP_RD_ATOM);
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0) {
            check(a.maxDestRdAtomic() >= 0 && a.maxDestRdAtomic() <= SoftLimits.MAX_QP_RD_ATOM, "max_dest_rd_atomic " + a.maxDestRdAtomic() + " not in 0.." + SoftLimits.MAX_QP_RD_ATOM);
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0) {
            check((a.destQpNum() & ~0xFFFFFF) == 0, "dest_qp_num 0x" + Integer.toHexString(a.destQpNum()) + " is not 24 bits");
        }
        if ((mask & QpAttrMask.AV) != 0) {
            check(a.ahAttr().isGlobal() && !a.ahAttr().grh().dgid().isZero(), "RoCE needs a GRH with a destination GID in the address vector");
            validateAv(a.ahAttr());
        }
    }

    /** Transport checks of an address vector (e.g. the source GID index exists). */
    protected void validateAv(org.jrdma.verbs.AhAttr ah) {
    }

    private void apply(QpAttr a, int mask) {
        if ((mask & QpAttrMask.PORT) != 0) {
            portNum = a.portNum();
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0) {
            pkeyIndex = a.pkeyIndex();
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0) {
            qpAccessFlags = a.qpAccessFlags();
        }
        if ((mask & QpAttrMask.QKEY) != 0) {
            qkey = a.qkey();
        }
        if ((mask & QpAttrMask.AV) != 0) {
            av.copyFrom(a.ahAttr());
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0) {
            pathMtu = a.pathMtu();
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0) {
            destQpn = a.destQpNum();
        }
        if ((mask & QpAttrMask.RQ_PSN) != 0) {
            rqPsn = a.rqPsn() & 0xFFFFFF;
        }
        if ((mask & QpAttrMask.SQ_PSN) != 0) {
            sqPsn = a.sqPsn() & 0xFFFFFF;
        }
        if ((mask & QpAttrMask.TIMEOUT) != 0) {
            timeout = a.timeout();
        }
        if ((mask & QpAttrMask.RETRY_CNT) != 0) {
            retryCnt = a.retryCnt();
        }
        if ((mask & QpAttrMask.RNR_RETRY) != 0) {
            rnrRetry = a.rnrRetry();
        }
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0) {
            minRnrTimer = a.minRnrTimer();
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0) {
            maxRdAtomic = a.maxRdAtomic();
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0) {
            maxDestRdAtomic = a.maxDestRdAtomic();
        }
    }

    /** Called under the lock after a successful modify, before flushing on ERR. */
    protected abstract void onModify(QpState from, QpState to, int mask);

    /** Called under the lock when the QP returns to RESET: forget all transport state. */
    protected abstract void onReset();

    @Override
    public void query(QpAttr a, int attrMask) {
        synchronized (lock) {
            a.qpState(state).curQpState(state).pathMtu(pathMtu).qkey(qkey).rqPsn(rqPsn).sqPsn(sqPsn)
                    .destQpNum(destQpn).qpAccessFlags(qpAccessFlags).pkeyIndex(pkeyIndex).portNum(portNum)
                    .maxRdAtomic(maxRdAtomic).maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer)
                    .timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry);
            a.ahAttr().copyFrom(av);
            a.cap().maxSendWr(maxSendWr).maxRecvWr(maxRecvWr).maxSendSge(maxSendSge).maxRecvSge(maxRecvSge)
                    .maxInlineData(maxInline);
        }
    }

    // ---------------------------------------------------------------- posting

    @Override
    public void postSend(SendWr wr) {
        synchronized (lock) {
            long before = sqTail;
            try {
                for (SendWr w = wr; w != null; w = w.next()) {
                    enqueueSend(w);
                }
            } finally {
                // WRs of a chain before a bad one stay posted and run (ibv_post_send(3): bad_wr)
                if (sqTail != before) {
                    if (state == QpState.ERR) {
                        flush();
                    } else {
                        onSendPosted();
                    }
                }
            }
        }
        afterSendPosted();
    }

    /** Called after {@code postSend}, outside the QP's lock (e.g. to send work the transport deferred). */
    protected void afterSendPosted() {
    }

    private void enqueueSend(SendWr w) {
        QpState s = state;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
            throw new VerbsException(Errno.EINVAL, "post_send on a QP in " + s + " (needs RTS)");
        }
        if (w.numSge() > maxSendSge || w.numSge() < 0 || w.numSge() > w.sgList().length) {
            throw new VerbsException(Errno.EINVAL, "num_sge " + w.numSge() + " above max_send_sge " + maxSendSge);
        }
        checkOpcode(w.opcode());
        if (type == QpType.UD && !(w.ah() instanceof SoftAh ah && ah.pd() == pd)) {
            throw new VerbsException(Errno.EINVAL, "a UD send needs an address handle of the QP's protection domain");
        }
        boolean inline = (w.sendFlags() & SendFlags.INLINE) != 0;
        if (inline && w.totalLength() > maxInline) {
            throw new VerbsException(Errno.EINVAL, "inline data of " + w.totalLength() + " bytes above max_inline_data " + maxInline);
        }
        if (inline && (w.opcode() == WrOpcode.RDMA_READ || w.opcode().isAtomic())) {
            throw new VerbsException(Errno.EINVAL, "INLINE is not allowed with " + w.opcode());
        }
        if (w.opcode().isAtomic() && (w.numSge() != 1 || w.sgList()[0].length() != 8)) {
            throw new VerbsException(Errno.EINVAL, "an atomic WR needs one SGE of 8 bytes");
        }
        if (sqTail - sqHead >= maxSendWr) {
            throw new VerbsException(Errno.ENOMEM, "send queue full (" + maxSendWr + " WRs outstanding)");
        }
        SendWqe q = sq[(int) (sqTail & sqMask)];
        q.copyFrom(w);
        if (inline) {
            copyInline(w, q);
        }
        sqTail++;
    }

    private void checkOpcode(WrOpcode op) {
        boolean ok = switch (type) {
            case RC -> true;
            case UC -> op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.RDMA_WRITE
                    || op == WrOpcode.RDMA_WRITE_WITH_IMM;
            case UD -> op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM;
        };
        if (!ok) {
            throw new VerbsException(Errno.EINVAL, op + " is not allowed on a " + type + " QP");
        }
    }

    private void copyInline(SendWr w, SendWqe q) {
        long off = 0;
        Sge[] sges = w.sgList();
        for (int i = 0; i < w.numSge(); i++) {
            Sge s = sges[i];
            if (s.length() == 0) {
                continue;
            }
            MemorySegment src = MemorySegment.ofAddress(s.addr()).reinterpret(s.length());
            MemorySegment.copy(src, 0, q.inline, off, s.length());
            off += s.length();
        }
        q.isInline = true;
        q.numSge = 0;
        q.resolved = true;
    }

    /** Called under the lock after WRs were added to the send queue (QP not in ERR). */
    protected abstract void onSendPosted();

    @Override
    public void postRecv(RecvWr wr) {
        synchronized (lock) {
            long before = rqTail;
            try {
                for (RecvWr w = wr; w != null; w = w.next()) {
                    if (state == QpState.RESET) {
                        throw new VerbsException(Errno.EINVAL, "post_recv on a QP in RESET");
                    }
                    if (w.numSge() > maxRecvSge || w.numSge() < 0 || w.numSge() > w.sgList().length) {
                        throw new VerbsException(Errno.EINVAL, "num_sge " + w.numSge() + " above max_recv_sge " + maxRecvSge);
                    }
                    if (rqTail - rqHead >= maxRecvWr) {
                        throw new VerbsException(Errno.ENOMEM, "receive queue full (" + maxRecvWr + " WRs outstanding)");
                    }
                    rq[(int) (rqTail & rqMask)].copyFrom(w);
                    rqTail++;
                }
            } finally {
                if (rqTail != before) {
                    if (state == QpState.ERR) {
                        flush();
                    } else {
                        onRecvPosted();
                    }
                }
            }
        }
    }

    /** Called under the lock after receive WRs were posted (e.g. to end an RNR wait). */
    protected void onRecvPosted() {
    }

    // ---------------------------------------------------------------- local memory

    /**
     * Resolves the lkeys of a send WQE's SGEs: each must name a valid region of this QP's PD and
     * lie inside it; with {@code localWrite} the region needs LOCAL_WRITE (READ and atomic results).
     *
     * @return SUCCESS, LOC_PROT_ERR (bad key, other PD, out of bounds) or LOC_ACCESS_ERR
     */
    protected final WcStatus resolve(SendWqe w, boolean localWrite) {
        if (w.resolved) {
            return WcStatus.SUCCESS;
        }
        for (int i = 0; i < w.numSge; i++) {
            if (w.sgeLength[i] == 0) {
                continue;
            }
            SoftMr mr = lookupLocal(w.sgeLkey[i], w.sgeAddr[i], w.sgeLength[i]);
            if (mr == null) {
                return WcStatus.LOC_PROT_ERR;
            }
            if (localWrite && !mr.allows(AccessFlags.LOCAL_WRITE)) {
                return WcStatus.LOC_PROT_ERR;
            }
            w.sgeMr[i] = mr;
        }
        w.resolved = true;
        return WcStatus.SUCCESS;
    }

    /** Resolves a receive WQE's SGEs (they need LOCAL_WRITE). @return SUCCESS or LOC_PROT_ERR */
    protected final WcStatus resolve(RecvWqe r) {
        if (r.resolved) {
            return WcStatus.SUCCESS;
        }
        for (int i = 0; i < r.numSge; i++) {
            if (r.sgeLength[i] == 0) {
                continue;
            }
            SoftMr mr = lookupLocal(r.sgeLkey[i], r.sgeAddr[i], r.sgeLength[i]);
            if (mr == null || !mr.allows(AccessFlags.LOCAL_WRITE)) {
                return WcStatus.LOC_PROT_ERR;
            }
            r.sgeMr[i] = mr;
        }
        r.resolved = true;
        return WcStatus.SUCCESS;
    }

    private SoftMr lookupLocal(int lkey, long addr, int length) {
        SoftMr mr = pd.softContext().resources().mrs.get(lkey);
        if (mr == null || mr.softPd() != pd || !mr.isValid() || mr.offsetOf(addr, length & 0xFFFFFFFFL) < 0) {
            return null;
        }
        return mr;
    }

    /**
     * Copies {@code len} bytes of a send WQE's message, starting at message offset {@code msgOff},
     * into {@code dst} at {@code dstOff}. The WQE must be resolved.
     */
    protected static void gather(SendWqe w, long msgOff, MemorySegment dst, long dstOff, int len) {
        if (len == 0) {
            return;
        }
        if (w.isInline) {
            MemorySegment.copy(w.inline, msgOff, dst, dstOff, len);
            return;
        }
        long skip = msgOff;
        int i = 0;
        while (len > 0 && i < w.numSge) {
            long sl = w.sgeLength[i] & 0xFFFFFFFFL;
            if (skip >= sl) {
                skip -= sl;
                i++;
                continue;
            }
            int n = (int) Math.min(len, sl - skip);
            SoftMr mr = w.sgeMr[i];
            MemorySegment.copy(mr.segment(), w.sgeAddr[i] - mr.addr() + skip, dst, dstOff, n);
            dstOff += n;
            len -= n;
            skip = 0;
            i++;
        }
    }

    /** Copies {@code len} bytes from {@code src} into the SGEs of a send WQE (READ responses). */
    protected static void scatter(SendWqe w, long msgOff, MemorySegment src, long srcOff, int len) {
        scatter(w.numSge, w.sgeAddr, w.sgeLength, w.sgeMr, msgOff, src, srcOff, len);
    }

    /** Copies {@code len} bytes from {@code src} into the SGEs of a receive WQE. */
    protected static void scatter(RecvWqe r, long msgOff, MemorySegment src, long srcOff, int len) {
        scatter(r.numSge, r.sgeAddr, r.sgeLength, r.sgeMr, msgOff, src, srcOff, len);
    }

    private static void scatter(int numSge, long[] addr, int[] length, SoftMr[] mrs, long msgOff, MemorySegment src,
                                long srcOff, int len) {
        long skip = msgOff;
        int i = 0;
        while (len > 0 && i < numSge) {
            long sl = length[i] & 0xFFFFFFFFL;
            if (skip >= sl) {
                skip -= sl;
                i++;
                continue;
            }
            int n = (int) Math.min(len, sl - skip);
            SoftMr mr = mrs[i];
            MemorySegment.copy(src, srcOff, mr.segment(), addr[i] - mr.addr() + skip, n);
            srcOff += n;
            len -= n;
            skip = 0;
            i++;
        }
    }

    // ---------------------------------------------------------------- completions

    /**
     * Completes the send WQE at the head of the send queue: a CQE when it is signaled or failed
     * (an error always completes, IBA 10.7.3.1), then the slot is free.
     */
    protected final void completeSendHead(WcStatus status, int byteLen, int vendorErr) {
        SendWqe w = sq[(int) (sqHead & sqMask)];
        if (status != WcStatus.SUCCESS || w.signaled(sqSigAll)) {
            sendCq.push(w.wrId, status, WcOpcode.of(w.opcode), byteLen, 0, qpn, 0, 0, vendorErr, false);
        }
        sqHead++;
    }

    /**
     * Moves the QP to ERR (an error completion was generated): every outstanding send and receive
     * WR completes with WR_FLUSH_ERR (IBTA Vol 1 §10.3.1, §11.6.2).
     */
    protected final void enterError() {
        if (state != QpState.ERR) {
            QpState old = state;
            state = QpState.ERR;
            onModify(old, QpState.ERR, 0);
        }
        flush();
    }

    /** Flushes both queues with WR_FLUSH_ERR (the QP is in ERR). */
    protected final void flush() {
        while (sqHead != sqTail) {
            SendWqe w = sq[(int) (sqHead & sqMask)];
            sendCq.push(w.wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.of(w.opcode), 0, 0, qpn, 0, 0, 0, false);
            sqHead++;
        }
        while (rqHead != rqTail) {
            RecvWqe r = rq[(int) (rqHead & rqMask)];
            recvCq.push(r.wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, qpn, 0, 0, 0, false);
            rqHead++;
        }
        onFlushed();
    }

    /** Called under the lock after a flush: forget in-flight transport state. */
    protected void onFlushed() {
    }

    @Override
    public void close() {
        beforeClose();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            state = QpState.RESET;
            onClose();
        }
        pd.softContext().resources().qps.remove(qpn);
        sendCq.users.decrementAndGet();
        recvCq.users.decrementAndGet();
        pd.release();
    }

    /**
     * Called when the QP is being destroyed, before its lock is taken and while it still works (e.g.
     * to send the acknowledgements the transport owes the peer). The default does nothing.
     */
    protected void beforeClose() {
    }

    /** Called under the lock when the QP is destroyed. */
    protected abstract void onClose();

    @Override
    public String toString() {
        return type + " QP 0x" + Integer.toHexString(qpn) + " (" + state + ")";
    }
}
