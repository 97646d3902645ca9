package org.jrdma.rocev2.net;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * What this kernel does with a SO_REUSEPORT group and a classic BPF program
 * ({@code SO_ATTACH_REUSEPORT_CBPF}), the facts shared devices rely on: the program sees the UDP
 * payload from offset 0; its result is an index into the group in join order; when a socket leaves,
 * the last one takes its index; an index outside the group falls back to the flow hash; and a socket
 * without SO_REUSEPORT cannot join.
 */
class ReuseportSteeringTest {
    static final int SHIFT = 18;

    static InetAddress randomLoopback() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return UdpSocketTest.addr("127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + "." + r.nextInt(1, 255));
    }

    static UdpSocket member(InetAddress a, int port) {
        return UdpSocket.open(a, port, UdpSocket.Options.defaults().reusePort(true));
    }

    /** A datagram whose bytes 4..7 are a BTH's resv8 + destination QPN. */
    static MemorySegment bth(Arena arena, int qpn) {
        MemorySegment s = arena.allocate(32);
        s.set(JAVA_BYTE, 0, (byte) 0x04);
        s.set(JAVA_BYTE, 4, (byte) 0x55); // resv8: must be masked off
        s.set(JAVA_BYTE, 5, (byte) (qpn >>> 16));
        s.set(JAVA_BYTE, 6, (byte) (qpn >>> 8));
        s.set(JAVA_BYTE, 7, (byte) qpn);
        return s;
    }

    /** Sends a datagram for {@code qpn} and returns the index in {@code members} of the socket that got it. */
    static int whoGets(Arena arena, UdpSocket sender, SockAddr dst, List<UdpSocket> members, int qpn) {
        MemorySegment d = bth(arena, qpn);
        assertEquals(32, sender.sendTo(d, 0, 32, dst));
        MemorySegment buf = arena.allocate(64);
        for (int round = 0; round < 2000; round++) {
            for (int i = 0; i < members.size(); i++) {
                int n = members.get(i).receive(buf, 0, 64, null);
                if (n > 0) {
                    int got = ((buf.get(JAVA_BYTE, 5) & 0xff) << 16) | ((buf.get(JAVA_BYTE, 6) & 0xff) << 8)
                            | (buf.get(JAVA_BYTE, 7) & 0xff);
                    assertEquals(qpn, got);
                    return i;
                }
            }
            members.get(0).awaitReadable(100_000);
        }
        throw new AssertionError("no member received QPN " + qpn);
    }

    @Test
    void steersByQpnSlotInJoinOrderAndTheLastTakesTheIndexOfOneThatLeaves() {
        InetAddress a = randomLoopback();
        try (Arena arena = Arena.ofConfined(); UdpSocket sender = UdpSocket.open(a, 0, null)) {
            UdpSocket first = member(a, 0);
            int port = first.localPort();
            List<UdpSocket> m = new ArrayList<>(List.of(first, member(a, port), member(a, port), member(a, port)));
            try {
                SockAddr dst = new SockAddr().set(a, port);
                // slots 7, 0, 3, 5 at indexes 0..3
                m.get(2).steerByQpnSlot(SHIFT, new int[] {7, 0, 3, 5});
                assertEquals(0, whoGets(arena, sender, dst, m, 7 << SHIFT | 123));
                assertEquals(1, whoGets(arena, sender, dst, m, 17));
                assertEquals(2, whoGets(arena, sender, dst, m, 3 << SHIFT));
                assertEquals(3, whoGets(arena, sender, dst, m, (5 << SHIFT) | 0x3FFFF));
                // the socket at index 1 leaves: the last (slot 5) now has index 1, as the program learns
                m.remove(1).close();
                m.add(1, m.remove(2));
                m.get(0).steerByQpnSlot(SHIFT, new int[] {7, 5, 3});
                assertEquals(1, whoGets(arena, sender, dst, m, 5 << SHIFT));
                assertEquals(2, whoGets(arena, sender, dst, m, 3 << SHIFT | 9));
                // a slot of nobody: index out of range, the kernel picks a member by hash; always one
                for (int i = 0; i < 8; i++) {
                    int who = whoGets(arena, sender, dst, m, (11 << SHIFT) + i);
                    assertTrue(who >= 0 && who < 3);
                }
                // a late joiner gets the next index
                m.add(member(a, port));
                m.get(3).steerByQpnSlot(SHIFT, new int[] {7, 5, 3, 1});
                assertEquals(3, whoGets(arena, sender, dst, m, 1 << SHIFT));
                assertEquals(0, whoGets(arena, sender, dst, m, 7 << SHIFT));
            } finally {
                m.forEach(UdpSocket::close);
            }
        }
    }

    @Test
    void aSocketWithoutReusePortCannotJoinNorBindOverOne() {
        InetAddress a = randomLoopback();
        try (UdpSocket s = member(a, 0)) {
            NetException e = assertThrows(NetException.class, () -> UdpSocket.open(a, s.localPort(), null));
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
        }
        try (UdpSocket s = UdpSocket.open(a, 0, null)) {
            NetException e = assertThrows(NetException.class, () -> member(a, s.localPort()));
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
        }
    }
}
