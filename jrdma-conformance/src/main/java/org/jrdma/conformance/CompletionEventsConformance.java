package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.TimeUnit;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * CQ events: {@code ibv_req_notify_cq(3)} is one-shot; with {@code solicited_only} only a solicited
 * receive (IBTA Vol 1 §9.2.3 SE bit, §11.4.2.2) raises the event; {@code ibv_get_cq_event(3)} returns
 * the CQ; {@code ibv_ack_cq_events(3)} acknowledges.
 */
public abstract class CompletionEventsConformance extends ConformanceBase {
    private static final long EVENT_WAIT_S = 20;
    /** How long to wait for an event that must not come. */
    private static final long NO_EVENT_MS = 100;

    private Pair withChannels(CompletionChannel cha, CompletionChannel chb) {
        return connect(conn().channels(cha, chb));
    }

    @Test
    void armedCqRaisesOneEventPerArm() throws InterruptedException {
        CompletionChannel cha = track(ca.createCompChannel());
        CompletionChannel chb = track(cb.createCompChannel());
        Pair p = withChannels(cha, chb);
        SendWr send = new SendWr().opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 16));
        for (int i = 0; i < 3; i++) {
            p.b.postRecv(new RecvWr().wrId(i).sgList(sge(p.mrb, 0, 64)));
        }
        p.rqb.reqNotify(false);
        p.sqa.reqNotify(false);
        p.a.postSend(send.wrId(0));
        assertSame(p.sqa, cha.getEvent(EVENT_WAIT_S, TimeUnit.SECONDS), "event of the requester's send CQ");
        p.sqa.ackEvents(1);
        assertSame(p.rqb, chb.getEvent(EVENT_WAIT_S, TimeUnit.SECONDS), "event of the responder's receive CQ");
        p.rqb.ackEvents(1);
        expect(p.sqa, 0, WcStatus.SUCCESS, "send completion after the event");
        expect(p.rqb, 0, WcStatus.SUCCESS, "receive completion after the event");
        // not re-armed: the next completion raises nothing
        p.a.postSend(send.wrId(1));
        expect(p.rqb, 1, WcStatus.SUCCESS, "second receive");
        expect(p.sqa, 1, WcStatus.SUCCESS, "second send");
        assertNull(chb.getEvent(NO_EVENT_MS, TimeUnit.MILLISECONDS), "no event without reqNotify");
        assertNull(cha.getEvent(NO_EVENT_MS, TimeUnit.MILLISECONDS), "no event without reqNotify");
        // re-armed: one event again
        p.rqb.reqNotify(false);
        p.a.postSend(send.wrId(2));
        assertSame(p.rqb, chb.getEvent(EVENT_WAIT_S, TimeUnit.SECONDS), "event after re-arming");
        p.rqb.ackEvents(1);
        expect(p.rqb, 2, WcStatus.SUCCESS, "third receive");
    }

    @Test
    void solicitedOnlyWaitsForTheSolicitedMessage() throws InterruptedException {
        require(Feature.SOLICITED_EVENTS);
        CompletionChannel chb = track(cb.createCompChannel());
        Pair p = withChannels(null, chb);
        for (int i = 0; i < 2; i++) {
            p.b.postRecv(new RecvWr().wrId(10 + i).sgList(sge(p.mrb, 0, 64)));
        }
        p.rqb.reqNotify(true);
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 16)));
        expect(p.sqa, 1, WcStatus.SUCCESS, "unsolicited SEND");
        expect(p.rqb, 10, WcStatus.SUCCESS, "unsolicited receive");
        assertNull(chb.getEvent(NO_EVENT_MS, TimeUnit.MILLISECONDS), "an unsolicited receive raises no solicited-only event");
        p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED)
                .sgList(sge(p.mra, 0, 16)));
        CompletionQueue fired = chb.getEvent(EVENT_WAIT_S, TimeUnit.SECONDS);
        assertSame(p.rqb, fired, "the solicited receive raises the event");
        p.rqb.ackEvents(1);
        expect(p.rqb, 11, WcStatus.SUCCESS, "solicited receive");
        expect(p.sqa, 2, WcStatus.SUCCESS, "solicited SEND");
    }

    @Test
    void solicitedWriteWithImmRaisesTheEvent() throws InterruptedException {
        require(Feature.SOLICITED_EVENTS);
        require(Feature.IMMEDIATE);
        CompletionChannel chb = track(cb.createCompChannel());
        Pair p = withChannels(null, chb);
        p.b.postRecv(new RecvWr().wrId(10).sgList(sge(p.mrb, 0, 64)));
        p.rqb.reqNotify(true);
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(3)
                .sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED).sgList(sge(p.mra, 0, 16))
                .rdma(p.mrb.addr() + 4096, p.mrb.rkey()));
        assertSame(p.rqb, chb.getEvent(EVENT_WAIT_S, TimeUnit.SECONDS), "solicited WRITE_WITH_IMM raises the event");
        p.rqb.ackEvents(1);
        expect(p.rqb, 10, WcStatus.SUCCESS, "RECV_RDMA_WITH_IMM");
    }

    @Test
    void errorCompletionRaisesASolicitedOnlyEvent() throws InterruptedException {
        require(Feature.SOLICITED_EVENTS);
        CompletionChannel cha = track(ca.createCompChannel());
        Pair p = withChannels(cha, null);
        p.a.postRecv(new RecvWr().wrId(5).sgList(sge(p.mra, 0, 64)));
        p.rqa.reqNotify(true);
        // an error moves A to ERR, which flushes A's receive: an error completion on a solicited-only CQ
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).rdma(p.mrb.addr(), p.mrb.rkey() ^ 0x00A5A500));
        expect(p.sqa, 1, WcStatus.REM_ACCESS_ERR, "failing WRITE");
        assertSame(p.rqa, cha.getEvent(EVENT_WAIT_S, TimeUnit.SECONDS), "the flushed receive raises the event");
        p.rqa.ackEvents(1);
        expect(p.rqa, 5, WcStatus.WR_FLUSH_ERR, "flushed receive");
    }
}
