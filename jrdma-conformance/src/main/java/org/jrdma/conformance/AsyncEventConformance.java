package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AsyncEvent;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
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
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Asynchronous events ({@code ibv_get_async_event(3)}, {@code ibv_ack_async_event(3)}): the
 * blocking and timed takes, acknowledging once, the types and elements and their order for the
 * events a provider can be driven to raise (CQ overrun: CQ_ERR then QP_FATAL; the first packet in
 * RTR: COMM_EST, once; SQD with nothing in flight: SQ_DRAINED; a responder's invalid request and
 * access errors: QP_REQ_ERR, QP_ACCESS_ERR), events going only to the context of their element,
 * the events of a destroyed object dropped, destroy waiting for acknowledgements (EBUSY when they
 * do not come), and a closed context ending a blocked take with ENODEV.
 */
public abstract class AsyncEventConformance extends ConformanceBase {
    @BeforeEach
    void requireEvents() {
        require(Feature.ASYNC_EVENTS);
        AsyncEventChecks.drain(ca);
        AsyncEventChecks.drain(cb);
    }

    @AfterEach
    void drainEvents() {
        AsyncEventChecks.drain(ca);
        AsyncEventChecks.drain(cb);
    }

    @Test
    void aTimedTakeReturnsNullWhenThereIsNoEvent() {
        assertNull(ca.getAsyncEvent(0, TimeUnit.MILLISECONDS), "nothing queued: no wait");
        long t0 = System.nanoTime();
        assertNull(ca.getAsyncEvent(30, TimeUnit.MILLISECONDS), "nothing within 30 ms");
        assertTrue(System.nanoTime() - t0 >= 25_000_000L, "the timed take waited");
    }

