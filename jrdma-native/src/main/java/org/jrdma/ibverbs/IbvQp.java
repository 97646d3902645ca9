package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.jrdma.ibverbs.bind.CLayouts.offset;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.ibverbs.bind.OpsCalls;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.VerbsException;

/**
 * A queue pair, {@code struct ibv_qp}. {@link #postSend} / {@link #postRecv} write the work requests
 * into preallocated native structs ({@link NativeSendWrs}, {@link NativeRecvWrs}, sized by the
 * capabilities the driver granted, at most {@link #MAX_BATCH} WRs per call down) and call the
 * provider's {@code post_send} / {@code post_recv} from the context's ops table: no allocation in
 * steady state. Thread-safe: a send lock and a receive lock (each its own monitor) serialize posts
 * and guard the native structs; close takes the context's lock, then both.
 */
final class IbvQp implements QueuePair {
    /** The most WRs written and handed down in one call; a longer chain is posted in parts. */
    static final int MAX_BATCH = 256;

    private static final long INIT_SEND_CQ = offset(IbvLayouts.QP_INIT_ATTR, "send_cq");
    private static final long INIT_RECV_CQ = offset(IbvLayouts.QP_INIT_ATTR, "recv_cq");
    private static final long INIT_CAP = offset(IbvLayouts.QP_INIT_ATTR, "cap");
    private static final long INIT_QP_TYPE = offset(IbvLayouts.QP_INIT_ATTR, "qp_type");
    private static final long INIT_SQ_SIG_ALL = offset(IbvLayouts.QP_INIT_ATTR, "sq_sig_all");

    private final IbvPd pd;
    private final MemorySegment qp;
    private final QpType type;
    private final IbvCq sendCq;
    private final IbvCq recvCq;
    private final int maxSendWr;
    private final int maxRecvWr;
    private final Arena arena = Arena.ofShared();
    private final Object sendLock = new Object();
    private final Object recvLock = new Object();
    private final NativeSendWrs send;
    private final NativeRecvWrs recv;
    private final MemorySegment badSend;
    private final MemorySegment badRecv;
    private final MemorySegment postSendFn;
    private final MemorySegment postRecvFn;
    private final int qpNum;
    private volatile boolean closed;
    /** Asynchronous events taken for this QP and acknowledged. */
    final EventCount asyncEvents = new EventCount();

    private IbvQp(IbvPd pd, MemorySegment qp, QpType type, IbvCq sendCq, IbvCq recvCq, int maxSendWr, int maxSendSge,
                  int maxRecvWr, int maxRecvSge) {
        this.pd = pd;
        this.qp = qp;
        this.type = type;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.maxSendWr = maxSendWr;
        this.maxRecvWr = maxRecvWr;
        IbvContext c = pd.context;
        this.send = new NativeSendWrs(arena, Math.max(1, Math.min(MAX_BATCH, maxSendWr)), Math.max(1, maxSendSge),
                c.mrs, type.value());
        this.recv = new NativeRecvWrs(arena, Math.max(1, Math.min(MAX_BATCH, maxRecvWr)), Math.max(1, maxRecvSge),
                c.mrs);
        this.badSend = arena.allocate(ADDRESS);
        this.badRecv = arena.allocate(ADDRESS);
        this.postSendFn = c.postSendFn;
        this.postRecvFn = c.postRecvFn;
        this.qpNum = qp.get(JAVA_INT, IbvLayouts.QP_NUM_OFF);
    }

