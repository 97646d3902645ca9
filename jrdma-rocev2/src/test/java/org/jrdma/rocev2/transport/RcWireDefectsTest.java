package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.wire.Aeth;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.Test;

/**
 * RC wire behaviour found wrong by trying jrdma against rxe's and rdma-core's public bug history
 * (issue 9, point 9). Each test drives one jrdma QP against a {@link ScriptedPeer} (or a second
 * jrdma device) and checks the packets and completions IBTA Vol 1 chapter 9 and rxe prescribe.
 */
class RcWireDefectsTest {
    private static final int PEER_QPN = 0x4242;

    /** A jrdma device at 127.95.R.1 and a scripted peer at 127.95.R.2; returns the device name. */
    private static String device(int r, String tag) {
        String name = tag + r;
        System.setProperty("jrdma.devices", name + "=127.95." + r + ".1");
        return name;
    }

    private static void connect(QueuePair q, int destQpn, Gid peerGid, int sq, int rq, int timeout, int retryCnt,
                                int rnrRetry) {
        int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
        q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(all),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(destQpn).rqPsn(rq)
                .maxDestRdAtomic(16).minRnrTimer(1);
        rtr.ahAttr().isGlobal(true).portNum(1).grh().dgid(peerGid);
        q.modify(rtr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN
                | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sq).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry)
                        .maxRdAtomic(16),
                QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                        | QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    private static QueuePair rcQp(ProtectionDomain pd, CompletionQueue cq) {
        QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
        ia.cap().maxSendWr(16).maxRecvWr(16);
        return pd.createQp(ia);
    }

