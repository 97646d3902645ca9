package org.jrdma.rocev2.net;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

import static org.jrdma.rocev2.net.GsoBatchTest.bytes;
import static org.jrdma.rocev2.net.UdpSocketTest.LO1;
import static org.jrdma.rocev2.net.UdpSocketTest.LO2;
import static org.jrdma.rocev2.net.UdpSocketTest.pattern;
import static org.jrdma.rocev2.net.UdpSocketTest.receiveOne;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RawIpv4SocketTest {
    @BeforeEach
    void needRaw() {
        Assumptions.assumeTrue(RawIpv4Socket.permitted(),
                "skipped: raw sockets need CAP_NET_RAW (run as root) — " + RawIpv4Socket.NOT_PERMITTED_MESSAGE);
    }

    static int receiveRaw(RawIpv4Socket r, MemorySegment buf, int cap, SockAddr from) {
        for (int i = 0; i < 1000; i++) {
            int n = r.receive(buf, 0, cap, from);
            if (n != 0) {
                return n;
            }
            r.awaitReadable(10_000_000L);
        }
        return 0;
    }

    /** An unused UDP port on 127.0.0.2 (bound, read, released). */
    static int freePort() {
        try (UdpSocket s = UdpSocket.open(LO2, 0, null)) {
            return s.localPort();
        }
    }

    @Test
    void ownIdentificationAndDfArriveAsWritten() {
        int port = freePort();
        try (Arena a = Arena.ofConfined();
             RawIpv4Socket tx = RawIpv4Socket.openSender();
             RawIpv4Socket rx = RawIpv4Socket.open((Inet4Address) LO2, port);
             UdpSocket udp = UdpSocket.open(LO2, port, null)) {
            assertFalse(tx.canReceive());
            assertTrue(rx.canReceive());
            MemorySegment pkt = a.allocate(128);
            MemorySegment payload = pattern(a, 40, 21);
            int total = Ipv4Header.LENGTH + UdpHeader.LENGTH + 40;
            Ipv4Header.write(pkt, 0, 0x02, total, 0x1234, true, 64, Ipv4Header.PROTOCOL_UDP, 0x7f000001, 0x7f000002);
            UdpHeader.write(pkt, 20, 0xc001, port, UdpHeader.LENGTH + 40, 0);
            MemorySegment.copy(payload, 0, pkt, 28, 40);
            assertTrue(Ipv4Header.checksumValid(pkt, 0));
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000002, 0);
            assertEquals(total, tx.send(pkt, 0, total, dst));

            MemorySegment in = a.allocate(2048);
            SockAddr from = new SockAddr(a);
            assertEquals(total, receiveRaw(rx, in, 2048, from));
            assertEquals(4, Ipv4Header.version(in, 0));
            assertEquals(0x1234, Ipv4Header.identification(in, 0));
            assertTrue(Ipv4Header.dontFragment(in, 0));
            assertEquals(64, Ipv4Header.ttl(in, 0));
            assertEquals(0x02, Ipv4Header.tos(in, 0));
            assertEquals(total, Ipv4Header.totalLength(in, 0));
            assertEquals(0x7f000001, Ipv4Header.source(in, 0));
            assertEquals(0x7f000002, Ipv4Header.destination(in, 0));
            assertTrue(Ipv4Header.checksumValid(in, 0));
            assertEquals(0xc001, UdpHeader.sourcePort(in, 20));
            assertEquals(port, UdpHeader.destinationPort(in, 20));
            assertEquals(0, UdpHeader.checksum(in, 20));
            assertArrayEquals(bytes(payload, 0, 40), bytes(in, 28, 40));
            assertEquals(0x7f000001, from.ipv4());

            // the kernel also delivered the datagram (checksum 0 is "none" over IPv4) to the UDP socket
            SockAddr ufrom = new SockAddr(a);
            assertEquals(40, receiveOne(udp, in, 0, 2048, ufrom));
            assertArrayEquals(bytes(payload, 0, 40), bytes(in, 0, 40));
            assertEquals(0xc001, ufrom.port());
        }
    }

    @Test
    void udpSocketDatagramsCarryDfAndFilterKeepsOnlyThePort() {
        int port = freePort();
        try (Arena a = Arena.ofConfined();
             RawIpv4Socket rx = RawIpv4Socket.open((Inet4Address) LO2, port);
             UdpSocket sink = UdpSocket.open(LO2, port, null);
             UdpSocket other = UdpSocket.open(LO2, 0, null);
             UdpSocket s = UdpSocket.open(LO1, 0, null)) {
            MemorySegment payload = pattern(a, 100, 3);
            assertEquals(50, s.sendTo(payload, 0, 50, new SockAddr(a).setIpv4(0x7f000002, other.localPort())));
            assertEquals(100, s.sendTo(payload, 0, 100, new SockAddr(a).setIpv4(0x7f000002, port)));
            MemorySegment in = a.allocate(2048);
            assertEquals(128, receiveRaw(rx, in, 2048, null));
            assertEquals(port, UdpHeader.destinationPort(in, 20));
            assertEquals(s.localPort(), UdpHeader.sourcePort(in, 20));
            assertTrue(Ipv4Header.dontFragment(in, 0), "UdpSocket must send every IPv4 datagram with DF");
            assertEquals(0, rx.receive(in, 0, 2048, null));
        }
    }

    @Test
    void discardAllKeepsPortBoundSoNoIcmpPortUnreachable() throws Exception {
        int closedPort = freePort();
        try (Arena a = Arena.ofConfined();
             UdpSocket discard = UdpSocket.open(LO2, 0, null);
             DatagramChannel toDiscard = DatagramChannel.open();
             DatagramChannel toClosed = DatagramChannel.open()) {
            discard.discardAll();
            toDiscard.connect(new InetSocketAddress(LO2, discard.localPort())).configureBlocking(false);
            toClosed.connect(new InetSocketAddress(LO2, closedPort)).configureBlocking(false);
            toDiscard.write(ByteBuffer.wrap(new byte[8]));
            toClosed.write(ByteBuffer.wrap(new byte[8]));
            // the port-unreachable for the closed port comes (loopback answers in order) ...
            boolean unreachable = false;
            for (int i = 0; i < 1000 && !unreachable; i++) {
                try {
                    toClosed.receive(ByteBuffer.allocate(16));
                    Thread.sleep(1);
                } catch (PortUnreachableException e) {
                    unreachable = true;
                }
            }
            assertTrue(unreachable, "control: a port with no socket answers ICMP port unreachable");
            // ... but none for the bound, discarding socket, and nothing is queued on it
            assertNull(toDiscard.receive(ByteBuffer.allocate(16)));
            assertEquals(0, discard.receive(a.allocate(64), 0, 64, null));
        }
    }

    @Test
    void receiveOnSendOnlySocketIsRejected() {
        try (Arena a = Arena.ofConfined(); RawIpv4Socket tx = RawIpv4Socket.openSender()) {
            assertThrows(IllegalStateException.class, () -> tx.receive(a.allocate(64), 0, 64, null));
            assertThrows(IllegalArgumentException.class,
                    () -> tx.send(a.allocate(64), 0, 64, new SockAddr(a).setIpv6(0, 1, 0)));
        }
    }

    @Test
    void notPermittedMessageExplainsWhy() {
        String m = RawIpv4Socket.NOT_PERMITTED_MESSAGE;
        assertTrue(m.contains("CAP_NET_RAW"));
        assertTrue(m.contains("IP Identification"));
        assertTrue(m.contains("IPv6 does not need it"));
    }
}
