package org.jrdma.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.MemoryRegion;
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
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;

/**
 * Warms up the JVM's JIT compiler before a test talks to its peer: a C perftest runs at full speed
 * from its first iteration, a JVM runs its first thousands interpreted and then compiles them while
 * the test runs, which on a small machine (two cores, both busy polling) shows as a t_avg and a 99%
 * percentile many times the typical latency of a short run (perftest's default is 1000 iterations).
 *
 * <p>So the tool first runs its own operation (the test's verb, message size up to 64 KiB, connection
 * type RC or UC) over a QP of its own device connected to itself, with its own PD, MR and CQ, polling
 * as the test does, until the JIT has compiled nothing new for 100 ms (after at least
 * {@value #MIN_OPS} operations; typically 0.7-1 s here) or {@code --jit_warm_up MS} (default
 * {@value #DEFAULT_MILLIS} ms; 0 turns it off) have passed. No packet reaches the peer and the
 * peer is not kept waiting: the server does this after it starts listening and before it accepts,
 * the client before it connects. It is a jrdma
 * extension; whatever goes wrong in it is reported in one line on stderr and the test goes on.
 */
final class JitWarmUp {
    /** Default longest warm-up, ms. */
    static final int DEFAULT_MILLIS = 2000;
    /** The fewest operations it runs before it may stop early. */
    static final int MIN_OPS = 20_000;
    /** It stops when the JIT compiled nothing for this long (ns) while it ran. */
    private static final long QUIET_NANOS = 100_000_000L;
    private static final long COMPLETION_TIMEOUT_NANOS = 200_000_000L;
    private static final int MAX_SIZE = 65536;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    private JitWarmUp() {
    }

    /**
     * Runs the warm-up on {@code ctx}'s port {@code p.ibPort} with GID {@code gid} (index
     * {@code p.gidIndex}) for at most {@code p.jitWarmUpMillis}.
     *
     * @return the operations completed, or -1 if it was skipped or failed (the reason is on stderr)
     */
    static int run(Context ctx, Params p, Gid gid) {
        if (p.jitWarmUpMillis <= 0) {
            return -1;
        }
        try {
            return warmUp(ctx, p, gid);
        } catch (RuntimeException e) {
            System.err.println(" jrdma: JIT warm-up skipped: " + e.getMessage());
            return -1;
        }
    }