    private static WorkCompletion poll(CompletionQueue cq, long timeoutMillis) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.onSpinWait();
        }
        return wc[0];
    }

    /** The next request packet of {@code opcode} and {@code psn}, skipping others, within {@code ms}. */
    private static ScriptedPeer.Packet await(ScriptedPeer peer, int opcode, int psn, long ms, List<ScriptedPeer.Packet> seen) {
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (true) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            ScriptedPeer.Packet p = left <= 0 ? null : peer.receive(left);
            if (p == null) {
                return null;
            }
            seen.add(p);
            if (p.opcode() == opcode && p.psn() == psn) {
                return p;
            }
        }
    }

    /**
     * IBTA Vol 1 §9.7.5.1.3 (C9-115 ff.): an ACK for a PSN after an outstanding RDMA READ means the
     * READ's response was lost (implied NAK); the requester re-requests the READ at once. With ACK
     * timeout 0 there is no timer to fall back on, so waiting for it hangs the QP for ever.
     */
    @Test
    void anAckPastAnOutstandingReadRetriesTheReadAtOnceEvenWithoutATimer() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = device(r, "ia");
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.95." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.95." + r + ".1", qp.qpNum());
            connect(qp, PEER_QPN, peer.gid, 1000, 5000, 0, 7, 7);
            MemorySegment m = arena.allocate(4096);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE);
            qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(m.address(), 64, mr.lkey())).rdma(0x10000, 0x77));
            qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(m.address() + 1024, 8, mr.lkey())));
            List<ScriptedPeer.Packet> seen = new ArrayList<>();
            assertNotNull(await(peer, Opcode.RC_RDMA_READ_REQUEST, 1000, 2000, seen), "READ request: " + seen);
            assertNotNull(await(peer, Opcode.RC_SEND_ONLY, 1001, 2000, seen), "SEND: " + seen);
            // the READ response is "lost"; the SEND's ACK arrives
            peer.acknowledge(1001, Aeth.ackSyndrome(Aeth.CREDIT_COUNT_INVALID), 2);
            seen.clear();
            ScriptedPeer.Packet again = await(peer, Opcode.RC_RDMA_READ_REQUEST, 1000, 1000, seen);
            assertNotNull(again, "the READ is re-requested at once after an ACK that passes it (seen " + seen + ")");
            byte[] data = new byte[64];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i * 7 + 3);
            }
            peer.readResponse(Opcode.RC_RDMA_READ_RESPONSE_ONLY, 1000, data, 1);
            peer.acknowledge(1001, Aeth.ackSyndrome(Aeth.CREDIT_COUNT_INVALID), 2);
            WorkCompletion w1 = poll(cq, 2000);
            assertNotNull(w1, "READ completes");
            assertEquals(1, w1.wrId());
            assertEquals(WcStatus.SUCCESS, w1.status(), w1.toString());
            assertArrayEquals(data, m.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE));
            WorkCompletion w2 = poll(cq, 2000);
            assertNotNull(w2, "SEND completes");
            assertEquals(2, w2.wrId());
            assertEquals(WcStatus.SUCCESS, w2.status(), w2.toString());
        }
    }

    /**
     * rxe after "IB/rxe: fix for duplicate request processing and ack psns": a duplicate SEND or WRITE
     * is acknowledged with the last PSN the responder acknowledged (the PSN before its {@code ack_psn}),
     * never with the last PSN of a later RDMA READ, whose responses acknowledge it on their own.
     */
    @Test
    void theAckOfADuplicateWriteCarriesTheLastAcknowledgedPsnNotThatOfALaterRead() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = device(r, "ib");
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.95." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.95." + r + ".1", qp.qpNum());
            connect(qp, PEER_QPN, peer.gid, 1, 100, 14, 7, 7);
            MemorySegment m = arena.allocate(8192);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            peer.writeOnly(100, m.address(), mr.rkey(), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            ScriptedPeer.Packet ack = peer.receive(2000);
            assertNotNull(ack, "ACK of the WRITE");
            assertEquals(Opcode.RC_ACKNOWLEDGE, ack.opcode());
            assertEquals(100, ack.psn());
            peer.readRequest(101, m.address() + 4096, mr.rkey(), 3000); // 3 responses: PSNs 101..103
            List<ScriptedPeer.Packet> seen = new ArrayList<>();
            assertNotNull(await(peer, Opcode.RC_RDMA_READ_RESPONSE_LAST, 103, 2000, seen), "READ responses: " + seen);
            peer.writeOnly(100, m.address(), mr.rkey(), new byte[] {1, 2, 3, 4, 5, 6, 7, 8}); // a duplicate
            ScriptedPeer.Packet dupAck = peer.receive(2000);
            assertNotNull(dupAck, "a duplicate is acknowledged");
            assertEquals(Opcode.RC_ACKNOWLEDGE, dupAck.opcode(), dupAck.toString());
            assertTrue(Aeth.isAck(dupAck.syndrome()), dupAck.toString());
            assertEquals(100, dupAck.psn(), "the duplicate's ACK carries the last acknowledged PSN (rxe's ack_psn - 1)");
            assertEquals(QpState.RTS, qp.state());
        }
    }

    /**
     * IBTA Vol 1 §9.7.5.2.8: after an RNR NAK the requester waits the RNR NAK's timer before it
     * resends, whatever its ACK timer (here 33.6 ms: it would expire four times during the 163.84 ms wait)
     * or a post does meanwhile; and the wait counts against rnr_retry, not retry_cnt (here 1).
     */
    @Test
    void afterAnRnrNakTheRequesterWaitsTheTimeItEncodes() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = device(r, "ic");
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.95." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.95." + r + ".1", qp.qpNum());
            connect(qp, PEER_QPN, peer.gid, 7000, 100, 13, 1, 7);
            MemorySegment m = arena.allocate(4096);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE);
            qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(m.address(), 16, mr.lkey())));
            List<ScriptedPeer.Packet> seen = new ArrayList<>();
            assertNotNull(await(peer, Opcode.RC_SEND_ONLY, 7000, 2000, seen), "SEND: " + seen);
            int code = 28; // 163.84 ms (IBTA table 45)
            long t0 = System.nanoTime();
            peer.acknowledge(7000, Aeth.rnrNakSyndrome(code), 0);
            ScriptedPeer.Packet early = peer.receive(5);
            assertNull(early, "nothing is sent right after an RNR NAK");
            qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(m.address() + 64, 16, mr.lkey())));
            ScriptedPeer.Packet resend = peer.receive(1000);
            assertNotNull(resend, "the SEND is resent after the RNR wait");
            long waited = resend.at() - t0;
            assertEquals(7000, resend.psn(), resend.toString());
            assertTrue(waited >= RnrTimer.nanos(code), "resent after " + waited / 1000 + " µs, before the RNR NAK's "
                    + RnrTimer.micros(code) + " µs");
            assertNull(poll(cq, 0), "no completion during the wait (the ACK timer must not use up retry_cnt)");
            assertNotNull(await(peer, Opcode.RC_SEND_ONLY, 7001, 1000, seen), "the second SEND follows");
            peer.acknowledge(7001, Aeth.ackSyndrome(Aeth.CREDIT_COUNT_INVALID), 2);
            WorkCompletion w1 = poll(cq, 2000), w2 = poll(cq, 2000);
            assertNotNull(w2);
            assertEquals(WcStatus.SUCCESS, w1.status(), w1.toString());
            assertEquals(WcStatus.SUCCESS, w2.status(), w2.toString());
        }
    }

    /**
     * IBTA Vol 1 §9.7.6.1.3 and hardware: retry_cnt 7 means seven retries, then RETRY_EXC_ERR, after
     * about (retry_cnt + 1) ACK timeouts; 8 transmissions of the unanswered request in all.
     */
    @Test
    void retryCnt7MeansSevenRetries() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = device(r, "id");
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.95." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.95." + r + ".1", qp.qpNum());
            int timeout = 10; // 4.096 µs × 2^10 = 4.19 ms
            connect(qp, PEER_QPN, peer.gid, 1, 1, timeout, 7, 7);
            MemorySegment m = arena.allocate(4096);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE);
            long t0 = System.nanoTime();
            qp.postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(m.address(), 16, mr.lkey())));
            int sent = 0;
            WorkCompletion w = null;
            while (w == null && System.nanoTime() - t0 < 3_000_000_000L) {
                while (peer.receive(1) != null) {
                    sent++;
                }
                w = poll(cq, 0);
            }
            long elapsed = System.nanoTime() - t0;
            while (peer.receive(20) != null) {
                sent++;
            }
            assertNotNull(w, "a dead peer ends the QP with an error (" + sent + " transmissions in " + elapsed / 1_000_000 + " ms)");
            assertEquals(WcStatus.RETRY_EXC_ERR, w.status(), w.toString());
            assertEquals(8, sent, "the first transmission and 7 retries");
            assertTrue(elapsed >= 8 * (4096L << timeout) * 9 / 10, "after about 8 ACK timeouts: " + elapsed / 1000 + " µs");
        }
    }

    /** rdma_rxe's reading of retry_cnt 7 ("retry without limit") stays available per device. */
    @Test
    void retryCnt7UnlimitedIsADeviceOption() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = device(r, "ie");
        System.setProperty("jrdma.retryCnt7." + dev, "unlimited");
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.95." + r + ".2", PEER_QPN)) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QueuePair qp = rcQp(pd, cq);
            peer.talkTo("127.95." + r + ".1", qp.qpNum());
            connect(qp, PEER_QPN, peer.gid, 1, 1, 10, 7, 7);
            MemorySegment m = arena.allocate(4096);
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE);
            qp.postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(m.address(), 16, mr.lkey())));
            int sent = 0;
            long t0 = System.nanoTime();
            while (sent < 12 && System.nanoTime() - t0 < 3_000_000_000L) {
                if (peer.receive(10) != null) {
                    sent++;
                }
                assertNull(poll(cq, 0), "no error while retrying without limit");
            }
            assertEquals(12, sent, "more than 8 transmissions");
        } finally {
            System.clearProperty("jrdma.retryCnt7." + dev);
        }
    }

    /**
     * The done-when: a killed peer ends a perftest client with an error within 2 s at
     * perftest's defaults (timeout 14 = 67 ms, retry_cnt 7: 8 × 67 ms ≈ 0.54 s). Two jrdma devices,
     * a stream of RDMA WRITEs, the server's QP destroyed mid-run.
     */
    @Test
    void aKilledPeerEndsAPerftestClientWithinTwoSeconds() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String a = "ka" + r, b = "kb" + r;
        System.setProperty("jrdma.devices", a + "=127.96." + r + ".1," + b + "=127.96." + r + ".2");
        try (Context ca = Verbs.getDevice(a).open(); Context cb = Verbs.getDevice(b).open(); Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(64, null), qb = cb.createCq(64, null);
            QueuePair client = rcQp(pa, qa), server = rcQp(pb, qb);
            FaultToleranceTest.connect(client, server, cb.queryGid(1, 0), 1, 2);
            FaultToleranceTest.connect(server, client, ca.queryGid(1, 0), 2, 1);
            MemorySegment ma = arena.allocate(65536), mb = arena.allocate(65536);
            MemoryRegion ra = pa.regMr(ma, AccessFlags.LOCAL_WRITE);
            MemoryRegion rb = pb.regMr(mb, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            SendWr w = new SendWr().opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 4096, ra.lkey())).rdma(mb.address(), rb.rkey());
            WorkCompletion[] wc = {new WorkCompletion()};
            int outstanding = 0;
            long done = 0;
            long killedAt = 0;
            WcStatus failed = null;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (failed == null && System.nanoTime() < deadline) {
                while (outstanding < 8) {
                    try {
                        client.postSend(w.wrId(done + outstanding));
                    } catch (VerbsException e) {
                        break; // the QP is in ERR: its completions tell
                    }
                    outstanding++;
                }
                int n = qa.poll(wc);
                if (n == 1) {
                    outstanding--;
                    if (wc[0].status() != WcStatus.SUCCESS) {
                        failed = wc[0].status();
                        break;
                    }
                    if (++done == 200) {
                        server.close();
                        killedAt = System.nanoTime();
                    }
                }
            }
            long after = System.nanoTime() - killedAt;
            assertTrue(killedAt != 0, "the run got going");
            assertEquals(WcStatus.RETRY_EXC_ERR, failed, "the client ends with an error");
            assertTrue(after < 2_000_000_000L, "within 2 s of the peer's death: " + after / 1_000_000 + " ms");
            assertTrue(after > 7 * 67_000_000L, "after about 8 ACK timeouts of 67 ms: " + after / 1_000_000 + " ms");
        }
    }

    /**
     * Memory freed under a live MR (its Arena closed): a remote WRITE, READ or atomic to it is
     * answered with NAK remote access error (the requester completes REM_ACCESS_ERR), never dropped
     * silently (which surfaces as RETRY_EXC_ERR after the retries).
     */
    @Test
    void remoteAccessToFreedMemoryIsARemoteAccessError() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String a = "fa" + r, b = "fb" + r;
        System.setProperty("jrdma.devices", a + "=127.97." + r + ".1," + b + "=127.97." + r + ".2");
        try (Context ca = Verbs.getDevice(a).open(); Context cb = Verbs.getDevice(b).open(); Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(64, null), qb = cb.createCq(64, null);
            MemorySegment ma = arena.allocate(4096, 8);
            MemoryRegion ra = pa.regMr(ma, AccessFlags.LOCAL_WRITE);
            Arena doomed = Arena.ofShared();
            MemorySegment mb = doomed.allocate(4096, 8);
            MemoryRegion rb = pb.regMr(mb, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
                    | AccessFlags.REMOTE_ATOMIC);
            long va = mb.address();
            doomed.close();
            for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ, WrOpcode.ATOMIC_FETCH_AND_ADD}) {
                QueuePair client = rcQp(pa, qa), server = rcQp(pb, qb);
                FaultToleranceTest.connect(client, server, cb.queryGid(1, 0), 1, 2);
                FaultToleranceTest.connect(server, client, ca.queryGid(1, 0), 2, 1);
                SendWr w = new SendWr().wrId(op.ordinal()).opcode(op).sendFlags(SendFlags.SIGNALED)
                        .sgList(new Sge(ma.address(), 8, ra.lkey()));
                if (op.isAtomic()) {
                    w.atomic(va, rb.rkey(), 1, 0);
                } else {
                    w.rdma(va, rb.rkey());
                }
                client.postSend(w);
                WorkCompletion c = poll(qa, 3000);
                assertNotNull(c, op + " completes");
                assertEquals(WcStatus.REM_ACCESS_ERR, c.status(), op + ": " + c);
                client.close();
                server.close();
            }
        }
    }
}