    @Test
    void cqOverrunRaisesCqErrThenQpFatalAndAnEventIsAcknowledgedOnce() {
        Pair p = connect(conn().cqe(1));
        SendWr w = new SendWr().opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 8))
                .rdma(p.mrb.addr(), p.mrb.rkey());
        for (int i = 0; i < p.sqa.cqe() + 2; i++) {
            p.a.postSend(w.wrId(i));
        }
        AsyncEvent cqErr = AsyncEventChecks.next(ca, AsyncEventType.CQ_ERR, "send CQ overran");
        assertSame(p.sqa, cqErr.cq(), "the CQ of CQ_ERR");
        assertNull(cqErr.qp(), "no QP in CQ_ERR");
        AsyncEvent fatal = AsyncEventChecks.next(ca, AsyncEventType.QP_FATAL, "its QP is in error");
        assertSame(p.a, fatal.qp(), "the QP of QP_FATAL");
        assertEquals(0, fatal.portNum(), "no port in a QP event");
        awaitState(p.a, QpState.ERR, "QP of the overrun CQ");
        cqErr.ack();
        ca.ackAsyncEvent(fatal);
        assertErrno(Errno.EINVAL, cqErr::ack, "a second ack of one event");
        AsyncEventChecks.none(cb, 20, "the peer's context");
    }

    @Test
    void theFirstPacketInRtrRaisesCommEstOnce() {
        ProtectionDomain pa = track(ca.allocPd());
        ProtectionDomain pb = track(cb.allocPd());
        CompletionQueue cqa = track(ca.createCq(16, null));
        CompletionQueue cqb = track(cb.createCq(16, null));
        Conn c = conn();
        QueuePair a = track(pa.createQp(initAttr(cqa, cqa, c)));
        QueuePair b = track(pb.createQp(initAttr(cqb, cqb, c)));
        var ma = arena.allocate(4096, 4096);
        var mb = arena.allocate(4096, 4096);
        var mra = track(pa.regMr(ma, ALL_ACCESS));
        var mrb = track(pb.regMr(mb, ALL_ACCESS));
        Gid ga = ca.queryGid(fixture().portNum(), fixture().gidIndex());
        Gid gb = cb.queryGid(fixture().portNum(), fixture().gidIndex());
        toInit(a, QpType.RC, QP_ALL_REMOTE);
        toInit(b, QpType.RC, QP_ALL_REMOTE);
        toRtr(a, c, b.qpNum(), gb, 1);
        toRtr(b, c, a.qpNum(), ga, 2);
        toRts(a, c, 2);
        AsyncEventChecks.none(cb, 20, "nothing arrived yet");
        b.postRecv(new RecvWr().wrId(7).sgList(sge(mrb, 0, 64)));
        b.postRecv(new RecvWr().wrId(8).sgList(sge(mrb, 64, 64)));
        a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(sge(mra, 0, 16)));
        expect(cqb, 7, WcStatus.SUCCESS, "receive in RTR");
        AsyncEvent e = AsyncEventChecks.next(cb, AsyncEventType.COMM_EST, "first packet on a QP in RTR");
        assertSame(b, e.qp(), "the QP of COMM_EST");
        e.ack();
        a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(sge(mra, 0, 16)));
        expect(cqb, 8, WcStatus.SUCCESS, "second receive in RTR");
        AsyncEventChecks.none(cb, 30, "COMM_EST is raised once");
        AsyncEventChecks.none(ca, 0, "the sender (in RTS) has none");
    }

    @Test
    void sqdWithNothingInFlightRaisesSqDrained() {
        Pair p = connect(conn());
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 64)).rdma(p.mrb.addr(), p.mrb.rkey()));
        expect(p.sqa, 1, WcStatus.SUCCESS, "write before SQD");
        p.a.modify(new QpAttr().qpState(QpState.SQD), QpAttrMask.STATE | QpAttrMask.EN_SQD_ASYNC_NOTIFY);
        AsyncEvent e = AsyncEventChecks.next(ca, AsyncEventType.SQ_DRAINED, "RTS -> SQD, send queue empty");
        assertSame(p.a, e.qp(), "the QP of SQ_DRAINED");
        e.ack();
        AsyncEventChecks.none(ca, 20, "one SQ_DRAINED per SQD");
    }

    @Test
    void anRdmaWriteTheResponderDoesNotEnableRaisesQpReqErr() {
        Pair p = connect(conn().access(QP_ALL_REMOTE, AccessFlags.REMOTE_READ));
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 64)).rdma(p.mrb.addr(), p.mrb.rkey()));
        expect(p.sqa, 1, WcStatus.REM_INV_REQ_ERR, "the requester's completion");
        AsyncEvent e = AsyncEventChecks.next(cb, AsyncEventType.QP_REQ_ERR, "the responder's invalid request");
        assertSame(p.b, e.qp(), "the responder's QP");
        e.ack();
        awaitState(p.b, QpState.ERR, "the responder");
        AsyncEventChecks.none(ca, 0, "a completion reports the requester's error: no event");
    }

    @Test
    void aBadRkeyRaisesQpAccessErrAtTheResponder() {
        Pair p = connect(conn());
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 64)).rdma(p.mrb.addr(), p.mrb.rkey() ^ 0x5a5a00));
        expect(p.sqa, 1, WcStatus.REM_ACCESS_ERR, "the requester's completion");
        AsyncEvent e = AsyncEventChecks.next(cb, AsyncEventType.QP_ACCESS_ERR, "the responder's access violation");
        assertSame(p.b, e.qp(), "the responder's QP");
        e.ack();
    }

    @Test
    void destroyWaitsForAcknowledgementsThenSucceedsOrIsBusy() throws Exception {
        Pair p = connect(conn());
        p.b.modify(new QpAttr().qpState(QpState.SQD), QpAttrMask.STATE);
        AsyncEvent e = AsyncEventChecks.next(cb, AsyncEventType.SQ_DRAINED, "SQD");
        assertErrno(Errno.EBUSY, p.b::close, "ibv_destroy_qp with an event taken and not acknowledged");
        assertEquals(QpState.SQD, p.b.state(), "the QP is untouched by the refused destroy");
        Thread acker = Thread.ofPlatform().start(() -> {
            pause(100);
            e.ack();
        });
        p.b.close(); // waits for the other thread's acknowledgement
        acker.join();
        assertErrno(Errno.EINVAL, e::ack, "the event was acknowledged");
    }

    @Test
    void theEventsOfADestroyedQpThatWereNotTakenAreDropped() {
        Pair p = connect(conn());
        p.b.modify(new QpAttr().qpState(QpState.SQD), QpAttrMask.STATE);
        pause(20);
        p.b.close();
        AsyncEventChecks.none(cb, 20, "SQ_DRAINED of a destroyed QP");
    }

    @Test
    void closingTheContextEndsABlockedTakeWithEnodev() throws Exception {
        Context extra = fixture().openFirst();
        AtomicReference<Throwable> got = new AtomicReference<>();
        Thread taker = Thread.ofPlatform().start(() -> {
            try {
                extra.getAsyncEvent();
            } catch (Throwable t) {
                got.set(t);
            }
        });
        pause(50);
        extra.close();
        taker.join(LIVENESS_NS / 1_000_000);
        assertTrue(got.get() instanceof VerbsException v && v.errno() == Errno.ENODEV,
                "a take blocked in a closed context: " + got.get());
        assertErrno(Errno.ENODEV, () -> extra.getAsyncEvent(0, TimeUnit.MILLISECONDS), "take on a closed context");
    }

    @Test
    void modifyToErrRaisesNothingOnAQpWithoutAnSrq() {
        QpInitAttr ia = initAttr(track(ca.createCq(4, null)), track(ca.createCq(4, null)), conn());
        QueuePair q = track(track(ca.allocPd()).createQp(ia));
        toInit(q, QpType.RC, 0);
        q.modify(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE);
        AsyncEventChecks.none(ca, 20, "an error the application caused (modify to ERR) raises nothing on a QP without an SRQ");
    }
}
