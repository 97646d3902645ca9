package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.net.RawIpv4Socket;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.junit.jupiter.api.Test;

/**
 * ECN on every I/O path of the transport (issue 16; RFC 3168: the ECN field is the low 2 bits of
 * the IPv4 TOS / IPv6 Traffic Class, 10 = ECT(0), 11 = CE): packets sent by a UDP port opened with a
 * traffic class (IP_TOS / IPV6_TCLASS) and by the raw IPv4 port (the TOS byte of the header it
 * writes) carry it, single and as trains (GSO, sendmmsg); a receiving port sees each datagram's
 * (IP_RECVTOS / IPV6_RECVTCLASS control messages of recvmsg and recvmmsg, through the GRO cutter
 * too; the raw header's TOS), in a burst and in a single receive; the fault shim's {@code ce}
 * marks received packets CE.
 */
class EcnPortTest {
    private static final int SEG = 512;
    private static final int COUNT = 8;

    private static int ipv4(InetAddress a) {
        return ByteBuffer.wrap(a.getAddress()).getInt();
    }

    private static PacketBuffer train() {
        PacketBuffer b = PacketBuffer.allocate(COUNT * SEG);
        for (int i = 0; i < COUNT; i++) {
            new Bth().wrap(b.seg, (long) i * SEG).opcode(0x07).pkey(0xFFFF).destQpn(0x77).psn(100 + i);
        }
        return b;
    }

    /** The traffic classes of the next {@code n} datagrams a burst brings (waits up to 2 s). */
    private static List<Integer> burstClasses(PacketPort rx, int n) {
        PacketBurst burst = new PacketBurst(64, 8192);
        List<Integer> got = new ArrayList<>();
        long end = System.nanoTime() + 2_000_000_000L;
        while (got.size() < n && System.nanoTime() < end) {
            int k = rx.receiveBurst(burst);
            for (int i = 0; i < k; i++) {
                if (burst.length(i) > 0) {
                    got.add(burst.trafficClass(i));
                }
            }
            if (k == 0) {
                rx.awaitReadable(1_000_000);
            }
        }
        return got;
    }

    /** The traffic classes of the next {@code n} datagrams received one by one. */
    private static List<Integer> singleClasses(PacketPort rx, int n) {
        PacketBuffer buf = PacketBuffer.allocate(65536);
        SockAddr from = new SockAddr();
        List<Integer> got = new ArrayList<>();
        long end = System.nanoTime() + 2_000_000_000L;
        while (got.size() < n && System.nanoTime() < end) {
            int k = rx.receive(buf, from);
            if (k > 0) {
                got.add(rx.lastTrafficClass());
            } else {
                rx.awaitReadable(1_000_000);
            }
        }
        return got;
    }