    /** {@code ibv_create_qp(3)}; writes the granted capabilities back into {@code attr.cap()}. Under the context's lock. */
    static IbvQp create(IbvPd pd, QpInitAttr attr) {
        if (attr.srq() != null) {
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_create_qp: the native provider has no SRQs yet");
        }
        IbvCq scq = cq(pd, attr.sendCq(), "send_cq");
        IbvCq rcq = cq(pd, attr.recvCq(), "recv_cq");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(IbvLayouts.QP_INIT_ATTR);
            s.set(ADDRESS, INIT_SEND_CQ, scq.native_());
            s.set(ADDRESS, INIT_RECV_CQ, rcq.native_());
            Structs.writeCap(s, INIT_CAP, attr.cap());
            s.set(JAVA_INT, INIT_QP_TYPE, attr.qpType().value());
            s.set(JAVA_INT, INIT_SQ_SIG_ALL, attr.sqSigAll() ? 1 : 0);
            MemorySegment qp = pd.context.lib.createQp(pd.pd, s).reinterpret(IbvLayouts.QP.byteSize());
            Structs.readCap(s, INIT_CAP, attr.cap());
            return new IbvQp(pd, qp, attr.qpType(), scq, rcq, attr.cap().maxSendWr(), attr.cap().maxSendSge(),
                    attr.cap().maxRecvWr(), attr.cap().maxRecvSge());
        }
    }

    private static IbvCq cq(IbvPd pd, CompletionQueue cq, String field) {
        if (!(cq instanceof IbvCq c)) {
            throw new VerbsException(Errno.EINVAL, "ibv_create_qp: " + field + " is not a CQ of the native provider");
        }
        return c;
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public QpType qpType() {
        return type;
    }

    /** {@code ibv_qp.state}: the state of the last successful {@link #modify} (libibverbs keeps it there). */
    @Override
    public QpState state() {
        return Structs.state(qp.get(JAVA_INT, IbvLayouts.QP_STATE_OFF));
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

    /** {@code ibv_modify_qp(3)} with libibverbs' {@code IBV_QP_*} mask bits ({@code QpAttrMask}). */
    @Override
    public void modify(QpAttr attr, int attrMask) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(IbvLayouts.QP_ATTR);
            Structs.writeQpAttr(s, attr);
            synchronized (sendLock) {
                synchronized (recvLock) {
                    checkOpen("ibv_modify_qp");
                    pd.context.lib.modifyQp(qp, s, attrMask);
                }
            }
        }
    }

    /** {@code ibv_query_qp(3)}. */
    @Override
    public void query(QpAttr attr, int attrMask) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(IbvLayouts.QP_ATTR);
            MemorySegment init = a.allocate(IbvLayouts.QP_INIT_ATTR);
            checkOpen("ibv_query_qp");
            pd.context.lib.queryQp(qp, s, attrMask, init);
            Structs.readQpAttr(s, attr);
        }
    }

    private void checkOpen(String call) {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, call + ": the QP is destroyed");
        }
    }

    /**
     * {@code ibv_post_send(3)}. Each WR is checked before the driver sees it (SGE count and bounds
     * within the MR of its lkey, opcode, UD address handle).
     *
     * @throws VerbsException EINVAL for such a WR (nothing of the chain from it on is posted); ENOMEM
     *                        for a chain longer than max_send_wr; the driver's errno from post_send
     *                        (e.g. ENOMEM for a full send queue, EINVAL for a QP not in RTS), naming
     *                        the index of the first WR not posted
     */
    @Override
    public void postSend(SendWr wr) {
        synchronized (sendLock) {
            checkOpen("ibv_post_send");
            int total = 0;
            SendWr next = wr;
            while (next != null) {
                int n = send.write(next);
                total += n;
                if (total > maxSendWr) {
                    throw new VerbsException(Errno.ENOMEM, "ibv_post_send: the chain is longer than max_send_wr "
                            + maxSendWr);
                }
                int rc = OpsCalls.post(postSendFn, qp, send.wrs, badSend);
                if (rc != 0) {
                    int bad = send.indexOf(badSend.get(ADDRESS, 0).address());
                    throw new VerbsException(rc < 0 ? -rc : rc, "ibv_post_send failed: " + Errno.name(rc < 0 ? -rc : rc)
                            + " at wr " + (bad < 0 ? "?" : String.valueOf(total - n + bad)));
                }
                for (int i = 0; i < n; i++) {
                    next = next.next();
                }
            }
        }
    }

    /** {@code ibv_post_recv(3)}, checked as {@link #postSend}. */
    @Override
    public void postRecv(RecvWr wr) {
        synchronized (recvLock) {
            checkOpen("ibv_post_recv");
            int total = 0;
            RecvWr next = wr;
            while (next != null) {
                int n = recv.write(next);
                total += n;
                if (total > maxRecvWr) {
                    throw new VerbsException(Errno.ENOMEM, "ibv_post_recv: the chain is longer than max_recv_wr "
                            + maxRecvWr);
                }
                int rc = OpsCalls.post(postRecvFn, qp, recv.wrs, badRecv);
                if (rc != 0) {
                    int bad = recv.indexOf(badRecv.get(ADDRESS, 0).address());
                    throw new VerbsException(rc < 0 ? -rc : rc, "ibv_post_recv failed: " + Errno.name(rc < 0 ? -rc : rc)
                            + " at wr " + (bad < 0 ? "?" : String.valueOf(total - n + bad)));
                }
                for (int i = 0; i < n; i++) {
                    next = next.next();
                }
            }
        }
    }

    /** The {@code struct ibv_qp}. */
    MemorySegment native_() {
        return qp;
    }

    /** {@code ibv_destroy_qp(3)}; EBUSY after a second with asynchronous events of it unacknowledged. */
    @Override
    public void close() {
        asyncEvents.awaitAcked("ibv_destroy_qp");
        synchronized (pd.context.lock) {
            synchronized (sendLock) {
                synchronized (recvLock) {
                    if (closed) {
                        return;
                    }
                    pd.context.lib.destroyQp(qp);
                    closed = true;
                }
            }
        }
        arena.close();
        pd.context.removed(this);
    }
}
