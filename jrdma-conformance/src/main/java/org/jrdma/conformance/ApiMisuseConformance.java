package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * API misuse: the errno libibverbs returns ({@code ibv_post_send(3)}, {@code ibv_post_recv(3)},
 * {@code ibv_reg_mr(3)}, {@code ibv_dealloc_pd(3)}, {@code ibv_destroy_cq(3)}), and that a refused call
 * changes nothing.
 */
public abstract class ApiMisuseConformance extends ConformanceBase {

    private QueuePair lonelyQp(ProtectionDomain pd, CompletionQueue cq, Conn c) {
        return track(pd.createQp(initAttr(cq, cq, c)));
    }

    private SendWr oneSend(long id, MemoryRegion mr) {
        return new SendWr().wrId(id).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(sge(mr, 0, 8));
    }

    @Test
    void postSendInResetInitRtrIsEinval() {
        ProtectionDomain pd = track(ca.allocPd());
        CompletionQueue cq = track(ca.createCq(16, null));
        Conn c = conn();
        QueuePair q = lonelyQp(pd, cq, c);
        MemoryRegion mr = track(pd.regMr(arena.allocate(4096), ALL_ACCESS));
        assertErrno(Errno.EINVAL, () -> q.postSend(oneSend(1, mr)), "post_send in RESET");
        assertErrno(Errno.EINVAL, () -> q.postRecv(new RecvWr().wrId(2).sgList(sge(mr, 0, 8))), "post_recv in RESET");
        toInit(q, QpType.RC, QP_ALL_REMOTE);
        assertErrno(Errno.EINVAL, () -> q.postSend(oneSend(3, mr)), "post_send in INIT");
        toRtr(q, c, q.qpNum(), ca.queryGid(fixture().portNum(), fixture().gidIndex()), 0);
        assertErrno(Errno.EINVAL, () -> q.postSend(oneSend(4, mr)), "post_send in RTR");
        assertEquals(QpState.RTR, queryState(q));
        assertCqEmpty(cq, "refused posts complete nothing");
    }

    @Test
    void postRecvInInitIsAccepted() {
        ProtectionDomain pd = track(ca.allocPd());
        CompletionQueue cq = track(ca.createCq(16, null));
        QueuePair q = lonelyQp(pd, cq, conn());
        MemoryRegion mr = track(pd.regMr(arena.allocate(4096), ALL_ACCESS));
        toInit(q, QpType.RC, QP_ALL_REMOTE);
        q.postRecv(new RecvWr().wrId(1).sgList(sge(mr, 0, 8)));
        assertCqEmpty(cq, "a posted receive");
    }