    private static List<Integer> times(int n, int v) {
        List<Integer> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(v);
        }
        return l;
    }

    @Test
    void udpPortsSendTheirTrafficClassAndReceiversSeeItInBurstsAndSingleReceives() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        InetAddress a = InetAddress.ofLiteral("127.94." + r + ".1"), b = InetAddress.ofLiteral("127.94." + r + ".2");
        try (UdpPacketPort tx = UdpPacketPort.open(a, 4791, true, 0x02, false);
             UdpPacketPort rx = UdpPacketPort.open(b, 4791, false, -1, true)) {
            SockAddr dst = new SockAddr().setIpv4(ipv4(b), 4791);
            int sport = tx.sourcePort(0xC000 + r);
            PacketBuffer t = train();
            assertTrue(tx.send(t, SEG, dst, sport, 0));
            assertEquals(COUNT, tx.sendTrain(t, SEG, COUNT, SEG, dst, sport, 0));
            assertEquals(times(1 + COUNT, 0x02), burstClasses(rx, 1 + COUNT), "ECT(0) on single packets and trains");
            assertEquals(COUNT, tx.sendTrain(t, SEG, COUNT, SEG, dst, sport, 0));
            assertEquals(times(COUNT, 0x02), singleClasses(rx, COUNT), "a train cut by GRO, one receive at a time");
        }
    }

    @Test
    void aPortThatDoesNotAskSeesNoTrafficClass() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        InetAddress a = InetAddress.ofLiteral("127.94." + r + ".3"), b = InetAddress.ofLiteral("127.94." + r + ".4");
        try (UdpPacketPort tx = UdpPacketPort.open(a, 4791, false, 0x02, false);
             UdpPacketPort rx = UdpPacketPort.open(b, 4791, false)) {
            assertTrue(tx.send(train(), SEG, new SockAddr().setIpv4(ipv4(b), 4791), 4791, 0));
            assertEquals(List.of(-1), burstClasses(rx, 1));
        }
    }

    @Test
    void ceMarkedDatagramsAreSeenAsCe() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        InetAddress a = InetAddress.ofLiteral("127.94." + r + ".5"), b = InetAddress.ofLiteral("127.94." + r + ".6");
        try (UdpPacketPort tx = UdpPacketPort.open(a, 4791, false, 0x03, false);
             UdpPacketPort rx = UdpPacketPort.open(b, 4791, false, -1, true)) {
            SockAddr dst = new SockAddr().setIpv4(ipv4(b), 4791);
            assertEquals(COUNT, tx.sendTrain(train(), SEG, COUNT, SEG, dst, 4791, 0));
            assertEquals(times(COUNT, 0x03), burstClasses(rx, COUNT));
        }
    }

    @Test
    void ipv6PortsCarryTheTrafficClass() {
        InetAddress lo6 = InetAddress.ofLiteral("::1");
        try (UdpPacketPort rx = UdpPacketPort.open(lo6, 0, false, -1, true);
             UdpPacketPort tx = UdpPacketPort.open(lo6, 0, false, 0x02, false)) {
            SockAddr dst = new SockAddr().set(lo6, rx.sourcePort(0));
            PacketBuffer t = train();
            assertTrue(tx.send(t, SEG, dst, 0, 0));
            assertEquals(COUNT, tx.sendTrain(t, SEG, COUNT, SEG, dst, 0, 0));
            assertEquals(times(1 + COUNT, 0x02), burstClasses(rx, 1 + COUNT));
        }
    }

    @Test
    void theRawPortWritesTheTosAndReadsItFromEachHeader() {
        assumeTrue(RawIpv4Socket.permitted(), "raw IPv4 sockets need CAP_NET_RAW");
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        Inet4Address a = (Inet4Address) InetAddress.ofLiteral("127.93." + r + ".1");
        Inet4Address b = (Inet4Address) InetAddress.ofLiteral("127.93." + r + ".2");
        try (RawIpv4PacketPort tx = RawIpv4PacketPort.open(a, 4791, 0x02);
             RawIpv4PacketPort rx = RawIpv4PacketPort.open(b, 4791, 0)) {
            SockAddr dst = new SockAddr().setIpv4(ipv4(b), 4791);
            PacketBuffer t = train();
            assertTrue(tx.send(t, SEG, dst, 0xC001, tx.nextIpv4Id()));
            assertEquals(COUNT, tx.sendTrain(t, SEG, COUNT, SEG, dst, 0xC001, tx.nextIpv4Ids(COUNT)));
            assertEquals(times(1 + COUNT, 0x02), burstClasses(rx, 1 + COUNT));
            assertTrue(tx.send(t, SEG, dst, 0xC001, tx.nextIpv4Id()));
            assertEquals(List.of(0x02), singleClasses(rx, 1));
        }
        // a UDP-mode sender's CE seen by a raw receiver (the header is there, no option needed)
        Inet4Address c = (Inet4Address) InetAddress.ofLiteral("127.93." + r + ".3");
        try (UdpPacketPort tx = UdpPacketPort.open(c, 4791, false, 0x03, false);
             RawIpv4PacketPort rx = RawIpv4PacketPort.open(b, 4791, 0)) {
            assertTrue(tx.send(train(), SEG, new SockAddr().setIpv4(ipv4(b), 4791), 4791, 0));
            assertEquals(List.of(0x03), burstClasses(rx, 1));
        }
    }

    @Test
    void theFaultShimMarksReceivedPacketsCe() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        InetAddress a = InetAddress.ofLiteral("127.94." + r + ".7"), b = InetAddress.ofLiteral("127.94." + r + ".8");
        try (UdpPacketPort tx = UdpPacketPort.open(a, 4791, false, 0x02, false);
             FaultShim rx = FaultShim.parse(UdpPacketPort.open(b, 4791, false, -1, true), "ce=1")) {
            SockAddr dst = new SockAddr().setIpv4(ipv4(b), 4791);
            assertEquals(COUNT, tx.sendTrain(train(), SEG, COUNT, SEG, dst, 4791, 0));
            assertEquals(times(COUNT, 0x03), burstClasses(rx, COUNT), "ECT(0) became CE");
            assertTrue(tx.send(train(), SEG, dst, 4791, 0));
            assertEquals(List.of(0x03), singleClasses(rx, 1));
            assertEquals(COUNT + 1, rx.markedCe());
        }
    }
}
