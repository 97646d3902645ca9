package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

/**
 * {@code ibv_init_ah_from_wc} on RoCE v2 (rdma-core {@code libibverbs/verbs.c}): the GRH areas are
 * the ones rxe writes (IPv4: 20 zero bytes, then the IPv4 header; IPv6: the IPv6 header), the
 * checksummed IPv4 header is RFC 791's example as printed in every checksum tutorial
 * (4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7).
 */
class AhFromWcTest {
    private static final WorkCompletion WITH_GRH = new WorkCompletion().set(0, WcStatus.SUCCESS, WcOpcode.RECV, 44,
            0x12, 0x11, 0x22, WcFlags.GRH | WcFlags.WITH_IMM, 0);

    private static Gid gid(String a) throws Exception {
        return Gid.of(InetAddress.getByName(a));
    }

    /** A GID table: 10.77.0.1 at 1, fd77::1 at 2, 192.168.0.199 at 3. */
    private static ToIntFunction<Gid> table() throws Exception {
        Map<Gid, Integer> t = Map.of(gid("10.77.0.1"), 1, gid("fd77::1"), 2, gid("192.168.0.199"), 3);
        return g -> t.getOrDefault(g, -1);
    }

    @Test
    void rxesIpv4Area() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            // TOS 0x20, TTL 64, 10.77.0.11 -> 10.77.0.1 (no checksum needed: the first word is not IPv6)
            MemorySegment grh = a.allocate(40);
            byte[] ip = {0x45, 0x20, 0, (byte) 0x98, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 77, 0, 11, 10, 77, 0, 1};
            MemorySegment.copy(ip, 0, grh, ValueLayout.JAVA_BYTE, 20, 20);
            AhAttr ah = AhFromWc.of(WITH_GRH, grh, 1, table());
            assertTrue(ah.isGlobal());
            assertEquals(gid("10.77.0.11"), ah.grh().dgid());
            assertEquals(1, ah.grh().sgidIndex());
            assertEquals(64, ah.grh().hopLimit());
            assertEquals(0x20, ah.grh().trafficClass());
            assertEquals(0, ah.grh().flowLabel());
            assertEquals(1, ah.portNum());
        }
    }

    @Test
    void ipv6Area() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            // traffic class 0x20, flow label 0x12345, next header UDP, hop limit 0x40, fd77::11 -> fd77::1
            MemorySegment grh = a.allocate(40);
            grh.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0, 0x60000000 | 0x20 << 20 | 0x12345);
            grh.set(ValueLayout.JAVA_BYTE, 6, (byte) 17);
            grh.set(ValueLayout.JAVA_BYTE, 7, (byte) 0x40);
            MemorySegment.copy(InetAddress.getByName("fd77::11").getAddress(), 0, grh, ValueLayout.JAVA_BYTE, 8, 16);
            MemorySegment.copy(InetAddress.getByName("fd77::1").getAddress(), 0, grh, ValueLayout.JAVA_BYTE, 24, 16);
            AhAttr ah = AhFromWc.of(WITH_GRH, grh, 1, table());
            assertEquals(gid("fd77::11"), ah.grh().dgid());
            assertEquals(2, ah.grh().sgidIndex());
            assertEquals(0x40, ah.grh().hopLimit());
            assertEquals(0x20, ah.grh().trafficClass());
            assertEquals(0x12345, ah.grh().flowLabel());
        }
    }

    @Test
    void aValidIpv4HeaderAfterAnIpv6LookingWordIsIpv4() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment grh = a.allocate(40);
            grh.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0, 0x60000000);
            int[] ip = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01,
                0xc0, 0xa8, 0x00, 0xc7};
            for (int i = 0; i < ip.length; i++) {
                grh.set(ValueLayout.JAVA_BYTE, 20 + i, (byte) ip[i]);
            }
            AhAttr ah = AhFromWc.of(WITH_GRH, grh, 1, table());
            assertEquals(gid("192.168.0.1"), ah.grh().dgid());
            assertEquals(3, ah.grh().sgidIndex());
            // a wrong checksum makes the same area IPv6 (destination bytes 24..39 are not in the table)
            grh.set(ValueLayout.JAVA_BYTE, 31, (byte) 0x62);
            assertThrows(PerftestException.class, () -> AhFromWc.of(WITH_GRH, grh, 1, table()));
        }
    }

    @Test
    void withoutGrhNotGlobal() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            WorkCompletion wc = new WorkCompletion().set(0, WcStatus.SUCCESS, WcOpcode.RECV, 4, 0, 0x11, 0x22, 0, 0);
            assertFalse(AhFromWc.of(wc, a.allocate(40), 1, table()).isGlobal());
        }
    }

    @Test
    void aDestinationOutsideTheGidTableIsRefused() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment grh = a.allocate(40);
            byte[] ip = {0x45, 0, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0, 10, 77, 0, 11, 10, 77, 0, 9};
            MemorySegment.copy(ip, 0, grh, ValueLayout.JAVA_BYTE, 20, 20);
            assertThrows(PerftestException.class, () -> AhFromWc.of(WITH_GRH, grh, 1, table()));
        }
    }
}
