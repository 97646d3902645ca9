package org.jrdma.rocev2.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;

import org.jrdma.rocev2.pcap.Captures;
import org.jrdma.rocev2.pcap.Captures.RoceFrame;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Single-bit errors: CRC-32 detects every one of them, so flipping any bit the ICRC covers changes it,
 * and flipping a bit of a masked field (BTH byte 4: FECN, BECN, resv6) does not.
 */
class IcrcProperties {
    private static final List<RoceFrame> FRAMES = Captures.roceFrames().stream()
        .filter(f -> !f.id().equals("host-mad-ping.pcap#7") && !f.id().equals("host-mad-ping.pcap#8")).toList();

    private static int icrc(Icrc c, RoceFrame f, int src4, int dst4, int id, int flags, int sport, int dport,
                            long s6hi, long d6lo, PacketBuffer b, int len) {
        return f.ipVersion() == 4
            ? c.ipv4(src4, dst4, id, flags, sport, dport, b, 0, len)
            : c.ipv6(s6hi, f.src6lo(), f.dst6hi(), d6lo, sport, dport, b, 0, len);
    }

    @Property(tries = 1000)
    void anyBitFlipInTheCoveredBytesFailsTheIcrc(@ForAll @IntRange(max = 100_000) int which,
                                                 @ForAll @IntRange(max = 1_000_000) int where) {
        RoceFrame f = FRAMES.get(which % FRAMES.size());
        PacketBuffer b = f.buffer();
        int len = f.udpPayload().length - Icrc.LENGTH;
        int good = Icrc.read(b, len);
        Icrc c = new Icrc();
        // bits of BTH..pad, then of the unmasked IP/UDP fields given as parameters
        int bit = where % (len * 8 + 32 * 2 + 16 * 4); // source and destination address, ID, flags, ports
        int src4 = f.src4();
        int dst4 = f.dst4();
        int id = f.ipId();
        int flags = f.flagsFragOff();
        int sport = f.srcPort();
        int dport = f.dstPort();
        long s6hi = f.src6hi();
        long d6lo = f.dst6lo();
        if (bit < len * 8) {
            int at = bit >>> 3;
            if (at == 4) {
                at = 5; // byte 4 is masked: tested below
            }
            b.bb.put(at, (byte) (b.bb.get(at) ^ (1 << (bit & 7))));
        } else {
            int k = bit - len * 8;
            if (k < 32) {
                src4 ^= 1 << k;
                s6hi ^= 1L << (k * 2);
            } else if (k < 64) {
                dst4 ^= 1 << (k - 32);
                d6lo ^= 1L << ((k - 32) * 2);
            } else if (k < 80) {
                id ^= 1 << (k - 64);
                if (f.ipVersion() == 6) {
                    sport ^= 1 << (k - 64);
                }
            } else if (k < 96) {
                flags ^= 1 << (k - 80);
                if (f.ipVersion() == 6) {
                    dport ^= 1 << (k - 80);
                }
            } else if (k < 112) {
                sport ^= 1 << (k - 96);
            } else {
                dport ^= 1 << (k - 112);
            }
        }
        assertNotEquals(good, icrc(c, f, src4, dst4, id, flags, sport, dport, s6hi, d6lo, b, len), f.id() + " bit " + bit);
    }

    /**
     * Solving for the IPv4 Identification recovers the ID the ICRC was computed with, for any ID and
     * any length up to the largest UDP payload (every table of inverse powers is used), and the
     * shortcut for ID 0 agrees with the general path. ({@link Icrc#ipv4} itself is checked against
     * the captures by IcrcCaptureTest.)
     */
    @Property(tries = 500)
    void solveIpv4IdRecoversAnyIdAtAnyLength(@ForAll @IntRange(min = 12, max = 65_000) int len,
                                             @ForAll @IntRange(max = 0xFFFF) int id, @ForAll boolean df,
                                             @ForAll byte fill) {
        PacketBuffer b = PacketBuffer.allocate(len + Icrc.LENGTH);
        for (int i = 0; i < len; i++) {
            b.bb.put(i, (byte) (fill + i * 31));
        }
        Icrc c = new Icrc();
        int flags = df ? 0x4000 : 0;
        int ic = c.ipv4(0x7f000001, 0x7f000002, id, flags, 0xC123, 4791, b, 0, len);
        assertEquals(id, c.solveIpv4Id(0x7f000001, 0x7f000002, flags, 0xC123, 4791, b, 0, len, ic));
        assertNotEquals(id, c.solveIpv4Id(0x7f000001, 0x7f000002, flags ^ 0x4000, 0xC123, 4791, b, 0, len, ic),
                "another flags field yields another ID or none");
    }

    @Property(tries = 200)
    void bthByte4IsMasked(@ForAll @IntRange(max = 100_000) int which, @ForAll byte flip) {
        RoceFrame f = FRAMES.get(which % FRAMES.size());
        PacketBuffer b = f.buffer();
        int len = f.udpPayload().length - Icrc.LENGTH;
        b.bb.put(4, (byte) (b.bb.get(4) ^ flip));
        int got = icrc(new Icrc(), f, f.src4(), f.dst4(), f.ipId(), f.flagsFragOff(), f.srcPort(), f.dstPort(),
            f.src6hi(), f.dst6lo(), b, len);
        assertEquals(Icrc.read(b, len), got, "FECN/BECN/resv6 do not count");
    }
}