    @Test
    void tooManySgesIsEinval() {
        Pair p = connect(conn().maxSge(2));
        QpAttr attr = new QpAttr();
        p.a.query(attr, QpAttrMask.CAP);
        int maxSend = attr.cap().maxSendSge(), maxRecv = attr.cap().maxRecvSge();
        assertTrue(maxSend >= 2 && maxRecv >= 2, "caps at least as asked: " + maxSend + "/" + maxRecv);
        Sge[] send = new Sge[maxSend + 1];
        Sge[] recv = new Sge[maxRecv + 1];
        for (int i = 0; i < send.length; i++) {
            send[i] = sge(p.mra, 16L * i, 8);
        }
        for (int i = 0; i < recv.length; i++) {
            recv[i] = sge(p.mra, 4096 + 16L * i, 8);
        }
        assertErrno(Errno.EINVAL, () -> p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE)
                .sendFlags(SendFlags.SIGNALED).sgList(send).rdma(p.mrb.addr(), p.mrb.rkey())), "max_send_sge + 1 SGEs");
        assertErrno(Errno.EINVAL, () -> p.a.postRecv(new RecvWr().wrId(2).sgList(recv)), "max_recv_sge + 1 SGEs");
        // nothing was posted: the next WR's completion is the first one
        p.a.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).rdma(p.mrb.addr(), p.mrb.rkey()));
        expect(p.sqa, 3, WcStatus.SUCCESS, "write after refused post");
        assertEquals(QpState.RTS, queryState(p.a), "a refused post does not change the QP");
    }

    @Test
    @Tag("known-failure") // rocev2: the WRs before the bad one are queued but not started (SoftQp.postSend)
    void chainStopsAtTheBadWrAndKeepsTheOnesBefore() {
        Pair p = connect(conn().maxSge(1));
        SendWr good = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).rdma(p.mrb.addr(), p.mrb.rkey());
        SendWr bad = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8), sge(p.mra, 8, 8), sge(p.mra, 16, 8), sge(p.mra, 24, 8), sge(p.mra, 32, 8))
                .rdma(p.mrb.addr(), p.mrb.rkey());
        QpAttr attr = new QpAttr();
        p.a.query(attr, QpAttrMask.CAP);
        bad.numSge(Math.min(bad.sgList().length, attr.cap().maxSendSge() + 1));
        Assumptions.assumeTrue(bad.numSge() > attr.cap().maxSendSge(), "max_send_sge rounded above 4");
        good.next(bad);
        assertErrno(Errno.EINVAL, () -> p.a.postSend(good), "chain with a bad second WR");
        expect(p.sqa, 1, WcStatus.SUCCESS, "the WR before the bad one stays posted");
        pause(50);
        assertCqEmpty(p.sqa, "the bad WR was not posted");
    }

    @Test
    void sendQueueFullIsEnomem() {
        ProtectionDomain pd = track(ca.allocPd());
        CompletionQueue cq = track(ca.createCq(256, null));
        Conn c = conn().depth(16, 16).timeout(20).retryCnt(7);
        QueuePair q = lonelyQp(pd, cq, c);
        // the peer stays in INIT: nothing is ever acknowledged, every WR stays outstanding
        ProtectionDomain pdb = track(cb.allocPd());
        CompletionQueue cqb = track(cb.createCq(16, null));
        QueuePair peer = track(pdb.createQp(initAttr(cqb, cqb, c)));
        toInit(peer, QpType.RC, QP_ALL_REMOTE);
        toInit(q, QpType.RC, QP_ALL_REMOTE);
        toRtr(q, c, peer.qpNum(), cb.queryGid(fixture().portNum(), fixture().gidIndex()), 0);
        toRts(q, c, 0);
        MemoryRegion mr = track(pd.regMr(arena.allocate(4096), ALL_ACCESS));
        QpAttr attr = new QpAttr();
        q.query(attr, QpAttrMask.CAP);
        int depth = attr.cap().maxSendWr();
        assertTrue(depth >= 16, "max_send_wr at least as asked: " + depth);
        for (int i = 0; i < depth; i++) {
            q.postSend(oneSend(i, mr));
        }
        assertErrno(Errno.ENOMEM, () -> q.postSend(oneSend(depth, mr)), "post_send on a full send queue");
        assertEquals(QpState.RTS, queryState(q));
    }

    @Test
    void receiveQueueOverflowIsEnomem() {
        ProtectionDomain pd = track(ca.allocPd());
        CompletionQueue cq = track(ca.createCq(64, null));
        QueuePair q = lonelyQp(pd, cq, conn().depth(16, 16));
        toInit(q, QpType.RC, QP_ALL_REMOTE);
        MemoryRegion mr = track(pd.regMr(arena.allocate(4096), ALL_ACCESS));
        QpAttr attr = new QpAttr();
        q.query(attr, QpAttrMask.CAP);
        int depth = attr.cap().maxRecvWr();
        assertTrue(depth >= 16, "max_recv_wr at least as asked: " + depth);
        RecvWr r = new RecvWr().sgList(sge(mr, 0, 64));
        for (int i = 0; i < depth; i++) {
            q.postRecv(r.wrId(i));
        }
        assertErrno(Errno.ENOMEM, () -> q.postRecv(r.wrId(depth)), "post_recv on a full receive queue");
    }

    @Test
    void regMrRemoteWriteOrAtomicWithoutLocalWriteIsEinval() {
        ProtectionDomain pd = track(ca.allocPd());
        MemorySegment m = arena.allocate(4096, 4096);
        assertErrno(Errno.EINVAL, () -> pd.regMr(m, AccessFlags.REMOTE_WRITE), "REMOTE_WRITE alone");
        assertErrno(Errno.EINVAL, () -> pd.regMr(m, AccessFlags.REMOTE_ATOMIC), "REMOTE_ATOMIC alone");
        assertErrno(Errno.EINVAL, () -> pd.regMr(m, AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ),
                "REMOTE_WRITE | REMOTE_READ");
        MemoryRegion ro = track(pd.regMr(m, AccessFlags.REMOTE_READ));
        assertEquals(AccessFlags.REMOTE_READ, ro.access());
        MemoryRegion rw = track(pd.regMr(m, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC));
        assertTrue(rw.lkey() != ro.lkey(), "two registrations, two lkeys");
        assertEquals(m.address(), rw.addr());
        assertEquals(4096, rw.length());
    }

    @Test
    void regMrOfHeapOrConfinedMemoryIsEinval() {
        ProtectionDomain pd = track(ca.allocPd());
        assertErrno(Errno.EINVAL, () -> pd.regMr(MemorySegment.ofArray(new byte[4096]), AccessFlags.LOCAL_WRITE),
                "heap segment");
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment m = confined.allocate(4096);
            assertErrno(Errno.EINVAL, () -> pd.regMr(m, AccessFlags.LOCAL_WRITE), "thread-confined segment");
        }
    }

    @Test
    void deallocPdInUseIsEbusy() {
        ProtectionDomain pd = ca.allocPd();
        MemoryRegion mr = pd.regMr(arena.allocate(4096), AccessFlags.LOCAL_WRITE);
        assertErrno(Errno.EBUSY, pd::close, "dealloc_pd with an MR");
        mr.close();
        CompletionQueue cq = track(ca.createCq(16, null));
        QueuePair q = pd.createQp(initAttr(cq, cq, conn()));
        assertErrno(Errno.EBUSY, pd::close, "dealloc_pd with a QP");
        // the PD still works after the refused dealloc
        MemoryRegion mr2 = pd.regMr(arena.allocate(4096), AccessFlags.LOCAL_WRITE);
        mr2.close();
        q.close();
        pd.close();
    }

    @Test
    void destroyCqInUseIsEbusy() {
        ProtectionDomain pd = track(ca.allocPd());
        CompletionQueue scq = ca.createCq(16, null);
        CompletionQueue rcq = ca.createCq(16, null);
        QueuePair q = pd.createQp(initAttr(scq, rcq, conn()));
        assertErrno(Errno.EBUSY, scq::close, "destroy_cq of a send CQ in use");
        assertErrno(Errno.EBUSY, rcq::close, "destroy_cq of a receive CQ in use");
        q.close();
        scq.close();
        rcq.close();
    }

    @Test
    void destroyCompChannelInUseIsEbusy() {
        CompletionChannel ch = ca.createCompChannel();
        CompletionQueue cq = ca.createCq(16, ch);
        assertEquals(ch, cq.channel());
        assertErrno(Errno.EBUSY, ch::close, "destroy_comp_channel with a CQ");
        cq.close();
        ch.close();
    }

    @Test
    void inlineAboveMaxInlineDataIsEinval() {
        require(Feature.INLINE);
        Pair p = connect(conn().maxInline(64));
        QpAttr attr = new QpAttr();
        p.a.query(attr, QpAttrMask.CAP);
        int max = attr.cap().maxInlineData();
        assertTrue(max >= 64, "max_inline_data at least as asked: " + max);
        assertErrno(Errno.EINVAL, () -> p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE)
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).sgList(sge(p.mra, 0, max + 1))
                .rdma(p.mrb.addr(), p.mrb.rkey())), "inline data of max_inline_data + 1 bytes");
    }
}
