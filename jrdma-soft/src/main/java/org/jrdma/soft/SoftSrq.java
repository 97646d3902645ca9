package org.jrdma.soft;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SharedReceiveQueue;
import org.jrdma.verbs.SrqAttr;
import org.jrdma.verbs.SrqAttrMask;
import org.jrdma.verbs.SrqInitAttr;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;

/**
 * A shared receive queue of a software device ({@code ibv_create_srq(3)}): a {@link RecvQueue}
 * (the same ring, checks, lkey resolution and scatter as a QP's own) that the QPs created on it
 * take WQEs from. A QP takes a WQE when a message that needs one starts arriving and holds a copy
 * of it until the message completes ({@link SoftQp#takeRecvWqe()}; rxe: {@code get_srq_wqe}), so
 * that posting may reuse the slot at once. The limit ({@code IBV_SRQ_LIMIT}): when armed and a take
 * leaves fewer WQEs than it, the SRQ raises {@link AsyncEventType#SRQ_LIMIT_REACHED} and disarms.
 * Resizing ({@code IBV_SRQ_MAX_WR}) moves the WQEs into a new ring (control path).
 *
 * <p>Limits (rxe's checks, {@code rxe_srq_chk_init}/{@code rxe_srq_chk_attr}): max_wr 1..{@link #MAX_SRQ_WR},
 * max_sge up to {@link #MAX_SRQ_SGE} (0 counts as 1), srq_limit up to the SRQ's max_wr; at most
 * {@link #MAX_SRQ} SRQs per device.
 *
 * <p>Threads and locks: any thread. One lock per SRQ, this object's {@code lock}, held by posting,
 * modify, query and by a QP taking a WQE; a QP takes it inside its own lock (lock order: QP, then
 * SRQ, then the context's event queue). Under it nothing else is locked but the event queue.
 */
public final class SoftSrq implements SharedReceiveQueue {
    /** Receive WRs per SRQ (as per QP). */
    public static final int MAX_SRQ_WR = SoftLimits.MAX_QP_WR;
    /** Scatter/gather entries per SRQ receive WR. */
    public static final int MAX_SRQ_SGE = SoftLimits.MAX_SGE;
    /** SRQs per device. */
    public static final int MAX_SRQ = 0x4000;

    private final Object lock = new Object();
    private final SoftPd pd;
    private final int maxSge;
    private RecvQueue rq;
    private int limit;
    private final List<SoftQp> qps = new ArrayList<>();
    private boolean closed;
    final EventAcks eventAcks = new EventAcks();

