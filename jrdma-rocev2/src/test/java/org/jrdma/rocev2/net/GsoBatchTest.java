package org.jrdma.rocev2.net;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.jrdma.rocev2.net.UdpSocketTest.LO1;
import static org.jrdma.rocev2.net.UdpSocketTest.LO2;
import static org.jrdma.rocev2.net.UdpSocketTest.LO6;
import static org.jrdma.rocev2.net.UdpSocketTest.pattern;
import static org.jrdma.rocev2.net.UdpSocketTest.receiveOne;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GsoBatchTest {

    static byte[] bytes(MemorySegment s, long off, int len) {
        return s.asSlice(off, len).toArray(JAVA_BYTE);
    }

    /** Receives into the batch until {@code expected} slots are filled (bounded); returns the count. */
    static int receiveBatchFully(UdpSocket s, UdpBatch b, int expected) {
        int got = 0;
        for (int i = 0; i < 1000 && got == 0; i++) {
            got = s.receiveBatch(b, expected);
            if (got == 0) {
                s.awaitReadable(10_000_000L);
            }
        }
        return got;
    }

    @Test
    void sendmmsgAndRecvmmsgCarryEachDatagramWithItsSizeAndSource() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO1, 0, null);
             UdpSocket s2 = UdpSocket.open(LO2, 0, null)) {
            MemorySegment tx = pattern(a, 8 * 1024, 5);
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000002, s2.localPort());
            UdpBatch out = new UdpBatch(8);
            for (int i = 0; i < 8; i++) {
                out.setSend(i, tx, i * 1024L, 100 + i * 50, dst);
            }
            assertEquals(8, s1.sendBatch(out, 0, 8));
            for (int i = 0; i < 8; i++) {
                assertEquals(100 + i * 50, out.length(i));
            }
            MemorySegment rx = a.allocate(16 * 2048);
            UdpBatch in = new UdpBatch(16);
            for (int i = 0; i < 16; i++) {
                in.setReceive(i, rx, i * 2048L, 2048);
            }
            int got = 0;
            UdpBatch view = in;
            // loopback queues all 8 before sendmmsg returns; recvmmsg may still split them
            int[] lengths = new int[8];
            byte[][] data = new byte[8][];
            for (int tries = 0; tries < 1000 && got < 8; tries++) {
                int n = receiveBatchFully(s2, view, 16 - got);
                for (int i = 0; i < n; i++) {
                    lengths[got + i] = view.length(i);
                    data[got + i] = bytes(rx, i * 2048L, view.length(i));
                    assertEquals(0x7f000001, view.address(i).ipv4());
                    assertEquals(s1.localPort(), view.address(i).port());
                    assertFalse(view.truncated(i));
                }
                got += n;
            }
            assertEquals(8, got);
            for (int i = 0; i < 8; i++) {
                assertEquals(100 + i * 50, lengths[i]);
                assertArrayEquals(bytes(tx, i * 1024L, 100 + i * 50), data[i]);
            }
            assertEquals(0, s2.receiveBatch(in, 16));
        }
    }

    @Test
    void sendBatchToTwoDestinationsAndPartialRange() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO1, 0, null);
             UdpSocket s2 = UdpSocket.open(LO2, 0, null);
             UdpSocket s3 = UdpSocket.open(LO1, 0, null)) {
            MemorySegment tx = pattern(a, 256, 9);
            UdpBatch out = new UdpBatch(4);
            out.setSend(0, tx, 0, 10, new SockAddr(a).setIpv4(0x7f000002, s2.localPort()));
            out.setSend(1, tx, 10, 20, new SockAddr(a).setIpv4(0x7f000001, s3.localPort()));
            out.setSend(2, tx, 30, 30, new SockAddr(a).setIpv4(0x7f000002, s2.localPort()));
            assertEquals(2, s1.sendBatch(out, 1, 2));
            MemorySegment rx = a.allocate(64);
            assertEquals(20, receiveOne(s3, rx, 0, 64, null));
            assertArrayEquals(bytes(tx, 10, 20), bytes(rx, 0, 20));
            assertEquals(30, receiveOne(s2, rx, 0, 64, null));
            assertArrayEquals(bytes(tx, 30, 30), bytes(rx, 0, 30));
            assertEquals(0, s2.receive(rx, 0, 64, null));
            UdpBatch wrong = new UdpBatch(1).setSend(0, tx, 0, 1, new SockAddr(a).setIpv6(0, 1, 1));
            assertThrows(IllegalArgumentException.class, () -> s1.sendBatch(wrong, 0, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> s1.sendBatch(out, 3, 2));
        }
    }

    @Test
    void gsoTrainArrivesAsSeparateDatagramsAtAnOrdinarySocket() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO1, 0, null);
             UdpSocket s2 = UdpSocket.open(LO2, 0, null)) {
            Assumptions.assumeTrue(s1.supportsGso(), "kernel without UDP_SEGMENT");
            MemorySegment tx = pattern(a, 10_500, 11);
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000002, s2.localPort());
            assertEquals(10_500, s1.sendGso(tx, 0, 10_500, 1000, dst));
            MemorySegment rx = a.allocate(4096);
            for (int i = 0; i < 11; i++) {
                int expected = i < 10 ? 1000 : 500;
                assertEquals(expected, receiveOne(s2, rx, 0, 4096, null), "datagram " + i);
                assertArrayEquals(bytes(tx, i * 1000L, expected), bytes(rx, 0, expected), "datagram " + i);
            }
            assertEquals(0, s2.receive(rx, 0, 4096, null));
        }
    }

    @Test
    void gsoTrainIntoGroReceiverKeepsSegmentSize() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO6, 0, null);
             UdpSocket s2 = UdpSocket.open(LO6, 0, new UdpSocket.Options().gro(true))) {
            Assumptions.assumeTrue(s1.supportsGso(), "kernel without UDP_SEGMENT");
            assertTrue(s2.groEnabled());
            MemorySegment tx = pattern(a, 64 * 1024, 13);
            SockAddr dst = new SockAddr(a).set(LO6, s2.localPort());
            int total = 40 * 1024 + 100;
            assertEquals(total, s1.sendGso(tx, 0, total, 1024, dst));
            MemorySegment rx = a.allocate(65_536);
            int got = 0;
            int largest = 0;
            for (int tries = 0; tries < 1000 && got < total; tries++) {
                int n = receiveOne(s2, rx, 0, 65_536, null);
                assertTrue(n > 0);
                largest = Math.max(largest, n);
                int seg = s2.receivedSegmentSize();
                // every received datagram, coalesced or not, is cut at 1024-byte boundaries
                assertTrue(n <= 1024 ? seg == n || seg == 1024 : seg == 1024, "n=" + n + " seg=" + seg);
                assertArrayEquals(bytes(tx, got, n), bytes(rx, 0, n));
                got += n;
            }
            assertEquals(total, got);
            // on loopback the GSO train reaches a UDP_GRO socket unsegmented: one receive, many datagrams
            assertTrue(largest > 1024, "no coalesced receive seen; largest " + largest);
        }
    }

    @Test
    void gsoSlotsInABatchAndGroBatchReceive() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO1, 0, null);
             UdpSocket s2 = UdpSocket.open(LO2, 0, new UdpSocket.Options().gro(true))) {
            Assumptions.assumeTrue(s1.supportsGso(), "kernel without UDP_SEGMENT");
            MemorySegment tx = pattern(a, 20_000, 17);
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000002, s2.localPort());
            UdpBatch out = new UdpBatch(2)
                    .setSendGso(0, tx, 0, 8 * 1000, 1000, dst)
                    .setSendGso(1, tx, 8000, 4 * 2000 + 7, 2000, dst);
            assertEquals(2, s1.sendBatch(out, 0, 2));
            MemorySegment rx = a.allocate(4 * 65_536);
            UdpBatch in = new UdpBatch(4);
            for (int i = 0; i < 4; i++) {
                in.setReceive(i, rx, i * 65_536L, 65_536);
            }
            int got = 0;
            int coalesced = 0;
            for (int tries = 0; tries < 1000 && got < 16_007; tries++) {
                int n = receiveBatchFully(s2, in, 4);
                for (int i = 0; i < n; i++) {
                    int len = in.length(i);
                    int seg = in.segmentSize(i);
                    int expectedSeg = got < 8000 ? 1000 : 2000;
                    assertTrue(seg == expectedSeg || (seg == len && len <= expectedSeg), "len=" + len + " seg=" + seg);
                    assertArrayEquals(bytes(tx, got, len), bytes(rx, i * 65_536L, len));
                    if (len > seg) {
                        coalesced++;
                    }
                    got += len;
                }
            }
            assertEquals(16_007, got);
            assertTrue(coalesced > 0, "no coalesced slot seen");
        }
    }

    @Test
    void gsoArgumentsAreChecked() {
        try (Arena a = Arena.ofConfined(); UdpSocket s = UdpSocket.open(LO1, 0, null)) {
            Assumptions.assumeTrue(s.supportsGso(), "kernel without UDP_SEGMENT");
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000001, s.localPort());
            MemorySegment tx = a.allocate(65_536);
            assertThrows(IllegalArgumentException.class, () -> s.sendGso(tx, 0, 65 * 100, 100, dst));
            assertThrows(IllegalArgumentException.class, () -> s.sendGso(tx, 0, 100, 0, dst));
        }
    }
}
