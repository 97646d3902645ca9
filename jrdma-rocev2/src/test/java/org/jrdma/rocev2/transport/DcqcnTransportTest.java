package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.RxeContext;
import org.jrdma.rocev2.net.UdpSocket;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.Aeth;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.soft.SoftQp;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * DCQCN in the transport (issue 16), against a scripted peer on loopback: the notification point
 * answers CE-marked packets with CNPs (Annex A17.9.2), at most one per interval per QP; the reaction
 * point takes CNPs for an RC QP and cuts its rate (F1: the first CNP at α = 1 halves it), and the
 * requester then sends no faster than the rate; with DCQCN off CNPs are counted as ignored; with ECN
 * off packets leave with TOS 0 (as rxe) and CE is not looked at. The oracles are the spec's CNP
 * layout, the paper's first cut and the rate itself (a packet train can take no less time than its
 * bytes at the line rate once it is paced).
 */
class DcqcnTransportTest {
    private static final int PEER_QPN = 0x5151;
    private final List<String> props = new ArrayList<>();

    private void set(String key, String value) {
        System.setProperty(key, value);
        props.add(key);
    }

    @AfterEach
    void clear() {
        props.forEach(System::clearProperty);
    }

    /** A device on 127.97.r.1 with the given per-device options; its peer is 127.97.r.2. */
    private String device(int r, String... options) {
        String dev = "dq" + r;
        System.setProperty("jrdma.devices", dev + "=127.97." + r + ".1");
        for (int i = 0; i < options.length; i += 2) {
            set("jrdma." + options[i] + "." + dev, options[i + 1]);
        }
        return dev;
    }