    private static int warmUp(Context ctx, Params p, Gid gid) {
        int size = (int) Math.min(Math.max(p.size, 8), MAX_SIZE);
        boolean uc = p.connection == Params.Connection.UC && (p.verb == Verb.WRITE || p.verb == Verb.SEND);
        ProtectionDomain pd = ctx.allocPd();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(2L * size, 64);
            MemoryRegion mr = pd.regMr(buf, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
                    | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
            CompletionQueue cq = ctx.createCq(16, null);
            QueuePair qp = null;
            try {
                QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(uc ? QpType.UC : QpType.RC);
                ia.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1).maxInlineData(Math.max(p.inlineSize, 0));
                qp = pd.createQp(ia);
                connectToItself(qp, p, gid, uc);
                return loop(p, size, buf, mr, cq, qp);
            } finally {
                if (qp != null) {
                    qp.close();
                }
                cq.close();
                mr.close();
            }
        } finally {
            pd.close();
        }
    }

    private static void connectToItself(QueuePair qp, Params p, Gid gid, boolean uc) {
        QpAttr init = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(p.ibPort)
                .qpAccessFlags(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
        qp.modify(init, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.ofValue(p.currMtu)).destQpNum(qp.qpNum()).rqPsn(0);
        AhAttr av = rtr.ahAttr();
        av.portNum(p.ibPort).isGlobal(true);
        av.grh().dgid(gid).sgidIndex(p.gidIndex).hopLimit(0xff);
        int mask = QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
        if (!uc) {
            rtr.maxDestRdAtomic(1).minRnrTimer(Params.MIN_RNR_TIMER);
            mask |= QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
        }
        qp.modify(rtr, mask);
        QpAttr rts = new QpAttr().qpState(QpState.RTS).sqPsn(0);
        int rmask = QpAttrMask.STATE | QpAttrMask.SQ_PSN;
        if (!uc) {
            rts.timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
            rmask |= QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC;
        }
        qp.modify(rts, rmask);
    }

    private static int loop(Params p, int size, MemorySegment buf, MemoryRegion mr, CompletionQueue cq, QueuePair qp) {
        long src = buf.address();
        long dst = src + size;
        boolean send = p.verb == Verb.SEND;
        SendWr w = new SendWr().wrId(1).sgList(new Sge(src, size, mr.lkey()));
        switch (p.verb) {
            case WRITE -> w.opcode(WrOpcode.RDMA_WRITE).rdma(dst, mr.rkey());
            case READ -> w.opcode(WrOpcode.RDMA_READ).rdma(dst, mr.rkey());
            case ATOMIC -> {
                w.sgList(new Sge(src, 8, mr.lkey()));
                if (p.atomicType == Params.AtomicType.FETCH_AND_ADD) {
                    w.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).atomic(dst, mr.rkey(), 1, 0);
                } else {
                    w.opcode(WrOpcode.ATOMIC_CMP_AND_SWP).atomic(dst, mr.rkey(), 0, 0);
                }
            }
            case SEND -> w.opcode(WrOpcode.SEND);
        }
        int flags = SendFlags.SIGNALED;
        if ((p.verb == Verb.WRITE || send) && size <= p.inlineSize) {
            flags |= SendFlags.INLINE;
        }
        w.sendFlags(flags);
        RecvWr rw = new RecvWr().wrId(2).sgList(new Sge(dst, size, mr.lkey()));
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
        boolean landsInDst = p.verb == Verb.WRITE;
        long start = System.nanoTime();
        long end = start + p.jitWarmUpMillis * 1_000_000L;
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean watchJit = jit != null && jit.isCompilationTimeMonitoringSupported();
        long lastJit = watchJit ? jit.getTotalCompilationTime() : 0;
        long nextLook = start + QUIET_NANOS;
        int ops = 0;
        while (System.nanoTime() - end < 0) {
            if (send) {
                qp.postRecv(rw);
            }
            byte mark = (byte) (ops + 1);
            if (landsInDst) {
                buf.set(ValueLayout.JAVA_BYTE, size - 1, mark);
            }
            qp.postSend(w);
            await(cq, wc, send ? 2 : 1);
            if (landsInDst) {
                // a UC WRITE completes when it is sent: wait until it has landed, as write_lat does,
                // so that the sender never runs ahead of the receiver (UC drops what overflows)
                awaitByte(cq, wc, buf, 2L * size - 1, mark);
            }
            ops++;
            long now = System.nanoTime();
            if (watchJit && now - nextLook >= 0) {
                // done once the operations no longer make the JIT compile anything
                long t = jit.getTotalCompilationTime();
                if (t == lastJit && ops >= MIN_OPS) {
                    break;
                }
                lastJit = t;
                nextLook = now + QUIET_NANOS;
            }
        }
        return ops;
    }

    /** Polls the CQ (which makes progress) until byte {@code off} of {@code buf} is {@code value}. */
    private static void awaitByte(CompletionQueue cq, WorkCompletion[] wc, MemorySegment buf, long off, byte value) {
        long deadline = System.nanoTime() + COMPLETION_TIMEOUT_NANOS;
        for (int idle = 0; (byte) BYTE.getAcquire(buf, off) != value; idle++) {
            cq.poll(wc, 0); // receives in this thread (progress in poll)
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("a WRITE did not land within "
                        + COMPLETION_TIMEOUT_NANOS / 1_000_000 + " ms on the looped-back QP");
            }
            Spin.idle(idle);
        }
    }

    /** Polls until {@code n} successful completions, as the tests poll (progress in poll). */
    private static void await(CompletionQueue cq, WorkCompletion[] wc, int n) {
        long deadline = System.nanoTime() + COMPLETION_TIMEOUT_NANOS;
        for (int got = 0, idle = 0; got < n; idle++) {
            int k = cq.poll(wc, n - got);
            for (int i = 0; i < k; i++) {
                if (wc[i].status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion " + wc[i].status() + " on the looped-back QP");
                }
            }
            got += k;
            if (k == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("no completion within "
                            + COMPLETION_TIMEOUT_NANOS / 1_000_000 + " ms on the looped-back QP");
                }
                Spin.idle(idle);
            }
        }
    }
}
