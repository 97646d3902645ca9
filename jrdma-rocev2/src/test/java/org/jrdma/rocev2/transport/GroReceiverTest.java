package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.junit.jupiter.api.Test;

/**
 * Receiving trains whole (issue 14): a UDP_GRO socket hands a GSO train over as one buffer, and a
 * raw socket on loopback sees a UDP-mode peer's train uncut; {@link GroReceiver} gives back each
 * packet, in order, with its own length, through bursts of any size and through single receives,
 * and finds the segment size of an uncut train from the BTHs (destination QPN, consecutive PSNs).
 */
class GroReceiverTest {
    private static final int SEG = 1024 + Bth.LENGTH + Icrc.LENGTH;
    private static final int LAST = 100 + Bth.LENGTH + Icrc.LENGTH;
    private static final int COUNT = 12;
    private static final int PSN0 = 0xFFFFFA; // the PSNs wrap inside the train
    private final Icrc icrc = new Icrc();

    /** COUNT-1 WRITE Middle packets and a WRITE Last to QPN 0x11, PSNs from PSN0, payload from the index, ICRC over IPv4. */
    private PacketBuffer train(int src, int dst, int sport) {
        PacketBuffer b = PacketBuffer.allocate(COUNT * SEG);
        for (int i = 0; i < COUNT; i++) {
            int off = i * SEG;
            int len = i == COUNT - 1 ? LAST : SEG;
            new Bth().wrap(b.seg, off).opcode(i == COUNT - 1 ? Opcode.RC_RDMA_WRITE_LAST : Opcode.RC_RDMA_WRITE_MIDDLE)
                    .tver(0).pkey(0xFFFF).destQpn(0x11).psn((PSN0 + i) & 0xFFFFFF);
            for (int k = Bth.LENGTH; k < len - Icrc.LENGTH; k++) {
                b.seg.set(ValueLayout.JAVA_BYTE, off + k, (byte) (i * 7 + k));
            }
            Icrc.write(b, off + len - Icrc.LENGTH, icrc.ipv4(src, dst, 0, 0x4000, sport, 4791, b, off, len - Icrc.LENGTH));
        }
        return b;
    }

    private static void check(PacketBuffer p, int len, int i) {
        assertEquals(i == COUNT - 1 ? LAST : SEG, len, "packet " + i + " length");
        assertEquals((PSN0 + i) & 0xFFFFFF, new Bth().wrap(p.seg, 0).psn(), "packet " + i + " PSN");
        for (int k = Bth.LENGTH; k < len - Icrc.LENGTH; k++) {
            assertEquals((byte) (i * 7 + k), p.seg.get(ValueLayout.JAVA_BYTE, k), "packet " + i + " byte " + k);
        }
    }

    private static int ipv4(InetAddress a) {
        return ByteBuffer.wrap(a.getAddress()).getInt();
    }

    @Test
    void aGroSocketGivesBackEachPacketOfATrainToSingleReceives() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        InetAddress a = InetAddress.ofLiteral("127.94." + r + ".1"), b = InetAddress.ofLiteral("127.94." + r + ".2");
        try (UdpPacketPort tx = UdpPacketPort.open(a, 4791, false); UdpPacketPort rx = UdpPacketPort.open(b, 4791, false)) {
            int sport = tx.sourcePort(0);
            SockAddr dst = new SockAddr().setIpv4(ipv4(b), 4791);
            assertEquals(COUNT, tx.sendTrain(train(ipv4(a), ipv4(b), sport), SEG, COUNT, LAST, dst, sport, 0));
            PacketBuffer buf = PacketBuffer.allocate(65536);
            SockAddr from = new SockAddr();
            long end = System.nanoTime() + 2_000_000_000L;
            for (int i = 0; i < COUNT; ) {
                int n = rx.receive(buf, from);
                if (n == 0) {
                    assertTrue(System.nanoTime() < end, "packet " + i + " within 2 s");
                    rx.awaitReadable(1_000_000);
                    continue;
                }
                check(buf, n, i);
                assertEquals(sport, from.port());
                assertEquals(ipv4(a), from.ipv4());
                i++;
            }
            assertEquals(0, rx.receive(buf, from), "nothing more");
        }
    }

    @Test
    void aCoalescedBufferIsCutIntoPacketsAcrossBurstsAndABadOneIsOnlyItself() {
        GroReceiver g = new GroReceiver();
        SockAddr src = new SockAddr().setIpv4(0x7f000001, 0xC001);
        // buffer 0: three datagrams of 100 bytes and one of 40; buffer 1 truncated; buffer 2: one datagram of 60
        for (int k = 0; k < 340; k++) {
            g.buffer(0).seg.set(ValueLayout.JAVA_BYTE, 8 + k, (byte) k);
        }
        g.set(0, 8, 340, 100, -1, src);
        g.set(1, 0, -1, -1, -1, src);
        g.set(2, 0, 60, 60, 0x12344000L, src);
        g.filled(3);
        PacketBurst burst = new PacketBurst(2, 8192);
        int[] expect = {100, 100, 100, 40, -1, 60};
        int got = 0;
        while (g.pending()) {
            int n = g.drainInto(burst, 0);
            assertTrue(n >= 1 && n <= 2);
            for (int i = 0; i < n; i++, got++) {
                assertEquals(expect[got], burst.length(i), "datagram " + got);
                if (got < 4) {
                    assertEquals((byte) (got * 100), burst.buffer(i).seg.get(ValueLayout.JAVA_BYTE, 0), "datagram " + got);
                    assertEquals(0xC001, burst.from(i).port());
                }
            }
        }
        assertEquals(6, got);
        assertEquals(0x12344000L, burst.ipv4IdAndFlags(1), "the Identification of the datagram's buffer");
        assertFalse(g.pending());
    }

    @Test
    void theSegmentSizeOfAnUncutTrainComesFromItsBths() {
        PacketBuffer t = train(0x7f000001, 0x7f000002, 0xC000);
        int total = (COUNT - 1) * SEG + LAST;
        assertEquals(SEG, GroReceiver.trainSegmentSize(t.seg, 0, total));
        assertEquals(SEG, GroReceiver.trainSegmentSize(t.seg, 0, SEG + LAST), "two packets");
        assertEquals(SEG, GroReceiver.trainSegmentSize(t.seg, 0, SEG), "one packet is its own length");
        // the fourth packet's PSN does not follow: no train, the whole is one (bad) packet
        new Bth().wrap(t.seg, 3 * SEG).psn(0x42);
        assertEquals(total, GroReceiver.trainSegmentSize(t.seg, 0, total));
    }
}
