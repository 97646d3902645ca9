package org.jrdma.rocev2.net;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

import static org.jrdma.rocev2.net.GsoBatchTest.bytes;
import static org.jrdma.rocev2.net.UdpSocketTest.LO6;
import static org.jrdma.rocev2.net.UdpSocketTest.pattern;
import static org.jrdma.rocev2.net.UdpSocketTest.receiveOne;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Linux rxe sends UDP checksum 0 over IPv6 (testdata/RESULTS.md). Such a datagram, sent here from a
 * raw IPv6 socket, reaches a UdpSocket (UDP_NO_CHECK6_RX) but not an ordinary JDK socket.
 */
class ZeroChecksumIpv6Test {

    /** Sends UDP header (checksum 0) + payload over a raw AF_INET6/IPPROTO_UDP socket to [::1]. Root only. */
    static void sendZeroChecksum(int srcPort, int dstPort, MemorySegment payload, int length) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = LibC.newErrnoSegment(a);
            int fd = (int) LibC.SOCKET.invokeExact(errno, LibC.AF_INET6, LibC.SOCK_RAW | LibC.SOCK_CLOEXEC, LibC.IPPROTO_UDP);
            if (fd < 0) {
                throw NetException.of("socket(AF_INET6, SOCK_RAW, IPPROTO_UDP)", LibC.errno(errno));
            }
            try {
                MemorySegment pkt = a.allocate(UdpHeader.LENGTH + length);
                UdpHeader.write(pkt, 0, srcPort, dstPort, UdpHeader.LENGTH + length, 0);
                MemorySegment.copy(payload, 0, pkt, UdpHeader.LENGTH, length);
                SockAddr dst = new SockAddr(a).setIpv6(0, 1, 0);
                long n = (long) LibC.SENDTO.invokeExact(errno, fd, pkt.address(), pkt.byteSize(), 0, dst.seg, dst.length());
                if (n < 0) {
                    throw NetException.of("sendto(raw6)", LibC.errno(errno));
                }
            } finally {
                LibC.closeQuietly(fd);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    @Test
    void zeroChecksumDatagramIsReceivedOnlyWithNoCheck6Rx() throws Exception {
        Assumptions.assumeTrue(RawIpv4Socket.permitted(),
                "skipped: sending a zero-checksum IPv6 datagram needs a raw socket (CAP_NET_RAW, run as root)");
        try (Arena a = Arena.ofConfined();
             UdpSocket ours = UdpSocket.open(LO6, 0, null);
             DatagramChannel jdk = DatagramChannel.open()) {
            jdk.bind(new InetSocketAddress(LO6, 0));
            int jdkPort = ((InetSocketAddress) jdk.getLocalAddress()).getPort();
            MemorySegment payload = pattern(a, 64, 41);

            sendZeroChecksum(0xc123, jdkPort, payload, 64);        // dropped by the kernel
            sendZeroChecksum(0xc123, ours.localPort(), payload, 64);

            MemorySegment in = a.allocate(256);
            SockAddr from = new SockAddr(a);
            assertEquals(64, receiveOne(ours, in, 0, 256, from));
            assertArrayEquals(bytes(payload, 0, 64), bytes(in, 0, 64));
            assertEquals(0xc123, from.port());
            assertEquals(1L, from.ipv6Lo());

            // a checksummed marker after the zero-checksum one: the JDK socket sees only the marker
            try (DatagramChannel marker = DatagramChannel.open()) {
                marker.send(ByteBuffer.wrap(new byte[] {1, 2, 3}), new InetSocketAddress(LO6, jdkPort));
            }
            ByteBuffer got = ByteBuffer.allocate(256);
            jdk.receive(got);
            assertEquals(3, got.position(), "the zero-checksum datagram must have been dropped by an ordinary socket");
        }
    }
}
