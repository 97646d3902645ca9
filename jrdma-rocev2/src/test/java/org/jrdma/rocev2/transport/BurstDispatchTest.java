package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.RxeContext;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Deth;
import org.jrdma.rocev2.wire.DropReason;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.Test;

/**
 * The I/O agent receives bursts: five UD SENDs arrive together (one GSO train), the third with a
 * corrupted byte; dispatch drops and counts exactly that one and delivers the four others, in
 * order, to the receive queue.
 */
class BurstDispatchTest {
    private static final int PAYLOAD = 256;
    private static final int LEN = Bth.LENGTH + Deth.LENGTH + PAYLOAD + Icrc.LENGTH;

    @Test
    void aBadPacketInTheMiddleOfABurstLosesOnlyItself() throws Exception {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String b = "bd" + r;
        InetAddress devB = InetAddress.ofLiteral("127.98." + r + ".2"), peer = InetAddress.ofLiteral("127.98." + r + ".3");
        System.setProperty("jrdma.devices", b + "=" + devB.getHostAddress());
        try (Context cb = Verbs.getDevice(b).open(); Arena arena = Arena.ofShared();
             UdpPacketPort sender = UdpPacketPort.open(peer, 0, false)) {
            ProtectionDomain pb = cb.allocPd();
            CompletionQueue qb = cb.createCq(16, null);
            QueuePair ud = UdLoopbackTest.ud(pb, qb);
            MemorySegment mb = arena.allocate(8 * 1024);
            MemoryRegion rb = pb.regMr(mb, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < 5; i++) {
                ud.postRecv(new RecvWr().wrId(i).sgList(new Sge(mb.address() + i * 1024L, 40 + PAYLOAD, rb.lkey())));
            }
            Counters cnt = ((RxeContext) cb).counters();
            long pktsBefore = cnt.get(Counters.RCVD_PKTS);
            int src = ByteBuffer.wrap(peer.getAddress()).getInt(), dst = ByteBuffer.wrap(devB.getAddress()).getInt();
            int sport = sender.sourcePort(0);
            Icrc icrc = new Icrc();
            PacketBuffer train = PacketBuffer.allocate(5 * LEN);
            for (int i = 0; i < 5; i++) {
                int off = i * LEN;
                new Bth().wrap(train.seg, off).opcode(Opcode.UD_SEND_ONLY).tver(0).pkey(0xFFFF).destQpn(ud.qpNum()).psn(i);
                new Deth().wrap(train.seg, off + Bth.LENGTH).qkey(0x11111111).srcQpn(0x42);
                for (int k = 0; k < PAYLOAD; k++) {
                    train.seg.set(ValueLayout.JAVA_BYTE, off + Bth.LENGTH + Deth.LENGTH + k, (byte) (i * 31 + k));
                }
                Icrc.write(train, off + LEN - Icrc.LENGTH,
                        icrc.ipv4(src, dst, 0, 0x4000, sport, 4791, train, off, LEN - Icrc.LENGTH));
            }
            int bad = 2 * LEN + Bth.LENGTH + Deth.LENGTH + 17; // a payload byte of the third packet, after its ICRC
            train.seg.set(ValueLayout.JAVA_BYTE, bad, (byte) (train.seg.get(ValueLayout.JAVA_BYTE, bad) ^ 0x10));
            assertEquals(5, sender.sendTrain(train, LEN, 5, LEN, new SockAddr().setIpv4(dst, 4791), sport, 0));

            // the I/O thread receives (nobody polls the CQ until the counters say all five are in)
            long end = System.nanoTime() + 5_000_000_000L;
            while (cnt.get(Counters.RCVD_PKTS) - pktsBefore < 4 && System.nanoTime() < end) {
                Thread.sleep(1);
            }
            assertEquals(1, cnt.get(Counters.RCVD_DROP_BASE + DropReason.BAD_ICRC), "the corrupted packet, counted");
            assertEquals(4, cnt.get(Counters.RCVD_PKTS) - pktsBefore, "the four others accepted");
            assertEquals(0, cnt.get(Counters.RCVD_DROP_INTERNAL));
            int[] sent = {0, 1, 3, 4};
            for (int j = 0; j < 4; j++) {
                WorkCompletion c = RcLoopbackTest.pollOne(qb);
                assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
                assertEquals(j, c.wrId());
                assertEquals(40 + PAYLOAD, c.byteLen());
                assertEquals(0x42, c.srcQp());
                for (int k = 0; k < PAYLOAD; k++) {
                    assertEquals((byte) (sent[j] * 31 + k), mb.get(ValueLayout.JAVA_BYTE, j * 1024L + 40 + k),
                            "receive " + j + " holds packet " + sent[j]);
                }
            }
            WorkCompletion[] none = {new WorkCompletion()};
            assertEquals(0, qb.poll(none), "nothing for the lost packet");
            assertTrue(cnt.get(Counters.RCVD_DROP_BASE + DropReason.BAD_ICRC) == 1);
        }
    }
}
