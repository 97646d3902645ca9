package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.RxeContext;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.Test;

/**
 * The retransmission timer through a device's timer wheel: among 2000 idle QPs, an RC QP whose
 * peer has gone retries on its ACK timer and ends in RETRY_EXC_ERR, no sooner than one timeout and
 * well within a second at timeout exponent 10 (4.2 ms).
 */
class DeviceTimerTest {
    @Test
    void aDeadPeerEndsInRetryExceededAmongTwoThousandIdleQps() throws Exception {
        // retry_cnt 2 (not 7, whose meaning is a device option): done after about 3 timeouts
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String a = "ta" + r, b = "tb" + r;
        System.setProperty("jrdma.devices", a + "=127.99." + r + ".1," + b + "=127.99." + r + ".2");
        try (Context ca = Verbs.getDevice(a).open(); Context cb = Verbs.getDevice(b).open(); Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(16, null), qb = cb.createCq(16, null);
            List<QueuePair> idle = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                QpInitAttr ii = new QpInitAttr().sendCq(qa).recvCq(qa).qpType(QpType.RC);
                ii.cap().maxSendWr(1).maxRecvWr(1);
                idle.add(pa.createQp(ii));
            }
            QpInitAttr ia = new QpInitAttr().sendCq(qa).recvCq(qa).qpType(QpType.RC);
            ia.cap().maxSendWr(4).maxRecvWr(4);
            QpInitAttr ib = new QpInitAttr().sendCq(qb).recvCq(qb).qpType(QpType.RC);
            ib.cap().maxSendWr(4).maxRecvWr(4);
            QueuePair qpa = pa.createQp(ia), qpb = pb.createQp(ib);
            connect(qpa, qpb, cb.queryGid(1, 0), 1, 2);
            FaultToleranceTest.connect(qpb, qpa, ca.queryGid(1, 0), 2, 1, 10);
            MemorySegment ma = arena.allocate(4096), mb = arena.allocate(4096);
            MemoryRegion ra = pa.regMr(ma, AccessFlags.LOCAL_WRITE);
            MemoryRegion rb = pb.regMr(mb, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            SendWr w = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 64, ra.lkey())).rdma(mb.address(), rb.rkey());
            qpa.postSend(w);
            assertEquals(WcStatus.SUCCESS, RcLoopbackTest.pollOne(qa).status(), "the peer is alive first");
            qpb.close(); // the peer's QP goes: its packets now find no QP, nothing is acknowledged
            long t0 = System.nanoTime();
            qpa.postSend(w.wrId(2));
            WorkCompletion[] wc = {new WorkCompletion()};
            long end = t0 + 2_000_000_000L;
            while (qa.poll(wc) == 0 && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            long elapsed = System.nanoTime() - t0;
            System.out.println("RETRY_EXC_ERR after " + elapsed / 1000 + " us (timeout 4194 us, retry_cnt 2)");
            assertEquals(WcStatus.RETRY_EXC_ERR, wc[0].status(), "after " + elapsed / 1000 + " us: " + wc[0]);
            assertEquals(2, wc[0].wrId());
            long timeout = 4096L << 10;
            assertTrue(elapsed >= timeout, "not before one ACK timeout: " + elapsed + " ns");
            assertTrue(elapsed < 1_000_000_000L, "the timers fired in time: " + elapsed + " ns");
            assertTrue(((RxeContext) ca).counters().get(Counters.COMPLETER_RETRY_ERR) >= 1);
            for (QueuePair q : idle) {
                q.close();
            }
        }
    }

    /** As {@link FaultToleranceTest#connect} with timeout exponent 10 (4.2 ms) and retry_cnt 2. */
    private static void connect(QueuePair q, QueuePair peer, Gid peerGid, int sq, int rq) {
        q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(AccessFlags.LOCAL_WRITE),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(peer.qpNum()).rqPsn(rq)
                .maxDestRdAtomic(1).minRnrTimer(1);
        rtr.ahAttr().isGlobal(true).portNum(1).grh().dgid(peerGid);
        q.modify(rtr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN
                | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sq).timeout(10).retryCnt(2).rnrRetry(7).maxRdAtomic(1),
                QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                        | QpAttrMask.MAX_QP_RD_ATOMIC);
    }
}
