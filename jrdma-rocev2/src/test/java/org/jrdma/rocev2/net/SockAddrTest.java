package org.jrdma.rocev2.net;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SockAddrTest {
    @Test
    void ipv4LayoutIsSockaddrIn() {
        try (Arena a = Arena.ofConfined()) {
            SockAddr s = new SockAddr(a).setIpv4(0xc0a80a01, 4791);  // 192.168.10.1
            // struct sockaddr_in on x86-64: family (host order) 2, port 4791 = 0x12b7 big-endian, address big-endian
            byte[] expected = {2, 0, 0x12, (byte) 0xb7, (byte) 192, (byte) 168, 10, 1, 0, 0, 0, 0, 0, 0, 0, 0};
            assertArrayEquals(expected, s.segment().asSlice(0, 16).toArray(JAVA_BYTE));
            assertEquals(16, s.length());
            assertEquals(4791, s.port());
            assertEquals(0xc0a80a01, s.ipv4());
            assertEquals("192.168.10.1:4791", s.toString());
        }
    }

    @Test
    void ipv4LoopbackIsAll127Slash8AndNothingElse() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            SockAddr s = new SockAddr(a);
            assertTrue(s.setIpv4(0x7f000001, 4791).isIpv4Loopback());   // 127.0.0.1
            assertTrue(s.setIpv4(0x7f580f02, 4791).isIpv4Loopback());   // 127.88.15.2
            assertFalse(s.setIpv4(0x80000001, 4791).isIpv4Loopback());  // 128.0.0.1
            assertFalse(s.setIpv4(0x0a4d0001, 4791).isIpv4Loopback());  // 10.77.0.1
            assertFalse(s.set(InetAddress.getByName("::1"), 4791).isIpv4Loopback());
            // Java turns an IPv4-mapped address into its IPv4 address
            assertTrue(s.set(InetAddress.getByName("::ffff:127.0.0.1"), 4791).isIpv4Loopback());
        }
    }

    @Test
    void ipv6LayoutIsSockaddrIn6() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            InetAddress ip = InetAddress.getByName("fe80::1:2:3:4");
            SockAddr s = new SockAddr(a).set(ip, 4791);
            byte[] b = s.segment().asSlice(0, 28).toArray(JAVA_BYTE);
            assertEquals(10, b[0]);
            assertEquals(0, b[1]);
            assertEquals(0x12, b[2]);
            assertEquals((byte) 0xb7, b[3]);
            byte[] addr = new byte[16];
            System.arraycopy(b, 8, addr, 0, 16);
            assertArrayEquals(ip.getAddress(), addr);
            assertEquals(0xfe80000000000000L, s.ipv6Hi());
            assertEquals(0x0001000200030004L, s.ipv6Lo());
            assertEquals(28, s.length());
            assertEquals(new InetSocketAddress(ip, 4791), s.toInetSocketAddress());
        }
    }

    @Test
    void scopeIdIsCarried() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            Inet6Address ip = Inet6Address.getByAddress(null, InetAddress.getByName("fe80::9").getAddress(), 3);
            SockAddr s = new SockAddr(a).set(ip, 1);
            assertEquals(3, s.scopeId());
            SockAddr t = new SockAddr(a).setIpv6(0xfe80000000000000L, 9, 1);
            assertFalse(s.sameAs(t));
            t.setIpv6(0xfe80000000000000L, 9, 1, 3);
            assertTrue(s.sameAs(t));
        }
    }

    @Test
    void sameAsAndCopyFrom() {
        try (Arena a = Arena.ofConfined()) {
            SockAddr x = new SockAddr(a).setIpv4(0x7f000001, 5);
            SockAddr y = new SockAddr(a).setIpv4(0x7f000001, 6);
            assertFalse(x.sameAs(y));
            y.port(5);
            assertTrue(x.sameAs(y));
            SockAddr z = new SockAddr(a).setIpv6(0, 0x7f000001L, 5);
            assertFalse(x.sameAs(z));
            z.copyFrom(x);
            assertTrue(z.sameAs(x));
            assertEquals(SockAddr.AF_INET, z.family());
            z.clear();
            assertEquals(0, z.family());
            assertEquals("unset", z.toString());
        }
    }

    @Test
    void portOutOfRangeIsRejected() {
        SockAddr s = new SockAddr();
        assertThrows(IllegalArgumentException.class, () -> s.setIpv4(1, 65536));
        assertThrows(IllegalArgumentException.class, () -> s.setIpv4(1, -1));
        assertThrows(IllegalStateException.class, s::toInetSocketAddress);
    }
}
