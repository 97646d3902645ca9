package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.Test;

/**
 * RC FLUSH and RC ATOMIC WRITE on the wire (IBTA Vol 1 Annex A19, "Memory Placement Extensions",
 * as Linux rxe 6.2+ implements them: rxe_opcode.c, rxe_hdr.h, rxe_req.c, rxe_resp.c). The lab's
 * Linux 6.1 has neither, so the proof is a {@link ScriptedPeer}: the expected bytes are written
 * here by hand from the spec's layout (BTH 12 bytes; FETH 4: PLT bits 3-0, SEL bits 5-4; RETH 16: VA,
 * R_Key, DMA length; ATOMIC WRITE's 8-byte payload), not produced by jrdma's encoder; and the
 * responder is fed hand-built requests and must answer with an RDMA READ response Only (0x10)
 * carrying an ACK AETH and no payload.
 */
class PlacementWireTest {
    private static final int PEER_QPN = 0x4243;
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;

    private static String device(int r) {
        String name = "pw" + r;
        System.setProperty("jrdma.devices", name + "=127.94." + r + ".1");
        return name;
    }

    private static void connect(QueuePair q, Gid peerGid, int qpAccess, int sq, int rq) {
        q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(qpAccess),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(PEER_QPN).rqPsn(rq)
                .maxDestRdAtomic(16).minRnrTimer(1);
        rtr.ahAttr().isGlobal(true).portNum(1).grh().dgid(peerGid);
        q.modify(rtr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN
                | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sq).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(16),
                QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                        | QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    private static QueuePair rcQp(ProtectionDomain pd, CompletionQueue cq) {
        QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
        ia.cap().maxSendWr(16).maxRecvWr(16);
        return pd.createQp(ia);
    }

    private static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.onSpinWait();
        }
        return wc[0];
    }

    /** BTH (IBTA Vol 1 §9.2): opcode, SE/M/Pad/TVer 0, P_Key 0xFFFF, reserved, DestQP, AckReq, reserved, PSN. */
    private static ByteBuffer bth(ByteBuffer b, int opcode, int destQpn, boolean ackReq, int psn) {
        b.put((byte) opcode).put((byte) 0).putShort((short) 0xFFFF);
        b.putInt(destQpn & 0xFFFFFF);
        b.putInt((ackReq ? 0x80000000 : 0) | (psn & 0xFFFFFF));
        return b;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.position()];
        b.flip().get(a);
        return a;
    }

    @Test
    void anAtomicWriteRequestIsBthRethOfEightAndTheValueAndItsReadResponseCompletesIt() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        try (Context c = Verbs.getDevice(device(r)).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.94." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.94." + r + ".1", qp.qpNum());
            connect(qp, peer.gid, ALL, 500, 900);
            long va = 0x0000_7f12_3456_7808L;
            long value = 0x0102_0304_0506_0708L;
            qp.postSend(new SendWr().wrId(7).opcode(WrOpcode.ATOMIC_WRITE).sendFlags(SendFlags.SIGNALED)
                    .atomicWrite(va, 0x1234_5678, value));
            ScriptedPeer.Packet p = peer.receive(2000);
            assertNotNull(p, "the ATOMIC WRITE request");
            assertEquals(12 + 16 + 8 + 4, p.length(), "BTH + RETH + 8 bytes + ICRC");
            ByteBuffer want = bth(ByteBuffer.allocate(64), 0x1d, PEER_QPN, true, 500);
            want.putLong(va).putInt(0x1234_5678).putInt(8);
            want.order(ByteOrder.nativeOrder()).putLong(value); // atomic_wr's bytes as the host holds them
            assertEquals(HexFormat.of().formatHex(bytes(want)), HexFormat.of().formatHex(peer.lastBytes(36)));
            peer.readResponse(0x10, 500, new byte[0], 1);
            WorkCompletion wc = poll(cq);
            assertNotNull(wc, "completion of the ATOMIC WRITE");
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(WcOpcode.ATOMIC_WRITE, wc.opcode());
            assertEquals(7, wc.wrId());
            assertEquals(8, wc.byteLen(), "rxe: wqe->dma.length");
        }
    }

    @Test
    void aFlushRequestIsBthFethRethWithoutPayloadAndItsReadResponseCompletesIt() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        try (Context c = Verbs.getDevice(device(r)).open(); ScriptedPeer peer = new ScriptedPeer("127.94." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.94." + r + ".1", qp.qpNum());
            connect(qp, peer.gid, ALL, 0xFFFFFF, 900);
            qp.postSend(new SendWr().wrId(9).opcode(WrOpcode.FLUSH).sendFlags(SendFlags.SIGNALED)
                    .flush(0x1000_2000L, 0xCAFE_0001, 4096, SendWr.FLUSH_GLOBAL | SendWr.FLUSH_PERSISTENT, SendWr.FLUSH_MR));
            ScriptedPeer.Packet p = peer.receive(2000);
            assertNotNull(p, "the FLUSH request");
            assertEquals(12 + 4 + 16 + 4, p.length(), "BTH + FETH + RETH + ICRC, no payload");
            ByteBuffer want = bth(ByteBuffer.allocate(64), 0x1c, PEER_QPN, true, 0xFFFFFF);
            want.putInt((1 << 4) | 3); // FETH: SEL = MR (1) in bits 5-4, PLT = GLOBAL | PERSISTENT in bits 3-0
            want.putLong(0x1000_2000L).putInt(0xCAFE_0001).putInt(4096);
            assertEquals(HexFormat.of().formatHex(bytes(want)), HexFormat.of().formatHex(peer.lastBytes(32)));
            peer.readResponse(0x10, 0xFFFFFF, new byte[0], 1);
            WorkCompletion wc = poll(cq);
            assertNotNull(wc, "completion of the FLUSH");
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(WcOpcode.FLUSH, wc.opcode());
            assertEquals(9, wc.wrId());
            // the next request takes the PSN after the wrap
            qp.postSend(new SendWr().wrId(10).opcode(WrOpcode.FLUSH).sendFlags(SendFlags.SIGNALED)
                    .flush(0x1000_2000L, 0xCAFE_0001, 16, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_RANGE));
            p = peer.receive(2000);
            assertNotNull(p);
            assertEquals(0, p.psn());
            assertEquals(0x01, peer.lastBytes(16)[15], "FETH: SEL = RANGE (0), PLT = GLOBAL (1)");
        }
    }

    @Test
    void aFlushOrAtomicWriteAnsweredWithDataIsABadResponse() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        try (Context c = Verbs.getDevice(device(r)).open(); ScriptedPeer peer = new ScriptedPeer("127.94." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.94." + r + ".1", qp.qpNum());
            connect(qp, peer.gid, ALL, 10, 900);
            qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.ATOMIC_WRITE).sendFlags(SendFlags.SIGNALED)
                    .atomicWrite(0x1000, 1, 5));
            assertNotNull(peer.receive(2000));
            peer.readResponse(0x10, 10, new byte[8], 1);
            WorkCompletion wc = poll(cq);
            assertNotNull(wc);
            assertEquals(WcStatus.BAD_RESP_ERR, wc.status(), wc.toString());
        }
    }

    @Test
    void theResponderExecutesAnAtomicWriteOnceAndAnswersItAndItsDuplicateWithAReadResponseOnly() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        try (Context c = Verbs.getDevice(device(r)).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.94." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.94." + r + ".1", qp.qpNum());
            connect(qp, peer.gid, ALL, 1, 300);
            MemorySegment m = arena.allocate(4096, 4096);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            byte[] eight = {(byte) 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
            ByteBuffer req = bth(ByteBuffer.allocate(64), 0x1d, qp.qpNum(), true, 300);
            req.putLong(m.address() + 64).putInt(mr.rkey()).putInt(8).put(eight);
            byte[] request = bytes(req);
            peer.sendRaw(request);
            ScriptedPeer.Packet ans = peer.receive(2000);
            assertNotNull(ans, "the answer");
            assertEquals(0x10, ans.opcode(), "RDMA READ response Only: " + ans);
            assertEquals(300, ans.psn());
            assertEquals(12 + 4 + 4, ans.length(), "BTH + AETH + ICRC: no payload");
            assertTrue(org.jrdma.rocev2.wire.Aeth.isAck(ans.syndrome()), ans.toString());
            // RDMA READ response Only to the peer's QPN, PSN 300, AETH: ACK with credit code 31 (rxe's
            // AETH_ACK_UNLIMITED), MSN 1 (the first request this responder executed)
            ByteBuffer answer = bth(ByteBuffer.allocate(16), 0x10, PEER_QPN, false, 300).putInt(0x1f00_0001);
            assertEquals(HexFormat.of().formatHex(bytes(answer)), HexFormat.of().formatHex(peer.lastBytes(16)));
            assertArrayEquals(eight, m.asSlice(64, 8).toArray(ValueLayout.JAVA_BYTE), "the 8 bytes as they came");
            m.set(ValueLayout.JAVA_LONG, 64, 0); // a duplicate must not write again
            peer.sendRaw(request);
            ScriptedPeer.Packet again = peer.receive(2000);
            assertNotNull(again, "the duplicate is answered");
            assertEquals(0x10, again.opcode(), again.toString());
            assertEquals(300, again.psn());
            assertEquals(0, m.get(ValueLayout.JAVA_LONG, 64), "not executed twice");
            assertEquals(QpState.RTS, qp.state());
        }
    }

    @Test
    void theResponderAnswersAFlushOfAGrantedRangeAndNaksWhatTheQpOrRegionDoesNotAllow() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        try (Context c = Verbs.getDevice(device(r)).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.94." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            MemorySegment m = arena.allocate(4096, 4096);
            MemoryRegion flushable = pd.regMr(m, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.FLUSH_GLOBAL);
            MemoryRegion plain = pd.regMr(arena.allocate(4096, 4096), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);

            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.94." + r + ".1", qp.qpNum());
            connect(qp, peer.gid, ALL | AccessFlags.FLUSH_GLOBAL, 1, 40);
            peer.sendRaw(flush(qp.qpNum(), 40, 1, 0, m.address() + 100, flushable.rkey(), 200));
            ScriptedPeer.Packet ans = peer.receive(2000);
            assertNotNull(ans);
            assertEquals(0x10, ans.opcode(), ans.toString());
            assertEquals(40, ans.psn());
            assertEquals(20, ans.length());
            assertTrue(org.jrdma.rocev2.wire.Aeth.isAck(ans.syndrome()));
            // level MR: VA and length are not looked at
            peer.sendRaw(flush(qp.qpNum(), 41, 1, 1, 0, flushable.rkey(), 0));
            ans = peer.receive(2000);
            assertNotNull(ans);
            assertEquals(0x10, ans.opcode(), ans.toString());
            // a range outside the region: remote access error (NAK code 2)
            peer.sendRaw(flush(qp.qpNum(), 42, 1, 0, m.address() + 4000, flushable.rkey(), 200));
            ans = peer.receive(2000);
            assertNotNull(ans);
            assertEquals(0x11, ans.opcode(), ans.toString());
            assertEquals(0x62, ans.syndrome() & 0xff, "NAK remote access error: " + ans);
            qp.close();

            // a region without FLUSH_GLOBAL: remote access error
            QueuePair q2 = rcQp(pd, cq);
            peer.talkTo("127.94." + r + ".1", q2.qpNum());
            connect(q2, peer.gid, ALL | AccessFlags.FLUSH_GLOBAL, 1, 50);
            peer.sendRaw(flush(q2.qpNum(), 50, 1, 0, plain.addr(), plain.rkey(), 8));
            ans = peer.receive(2000);
            assertNotNull(ans);
            assertEquals(0x62, ans.syndrome() & 0xff, "NAK remote access error: " + ans);
            q2.close();

            // a QP without FLUSH_GLOBAL in its access flags: invalid request (NAK code 1)
            QueuePair q3 = rcQp(pd, cq);
            peer.talkTo("127.94." + r + ".1", q3.qpNum());
            connect(q3, peer.gid, ALL, 1, 60);
            peer.sendRaw(flush(q3.qpNum(), 60, 1, 0, m.address(), flushable.rkey(), 8));
            ans = peer.receive(2000);
            assertNotNull(ans);
            assertEquals(0x61, ans.syndrome() & 0xff, "NAK invalid request: " + ans);
            q3.close();
        }
    }

    @Test
    void aMisalignedAtomicWriteIsAnInvalidRequest() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        try (Context c = Verbs.getDevice(device(r)).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.94." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.94." + r + ".1", qp.qpNum());
            connect(qp, peer.gid, ALL, 1, 70);
            MemorySegment m = arena.allocate(4096, 4096);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            ByteBuffer req = bth(ByteBuffer.allocate(64), 0x1d, qp.qpNum(), true, 70);
            req.putLong(m.address() + 4).putInt(mr.rkey()).putInt(8).putLong(-1);
            peer.sendRaw(bytes(req));
            ScriptedPeer.Packet ans = peer.receive(2000);
            assertNotNull(ans);
            assertEquals(0x11, ans.opcode(), ans.toString());
            assertEquals(0x61, ans.syndrome() & 0xff, "NAK invalid request: " + ans);
            assertEquals(0, m.get(ValueLayout.JAVA_LONG, 0), "nothing written");
        }
    }

    /** A FLUSH request: BTH, FETH (SEL bits 5-4, PLT bits 3-0), RETH. */
    private static byte[] flush(int destQpn, int psn, int plt, int sel, long va, int rkey, int len) {
        ByteBuffer b = bth(ByteBuffer.allocate(64), 0x1c, destQpn, true, psn);
        b.putInt((sel << 4) | plt).putLong(va).putInt(rkey).putInt(len);
        return bytes(b);
    }
}
