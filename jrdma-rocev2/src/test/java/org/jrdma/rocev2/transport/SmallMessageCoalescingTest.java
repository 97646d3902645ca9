package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.net.UdpSocket;
import org.jrdma.rocev2.wire.Aeth;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.Reth;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.Test;

/**
 * Issue 14, trains. Small messages: WRITEs posted one by one while an earlier one is unacknowledged leave
 * as one train (Nagle's rule, {@link Requester#run(boolean)}), each packet a valid RoCE v2 packet
 * with its own PSN in order; a lone WRITE leaves at once. The peer's socket takes UDP_GRO, so a
 * GSO train arrives as one buffer of equal segments; without coalescing each post's packet would
 * be a train of its own and arrive alone. The train leaves when the posting thread polls its empty
 * CQ (the hold's time limit, {@code jrdma.coalesceMicros}, is set far beyond the test). READ
 * responses leave in trains as well.
 */
class SmallMessageCoalescingTest {
    private static final int PEER_QPN = 0x77;
    private static final int SIZE = 64;
    /** An RC RDMA WRITE Only with 64 bytes: BTH, RETH, payload, ICRC. */
    private static final int PACKET = Bth.LENGTH + Reth.LENGTH + SIZE + Icrc.LENGTH;

    @Test
    void writesPostedWhileOneIsUnacknowledgedLeaveAsOneTrainInPsnOrder() {
        assumeTrue(PacketTrain.COALESCE, "coalescing is off (-Djrdma.coalesce=false)");
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = "co" + r;
        System.setProperty("jrdma.devices", dev + "=127.98." + r + ".1");
        // held packets wait up to 5 s for more (default 1 ms): a thread descheduled between its posts
        // on a loaded machine does not split the train; polling the empty CQ sends it
        System.setProperty("jrdma.coalesceMicros." + dev, "5000000");
        UdpSocket.Options gro = new UdpSocket.Options().gro(true);
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.98." + r + ".2", PEER_QPN, gro)) {
            assumeTrue(peer.socket.supportsGso() && peer.socket.groEnabled(), "the kernel has no UDP GSO / GRO");
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
            ia.cap().maxSendWr(16).maxRecvWr(16);
            QueuePair qp = pd.createQp(ia);
            peer.talkTo("127.98." + r + ".1", qp.qpNum());
            connect(qp, peer, 1000);
            MemorySegment m = arena.allocate(4096);
            for (int i = 0; i < 4096; i++) {
                m.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 5));
            }
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE);
            MemorySegment rx = arena.allocate(65536);
            SockAddr from = new SockAddr();

            post(qp, mr, m, 0); // nothing in flight: leaves at once, alone
            int n = receive(peer, rx, from);
            assertEquals(PACKET, n, "the first WRITE alone");
            checkPacket(rx, 0, 1000, 0, m);

            for (int k = 1; k <= 4; k++) {
                post(qp, mr, m, k); // the first is unacknowledged: these wait for each other
            }
            WorkCompletion[] wc = {new WorkCompletion()};
            assertEquals(0, cq.poll(wc), "nothing is acknowledged yet");
            // the posting thread polled an empty CQ: the train leaves
            n = receive(peer, rx, from);
            assertEquals(4 * PACKET, n, "WRITEs 2-5 in one GSO train (segment " + peer.socket.receivedSegmentSize() + ")");
            assertEquals(PACKET, peer.socket.receivedSegmentSize(), "one packet per segment");
            for (int k = 1; k <= 4; k++) {
                checkPacket(rx, (k - 1) * PACKET, 1000 + k, k, m);
            }
            peer.acknowledge(1004, Aeth.ackSyndrome(Aeth.CREDIT_COUNT_INVALID), 5);
            for (int k = 0; k <= 4; k++) {
                long deadline = System.nanoTime() + 2_000_000_000L;
                while (cq.poll(wc) == 0) {
                    assertTrue(System.nanoTime() < deadline, "completion of WRITE " + k);
                    Thread.onSpinWait();
                }
                assertEquals(k, wc[0].wrId());
                assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0].toString());
            }
        }
    }

    /**
     * READ responses leave in trains too: a READ of 6 × 1024 bytes (path MTU 1024) is answered with
     * First, 4 × Middle, Last in PSN order, each with its own ICRC (the peer's receive checks them),
     * in fewer datagrams than packets (GSO needs equal segments: First and Last carry an AETH, so
     * First + Middle, the other Middles, Last).
     */
    @Test
    void readResponsesLeaveInTrains() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String dev = "cr" + r;
        System.setProperty("jrdma.devices", dev + "=127.99." + r + ".1");
        UdpSocket.Options gro = new UdpSocket.Options().gro(true);
        try (Context c = Verbs.getDevice(dev).open(); Arena arena = Arena.ofShared();
             ScriptedPeer peer = new ScriptedPeer("127.99." + r + ".2", PEER_QPN, gro)) {
            assumeTrue(peer.socket.supportsGso() && peer.socket.groEnabled(), "the kernel has no UDP GSO / GRO");
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16, null);
            QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
            ia.cap().maxSendWr(16).maxRecvWr(16);
            QueuePair qp = pd.createQp(ia);
            peer.talkTo("127.99." + r + ".1", qp.qpNum());
            connect(qp, peer, 1000);
            int len = 6 * 1024;
            MemorySegment m = arena.allocate(len);
            for (int i = 0; i < len; i++) {
                m.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            }
            MemoryRegion mr = pd.regMr(m, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
            peer.readRequest(1, m.address(), mr.rkey(), len);
            MemorySegment rx = arena.allocate(65536);
            SockAddr from = new SockAddr();
            Icrc icrc = new Icrc();
            int peerIp = java.nio.ByteBuffer.wrap(java.net.InetAddress.ofLiteral("127.99." + r + ".2").getAddress()).getInt();
            int jrdmaIp = java.nio.ByteBuffer.wrap(java.net.InetAddress.ofLiteral("127.99." + r + ".1").getAddress()).getInt();
            org.jrdma.rocev2.wire.PacketBuffer one = org.jrdma.rocev2.wire.PacketBuffer.allocate(RxeQp.MAX_PACKET);
            int packets = 0, datagrams = 0;
            long placed = 0;
            while (packets < 6) {
                int n = receive(peer, rx, from);
                datagrams++;
                int seg = peer.socket.receivedSegmentSize();
                for (int at = 0; at < n; at += seg, packets++) {
                    int plen = Math.min(seg, n - at);
                    Bth b = new Bth().wrap(rx, at);
                    int want = packets == 0 ? Opcode.RC_RDMA_READ_RESPONSE_FIRST
                            : packets == 5 ? Opcode.RC_RDMA_READ_RESPONSE_LAST : Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
                    assertEquals(want, b.opcode(), "opcode of response " + packets);
                    assertEquals(1 + packets, b.psn(), "PSN of response " + packets);
                    int hdr = Opcode.headerLength(b.opcode());
                    assertEquals(hdr + 1024 + Icrc.LENGTH, plen, "length of response " + packets);
                    assertArrayEquals(m.asSlice(placed, 1024).toArray(ValueLayout.JAVA_BYTE),
                            rx.asSlice(at + hdr, 1024).toArray(ValueLayout.JAVA_BYTE), "data of response " + packets);
                    MemorySegment.copy(rx, at, one.seg, 0, plen);
                    int body = plen - Icrc.LENGTH;
                    int id = icrc.solveIpv4Id(jrdmaIp, peerIp, 0x4000, from.port(), 4791, one, 0, body, Icrc.read(one, body));
                    assertTrue(id >= 0, "response " + packets + ": its ICRC matches no IPv4 Identification");
                    placed += 1024;
                }
            }
            assertEquals(6, packets);
            assertTrue(datagrams < packets, "the responses came in " + datagrams + " datagrams for " + packets + " packets");
        }
    }

    private static void post(QueuePair qp, MemoryRegion mr, MemorySegment m, int k) {
        qp.postSend(new SendWr().wrId(k).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(m.address() + k * SIZE, SIZE, mr.lkey())).rdma(0x10000 + k * SIZE, 0x55));
    }

    /** One datagram (or GRO buffer) within 2 s. */
    private static int receive(ScriptedPeer peer, MemorySegment rx, SockAddr from) {
        assertTrue(peer.socket.awaitReadable(2_000_000_000L), "nothing arrived within 2 s");
        int n = peer.socket.receive(rx, 0, (int) rx.byteSize(), from);
        assertTrue(n > 0, "received " + n);
        return n;
    }

    /** The packet at {@code at}: an RDMA WRITE Only of PSN {@code psn} with WRITE {@code k}'s RETH and bytes. */
    private static void checkPacket(MemorySegment rx, int at, int psn, int k, MemorySegment m) {
        Bth b = new Bth().wrap(rx, at);
        assertEquals(Opcode.RC_RDMA_WRITE_ONLY, b.opcode(), "opcode of WRITE " + k);
        assertEquals(psn, b.psn(), "PSN of WRITE " + k);
        assertEquals(PEER_QPN, b.destQpn());
        assertTrue(b.ackReq(), "a message's last packet asks for an ACK");
        Reth reth = new Reth().wrap(rx, at + Bth.LENGTH);
        assertEquals(0x10000 + k * SIZE, reth.va());
        assertEquals(SIZE, reth.dmaLength());
        assertArrayEquals(m.asSlice(k * SIZE, SIZE).toArray(ValueLayout.JAVA_BYTE),
                rx.asSlice(at + Bth.LENGTH + Reth.LENGTH, SIZE).toArray(ValueLayout.JAVA_BYTE), "payload of WRITE " + k);
    }

    private static void connect(QueuePair q, ScriptedPeer peer, int sqPsn) {
        int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
        q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(all),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(PEER_QPN).rqPsn(1)
                .maxDestRdAtomic(1).minRnrTimer(1);
        rtr.ahAttr().isGlobal(true).portNum(1).grh().dgid(peer.gid);
        q.modify(rtr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN
                | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        // timeout 20 (4.3 s): no retransmission while the test looks
        q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn).timeout(20).retryCnt(7).rnrRetry(7).maxRdAtomic(1),
                QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                        | QpAttrMask.MAX_QP_RD_ATOMIC);
    }
}