    private static QueuePair rcQp(Context c, ProtectionDomain pd, CompletionQueue cq, ScriptedPeer peer, int r) {
        QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
        ia.cap().maxSendWr(64).maxRecvWr(64);
        QueuePair qp = pd.createQp(ia);
        peer.talkTo("127.97." + r + ".1", qp.qpNum());
        int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(all),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(PEER_QPN).rqPsn(1)
                .maxDestRdAtomic(1).minRnrTimer(1);
        rtr.ahAttr().isGlobal(true).portNum(1).grh().dgid(peer.gid);
        qp.modify(rtr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
                | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(1).timeout(18).retryCnt(7).rnrRetry(7).maxRdAtomic(1),
                QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT
                        | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
        return qp;
    }

    private static RxeQp transport(QueuePair qp) {
        return (RxeQp) ((SoftQp) qp).transport();
    }

    private static void await(Counters c, int id, long value) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (c.get(id) < value) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(Counters.name(id) + " stayed at " + c.get(id) + ": " + c);
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void ceMarkedRequestsGetOneCnpPerIntervalToTheSendersQp() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = device(r, "cnpMicros", "1000000"); // 1 s: every packet below is within one interval
        UdpSocket.Options ce = UdpSocket.Options.defaults().trafficClass(0x03).receiveTrafficClass(true);
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.97." + r + ".2", PEER_QPN, ce)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            rcQp(c, pd, cq, peer, r);
            MemorySegment m = arena.allocate(4096);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            Counters cnt = ((RxeContext) c).counters();
            for (int psn = 1; psn <= 3; psn++) {
                peer.writeOnly(psn, m.address(), mr.rkey(), new byte[64]);
            }
            int cnps = 0;
            int acks = 0;
            long deadline = System.nanoTime() + 3_000_000_000L;
            while (acks < 3 && System.nanoTime() < deadline) {
                ScriptedPeer.Packet p = peer.receive(500);
                if (p == null) {
                    continue;
                }
                assertEquals(0x02, peer.lastTrafficClass(), "every packet jrdma sends is ECT(0): " + p);
                if (p.opcode() == Opcode.CNP) {
                    cnps++;
                    assertEquals(PEER_QPN, p.destQpn(), "to the QP that sent the marked packets");
                    assertEquals(32, p.length(), "BTH, 16 reserved bytes, ICRC");
                    byte[] b = peer.lastBytes(28);
                    assertEquals(0x40, b[4] & 0xff, "BECN set, FECN clear");
                    assertEquals(0, p.psn());
                } else if (p.opcode() == Opcode.RC_ACKNOWLEDGE) {
                    acks += p.psn() - acks; // a coalesced ACK covers the ones before it
                }
            }
            assertEquals(3, acks, "the writes were executed and acknowledged");
            assertEquals(1, cnps, "one CNP within the interval");
            assertEquals(3, cnt.get(Counters.NP_ECN_MARKED_ROCE_PACKETS));
            assertEquals(1, cnt.get(Counters.NP_CNP_SENT));
        }
    }

    @Test
    void withEcnOffPacketsCarryTos0AndCeIsNotAnswered() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = device(r, "ecn", "false");
        UdpSocket.Options ce = UdpSocket.Options.defaults().trafficClass(0x03).receiveTrafficClass(true);
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.97." + r + ".2", PEER_QPN, ce)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            rcQp(c, pd, cq, peer, r);
            MemorySegment m = arena.allocate(4096);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            peer.writeOnly(1, m.address(), mr.rkey(), new byte[64]);
            ScriptedPeer.Packet p = peer.receive(3000);
            assertNotNull(p);
            assertEquals(Opcode.RC_ACKNOWLEDGE, p.opcode(), "no CNP: " + p);
            assertEquals(0, peer.lastTrafficClass(), "TOS 0, as Linux rxe sends");
            Counters cnt = ((RxeContext) c).counters();
            assertEquals(0, cnt.get(Counters.NP_ECN_MARKED_ROCE_PACKETS));
            assertEquals(0, cnt.get(Counters.NP_CNP_SENT));
        }
    }

    @Test
    void aCnpHalvesTheRateAndTheRequesterIsPacedToIt() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = device(r, "dcqcn", "paper", "lineGbps", "1");
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.97." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(c, pd, cq, peer, r);
            RxeQp t = transport(qp);
            assertEquals(1e9, t.dcqcnRateBps(), "line rate before any CNP");
            Counters cnt = ((RxeContext) c).counters();
            peer.cnp();
            await(cnt, Counters.RP_CNP_HANDLED, 1);
            // F1: the first CNP at α = 1 cuts RC to RC·(1 − α/2), half the line rate
            assertEquals(0.5e9, t.dcqcnRateBps(), 1e-3);
            int packets = 64;
            int bytes = packets * 1024;
            MemorySegment m = arena.allocate(bytes);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE);
            qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(m.address(), bytes, mr.lkey())).rdma(0x1000, 0x77));
            long first = 0, last = 0;
            for (int i = 0; i < packets; i++) {
                ScriptedPeer.Packet p = peer.receive(3000);
                assertNotNull(p, "packet " + i + " of " + packets + ": " + cnt);
                assertEquals(1 + i, p.psn());
                if (i == 0) {
                    first = p.at();
                }
                last = p.at();
            }
            // the rate never exceeds the line rate (it recovers towards it): the packets after the
            // first take at least their wire time at 1 Gbit/s, less the pacer's burst allowance
            long wire = (long) ((packets - 1) * (1024 + 28 + 4 + 48) * 8 / 1e9 * 1e9);
            long span = last - first;
            assertTrue(span >= wire - 2 * RxeQp.PACE_BURST_NANOS, "64 packets in " + span / 1000 + " µs, "
                    + "their wire time at the line rate is " + wire / 1000 + " µs");
            assertTrue(t.dcqcnRateBps() > 0.5e9, "the rate recovers (fast recovery every 55 µs)");
            peer.acknowledge(packets, Aeth.ACK_UNLIMITED, 1);
            assertEquals(WcStatus.SUCCESS, RcLoopbackTest.pollOne(cq).status());
        }
    }

    @Test
    void withDcqcnOffCnpsAreCountedAsIgnoredAndTheRateStays() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = device(r, "dcqcn", "off");
        try (Context c = Verbs.getDevice(dev).open(); ScriptedPeer peer = new ScriptedPeer("127.97." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(c, pd, cq, peer, r);
            Counters cnt = ((RxeContext) c).counters();
            peer.cnp();
            peer.cnp();
            await(cnt, Counters.RP_CNP_IGNORED, 2);
            assertEquals(0, cnt.get(Counters.RP_CNP_HANDLED));
            assertEquals(100e9, transport(qp).dcqcnRateBps(), "the default line rate, unchanged");
            assertEquals(0, cnt.get(Counters.RCVD_DROP_WRONG_TRANSPORT), "a CNP is no packet of another transport");
        }
    }

    @Test
    void theNvidiaSetIsTheDefaultAndItsFirstCutIsCappedAtHalf() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = device(r);
        try (Context c = Verbs.getDevice(dev).open(); ScriptedPeer peer = new ScriptedPeer("127.97." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(c, pd, cq, peer, r);
            Counters cnt = ((RxeContext) c).counters();
            peer.cnp();
            await(cnt, Counters.RP_CNP_HANDLED, 1);
            org.jrdma.congestion.DcqcnReactionPoint rp = transport(qp).reactionPoint();
            assertEquals("nvidia", rp.parameters().name(), "mlx5's firmware set by default");
            assertEquals(1, rp.cnpHandled());
            assertEquals(1, rp.rateCuts(), "the first CNP cuts at once");
            // firmware: α set to 1023/1024 at the first CNP, the cut min(α/2, rpg_min_dec_fac 50 %);
            // the increase timer (300 µs) may have raised it since
            double cut = 100e9 * (1 - 1023.0 / 1024 / 2);
            double got = transport(qp).dcqcnRateBps();
            assertTrue(got >= cut - 1, "rate " + got + ", the first cut gives " + cut);
        }
    }
}