    SoftSrq(SoftPd pd, SrqInitAttr init) {
        SrqAttr a = init.attr();
        if (a.maxWr() <= 0 || a.maxWr() > MAX_SRQ_WR) {
            throw new VerbsException(Errno.EINVAL, "max_wr " + a.maxWr() + " not in 1.." + MAX_SRQ_WR);
        }
        if (a.maxSge() < 0 || a.maxSge() > MAX_SRQ_SGE) {
            throw new VerbsException(Errno.EINVAL, "max_sge " + a.maxSge() + " not in 0.." + MAX_SRQ_SGE);
        }
        this.pd = pd;
        this.maxSge = Math.max(1, a.maxSge());
        this.rq = new RecvQueue(pd, a.maxWr(), maxSge);
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    /** The PD as the soft core type. */
    public SoftPd softPd() {
        return pd;
    }

    @Override
    public void modify(SrqAttr attr, int mask) {
        if ((mask & ~(SrqAttrMask.MAX_WR | SrqAttrMask.LIMIT)) != 0) {
            throw new VerbsException(Errno.EINVAL, "srq_attr_mask 0x" + Integer.toHexString(mask) + " has unknown bits");
        }
        synchronized (lock) {
            ensureOpen();
            int newMax = rq.maxWr();
            if ((mask & SrqAttrMask.MAX_WR) != 0) {
                newMax = attr.maxWr();
                if (newMax <= 0 || newMax > MAX_SRQ_WR) {
                    throw new VerbsException(Errno.EINVAL, "max_wr " + newMax + " not in 1.." + MAX_SRQ_WR);
                }
                if (limit != 0 && newMax < limit) {
                    throw new VerbsException(Errno.EINVAL, "max_wr " + newMax + " below the armed srq_limit " + limit);
                }
                long outstanding = rq.tail() - rq.head();
                if (newMax < outstanding) {
                    throw new VerbsException(Errno.EINVAL, "max_wr " + newMax + " below the " + outstanding
                            + " WRs in the SRQ");
                }
            }
            if ((mask & SrqAttrMask.LIMIT) != 0 && (attr.srqLimit() < 0 || attr.srqLimit() > newMax)) {
                throw new VerbsException(Errno.EINVAL, "srq_limit " + attr.srqLimit() + " not in 0..max_wr " + newMax);
            }
            if ((mask & SrqAttrMask.MAX_WR) != 0 && newMax != rq.maxWr()) {
                RecvQueue bigger = new RecvQueue(pd, newMax, maxSge);
                for (long i = rq.head(); i != rq.tail(); i++) {
                    bigger.postCopy(rq.entry(i));
                }
                rq = bigger;
            }
            if ((mask & SrqAttrMask.LIMIT) != 0) {
                limit = attr.srqLimit();
            }
        }
    }

    @Override
    public void query(SrqAttr attr) {
        synchronized (lock) {
            ensureOpen();
            attr.maxWr(rq.maxWr()).maxSge(maxSge).srqLimit(limit);
        }
    }

    @Override
    public void postSrqRecv(RecvWr wr) {
        synchronized (lock) {
            ensureOpen();
            for (RecvWr w = wr; w != null; w = w.next()) {
                rq.post(w);
            }
        }
    }

    /** The WQEs in the SRQ (posted, not yet taken by a QP). */
    public int size() {
        synchronized (lock) {
            return (int) (rq.tail() - rq.head());
        }
    }

    /**
     * Takes the oldest WQE into {@code into} (a QP's own copy), raising the limit event when it
     * leaves fewer WQEs than the armed limit. Under the taking QP's lock.
     *
     * @return false when the SRQ is empty
     */
    boolean take(RecvWqe into) {
        boolean event = false;
        synchronized (lock) {
            if (rq.isEmpty()) {
                return false;
            }
            into.copyFrom(rq.entry(rq.head()));
            rq.retireHead();
            if (limit != 0 && rq.tail() - rq.head() < limit) {
                limit = 0;
                event = true;
            }
        }
        if (event) {
            pd.softContext().asyncEvents().raise(AsyncEventType.SRQ_LIMIT_REACHED, this, eventAcks);
        }
        return true;
    }

    /** Resolves a taken WQE's SGEs against the SRQ's PD (see {@link RecvQueue#resolve}). */
    WcStatus resolve(RecvWqe r) {
        return rq.resolve(r);
    }

    /** Scatters into a taken WQE (see {@link RecvQueue#scatter}). */
    boolean scatter(RecvWqe r, long msgOff, MemorySegment src, long srcOff, int len) {
        return rq.scatter(r, msgOff, src, srcOff, len);
    }

    int maxSge() {
        return maxSge;
    }

    void attach(SoftQp qp) {
        synchronized (lock) {
            ensureOpen();
            qps.add(qp);
        }
    }

    void detach(SoftQp qp) {
        synchronized (lock) {
            qps.remove(qp);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "SRQ is destroyed");
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            if (!qps.isEmpty()) {
                throw new VerbsException(Errno.EBUSY, "SRQ still used by " + qps.size() + " QPs");
            }
        }
        eventAcks.awaitAcknowledged(EventAcks.DESTROY_WAIT_NANOS, "SRQ");
        synchronized (lock) {
            if (closed) {
                return;
            }
            if (!qps.isEmpty()) {
                throw new VerbsException(Errno.EBUSY, "SRQ still used by " + qps.size() + " QPs");
            }
            closed = true;
        }
        pd.softContext().asyncEvents().drop(this);
        pd.softContext().srqClosed(this);
        pd.release();
    }

    @Override
    public String toString() {
        return "SRQ of " + pd;
    }
}
