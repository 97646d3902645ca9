package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.wire.Aeth;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.verbs.*;
import org.jrdma.verbs.ext.HardwareCounters;
import org.junit.jupiter.api.Test;

/**
 * SEND with Invalidate on the wire and hostile IETHs, packet by packet against a {@link ScriptedPeer}:
 * jrdma's requester puts the rkey in an IETH right after the BTH of the last packet (IBTA Vol 1 table
 * 38, §9.3.8); jrdma's responder never lets an IETH invalidate what the QP may not invalidate (an
 * unknown key, a region's key, a window of another PD or bound to another QP), answers as rxe does
 * (class J: ACK, receive REM_INV_REQ_ERR, QP to ERR) and the window keeps working for its own QP.
 * No packaged Linux tool sends SEND_WITH_INV or binds windows, so this is jrdma against the spec.
 */
class MemoryWindowWireTest {
    private static final int PEER_QPN = 0x4343;
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;

    private static QueuePair rcQp(ProtectionDomain pd, CompletionQueue cq) {
        QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
        ia.cap().maxSendWr(16).maxRecvWr(16).maxSendSge(2).maxRecvSge(2);
        return pd.createQp(ia);
    }

    private static void connect(QueuePair q, int destQpn, Gid peerGid, int sq, int rq) {
        q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(ALL & ~AccessFlags.LOCAL_WRITE),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(destQpn).rqPsn(rq)
                .maxDestRdAtomic(16).minRnrTimer(1);
        rtr.ahAttr().isGlobal(true).portNum(1).grh().dgid(peerGid);
        q.modify(rtr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN
                | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sq).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(16),
                QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                        | QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    private static WorkCompletion poll(CompletionQueue cq, long ms) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.onSpinWait();
        }
        return new WorkCompletion().copyFrom(wc[0]);
    }

    private static void awaitState(QueuePair q, QpState s) {
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (q.state() != s && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(s, q.state(), q.toString());
    }

    private static String devices(int r, String tag) {
        System.setProperty("jrdma.devices", tag + r + "=127.96." + r + ".1");
        return tag + r;
    }

    @Test
    void theRequesterPutsTheRkeyInAnIethAfterTheBthOfTheLastPacket() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = devices(r, "iw");
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.96." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.96." + r + ".1", qp.qpNum());
            connect(qp, PEER_QPN, peer.gid, 1, 100);
            MemorySegment m = arena.allocate(4096);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE);
            qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_INV).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(m.address(), 100, mr.lkey())).invalidateRkey(0x12345678));
            ScriptedPeer.Packet only = peer.receive(2000);
            assertNotNull(only);
            assertEquals(0x17, only.opcode(), "RC SEND Only with Invalidate");
            assertEquals(0x12345678, peer.lastWord(12), "IETH R_Key, big-endian, right after the 12-byte BTH");
            assertEquals(12 + 4 + 100 + 4, only.length(), "BTH + IETH + payload + ICRC");
            peer.acknowledge(1, Aeth.ACK_UNLIMITED, 1);
            WorkCompletion s = poll(cq, 2000);
            assertNotNull(s);
            assertEquals(WcStatus.SUCCESS, s.status(), s.toString());
            assertEquals(WcOpcode.SEND, s.opcode());
            // 2500 bytes at MTU 1024: SEND First (0x00), Middle (0x01), Last with Invalidate (0x16)
            qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_INV).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(m.address(), 2500, mr.lkey())).invalidateRkey(0xCAFEBABE));
            int[] expect = {0x00, 0x01, 0x16};
            int[] length = {12 + 1024 + 4, 12 + 1024 + 4, 12 + 4 + 452 + 4};
            for (int i = 0; i < 3; i++) {
                ScriptedPeer.Packet pk = peer.receive(2000);
                while (pk != null && pk.psn() == 1) {
                    pk = peer.receive(2000); // a resend of the first SEND from before its ACK arrived
                }
                assertNotNull(pk, "packet " + i);
                assertEquals(expect[i], pk.opcode(), "packet " + i + ": " + pk);
                assertEquals(2 + i, pk.psn());
                assertEquals(length[i], pk.length(), "packet " + i + ": only the last carries the IETH");
            }
            assertEquals(0xCAFEBABE, peer.lastWord(12), "the Last packet's IETH");
        }
    }

    /**
     * Hostile SEND Only with Invalidate packets: an unknown key, a region's key, a type 2 window of
     * another PD, a type 2 window bound to another QP of the same PD. Each is placed and acknowledged,
     * its receive completes REM_INV_REQ_ERR and the QP moves to ERR (rxe class J); no window is
     * invalidated: both still accept WRITEs through the QPs they are bound to.
     */
    @Test
    void hostileIethsInvalidateNothing() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = devices(r, "ih");
        String peerAddr = "127.96." + r + ".2", ownerAddr = "127.96." + r + ".3";
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer owner = new ScriptedPeer(ownerAddr, PEER_QPN + 1)) {
            ProtectionDomain pd = c.allocPd(), pd2 = c.allocPd();
            CompletionQueue cq = c.createCq(64, null);
            MemorySegment m = arena.allocate(1 << 16, 4096);
            MemoryRegion mr = pd.regMr(m, ALL | AccessFlags.MW_BIND);
            MemorySegment m2 = arena.allocate(1 << 16, 4096);
            MemoryRegion mr2 = pd2.regMr(m2, ALL | AccessFlags.MW_BIND);
            // the windows' owners: QPs connected to the scripted "owner" peer; binds are local, no packets
            QueuePair own = rcQp(pd, cq), own2 = rcQp(pd2, cq);
            connect(own, PEER_QPN + 1, owner.gid, 1, 500);
            connect(own2, PEER_QPN + 1, owner.gid, 1, 700);
            MemoryWindow w = pd.allocMw(MwType.TYPE_2), w2 = pd2.allocMw(MwType.TYPE_2);
            int k = SendWr.incRkey(w.rkey()), k2 = SendWr.incRkey(w2.rkey());
            own.postSend(new SendWr().wrId(1).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bindMw(w, k, new MwBindInfo().set(mr, m.address(), 4096, AccessFlags.REMOTE_WRITE)));
            own2.postSend(new SendWr().wrId(2).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bindMw(w2, k2, new MwBindInfo().set(mr2, m2.address(), 4096, AccessFlags.REMOTE_WRITE)));
            for (int i = 0; i < 2; i++) {
                WorkCompletion b = poll(cq, 2000);
                assertNotNull(b);
                assertEquals(WcStatus.SUCCESS, b.status(), b.toString());
            }
            int[] hostile = {ThreadLocalRandom.current().nextInt() | 1, mr.rkey(), k2, k};
            String[] what = {"an unknown key", "a region's rkey", "a window of another PD", "a window bound to another QP"};
            HardwareCounters hc = c.extension(HardwareCounters.class).orElseThrow();
            for (int i = 0; i < hostile.length; i++) {
                try (ScriptedPeer peer = new ScriptedPeer(peerAddr, PEER_QPN)) {
                    QueuePair victim = rcQp(pd, cq);
                    peer.talkTo("127.96." + r + ".1", victim.qpNum());
                    connect(victim, PEER_QPN, peer.gid, 1, 100);
                    MemoryRegion rb = pd.regMr(arena.allocate(4096), AccessFlags.LOCAL_WRITE);
                    victim.postRecv(new RecvWr().wrId(10 + i).sgList(new Sge(rb.addr(), 4096, rb.lkey())));
                    peer.sendOnlyWithInvalidate(100, hostile[i], new byte[] {1, 2, 3, 4, 5});
                    ScriptedPeer.Packet ack = peer.receive(2000);
                    assertNotNull(ack, what[i] + ": acknowledged");
                    assertEquals(Opcode.RC_ACKNOWLEDGE, ack.opcode(), what[i] + ": " + ack);
                    assertTrue(Aeth.isAck(ack.syndrome()), what[i] + ": an ACK, as rxe (class J): " + ack);
                    assertEquals(100, ack.psn());
                    WorkCompletion rc = poll(cq, 2000);
                    assertNotNull(rc, what[i]);
                    assertEquals(10 + i, rc.wrId());
                    assertEquals(WcStatus.REM_INV_REQ_ERR, rc.status(), what[i] + ": " + rc);
                    awaitState(victim, QpState.ERR);
                    victim.close();
                    rb.close();
                }
            }
            // both windows still work through their own QPs: the owner writes through them
            owner.talkTo("127.96." + r + ".1", own.qpNum());
            owner.writeOnly(500, m.address() + 8, k, new byte[] {9, 9, 9, 9});
            ScriptedPeer.Packet a1 = owner.receive(2000);
            assertNotNull(a1);
            assertTrue(Aeth.isAck(a1.syndrome()), "WRITE through the type 2 window after the hostile IETHs: " + a1);
            assertEquals(9, m.get(ValueLayout.JAVA_BYTE, 8));
            owner.talkTo("127.96." + r + ".1", own2.qpNum());
            owner.writeOnly(700, m2.address(), k2, new byte[] {7, 7, 7, 7});
            ScriptedPeer.Packet a2 = owner.receive(2000);
            assertNotNull(a2);
            assertTrue(Aeth.isAck(a2.syndrome()), "WRITE through the other PD's window: " + a2);
            assertEquals(7, m2.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(0, hc.get("rcvd_drop_truncated_header"));
            w.close();
            w2.close();
        }
    }

    /** A SEND Only with Invalidate cut after its BTH is dropped and counted; the QP and its receive stay. */
    @Test
    void aTruncatedIethIsDroppedAndCounted() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = devices(r, "it");
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.96." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.96." + r + ".1", qp.qpNum());
            connect(qp, PEER_QPN, peer.gid, 1, 100);
            MemoryRegion rb = pd.regMr(arena.allocate(4096), AccessFlags.LOCAL_WRITE);
            qp.postRecv(new RecvWr().wrId(1).sgList(new Sge(rb.addr(), 4096, rb.lkey())));
            HardwareCounters hc = c.extension(HardwareCounters.class).orElseThrow();
            long before = hc.get("rcvd_drop_truncated_header");
            peer.truncated(Opcode.RC_SEND_ONLY_WITH_INVALIDATE, 100, 12); // BTH only (+ ICRC)
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (hc.get("rcvd_drop_truncated_header") == before && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(before + 1, hc.get("rcvd_drop_truncated_header"));
            assertEquals(null, poll(cq, 100), "no completion");
            assertEquals(QpState.RTS, qp.state());
            peer.sendOnlyWithInvalidate(100, 0x1234, new byte[] {1, 2, 3, 4}); // the QP still answers
            ScriptedPeer.Packet ack = peer.receive(2000);
            assertNotNull(ack);
            assertEquals(Opcode.RC_ACKNOWLEDGE, ack.opcode(), ack.toString());
        }
    }
}
