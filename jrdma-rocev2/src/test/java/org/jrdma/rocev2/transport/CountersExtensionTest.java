package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.RxeContext;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.jrdma.verbs.ext.HardwareCounters;
import org.jrdma.verbs.ext.ResourceCounts;
import org.junit.jupiter.api.Test;

/**
 * The device's counters as an application reads them, through {@code Context.extension} alone: rxe's
 * hw_counters names (drivers/infiniband/sw/rxe/rxe_hw_counters.c) first, then jrdma's, the same list
 * {@code jrdma stat} prints; sent_pkts and rcvd_pkts move with the packets of an RC WRITE.
 */
class CountersExtensionTest {
    static final List<String> RXE = List.of("sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request",
            "rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err",
            "retry_rnr_exceeded_err", "completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs");

    static QpInitAttr rc(CompletionQueue cq) {
        QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
        ia.cap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1);
        return ia;
    }

    static WorkCompletion pollOne(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within 5 s");
            }
            Thread.onSpinWait();
        }
        return wc[0];
    }

    @Test
    void anApplicationReadsRxesCountersThroughTheApi() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        System.setProperty("jrdma.devices", "xa=127.89." + r + ".1,xb=127.89." + r + ".2");
        try (Context ca = Verbs.getDevice("xa").open(); Context cb = Verbs.getDevice("xb").open();
             Arena arena = Arena.ofShared()) {
            HardwareCounters ha = ca.extension(HardwareCounters.class).orElseThrow();
            HardwareCounters hb = cb.extension(HardwareCounters.class).orElseThrow();
            assertEquals(RXE, ha.names().subList(0, RXE.size()));
            assertEquals(Counters.COUNT, ha.names().size());
            for (int i = 0; i < Counters.COUNT; i++) {
                assertEquals(Counters.name(i), ha.names().get(i), "what jrdma stat prints for counter " + i);
            }
            assertSame(((RxeContext) ca).counters(), ha, "the device's own counters, not a copy");
            assertTrue(ca.extension(ResourceCounts.class).isPresent());

            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(64, null), qb = cb.createCq(64, null);
            QueuePair[] qp = {pa.createQp(rc(qa)), pb.createQp(rc(qb))};
            RcLoopbackTest.up(qp[0], qp[1], cb.queryGid(1, 0), Mtu.MTU_1024, 100, 200);
            RcLoopbackTest.up(qp[1], qp[0], ca.queryGid(1, 0), Mtu.MTU_1024, 200, 100);
            MemorySegment ma = arena.allocate(65536, 4096), mb = arena.allocate(65536, 4096);
            MemoryRegion ra = pa.regMr(ma, AccessFlags.LOCAL_WRITE);
            MemoryRegion rb = pb.regMr(mb, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            long aSent = ha.get("sent_pkts"), aRcvd = ha.get("rcvd_pkts"), aProbes = ha.get("tail_loss_probes");
            long bSent = hb.get("sent_pkts"), bRcvd = hb.get("rcvd_pkts");
            // 10 WRITEs of 3000 B at MTU 1024: 3 packets each (First, Middle, Last with AckReq), one ACK each
            for (int i = 0; i < 10; i++) {
                qp[0].postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                        .sgList(new Sge(ma.address(), 3000, ra.lkey())).rdma(mb.address(), rb.rkey()));
                assertEquals(WcStatus.SUCCESS, pollOne(qa).status());
            }
            // a tail-loss probe (issue 14) repeats a packet when an ACK is late (a thread stalled on a loaded
            // machine): counted in sent_pkts and the responder's rcvd_pkts, and on its own in tail_loss_probes
            // a probe sent just before the last completion, and its ACK, may still be in flight: wait (bounded)
            // until each side has received every packet the other sent
            long settle = System.nanoTime() + 2_000_000_000L;
            while ((hb.get("rcvd_pkts") - bRcvd < ha.get("sent_pkts") - aSent
                    || ha.get("rcvd_pkts") - aRcvd < hb.get("sent_pkts") - bSent) && System.nanoTime() < settle) {
                Thread.onSpinWait();
            }
            long probes = ha.get("tail_loss_probes") - aProbes;
            assertEquals(30, ha.get("sent_pkts") - aSent - probes, "requester's sent_pkts, probes apart");
            assertEquals(30, hb.get("rcvd_pkts") - bRcvd - probes, "responder's rcvd_pkts, probes apart");
            assertEquals(hb.get("sent_pkts") - bSent, ha.get("rcvd_pkts") - aRcvd, "ACKs sent = ACKs received");
            assertTrue(hb.get("sent_pkts") - bSent >= 10, "at least one ACK per WRITE");
            qp[0].close();
            qp[1].close();
            ra.close();
            rb.close();
            qa.close();
            qb.close();
            pa.close();
            pb.close();
        }
    }
}
