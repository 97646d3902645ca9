package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.rocev2.net.RawIpv4Socket;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.pcap.PcapCheck;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trains and bursts through the packet ports: a train leaves as separate RoCE v2 packets, each
 * with its own valid ICRC (over IPv4 through a UDP socket the kernel chooses the Identification of
 * each GSO segment; the receiver solves for it), the raw port's train carries the Identifications
 * it was given, the fault shim strikes packets of a train one by one, and the capture tap records
 * each packet of a train and of a burst.
 */
class TrainBurstTest {
    private static final int SEG = 1024 + Bth.LENGTH + Icrc.LENGTH; // RC RDMA WRITE Middle with 1024 bytes
    private static final int LAST = 100 + Bth.LENGTH + Icrc.LENGTH; // RC RDMA WRITE Last with 100 bytes
    private static final int COUNT = 12;
    private static final int PSN0 = 0x123456;
    private final Icrc icrc = new Icrc();

    /** How each packet's ICRC is computed: over the headers it will carry. */
    private interface IcrcOf {
        int of(PacketBuffer buf, int off, int len, int index);
    }

    /** Builds the train: COUNT-1 WRITE Middle packets and a WRITE Last, PSNs from PSN0, payload bytes from the index. */
    private static PacketBuffer train(IcrcOf ic) {
        PacketBuffer b = PacketBuffer.allocate(COUNT * SEG);
        for (int i = 0; i < COUNT; i++) {
            int off = i * SEG;
            int len = i == COUNT - 1 ? LAST : SEG;
            new Bth().wrap(b.seg, off).opcode(i == COUNT - 1 ? Opcode.RC_RDMA_WRITE_LAST : Opcode.RC_RDMA_WRITE_MIDDLE)
                    .tver(0).pkey(0xFFFF).destQpn(0x11).psn(PSN0 + i);
            for (int k = Bth.LENGTH; k < len - Icrc.LENGTH; k++) {
                b.seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, off + k, (byte) (i * 7 + k));
            }
            Icrc.write(b, off + len - Icrc.LENGTH, ic.of(b, off, len - Icrc.LENGTH, i));
        }
        return b;
    }

    private static int ipv4(InetAddress a) {
        return ByteBuffer.wrap(a.getAddress()).getInt();
    }

    private static void checkPayload(PacketBuffer p, int len, int i) {
        assertEquals(i == COUNT - 1 ? LAST : SEG, len, "packet " + i + " length");
        assertEquals(PSN0 + i, new Bth().wrap(p.seg, 0).psn(), "packet " + i + " PSN");
        for (int k = Bth.LENGTH; k < len - Icrc.LENGTH; k++) {
            assertEquals((byte) (i * 7 + k), p.seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, k), "packet " + i + " byte " + k);
        }
    }

    /** Receives {@code skip} + COUNT datagrams by bursts from {@code port}, within 2 s, and keeps the last COUNT. */
    private static int receiveAll(PacketPort port, PacketBurst burst, int skip, PacketBuffer[] copies, int[] lengths,
                                  SockAddr[] froms, long[] idFlags) {
        int got = -skip;
        long end = System.nanoTime() + 2_000_000_000L;
        while (got < COUNT && System.nanoTime() < end) {
            int n = port.receiveBurst(burst);
            for (int i = 0; i < n && got < COUNT; i++, got++) {
                if (got < 0) {
                    continue;
                }
                lengths[got] = burst.length(i);
                java.lang.foreign.MemorySegment.copy(burst.buffer(i).seg, 0, copies[got].seg, 0, Math.max(0, burst.length(i)));
                froms[got].copyFrom(burst.from(i));
                idFlags[got] = burst.ipv4IdAndFlags(i);
            }
            if (n == 0) {
                port.awaitReadable(1_000_000);
            }
        }
        return got;
    }

    private static PacketBuffer[] buffers() {
        PacketBuffer[] b = new PacketBuffer[COUNT];
        for (int i = 0; i < COUNT; i++) {
            b[i] = PacketBuffer.allocate(8192);
        }
        return b;
    }

    private static SockAddr[] addrs() {
        SockAddr[] a = new SockAddr[COUNT];
        for (int i = 0; i < COUNT; i++) {
            a[i] = new SockAddr();
        }
        return a;
    }

    @Test
    void aUdpIpv4TrainLeavesAsSeparatePacketsEachWithItsOwnIcrc() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        InetAddress a = InetAddress.ofLiteral("127.95." + r + ".1"), b = InetAddress.ofLiteral("127.95." + r + ".2");
        try (UdpPacketPort tx = UdpPacketPort.open(a, 4791, true); UdpPacketPort rx = UdpPacketPort.open(b, 4791, false)) {
            int sport = tx.sourcePort(0xC000 + r); // a per-flow source port, as a QP's packets use
            PacketBuffer t = train((buf, off, len, i) -> icrc.ipv4(ipv4(a), ipv4(b), 0, 0x4000, sport, 4791, buf, off, len));
            SockAddr dst = new SockAddr().setIpv4(ipv4(b), 4791);
            PacketBuffer one = train((buf, off, len, i) -> icrc.ipv4(ipv4(a), ipv4(b), 0, 0x4000, sport, 4791, buf, off, len));
            assertTrue(tx.send(one, SEG, dst, sport, 0), "a single packet first: the flow socket gets connected");
            assertEquals(COUNT, tx.sendTrain(t, SEG, COUNT, LAST, dst, sport, tx.nextIpv4Ids(COUNT)));
            PacketBuffer[] got = buffers();
            int[] len = new int[COUNT];
            SockAddr[] from = addrs();
            long[] idf = new long[COUNT];
            int[] ids = new int[COUNT];
            // the single packet first, then the train
            int n = receiveAll(rx, new PacketBurst(64, 8192), 1, got, len, from, idf);
            assertEquals(COUNT, n, "datagrams received");
            for (int i = 0; i < COUNT; i++) {
                checkPayload(got[i], len[i], i);
                assertEquals(-1, idf[i], "a UDP socket does not see the IP header");
                assertEquals(sport, from[i].port());
                int body = len[i] - Icrc.LENGTH;
                ids[i] = icrc.solveIpv4Id(ipv4(a), ipv4(b), 0x4000, sport, 4791, got[i], 0, body, Icrc.read(got[i], body));
                assertTrue(ids[i] >= 0, "packet " + i + ": no Identification makes its ICRC match");
            }
            System.out.println("IPv4 Identifications of a " + (tx.trainsUseGso() ? "GSO" : "sendmmsg")
                    + " train on loopback: " + java.util.Arrays.toString(ids));
        }
    }

    @Test
    void aUdpIpv6TrainCarriesAnExactIcrcOnEachPacket() {
        InetAddress lo = InetAddress.ofLiteral("::1");
        try (UdpPacketPort tx = UdpPacketPort.open(lo, 0, false); UdpPacketPort rx = UdpPacketPort.open(lo, 0, false)) {
            int sport = tx.sourcePort(0), dport = rx.sourcePort(0);
            PacketBuffer t = train((buf, off, len, i) -> icrc.ipv6(0, 1, 0, 1, sport, dport, buf, off, len));
            SockAddr dst = new SockAddr().setIpv6(0, 1, dport);
            assertEquals(COUNT, tx.sendTrain(t, SEG, COUNT, LAST, dst, sport, 0));
            PacketBuffer[] got = buffers();
            int[] len = new int[COUNT];
            int n = receiveAll(rx, new PacketBurst(4, 8192), 0, got, len, addrs(), new long[COUNT]);
            assertEquals(COUNT, n, "datagrams received (in bursts of at most 4)");
            for (int i = 0; i < COUNT; i++) {
                checkPayload(got[i], len[i], i);
                int body = len[i] - Icrc.LENGTH;
                assertEquals(icrc.ipv6(0, 1, 0, 1, sport, dport, got[i], 0, body), Icrc.read(got[i], body), "ICRC of packet " + i);
            }
        }
    }

    @Test
    void aRawTrainCarriesTheIdentificationsItWasGivenAndIsCapturedPacketByPacket(@TempDir Path dir) throws Exception {
        assumeTrue(RawIpv4Socket.permitted(), "raw IPv4 sockets need CAP_NET_RAW");
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        Inet4Address a = (Inet4Address) InetAddress.ofLiteral("127.96." + r + ".1");
        Inet4Address b = (Inet4Address) InetAddress.ofLiteral("127.96." + r + ".2");
        Path pcap = dir.resolve("train.pcap");
        PcapTap tap = new PcapTap(RawIpv4PacketPort.open(a, 4791), pcap, false, ipv4(a), 0, 0);
        try (tap; RawIpv4PacketPort rx = RawIpv4PacketPort.open(b, 4791)) {
            int sport = 0xC123;
            int first = tap.nextIpv4Ids(COUNT);
            assertTrue(first >= 1 && first + COUNT - 1 <= 0xFFFF, "a run of Identifications without 0: " + first);
            PacketBuffer t = train((buf, off, len, i) -> icrc.ipv4(ipv4(a), ipv4(b), first + i, 0x4000, sport, 4791, buf, off, len));
            assertEquals(COUNT, tap.sendTrain(t, SEG, COUNT, LAST, new SockAddr().setIpv4(ipv4(b), 4791), sport, first));
            PacketBuffer[] got = buffers();
            int[] len = new int[COUNT];
            SockAddr[] from = addrs();
            long[] idf = new long[COUNT];
            assertEquals(COUNT, receiveAll(rx, new PacketBurst(64, 8192), 0, got, len, from, idf));
            for (int i = 0; i < COUNT; i++) {
                checkPayload(got[i], len[i], i);
                assertEquals(first + i, (int) (idf[i] >>> 16), "Identification of packet " + i);
                assertEquals(0x4000, (int) (idf[i] & 0xFFFF), "DF");
                assertEquals(sport, from[i].port());
                int body = len[i] - Icrc.LENGTH;
                assertEquals(icrc.ipv4(ipv4(a), ipv4(b), first + i, 0x4000, sport, 4791, got[i], 0, body),
                        Icrc.read(got[i], body), "exact ICRC of packet " + i);
            }
            assertEquals(COUNT, tap.frames(), "one frame per packet of the train");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = PcapCheck.run(new String[] {pcap.toString()}, new PrintStream(out, true), new PrintStream(err, true));
        assertEquals(0, status, out + " " + err);
    }

    @Test
    void theFaultShimLosesPacketsOfATrainOneByOne() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        InetAddress a = InetAddress.ofLiteral("127.97." + r + ".1"), b = InetAddress.ofLiteral("127.97." + r + ".2");
        try (FaultShim tx = FaultShim.parse(UdpPacketPort.open(a, 4791, false), "loss=0.5,seed=7");
             UdpPacketPort rx = UdpPacketPort.open(b, 4791, false)) {
            int sport = tx.sourcePort(0);
            PacketBuffer t = train((buf, off, len, i) -> icrc.ipv4(ipv4(a), ipv4(b), 0, 0x4000, sport, 4791, buf, off, len));
            int handed = tx.sendTrain(t, SEG, COUNT, LAST, new SockAddr().setIpv4(ipv4(b), 4791), sport, 0);
            assertEquals(COUNT, handed, "a lost packet counts as sent: the sender cannot know");
            long lost = tx.dropped();
            assertTrue(lost > 0 && lost < COUNT, "some but not all packets lost: " + lost);
            PacketBuffer[] got = buffers();
            int[] len = new int[COUNT];
            PacketBurst burst = new PacketBurst(64, 8192);
            int n = 0;
            long end = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < end) {
                int k = rx.receiveBurst(burst);
                for (int i = 0; i < k; i++, n++) {
                    len[n] = burst.length(i);
                    java.lang.foreign.MemorySegment.copy(burst.buffer(i).seg, 0, got[n].seg, 0, len[n]);
                }
            }
            assertEquals(COUNT - lost, n, "every packet not lost arrives");
            int prev = -1;
            for (int i = 0; i < n; i++) {
                int k = new Bth().wrap(got[i].seg, 0).psn() - PSN0;
                assertTrue(k > prev, "in order, each once");
                checkPayload(got[i], len[i], k);
                prev = k;
            }
        }
    }

    @Test
    void trainShapesOutOfRangeAreRefused() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> PacketPort.trainLength(1000, 2, 1001, 4096));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> PacketPort.trainLength(1000, PacketPort.MAX_TRAIN + 1, 10, 1 << 20));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> PacketPort.trainLength(1000, 5, 1000, 4999));
        assertEquals(4500, PacketPort.trainLength(1000, 5, 500, 4500));
    }
}
