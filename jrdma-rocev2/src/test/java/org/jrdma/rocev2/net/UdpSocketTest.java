package org.jrdma.rocev2.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UdpSocketTest {
    static final InetAddress LO1 = addr("127.0.0.1");
    static final InetAddress LO2 = addr("127.0.0.2");
    static final InetAddress LO6 = addr("::1");

    static InetAddress addr(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static MemorySegment pattern(Arena a, int n, int seed) {
        MemorySegment s = a.allocate(n);
        for (int i = 0; i < n; i++) {
            s.set(JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return s;
    }

    /** Waits (bounded) for a datagram and receives it. */
    static int receiveOne(UdpSocket s, MemorySegment buf, long off, int cap, SockAddr from) {
        for (int i = 0; i < 1000; i++) {
            int n = s.receive(buf, off, cap, from);
            if (n != 0) {
                return n;
            }
            s.awaitReadable(10_000_000L);
        }
        return 0;
    }

    @Test
    void ipv4RoundTripBetweenTwoLoopbackAddresses() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO1, 0, null);
             UdpSocket s2 = UdpSocket.open(LO2, 0, null)) {
            assertNotEquals(0, s1.localPort());
            assertEquals(0x7f000002, s2.localAddress().ipv4());
            MemorySegment tx = pattern(a, 1024, 7);
            MemorySegment rx = a.allocate(2048);
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000002, s2.localPort());
            assertEquals(1000, s1.sendTo(tx, 24, 1000, dst));
            SockAddr from = new SockAddr(a);
            assertEquals(1000, receiveOne(s2, rx, 100, 1900, from));
            assertArrayEquals(tx.asSlice(24, 1000).toArray(JAVA_BYTE), rx.asSlice(100, 1000).toArray(JAVA_BYTE));
            assertEquals(SockAddr.AF_INET, from.family());
            assertEquals(0x7f000001, from.ipv4());
            assertEquals(s1.localPort(), from.port());
            assertEquals(new InetSocketAddress(LO1, s1.localPort()), from.toInetSocketAddress());
        }
    }

    @Test
    void connectedSocketSendsToItsPeerWithoutAnAddressAndStillSendsToOthers() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO1, 0, null);
             UdpSocket s2 = UdpSocket.open(LO2, 0, null);
             UdpSocket s3 = UdpSocket.open(LO2, 0, null)) {
            MemorySegment tx = pattern(a, 256, 3);
            MemorySegment rx = a.allocate(512);
            SockAddr from = new SockAddr(a);
            s1.connect(new SockAddr(a).setIpv4(0x7f000002, s2.localPort()));
            assertEquals(200, s1.send(tx, 0, 200));
            assertEquals(200, receiveOne(s2, rx, 0, 512, from));
            assertArrayEquals(tx.asSlice(0, 200).toArray(JAVA_BYTE), rx.asSlice(0, 200).toArray(JAVA_BYTE));
            assertEquals(s1.localPort(), from.port());
            // sendto(2) with an address still reaches another socket (udp(7))
            assertEquals(100, s1.sendTo(tx, 0, 100, new SockAddr(a).setIpv4(0x7f000002, s3.localPort())));
            assertEquals(100, receiveOne(s3, rx, 0, 512, from));
        }
    }

    @Test
    void sendWithoutAnAddressOnAnUnconnectedSocketIsEdestaddrreq() {
        try (Arena a = Arena.ofConfined(); UdpSocket s1 = UdpSocket.open(LO1, 0, null)) {
            NetException e = assertThrows(NetException.class, () -> s1.send(a.allocate(8), 0, 8));
            assertEquals(89, e.errno(), e.getMessage()); // EDESTADDRREQ (Linux), udp(7)
        }
    }

    @Test
    void ipv4SocketsAskForDontFragment() {
        try (UdpSocket s = UdpSocket.open(LO1, 0, null)) {
            assertFalse(s.isIpv6());
            assertEquals(LibC.IP_PMTUDISC_DO, s.getIntOption(LibC.SOL_IP, LibC.IP_MTU_DISCOVER));
            assertEquals(0, s.getIntOption(LibC.SOL_SOCKET, LibC.SO_REUSEADDR));
        }
    }

    @Test
    void ipv6SocketAcceptsZeroChecksumAndIsV6Only() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO6, 0, null);
             UdpSocket s2 = UdpSocket.open(LO6, 0, null)) {
            assertTrue(s1.isIpv6());
            assertEquals(1, s1.getIntOption(LibC.SOL_UDP, LibC.UDP_NO_CHECK6_RX));
            assertEquals(1, s1.getIntOption(LibC.SOL_IPV6, LibC.IPV6_V6ONLY));
            MemorySegment tx = pattern(a, 300, 3);
            MemorySegment rx = a.allocate(512);
            SockAddr dst = new SockAddr(a).set(LO6, s2.localPort());
            assertEquals(300, s1.sendTo(tx, 0, 300, dst));
            SockAddr from = new SockAddr(a);
            assertEquals(300, receiveOne(s2, rx, 0, 512, from));
            assertArrayEquals(tx.toArray(JAVA_BYTE), rx.asSlice(0, 300).toArray(JAVA_BYTE));
            assertTrue(from.isIpv6());
            assertEquals(0L, from.ipv6Hi());
            assertEquals(1L, from.ipv6Lo());
            assertEquals(s1.localPort(), from.port());
        }
    }

    @Test
    void bindFailureNamesAddressPortAndErrno() {
        try (UdpSocket s = UdpSocket.open(LO1, 0, null)) {
            int port = s.localPort();
            NetException e = assertThrows(NetException.class, () -> UdpSocket.open(LO1, port, null));
            assertEquals("cannot bind 127.0.0.1:" + port + ": Address already in use", e.getMessage());
            assertEquals(LibC.EADDRINUSE, e.errno());
            assertInstanceOf(BindException.class, e.getCause());
        }
    }

    @Test
    void bindFailureOnIpv6ShowsBrackets() {
        try (UdpSocket s = UdpSocket.open(LO6, 0, null)) {
            int port = s.localPort();
            NetException e = assertThrows(NetException.class, () -> UdpSocket.open(LO6, port, null));
            assertEquals("cannot bind [0:0:0:0:0:0:0:1]:" + port + ": Address already in use", e.getMessage());
        }
    }

    @Test
    void nonBlockingReceiveReturnsZeroWhenEmpty() {
        try (Arena a = Arena.ofConfined(); UdpSocket s = UdpSocket.open(LO1, 0, null)) {
            assertTrue(s.isNonBlocking());
            SockAddr from = new SockAddr(a);
            assertEquals(0, s.receive(a.allocate(64), 0, 64, from));
            assertEquals(0, from.family());
        }
    }

    @Test
    void blockingOptionClearsONonblock() {
        try (UdpSocket s = UdpSocket.open(LO1, 0, new UdpSocket.Options().nonBlocking(false))) {
            assertFalse(s.isNonBlocking());
            s.setNonBlocking(true);
            assertTrue(s.isNonBlocking());
        }
    }

    @Test
    void datagramLargerThanBufferIsDroppedAsEmsgsize() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO1, 0, null);
             UdpSocket s2 = UdpSocket.open(LO1, 0, null)) {
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000001, s2.localPort());
            assertEquals(200, s1.sendTo(pattern(a, 200, 1), 0, 200, dst));
            assertEquals(50, s1.sendTo(pattern(a, 50, 2), 0, 50, dst));
            MemorySegment rx = a.allocate(100);
            assertEquals(-LibC.EMSGSIZE, receiveOne(s2, rx, 0, 100, null));
            assertEquals(50, receiveOne(s2, rx, 0, 100, null));
        }
    }

    @Test
    void sendToIpv6DestinationFromIpv4SocketIsRejected() {
        try (Arena a = Arena.ofConfined(); UdpSocket s = UdpSocket.open(LO1, 0, null)) {
            SockAddr dst = new SockAddr(a).setIpv6(0, 1, 9);
            assertThrows(IllegalArgumentException.class, () -> s.sendTo(a.allocate(8), 0, 8, dst));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> s.sendTo(a.allocate(8), 4, 8, new SockAddr(a).setIpv4(0x7f000001, 9)));
            assertThrows(IllegalArgumentException.class,
                    () -> s.sendTo(MemorySegment.ofArray(new byte[8]), 0, 8, new SockAddr(a).setIpv4(0x7f000001, 9)));
        }
    }

    @Test
    void closedSocketThrowsNetException() {
        try (Arena a = Arena.ofConfined()) {
            UdpSocket s = UdpSocket.open(LO1, 0, null);
            s.close();
            s.close();
            NetException e = assertThrows(NetException.class,
                    () -> s.sendTo(a.allocate(8), 0, 8, new SockAddr(a).setIpv4(0x7f000001, 9)));
            assertEquals(LibC.EBADF, e.errno());
        }
    }

    @Test
    void trafficClassIsSetAndSeenByReceiver() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO1, 0, new UdpSocket.Options().trafficClass(0x02));
             UdpSocket s2 = UdpSocket.open(LO2, 0, new UdpSocket.Options().receiveTrafficClass(true))) {
            assertEquals(0x02, s1.trafficClass());
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000002, s2.localPort());
            MemorySegment rx = a.allocate(64);
            assertEquals(10, s1.sendTo(pattern(a, 10, 0), 0, 10, dst));
            assertEquals(10, receiveOne(s2, rx, 0, 64, null));
            assertEquals(0x02, s2.receivedTrafficClass());
            s1.setTrafficClass(0x68); // DSCP 26 (AF31), as rdma_rxe with tos 104
            assertEquals(0x68, s1.trafficClass());
            assertEquals(10, s1.sendTo(pattern(a, 10, 0), 0, 10, dst));
            assertEquals(10, receiveOne(s2, rx, 0, 64, null));
            assertEquals(0x68, s2.receivedTrafficClass());
        }
    }

    @Test
    void ipv6TrafficClassIsSeenByReceiver() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO6, 0, new UdpSocket.Options().trafficClass(0x03));
             UdpSocket s2 = UdpSocket.open(LO6, 0, new UdpSocket.Options().receiveTrafficClass(true))) {
            SockAddr dst = new SockAddr(a).set(LO6, s2.localPort());
            MemorySegment rx = a.allocate(64);
            assertEquals(10, s1.sendTo(pattern(a, 10, 0), 0, 10, dst));
            assertEquals(10, receiveOne(s2, rx, 0, 64, null));
            assertEquals(0x03, s2.receivedTrafficClass());
        }
    }

    @Test
    void buffersAreGrantedLarge() {
        try (UdpSocket s = UdpSocket.open(LO1, 0, null)) {
            // Linux doubles the asked size for bookkeeping (socket(7)); as root SO_RCVBUFFORCE applies.
            assertTrue(s.receiveBufferBytes() > 0);
            assertTrue(s.sendBufferBytes() > 0);
        }
    }

    @Test
    @Timeout(30)
    void awaitReadableTimesOutThenSeesDatagram() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(LO1, 0, null);
             UdpSocket s2 = UdpSocket.open(LO1, 0, null)) {
            assertFalse(s2.awaitReadable(0));
            assertFalse(s2.awaitReadable(1_000_000L));
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000001, s2.localPort());
            assertEquals(4, s1.sendTo(pattern(a, 4, 0), 0, 4, dst));
            assertTrue(s2.awaitReadable(-1));
            assertEquals(4, s2.receive(a.allocate(16), 0, 16, null));
        }
    }

    @Test
    @Timeout(30)
    void wakeupReleasesAnInfiniteWait() throws Exception {
        try (UdpSocket s = UdpSocket.open(LO1, 0, null)) {
            s.wakeup();
            assertFalse(s.awaitReadable(-1)); // would hang without the pending wakeup
            assertFalse(s.awaitReadable(0));  // the wakeup was consumed
            CountDownLatch started = new CountDownLatch(1);
            boolean[] result = {true};
            Thread t = new Thread(() -> {
                started.countDown();
                result[0] = s.awaitReadable(-1);
            });
            t.start();
            started.await();
            s.wakeup();
            t.join();
            assertFalse(result[0]);
        }
    }
}
