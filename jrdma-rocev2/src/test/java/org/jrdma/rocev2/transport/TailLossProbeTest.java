package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.RxeContext;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.Aeth;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.Test;

/**
 * Loss recovery without the ACK timer (issue 14): when the ACK of the last request is lost, no
 * later packet makes the responder NAK, and go-back-N would wait for the ACK timeout; the
 * tail-loss probe sends the last packet again, with AckReq, after a few round trips, and the
 * responder's ACK of the duplicate (what rxe's {@code duplicate_request} sends) completes the WQE.
 * A scripted peer plays the responder and loses the ACK.
 */
class TailLossProbeTest {
    private static final int PEER_QPN = 0x4343;

    @Test
    void theLastRequestIsSentAgainLongBeforeTheAckTimeoutWhenItsAckIsLost() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = "tlp" + r;
        System.setProperty("jrdma.devices", dev + "=127.96." + r + ".1");
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.96." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
            ia.cap().maxSendWr(16).maxRecvWr(16);
            QueuePair qp = pd.createQp(ia);
            peer.talkTo("127.96." + r + ".1", qp.qpNum());
            int timeout = 18; // 4.096 µs × 2^18 = 1.07 s
            qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(AccessFlags.LOCAL_WRITE),
                    QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
            QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(PEER_QPN).rqPsn(1)
                    .maxDestRdAtomic(1).minRnrTimer(1);
            rtr.ahAttr().isGlobal(true).portNum(1).grh().dgid(peer.gid);
            qp.modify(rtr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
                    | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
            qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(1).timeout(timeout).retryCnt(7).rnrRetry(7).maxRdAtomic(1),
                    QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT
                            | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
            MemorySegment m = arena.allocate(4096);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE);
            Counters cnt = ((RxeContext) c).counters();
            // a first SEND, answered: a round trip is measured
            qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(m.address(), 16, mr.lkey())));
            ScriptedPeer.Packet p1 = peer.receive(2000);
            assertNotNull(p1, "the first SEND");
            assertEquals(1, p1.psn());
            peer.acknowledge(1, Aeth.ACK_UNLIMITED, 1);
            assertEquals(WcStatus.SUCCESS, RcLoopbackTest.pollOne(cq).status());
            // the second SEND's ACK is lost
            qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(m.address(), 16, mr.lkey())));
            ScriptedPeer.Packet p2 = peer.receive(2000);
            assertNotNull(p2, "the second SEND");
            assertEquals(2, p2.psn());
            ScriptedPeer.Packet probe = peer.receive(2000);
            assertNotNull(probe, "the probe");
            long after = probe.at() - p2.at();
            assertEquals(Opcode.RC_SEND_ONLY, probe.opcode(), probe.toString());
            assertEquals(2, probe.psn(), "the last packet, again");
            assertTrue(probe.ackReq(), "with AckReq");
            assertTrue(after < (4096L << timeout) * 3 / 4, "before the ACK timeout: after " + after / 1000 + " µs");
            assertEquals(1, cnt.get(Counters.TAIL_LOSS_PROBES));
            assertEquals(0, cnt.get(Counters.RETRANSMITS), "a probe is no retry (retry_cnt is untouched)");
            peer.acknowledge(2, Aeth.ACK_UNLIMITED, 2); // the duplicate's ACK
            WorkCompletion w = RcLoopbackTest.pollOne(cq);
            assertEquals(WcStatus.SUCCESS, w.status());
            assertEquals(2, w.wrId());
        }
    }
}
