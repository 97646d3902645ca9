package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.List;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.AsyncEvent;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.MemoryRegion;
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
import org.jrdma.verbs.SharedReceiveQueue;
import org.jrdma.verbs.SrqAttr;
import org.jrdma.verbs.SrqAttrMask;
import org.jrdma.verbs.SrqInitAttr;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Shared receive queues ({@code ibv_create_srq(3)}, {@code ibv_modify_srq(3)}, {@code ibv_query_srq(3)},
 * {@code ibv_post_srq_recv(3)}, {@code ibv_destroy_srq(3)}): the limits and errnos of each call, RC
 * and UD QPs on an SRQ (WQEs consumed in post order by whichever QP receives, each completion on
 * that QP's receive CQ with its QPN), RNR while the SRQ is empty, resizing with WQEs in it, the
 * limit event (once, then disarmed) and IBV_EVENT_QP_LAST_WQE_REACHED (the SRQ's WQEs are not
 * flushed). Device B receives on the SRQ; device A sends.
 */
public abstract class SrqConformance extends ConformanceBase {
    private static final int MSG = 256;

    @BeforeEach
    void requireSrq() {
        require(Feature.SRQ);
        AsyncEventChecks.drain(ca);
        AsyncEventChecks.drain(cb);
    }

    @AfterEach
    void drainEvents() {
        AsyncEventChecks.drain(ca);
        AsyncEventChecks.drain(cb);
    }

    private SharedReceiveQueue srq(ProtectionDomain pd, int maxWr, int maxSge) {
        SrqInitAttr init = new SrqInitAttr();
        init.attr().maxWr(maxWr).maxSge(maxSge);
        return track(pd.createSrq(init));
    }

    /** A and B on one SRQ: the SRQ, its PD's region, and the RC pairs sending to it. */
    private final class SrqSetup {
        final ProtectionDomain pb = track(cb.allocPd());
        final MemorySegment mb = arena.allocate(1 << 20, 4096);
        final MemoryRegion mrb = track(pb.regMr(mb, ALL_ACCESS));
        final CompletionQueue rcq = track(cb.createCq(1024, null));
        final SharedReceiveQueue srq;

        SrqSetup(int maxWr) {
            srq = srq(pb, maxWr, 2);
        }

        /** Posts receive {@code wrId} of {@code MSG} bytes at slot {@code wrId} of B's region. */
        void post(long wrId) {
            srq.postSrqRecv(new RecvWr().wrId(wrId).sgList(sge(mrb, wrId * MSG, MSG)));
        }

        /** An RC QP of A (with its send CQ and region) connected to a new RC QP of B on the SRQ. */
        Sender sender() {
            Sender s = new Sender();
            s.pa = track(ca.allocPd());
            s.scq = track(ca.createCq(256, null));
            s.ma = arena.allocate(1 << 16, 4096);
            s.mra = track(s.pa.regMr(s.ma, ALL_ACCESS));
            QpInitAttr ia = new QpInitAttr().sendCq(s.scq).recvCq(s.scq).qpType(QpType.RC);
            ia.cap().maxSendWr(64).maxRecvWr(1).maxSendSge(1).maxRecvSge(1);
            s.a = track(s.pa.createQp(ia));
            CompletionQueue bscq = track(cb.createCq(64, null));
            QpInitAttr ib = new QpInitAttr().sendCq(bscq).recvCq(rcq).qpType(QpType.RC).srq(srq);
            ib.cap().maxSendWr(8).maxSendSge(1);
            s.b = track(pb.createQp(ib));
            Conn c = conn();
            Gid ga = ca.queryGid(fixture().portNum(), fixture().gidIndex());
            Gid gb = cb.queryGid(fixture().portNum(), fixture().gidIndex());
            toInit(s.a, QpType.RC, QP_ALL_REMOTE);
            toInit(s.b, QpType.RC, QP_ALL_REMOTE);
            toRtr(s.a, c, s.b.qpNum(), gb, 0x100);
            toRtr(s.b, c, s.a.qpNum(), ga, 0x200);
            toRts(s.a, c, 0x200);
            toRts(s.b, c, 0x100);
            return s;
        }
    }

    private static final class Sender {
        ProtectionDomain pa;
        CompletionQueue scq;
        MemorySegment ma;
        MemoryRegion mra;
        QueuePair a;
        QueuePair b;

        void send(long wrId, int len, long seed) {
            fill(ma, 0, len, seed);
            a.postSend(new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(sge(mra, 0, len)));
        }
    }

    // ------------------------------------------------------------------ create / query / modify / destroy

    @Test
    void createChecksMaxWrAndMaxSgeAndQueryReportsTheSizes() {
        ProtectionDomain pd = track(cb.allocPd());
        SrqInitAttr bad = new SrqInitAttr();
        bad.attr().maxWr(0).maxSge(1);
        assertErrno(Errno.EINVAL, () -> pd.createSrq(bad), "max_wr 0");
        bad.attr().maxWr(Integer.MAX_VALUE);
        assertErrno(Errno.EINVAL, () -> pd.createSrq(bad), "max_wr above max_srq_wr");
        bad.attr().maxWr(16).maxSge(Integer.MAX_VALUE);
        assertErrno(Errno.EINVAL, () -> pd.createSrq(bad), "max_sge above max_srq_sge");
        SrqInitAttr init = new SrqInitAttr();
        init.attr().maxWr(16).maxSge(3).srqLimit(5);
        SharedReceiveQueue s = track(pd.createSrq(init));
        assertSame(pd, s.pd(), "the SRQ's PD");
        SrqAttr q = new SrqAttr();
        s.query(q);
        assertTrue(q.maxWr() >= 16, "max_wr " + q.maxWr() + " at least what was asked");
        assertTrue(q.maxSge() >= 3, "max_sge " + q.maxSge() + " at least what was asked");
        assertEquals(0, q.srqLimit(), "srq_limit is ignored by ibv_create_srq (disarmed)");
    }

    @Test
    void modifyArmsTheLimitResizesAndRefusesBadValues() {
        SharedReceiveQueue s = srq(track(cb.allocPd()), 16, 1);
        SrqAttr q = new SrqAttr();
        s.query(q);
        int size = q.maxWr();
        assertErrno(Errno.EINVAL, () -> s.modify(new SrqAttr().srqLimit(size + 1), SrqAttrMask.LIMIT), "srq_limit above max_wr");
        assertErrno(Errno.EINVAL, () -> s.modify(new SrqAttr().maxWr(16), 1 << 5), "unknown mask bit");
        s.modify(new SrqAttr().srqLimit(4), SrqAttrMask.LIMIT);
        s.query(q);
        assertEquals(4, q.srqLimit(), "armed limit");
        assertErrno(Errno.EINVAL, () -> s.modify(new SrqAttr().maxWr(3), SrqAttrMask.MAX_WR), "max_wr below the armed limit");
        assertErrno(Errno.EINVAL, () -> s.modify(new SrqAttr().maxWr(0), SrqAttrMask.MAX_WR), "max_wr 0");
        s.modify(new SrqAttr().srqLimit(0), SrqAttrMask.LIMIT);
        s.query(q);
        assertEquals(0, q.srqLimit(), "disarmed");
        s.modify(new SrqAttr().maxWr(64), SrqAttrMask.MAX_WR);
        s.query(q);
        assertTrue(q.maxWr() >= 64, "resized up: max_wr " + q.maxWr());
    }

    @Test
    void postSrqRecvChecksSgesAndDepth() {
        SrqSetup st = new SrqSetup(4);
        RecvWr three = new RecvWr().wrId(9).sgList(sge(st.mrb, 0, 8), sge(st.mrb, 8, 8), sge(st.mrb, 16, 8));
        assertErrno(Errno.EINVAL, () -> st.srq.postSrqRecv(three), "num_sge above max_sge");
        SrqAttr q = new SrqAttr();
        st.srq.query(q);
        for (int i = 0; i < q.maxWr(); i++) {
            st.post(i);
        }
        assertErrno(Errno.ENOMEM, () -> st.post(99), "SRQ full");
        assertErrno(Errno.EINVAL, () -> st.srq.modify(new SrqAttr().maxWr(q.maxWr() - 1), SrqAttrMask.MAX_WR),
                "max_wr below the WRs in the SRQ");
    }

    @Test
    void aQpOnAnSrqRefusesPostRecvAndReportsNoReceiveQueue() {
        SrqSetup st = new SrqSetup(8);
        Sender s = st.sender();
        assertErrno(Errno.EINVAL, () -> s.b.postRecv(new RecvWr().wrId(1).sgList(sge(st.mrb, 0, 8))), "ibv_post_recv on an SRQ QP");
        QpAttr a = new QpAttr();
        s.b.query(a, QpAttrMask.CAP);
        assertEquals(0, a.cap().maxRecvWr(), "max_recv_wr of a QP on an SRQ");
        assertEquals(0, a.cap().maxRecvSge(), "max_recv_sge of a QP on an SRQ");
    }

    @Test
    void destroyIsBusyWhileAQpUsesTheSrq() {
        SrqSetup st = new SrqSetup(8);
        Sender s = st.sender();
        assertErrno(Errno.EBUSY, st.srq::close, "ibv_destroy_srq with a QP on it");
        s.b.close();
        st.srq.close();
        assertErrno(Errno.EINVAL, () -> st.post(1), "post to a destroyed SRQ");
    }

    // ------------------------------------------------------------------ data path

    @Test
    void twoRcQpsConsumeTheSrqInPostOrder() {
        SrqSetup st = new SrqSetup(16);
        Sender s1 = st.sender();
        Sender s2 = st.sender();
        for (int i = 0; i < 6; i++) {
            st.post(i);
        }
        List<Sender> order = List.of(s1, s2, s2, s1, s1, s2);
        for (int i = 0; i < order.size(); i++) {
            Sender s = order.get(i);
            s.send(100 + i, MSG - i, i);
            expect(s.scq, 100 + i, WcStatus.SUCCESS, "send " + i);
            WorkCompletion wc = expect(st.rcq, i, WcStatus.SUCCESS, "receive " + i + " takes the SRQ's oldest WQE");
            assertEquals(WcOpcode.RECV, wc.opcode(), "opcode");
            assertEquals(MSG - i, wc.byteLen(), "byte_len");
            assertEquals(s.b.qpNum(), wc.qpNum(), "qp_num: the QP that received");
            assertSameBytes(s.ma, 0, st.mb, (long) i * MSG, MSG - i, "payload " + i);
        }
        assertCqEmpty(st.rcq, "one completion per message");
    }

    @Test
    void multiPacketSendsFillOneSrqWqeEach() {
        SrqSetup st = new SrqSetup(8);
        Sender s = st.sender();
        st.srq.postSrqRecv(new RecvWr().wrId(1).sgList(sge(st.mrb, 0, 8192)));
        st.srq.postSrqRecv(new RecvWr().wrId(2).sgList(sge(st.mrb, 8192, 4096), sge(st.mrb, 65536, 4096)));
        s.send(11, 5000, 1);
        expect(st.rcq, 1, WcStatus.SUCCESS, "first 5000-byte SEND (MTU 1024: 5 packets)");
        assertSameBytes(s.ma, 0, st.mb, 0, 5000, "first payload");
        s.send(12, 6000, 2);
        WorkCompletion wc = expect(st.rcq, 2, WcStatus.SUCCESS, "second SEND into two SGEs");
        assertEquals(6000, wc.byteLen(), "byte_len");
        assertSameBytes(s.ma, 0, st.mb, 8192, 4096, "first SGE");
        assertSameBytes(s.ma, 4096, st.mb, 65536, 1904, "second SGE");
        expect(s.scq, 11, WcStatus.SUCCESS, "send 1");
        expect(s.scq, 12, WcStatus.SUCCESS, "send 2");
    }

    @Test
    void anEmptySrqMeansRnrUntilAWqeIsPosted() {
        require(Feature.RNR);
        SrqSetup st = new SrqSetup(8);
        Sender s = st.sender();
        s.send(1, 64, 3);
        pause(50);
        assertCqEmpty(st.rcq, "nothing to receive into");
        st.post(0);
        expect(st.rcq, 0, WcStatus.SUCCESS, "received after the post (RNR retry)");
        expect(s.scq, 1, WcStatus.SUCCESS, "send completes");
    }

    @Test
    void resizingKeepsTheWqesInOrder() {
        SrqSetup st = new SrqSetup(4);
        Sender s = st.sender();
        for (int i = 0; i < 4; i++) {
            st.post(i);
        }
        st.srq.modify(new SrqAttr().maxWr(32), SrqAttrMask.MAX_WR);
        for (int i = 4; i < 10; i++) {
            st.post(i);
        }
        for (int i = 0; i < 10; i++) {
            s.send(i, 32, i);
            expect(st.rcq, i, WcStatus.SUCCESS, "receive " + i + " after the resize");
        }
    }

    @Test
    void theLimitEventFiresOnceBelowTheLimitThenDisarms() {
        require(Feature.ASYNC_EVENTS);
        SrqSetup st = new SrqSetup(16);
        Sender s = st.sender();
        for (int i = 0; i < 6; i++) {
            st.post(i);
        }
        st.srq.modify(new SrqAttr().srqLimit(4), SrqAttrMask.LIMIT);
        s.send(0, 16, 0);
        expect(st.rcq, 0, WcStatus.SUCCESS, "receive 0 (5 WQEs left)");
        s.send(1, 16, 1);
        expect(st.rcq, 1, WcStatus.SUCCESS, "receive 1 (4 left: not below 4)");
        AsyncEventChecks.none(cb, 50, "4 WQEs left is not below the limit 4");
        s.send(2, 16, 2);
        expect(st.rcq, 2, WcStatus.SUCCESS, "receive 2 (3 left)");
        AsyncEvent e = AsyncEventChecks.next(cb, AsyncEventType.SRQ_LIMIT_REACHED, "3 WQEs left, limit 4");
        assertSame(st.srq, e.srq(), "the event's SRQ");
        assertNull(e.qp(), "no QP in an SRQ event");
        e.ack();
        SrqAttr q = new SrqAttr();
        st.srq.query(q);
        assertEquals(0, q.srqLimit(), "the limit is disarmed after the event");
        s.send(3, 16, 3);
        expect(st.rcq, 3, WcStatus.SUCCESS, "receive 3");
        AsyncEventChecks.none(cb, 50, "a disarmed limit raises nothing");
        AsyncEventChecks.none(ca, 0, "the sender's context has no event");
    }

    @Test
    void aQpEnteringErrRaisesLastWqeReachedAndLeavesTheSrqToTheOthers() {
        require(Feature.ASYNC_EVENTS);
        SrqSetup st = new SrqSetup(16);
        Sender s1 = st.sender();
        Sender s2 = st.sender();
        for (int i = 0; i < 4; i++) {
            st.post(i);
        }
        s1.b.modify(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE);
        AsyncEvent e = AsyncEventChecks.next(cb, AsyncEventType.QP_LAST_WQE_REACHED, "QP on the SRQ moved to ERR");
        assertSame(s1.b, e.qp(), "the event's QP");
        e.ack();
        pause(20);
        assertCqEmpty(st.rcq, "the SRQ's WQEs are not flushed");
        s2.send(7, 40, 7);
        expect(st.rcq, 0, WcStatus.SUCCESS, "the other QP still receives into the SRQ's oldest WQE");
        AsyncEventChecks.none(cb, 20, "one event per entry into ERR");
    }

    @Test
    void aResponderErrorOnAnSrqQpRaisesTheErrorThenLastWqeReached() {
        require(Feature.ASYNC_EVENTS);
        SrqSetup st = new SrqSetup(8);
        Sender s = st.sender();
        st.post(0);
        s.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(s.mra, 0, 64)).rdma(st.mrb.addr(), st.mrb.rkey() ^ 0x5a5a00));
        expect(s.scq, 1, WcStatus.REM_ACCESS_ERR, "WRITE with a bad rkey");
        AsyncEvent first = AsyncEventChecks.next(cb, AsyncEventType.QP_ACCESS_ERR, "the responder's access violation");
        AsyncEvent second = AsyncEventChecks.next(cb, AsyncEventType.QP_LAST_WQE_REACHED, "then the QP leaves the SRQ");
        assertSame(s.b, first.qp(), "QP of the first event");
        assertSame(s.b, second.qp(), "QP of the second event");
        first.ack();
        second.ack();
        assertCqEmpty(st.rcq, "the SRQ's WQE is not flushed");
    }

    @Test
    void aUdQpOnAnSrqReceivesWithTheGrh() {
        require(Feature.UD);
        ProtectionDomain pb = track(cb.allocPd());
        MemorySegment mb = arena.allocate(1 << 16, 4096);
        MemoryRegion mrb = track(pb.regMr(mb, ALL_ACCESS));
        SharedReceiveQueue srq = srq(pb, 8, 1);
        CompletionQueue cqb = track(cb.createCq(16, null));
        QpInitAttr ib = new QpInitAttr().sendCq(cqb).recvCq(cqb).qpType(QpType.UD).srq(srq);
        ib.cap().maxSendWr(4).maxSendSge(1);
        QueuePair b = track(pb.createQp(ib));
        ProtectionDomain pa = track(ca.allocPd());
        MemorySegment ma = arena.allocate(4096, 4096);
        MemoryRegion mra = track(pa.regMr(ma, ALL_ACCESS));
        CompletionQueue cqa = track(ca.createCq(16, null));
        QpInitAttr ia = new QpInitAttr().sendCq(cqa).recvCq(cqa).qpType(QpType.UD);
        ia.cap().maxSendWr(4).maxRecvWr(1).maxSendSge(1).maxRecvSge(1);
        QueuePair a = track(pa.createQp(ia));
        int qkey = 0x11111111;
        for (QueuePair q : List.of(a, b)) {
            q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(fixture().portNum()).qkey(qkey),
                    QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
            q.modify(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE);
            q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0), QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        }
        srq.postSrqRecv(new RecvWr().wrId(5).sgList(sge(mrb, 0, 40 + 512)));
        AhAttr ah = new AhAttr().isGlobal(true).portNum(fixture().portNum());
        ah.grh().dgid(cb.queryGid(fixture().portNum(), fixture().gidIndex())).hopLimit(64).sgidIndex(fixture().gidIndex());
        fill(ma, 0, 300, 42);
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(sge(mra, 0, 300))
                .ud(track(pa.createAh(ah)), b.qpNum(), qkey));
        expect(cqa, 1, WcStatus.SUCCESS, "UD send");
        WorkCompletion wc = expect(cqb, 5, WcStatus.SUCCESS, "UD receive from the SRQ");
        assertEquals(340, wc.byteLen(), "byte_len: GRH + payload");
        assertEquals(a.qpNum(), wc.srcQp(), "src_qp");
        assertEquals(b.qpNum(), wc.qpNum(), "qp_num");
        assertTrue((wc.wcFlags() & WcFlags.GRH) != 0, "IBV_WC_GRH");
        assertSameBytes(ma, 0, mb, 40, 300, "payload after the 40-byte GRH");
    }
}
