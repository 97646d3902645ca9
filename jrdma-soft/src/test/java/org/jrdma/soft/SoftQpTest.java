package org.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
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
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The soft core's state machine, posting rules, flushes and completions, driven through a second
 * transport ({@link LoopbackTransport}) that knows nothing of RoCE. Expected values come from
 * IBTA Vol 1 (§10.3 states and flushes, §11.2.5 table 91 masks, chapter 11 CQ overrun) and the
 * libibverbs man pages, not from the code.
 */
class SoftQpTest {
    static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;

    LoopbackContext ctx;
    Arena arena;
    ProtectionDomain pd;
    CompletionQueue cqa;
    CompletionQueue cqb;
    MemorySegment buf;
    MemoryRegion mr;

    @BeforeEach
    void open() {
        ctx = new LoopbackContext();
        arena = Arena.ofShared();
        pd = ctx.allocPd();
        cqa = ctx.createCq(64, null);
        cqb = ctx.createCq(64, null);
        buf = arena.allocate(65536, 4096);
        mr = pd.regMr(buf, ALL);
    }

    @AfterEach
    void close() {
        ctx.close();
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    QueuePair qp(CompletionQueue cq, QpType type) {
        QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(type);
        ia.cap().maxSendWr(16).maxRecvWr(16).maxSendSge(2).maxRecvSge(2);
        return pd.createQp(ia);
    }

    /** Two RC QPs wired to each other and moved to RTS with IBTA's masks (an AV without a GRH). */
    QueuePair[] pair() {
        QueuePair a = qp(cqa, QpType.RC);
        QueuePair b = qp(cqb, QpType.RC);
        LoopbackTransport.of(a).peer = LoopbackTransport.of(b);
        LoopbackTransport.of(b).peer = LoopbackTransport.of(a);
        up(a, b);
        up(b, a);
        return new QueuePair[] {a, b};
    }

    static void init(QueuePair q) {
        q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(ALL),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
    }

    static void up(QueuePair q, QueuePair peer) {
        init(q);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_4096).destQpNum(peer.qpNum()).rqPsn(0)
                .maxDestRdAtomic(1).minRnrTimer(1);
        rtr.ahAttr().isGlobal(false).portNum(1);
        q.modify(rtr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN
                | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1),
                QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                        | QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    static void toErr(QueuePair q) {
        q.modify(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE);
    }

    SendWr send(long wrId, int off, int len) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(buf.address() + off, len, mr.lkey()));
    }

    RecvWr recv(long wrId, int off, int len) {
        return new RecvWr().wrId(wrId).sgList(new Sge(buf.address() + off, len, mr.lkey()));
    }

    static WorkCompletion[] poll(CompletionQueue cq, int max) {
        WorkCompletion[] wc = new WorkCompletion[max];
        for (int i = 0; i < max; i++) {
            wc[i] = new WorkCompletion();
        }
        int n = cq.poll(wc);
        WorkCompletion[] out = new WorkCompletion[n];
        System.arraycopy(wc, 0, out, 0, n);
        return out;
    }

    static WorkCompletion one(CompletionQueue cq) {
        WorkCompletion[] wc = poll(cq, 2);
        assertEquals(1, wc.length, "completions");
        return wc[0];
    }

    // ------------------------------------------------------------------ state machine

    @Test
    void transitionsReachTheTransportInOrderAndTheCoreAsksNoGrh() {
        QueuePair[] p = pair();
        assertEquals(QpState.RTS, p[0].state());
        assertEquals(List.of("checkModify RESET->INIT", "transition RESET->INIT",
                "checkAddressVector", "checkModify INIT->RTR", "transition INIT->RTR",
                "checkModify RTR->RTS", "transition RTR->RTS"), LoopbackTransport.of(p[0]).calls);
        QpAttr q = new QpAttr();
        p[0].query(q, 0);
        assertEquals(p[1].qpNum(), q.destQpNum());
        assertEquals(Mtu.MTU_4096, q.pathMtu());
        assertEquals(14, q.timeout(), "the core stores ibv_qp_attr as given");
        assertEquals(ALL, q.qpAccessFlags());
    }

    @Test
    void aRefusedModifyChangesNothingAndReachesNoTransition() {
        QueuePair a = qp(cqa, QpType.RC);
        LoopbackTransport t = LoopbackTransport.of(a);
        VerbsException e = assertThrows(VerbsException.class,
                () -> a.modify(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE));
        assertEquals(Errno.EINVAL, e.errno(), "RESET -> RTR is not a transition (table 91)");
        e = assertThrows(VerbsException.class, () -> a.modify(new QpAttr().qpState(QpState.INIT).portNum(1)
                .qpAccessFlags(0), QpAttrMask.STATE | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS));
        assertEquals(Errno.EINVAL, e.errno(), "RESET -> INIT requires PKEY_INDEX");
        init(a);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_4096).destQpNum(1).rqPsn(0).maxDestRdAtomic(1)
                .minRnrTimer(1);
        e = assertThrows(VerbsException.class, () -> a.modify(rtr.destQpNum(1 << 24), QpAttrMask.STATE | QpAttrMask.AV
                | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC
                | QpAttrMask.MIN_RNR_TIMER));
        assertEquals(Errno.EINVAL, e.errno(), "dest_qp_num has 24 bits");
        assertEquals(QpState.INIT, a.state());
        assertEquals(List.of("checkModify RESET->INIT", "transition RESET->INIT"), t.calls);
    }

    // ------------------------------------------------------------------ posting rules

    @Test
    void postSendNeedsRtsAndPostRecvAnythingButReset() {
        QueuePair a = qp(cqa, QpType.RC);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> a.postRecv(recv(1, 0, 64))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> a.postSend(send(1, 0, 64))).errno());
        init(a);
        a.postRecv(recv(1, 0, 64));
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> a.postSend(send(2, 0, 64))).errno());
        assertTrue(LoopbackTransport.of(a).calls.contains("recvPosted"));
        assertFalse(LoopbackTransport.of(a).calls.contains("sendPosted"));
    }

    @Test
    void aChainIsPostedUpToTheRefusedWr() {
        QueuePair[] p = pair();
        p[1].postRecv(recv(1, 8192, 64).next(recv(2, 8192, 64)));
        SendWr bad = send(11, 0, 64).numSge(3); // above max_send_sge 2
        SendWr chain = send(10, 0, 64).next(bad.next(send(12, 0, 64)));
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> p[0].postSend(chain)).errno());
        WorkCompletion wc = one(cqa);
        assertEquals(10, wc.wrId(), "the WR before the refused one ran (ibv_post_send(3): bad_wr)");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(1, one(cqb).wrId());
    }

    @Test
    void sendQueueFullIsEnomem() {
        QueuePair[] p = pair();
        toErr(p[1]); // the peer does not answer: the WQEs fail, the queue still holds at most max_send_wr
        SoftQp a = (SoftQp) p[0];
        synchronized (a.lock()) {
            for (int i = 0; i < 16; i++) {
                a.sendQueue().post(send(i, 0, 8));
            }
            assertEquals(Errno.ENOMEM, assertThrows(VerbsException.class, () -> a.sendQueue().post(send(99, 0, 8))).errno());
            a.sendQueue().clear();
        }
    }

    // ------------------------------------------------------------------ data through the test transport

    @Test
    void sendAndWriteWithImmediateMoveThroughTheLoopbackTransport() {
        QueuePair[] p = pair();
        for (int i = 0; i < 100; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 3 + 1));
        }
        p[1].postRecv(recv(21, 8192, 4096).next(recv(22, 12288, 16)));
        p[0].postSend(send(1, 0, 100));
        WorkCompletion s = one(cqa);
        assertEquals(1, s.wrId());
        assertEquals(WcStatus.SUCCESS, s.status());
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = one(cqb);
        assertEquals(21, r.wrId());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(100, r.byteLen());
        assertEquals(p[0].qpNum(), r.srcQp());
        assertArrayEquals(buf.asSlice(0, 100).toArray(ValueLayout.JAVA_BYTE),
                buf.asSlice(8192, 100).toArray(ValueLayout.JAVA_BYTE));

        p[0].postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0x1234)
                .sgList(new Sge(buf.address(), 50, mr.lkey())).rdma(buf.address() + 20000, mr.rkey()));
        assertEquals(0, poll(cqa, 1).length, "unsignaled");
        r = one(cqb);
        assertEquals(22, r.wrId());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
        assertEquals(0x1234, r.immData());
        assertEquals(WcFlags.WITH_IMM, r.wcFlags() & WcFlags.WITH_IMM);
        assertArrayEquals(buf.asSlice(0, 50).toArray(ValueLayout.JAVA_BYTE),
                buf.asSlice(20000, 50).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void aTransportErrorCompletesTheWqeAndFlushesTheRest() {
        QueuePair[] p = pair();
        p[0].postRecv(recv(31, 0, 64).next(recv(32, 0, 64)));
        p[0].postSend(send(1, 0, 64)); // the peer has no receive WQE: RNR_RETRY_EXC_ERR (no retries here)
        WorkCompletion[] wc = poll(cqa, 8);
        assertEquals(3, wc.length);
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc[0].status());
        assertEquals(1, wc[0].wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, wc[1].status());
        assertEquals(31, wc[1].wrId());
        assertEquals(WcOpcode.RECV, wc[1].opcode());
        assertEquals(32, wc[2].wrId());
        assertEquals(QpState.ERR, p[0].state());
        List<String> calls = LoopbackTransport.of(p[0]).calls;
        assertEquals(List.of("transition RTS->ERR", "flushed"), calls.subList(calls.size() - 2, calls.size()));
    }

    // ------------------------------------------------------------------ flush rules

    @Test
    void errFlushesBothQueuesOldestFirstAndFlushesWhatIsPostedInErr() {
        QueuePair a = qp(cqa, QpType.RC);
        init(a);
        a.postRecv(recv(1, 0, 64).next(recv(2, 0, 64)));
        toErr(a);
        WorkCompletion[] wc = poll(cqa, 8);
        assertEquals(2, wc.length);
        assertEquals(1, wc[0].wrId());
        assertEquals(2, wc[1].wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, wc[0].status());
        a.postSend(send(3, 0, 64).sendFlags(0)); // unsignaled, but a flush always completes
        a.postRecv(recv(4, 0, 64));
        wc = poll(cqa, 8);
        assertEquals(2, wc.length);
        assertEquals(3, wc[0].wrId());
        assertEquals(WcOpcode.SEND, wc[0].opcode());
        assertEquals(WcStatus.WR_FLUSH_ERR, wc[0].status());
        assertEquals(4, wc[1].wrId());
        assertFalse(LoopbackTransport.of(a).calls.contains("sendPosted"), "a post in ERR is the core's: flushed");
    }

    @Test
    void resetEmptiesTheQueuesWithoutCompletions() {
        QueuePair a = qp(cqa, QpType.RC);
        init(a);
        a.postRecv(recv(1, 0, 64).next(recv(2, 0, 64)));
        a.modify(new QpAttr().qpState(QpState.RESET), QpAttrMask.STATE);
        assertEquals(0, poll(cqa, 4).length);
        assertTrue(((SoftQp) a).recvQueue().isEmpty());
        init(a);
        toErr(a);
        assertEquals(0, poll(cqa, 4).length, "nothing left to flush");
    }

    // ------------------------------------------------------------------ defects of issue 9

    @Test
    void sgeLengthsOutside0To2To31AreEinvalAndTheQpStaysUsable() {
        QueuePair[] p = pair();
        // a C caller's 0xffffffff
        VerbsException e = assertThrows(VerbsException.class, () -> new Sge(buf.address(), 0xffffffff, mr.lkey()));
        assertEquals(Errno.EINVAL, e.errno());
        // two SGEs of 2^30 + 1 bytes: a message above 2^31 (rxe: "message length too long", EINVAL)
        int big = (1 << 30) + 1;
        SendWr tooLong = new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(buf.address(), big, mr.lkey()), new Sge(buf.address(), big, mr.lkey()));
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> p[0].postSend(tooLong)).errno());
        RecvWr recvTooLong = new RecvWr().wrId(2)
                .sgList(new Sge(buf.address(), big, mr.lkey()), new Sge(buf.address(), big, mr.lkey()));
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> p[1].postRecv(recvTooLong)).errno());
        assertEquals(0, poll(cqa, 4).length);
        assertEquals(0, poll(cqb, 4).length);
        p[1].postRecv(recv(3, 8192, 64));
        p[0].postSend(send(4, 0, 64));
        assertEquals(WcStatus.SUCCESS, one(cqa).status());
        assertEquals(3, one(cqb).wrId());
        assertEquals(QpState.RTS, p[0].state());
    }

    @Test
    void cqOverrunPutsTheCqIntoErrorAndItsQpsIntoErr() {
        CompletionQueue small = ctx.createCq(1, null);
        QpInitAttr ia = new QpInitAttr().sendCq(small).recvCq(small).qpType(QpType.RC);
        ia.cap().maxSendWr(4).maxRecvWr(4);
        QueuePair a = pd.createQp(ia);
        QueuePair other = pd.createQp(ia); // shares the CQ, completes nothing itself
        QueuePair b = qp(cqb, QpType.RC);
        LoopbackTransport.of(a).peer = LoopbackTransport.of(b);
        LoopbackTransport.of(b).peer = LoopbackTransport.of(a);
        up(a, b);
        up(b, a);
        init(other);
        other.postRecv(recv(50, 0, 64));
        b.postRecv(recv(1, 8192, 64).next(recv(2, 8192, 64)));
        assertEquals(1, small.cqe());
        a.postSend(send(10, 0, 64)); // fills the CQ
        a.postSend(send(11, 0, 64)); // overruns it
        assertEquals(QpState.ERR, a.state(), "the QP whose completion overran");
        assertEquals(QpState.ERR, other.state(), "every QP that completes to the CQ (IBTA Vol 1 ch. 11)");
        assertEquals(QpState.RTS, b.state());
        assertTrue(small.overruns() >= 2, "the lost completion and the flush of other's WQE are counted");
        WorkCompletion wc = one(small);
        assertEquals(10, wc.wrId(), "what the CQ held is still returned");
        VerbsException e = assertThrows(VerbsException.class, () -> poll(small, 4));
        assertEquals(Errno.EIO, e.errno(), "then the CQ reports its error");
        a.postSend(send(12, 0, 64));
        assertThrows(VerbsException.class, () -> poll(small, 4), "the CQ stays in error");
    }

    @Test
    void memoryFreedUnderALiveMrCompletesWithLocProtErrOnBothSides() {
        QueuePair[] p = pair();
        Arena doomed = Arena.ofShared();
        MemorySegment seg = doomed.allocate(4096, 4096);
        MemoryRegion dmr = pd.regMr(seg, ALL);
        doomed.close(); // the region is still registered
        p[1].postRecv(recv(1, 8192, 64));
        p[0].postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(seg.address(), 64, dmr.lkey())));
        WorkCompletion wc = one(cqa);
        assertEquals(2, wc.wrId());
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
        assertEquals(QpState.ERR, p[0].state());
        assertEquals(0, poll(cqb, 4).length, "nothing reached the receiver");

        QueuePair[] q = pair();
        q[1].postRecv(new RecvWr().wrId(3).sgList(new Sge(seg.address(), 64, dmr.lkey())));
        q[0].postSend(send(4, 0, 64));
        WorkCompletion r = one(cqb);
        assertEquals(3, r.wrId());
        assertEquals(WcStatus.LOC_PROT_ERR, r.status());
        assertEquals(WcStatus.REM_OP_ERR, one(cqa).status());
        dmr.close();
    }

    @Test
    void aCopyThatFindsTheMemoryFreedAfterResolutionSaysSo() {
        QueuePair a = qp(cqa, QpType.RC);
        init(a);
        SoftQp core = (SoftQp) a;
        Arena doomed = Arena.ofShared();
        MemorySegment seg = doomed.allocate(4096, 4096);
        MemoryRegion dmr = pd.regMr(seg, ALL);
        MemorySegment other = arena.allocate(64);
        synchronized (core.lock()) {
            core.sendQueue().post(new SendWr().wrId(1).opcode(WrOpcode.SEND).sgList(new Sge(seg.address(), 64, dmr.lkey())));
            core.recvQueue().post(new RecvWr().wrId(2).sgList(new Sge(seg.address(), 64, dmr.lkey())));
            SendWqe w = core.sendQueue().entry(core.sendQueue().head());
            RecvWqe r = core.recvQueue().entry(core.recvQueue().head());
            assertEquals(WcStatus.SUCCESS, core.sendQueue().resolve(w, false));
            assertEquals(WcStatus.SUCCESS, core.recvQueue().resolve(r));
            assertTrue(core.sendQueue().gather(w, 0, other, 0, 64));
            doomed.close(); // between the check and the copy
            assertFalse(core.sendQueue().gather(w, 0, other, 0, 64), "gather: no IllegalStateException escapes");
            assertFalse(core.sendQueue().scatter(w, 0, other, 0, 64));
            assertFalse(core.recvQueue().scatter(r, 0, other, 0, 64));
            assertFalse(((SoftMr) dmr).isAccessible());
            core.sendQueue().clear();
            core.recvQueue().clear();
        }
        dmr.close();
    }

    @Test
    void destroyTellsTheTransportAndFreesTheQpn() {
        QueuePair a = qp(cqa, QpType.RC);
        LoopbackTransport t = LoopbackTransport.of(a);
        int qpn = a.qpNum();
        assertEquals(a, ctx.resources().qps.get(qpn));
        assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, cqa::close).errno());
        a.close();
        assertEquals(List.of("beforeDestroy", "destroyed"), t.calls);
        assertNull(ctx.resources().qps.get(qpn));
        cqa.close(); // no QP uses it any more
    }
}
