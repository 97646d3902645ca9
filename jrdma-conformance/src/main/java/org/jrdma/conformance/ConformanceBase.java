package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
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
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;

/**
 * What every conformance class shares: two open contexts ({@link #ca} on the first device,
 * {@link #cb} on the second), a shared arena per test, resources closed after each test in reverse
 * order of creation, and the libibverbs-style steps of connecting two QPs (RESET → INIT → RTR → RTS,
 * {@code ibv_modify_qp(3)}) and polling a CQ.
 *
 * <p>Only the public {@code org.jrdma.verbs} API is used. Waits are bounded by {@link #LIVENESS_NS}
 * so that a lost completion fails the test instead of hanging it; nothing asserts a duration.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ConformanceBase {
    /** The longest a test waits for something that must happen: 20 s, a liveness bound only. */
    protected static final long LIVENESS_NS = 20_000_000_000L;
    /** All remote rights and local write. */
    protected static final int ALL_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
            | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
    /** The remote rights a QP may enable. */
    protected static final int QP_ALL_REMOTE = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;

    /** The provider under test. */
    protected abstract ProviderFixture fixture();

    /** A context on the first device. */
    protected Context ca;
    /** A context on the second device. */
    protected Context cb;
    /** Native memory that every thread may touch, closed after each test. */
    protected Arena arena;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    @BeforeAll
    final void openDevices() {
        ca = fixture().openFirst();
        cb = fixture().openSecond();
    }

    @AfterAll
    final void closeDevices() {
        if (cb != null) {
            cb.close();
        }
        if (ca != null) {
            ca.close();
        }
    }

    @BeforeEach
    final void newArena() {
        arena = Arena.ofShared();
    }

    @AfterEach
    final void releaseResources() {
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                // cleanup is not under test; a resource a test already closed may refuse a second close
            }
        }
        arena.close();
    }

    /** Closes {@code r} after the test, before everything created earlier. */
    protected final <T extends AutoCloseable> T track(T r) {
        resources.push(r);
        return r;
    }

    /** Skips the test unless the provider has {@code f}. */
    protected final void require(Feature f) {
        Assumptions.assumeTrue(fixture().supports(f), () -> fixture().name() + " does not support " + f);
    }

    // ------------------------------------------------------------------ connection

    /** Options for {@link #connect(Conn)}; the defaults suit a loss-free RC test. */
    public static final class Conn {
        QpType type = QpType.RC;
        Mtu mtu = Mtu.MTU_1024;
        int timeout = 14;
        int retryCnt = 7;
        int rnrRetry = 7;
        int minRnrTimer = 12;
        int accessA = QP_ALL_REMOTE;
        int accessB = QP_ALL_REMOTE;
        boolean sqSigAll;
        int maxSendWr = 256;
        int maxRecvWr = 256;
        int maxSge = 4;
        int maxInline;
        int cqe = 1024;
        long memBytes = 1 << 20;
        CompletionChannel channelA;
        CompletionChannel channelB;

        public Conn type(QpType v) {
            type = v;
            return this;
        }

        public Conn mtu(Mtu v) {
            mtu = v;
            return this;
        }

        /** Local ACK timeout exponent (4.096 µs × 2^v). */
        public Conn timeout(int v) {
            timeout = v;
            return this;
        }

        public Conn retryCnt(int v) {
            retryCnt = v;
            return this;
        }

        public Conn rnrRetry(int v) {
            rnrRetry = v;
            return this;
        }

        public Conn minRnrTimer(int v) {
            minRnrTimer = v;
            return this;
        }

        /** The QP access flags of A and B ({@code IBV_QP_ACCESS_FLAGS}). */
        public Conn access(int a, int b) {
            accessA = a;
            accessB = b;
            return this;
        }

        public Conn sqSigAll(boolean v) {
            sqSigAll = v;
            return this;
        }

        public Conn depth(int sendWr, int recvWr) {
            maxSendWr = sendWr;
            maxRecvWr = recvWr;
            return this;
        }

        public Conn maxSge(int v) {
            maxSge = v;
            return this;
        }

        public Conn maxInline(int v) {
            maxInline = v;
            return this;
        }

        public Conn cqe(int v) {
            cqe = v;
            return this;
        }

        /** Bytes of registered memory on each side. */
        public Conn memBytes(long v) {
            memBytes = v;
            return this;
        }

        /** Completion channels for A's and B's CQs (null for none). */
        public Conn channels(CompletionChannel a, CompletionChannel b) {
            channelA = a;
            channelB = b;
            return this;
        }
    }

    /** Two connected QPs: {@link #a} on the first device, {@link #b} on the second, each with its own send and receive CQ and a region of all rights. */
    public static final class Pair {
        public ProtectionDomain pa, pb;
        public CompletionQueue sqa, rqa, sqb, rqb;
        public QueuePair a, b;
        public MemorySegment ma, mb;
        public MemoryRegion mra, mrb;
    }

    /** The default connection options. */
    protected static Conn conn() {
        return new Conn();
    }

    /** Creates, registers and connects as {@code c} says (both QPs in RTS). */
    protected final Pair connect(Conn c) {
        Pair p = new Pair();
        p.pa = track(ca.allocPd());
        p.pb = track(cb.allocPd());
        p.sqa = track(ca.createCq(c.cqe, c.channelA));
        p.rqa = track(ca.createCq(c.cqe, c.channelA));
        p.sqb = track(cb.createCq(c.cqe, c.channelB));
        p.rqb = track(cb.createCq(c.cqe, c.channelB));
        p.a = track(p.pa.createQp(initAttr(p.sqa, p.rqa, c)));
        p.b = track(p.pb.createQp(initAttr(p.sqb, p.rqb, c)));
        p.ma = arena.allocate(c.memBytes, 4096);
        p.mb = arena.allocate(c.memBytes, 4096);
        p.mra = track(p.pa.regMr(p.ma, ALL_ACCESS));
        p.mrb = track(p.pb.regMr(p.mb, ALL_ACCESS));
        Gid ga = ca.queryGid(fixture().portNum(), fixture().gidIndex());
        Gid gb = cb.queryGid(fixture().portNum(), fixture().gidIndex());
        toInit(p.a, c.type, c.accessA);
        toInit(p.b, c.type, c.accessB);
        if (c.type == QpType.RC && fixture().connectRc(p.a, p.b, 16)) {
            return p; // issue 12: iWARP QPs are connected by the provider (Feature.MODIFY_TO_RTS)
        }
        toRtr(p.a, c, p.b.qpNum(), gb, 0x1000);
        toRtr(p.b, c, p.a.qpNum(), ga, 0x2000);
        toRts(p.a, c, 0x2000);
        toRts(p.b, c, 0x1000);
        return p;
    }

    /** The create attributes {@code c} describes. */
    protected static QpInitAttr initAttr(CompletionQueue scq, CompletionQueue rcq, Conn c) {
        QpInitAttr ia = new QpInitAttr().sendCq(scq).recvCq(rcq).qpType(c.type).sqSigAll(c.sqSigAll);
        ia.cap().maxSendWr(c.maxSendWr).maxRecvWr(c.maxRecvWr).maxSendSge(c.maxSge).maxRecvSge(c.maxSge)
                .maxInlineData(c.maxInline);
        return ia;
    }

    /** RESET → INIT with the bits an RC or UC QP requires. */
    protected final void toInit(QueuePair q, QpType type, int access) {
        q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(fixture().portNum()).qpAccessFlags(access),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
    }

    /** INIT → RTR towards {@code destQpn} at {@code dgid}, with the bits RC (or UC) requires. */
    protected final void toRtr(QueuePair q, Conn c, int destQpn, Gid dgid, int rqPsn) {
        require(Feature.MODIFY_TO_RTS);
        QpAttr a = new QpAttr().qpState(QpState.RTR).pathMtu(c.mtu).destQpNum(destQpn).rqPsn(rqPsn)
                .maxDestRdAtomic(16).minRnrTimer(c.minRnrTimer);
        a.ahAttr().isGlobal(true).portNum(fixture().portNum()).grh().dgid(dgid).hopLimit(64)
                .sgidIndex(fixture().gidIndex());
        int mask = QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
        if (c.type == QpType.RC) {
            mask |= QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
        }
        q.modify(a, mask);
    }

    /** RTR → RTS with the bits RC (or UC) requires. */
    protected final void toRts(QueuePair q, Conn c, int sqPsn) {
        require(Feature.MODIFY_TO_RTS);
        QpAttr a = new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn).timeout(c.timeout).retryCnt(c.retryCnt)
                .rnrRetry(c.rnrRetry).maxRdAtomic(16);
        int mask = QpAttrMask.STATE | QpAttrMask.SQ_PSN;
        if (c.type == QpType.RC) {
            mask |= QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC;
        }
        q.modify(a, mask);
    }

    // ------------------------------------------------------------------ memory

    /** An SGE of {@code len} bytes at {@code off} in {@code mr}. */
    protected static Sge sge(MemoryRegion mr, long off, int len) {
        return new Sge(mr.addr() + off, len, mr.lkey());
    }

    /** Fills {@code len} bytes at {@code off} with a pattern that depends on {@code seed} and the position. */
    protected static void fill(MemorySegment m, long off, long len, long seed) {
        long x = seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        for (long i = 0; i < len; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            m.set(ValueLayout.JAVA_BYTE, off + i, (byte) x);
        }
    }

    /** Asserts that {@code len} bytes at {@code off1} in {@code m1} equal those at {@code off2} in {@code m2}. */
    protected static void assertSameBytes(MemorySegment m1, long off1, MemorySegment m2, long off2, long len, String what) {
        long mismatch = MemorySegment.mismatch(m1, off1, off1 + len, m2, off2, off2 + len);
        if (mismatch != -1) {
            fail(what + ": first differing byte at offset " + mismatch + " of " + len + " (expected 0x"
                    + Integer.toHexString(m1.get(ValueLayout.JAVA_BYTE, off1 + mismatch) & 0xff) + ", got 0x"
                    + Integer.toHexString(m2.get(ValueLayout.JAVA_BYTE, off2 + mismatch) & 0xff) + ")");
        }
    }

    /** Asserts that {@code len} bytes at {@code off} are all {@code b}. */
    protected static void assertAllBytes(MemorySegment m, long off, long len, byte b, String what) {
        for (long i = 0; i < len; i++) {
            byte got = m.get(ValueLayout.JAVA_BYTE, off + i);
            if (got != b) {
                fail(what + ": byte " + i + " is 0x" + Integer.toHexString(got & 0xff) + ", expected 0x"
                        + Integer.toHexString(b & 0xff));
            }
        }
    }

    // ------------------------------------------------------------------ completions

    /** Waits for the next completion (liveness bound {@link #LIVENESS_NS}) and returns a copy. */
    protected static WorkCompletion pollOne(CompletionQueue cq, String what) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + LIVENESS_NS;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() - deadline > 0) {
                fail("no completion for " + what + " within the liveness bound");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return new WorkCompletion().copyFrom(wc[0]);
    }

    /** Waits for exactly the next {@code n} completions, oldest first. */
    protected static List<WorkCompletion> pollMany(CompletionQueue cq, int n, String what) {
        List<WorkCompletion> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(pollOne(cq, what + " #" + i));
        }
        return out;
    }

    /** Asserts that the CQ holds no completion now. */
    protected static void assertCqEmpty(CompletionQueue cq, String what) {
        WorkCompletion[] wc = {new WorkCompletion()};
        int n = cq.poll(wc);
        if (n != 0) {
            fail(what + ": expected no completion, got " + wc[0]);
        }
    }

    /** Waits for the next completion and asserts its wr_id and status. */
    protected static WorkCompletion expect(CompletionQueue cq, long wrId, WcStatus status, String what) {
        WorkCompletion wc = pollOne(cq, what);
        assertEquals(status, wc.status(), what + ": status of " + wc);
        assertEquals(wrId, wc.wrId(), what + ": wr_id of " + wc);
        return wc;
    }

    /** Waits until {@code q} reports {@code s} (liveness bound), then checks it with {@code ibv_query_qp} too. */
    protected static void awaitState(QueuePair q, QpState s, String what) {
        long deadline = System.nanoTime() + LIVENESS_NS;
        while (q.state() != s) {
            if (System.nanoTime() - deadline > 0) {
                fail(what + ": QP " + q.qpNum() + " is in " + q.state() + ", expected " + s);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        assertEquals(s, queryState(q), what + ": ibv_query_qp state");
    }

    /** The state {@code ibv_query_qp} reports. */
    protected static QpState queryState(QueuePair q) {
        QpAttr a = new QpAttr();
        q.query(a, QpAttrMask.STATE);
        return a.qpState();
    }

    /** Pauses {@code ms} milliseconds (to give a wrong completion the chance to show up). */
    protected static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Asserts that {@code call} throws a {@link VerbsException} with {@code errno}. */
    protected static VerbsException assertErrno(int errno, Executable call, String what) {
        VerbsException e = assertThrows(VerbsException.class, call, what + ": expected " + Errno.name(errno));
        assertEquals(Errno.name(errno), Errno.name(e.errno()), what + ": errno (" + e.getMessage() + ")");
        return e;
    }
}
