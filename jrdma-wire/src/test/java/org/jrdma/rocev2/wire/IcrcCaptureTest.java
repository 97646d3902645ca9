package org.jrdma.rocev2.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.jrdma.rocev2.pcap.Captures;
import org.jrdma.rocev2.pcap.Captures.RoceFrame;
import org.junit.jupiter.api.Test;

/**
 * The ICRC recomputed for every RoCE v2 packet of the interop captures (Linux rxe <-> rxe, plus the
 * hand-made packets of host-mad-ping.pcap). Expected counts are from captures/README.md and tshark
 * ({@code udp.dstport==4791}: 426 packets, 6 of them in host-mad-ping.pcap, frames 7 and 8 bad by
 * construction, see logs/host-mad-ping.host.txt).
 */
class IcrcCaptureTest {
    static int computeIcrc(Icrc icrc, RoceFrame f, PacketBuffer b) {
        int len = f.udpPayload().length - Icrc.LENGTH;
        return f.ipVersion() == 4
            ? icrc.ipv4(f.src4(), f.dst4(), f.ipId(), f.flagsFragOff(), f.srcPort(), f.dstPort(), b, 0, len)
            : icrc.ipv6(f.src6hi(), f.src6lo(), f.dst6hi(), f.dst6lo(), f.srcPort(), f.dstPort(), b, 0, len);
    }

    @Test
    void everyCapturedRxePacketHasTheIcrcWeCompute_andOnlyTheTwoHandMadeBadOnesFail() {
        Icrc icrc = new Icrc();
        List<String> bad = new ArrayList<>();
        int good = 0;
        int ipv6 = 0;
        for (RoceFrame f : Captures.roceFrames()) {
            PacketBuffer b = f.buffer();
            int len = f.udpPayload().length - Icrc.LENGTH;
            if (computeIcrc(icrc, f, b) == Icrc.read(b, len)) {
                good++;
                if (f.ipVersion() == 6) {
                    ipv6++;
                }
            } else {
                bad.add(f.id());
            }
        }
        assertEquals(List.of("host-mad-ping.pcap#7", "host-mad-ping.pcap#8"), bad);
        assertEquals(424, good, "422 rxe-sent packets + 2 good hand-made ones");
        assertEquals(20 + 2, ipv6, "rxe-rc-pingpong-ipv6 (20) + host-mad-ping IPv6 request and reply (#5, #6)");
    }

    @Test
    void icrcOfRdmaWriteFirstMatchesTheValueTsharkShows() {
        // tshark: rxe-rc-write-bw.pcap frame 34, "Invariant CRC: 0x4e447ccd": tshark reads the 4 wire
        // bytes big-endian, the CRC value is their little-endian reading
        RoceFrame f = Captures.frame("rxe-rc-write-bw.pcap", 34);
        assertEquals(Integer.reverseBytes(0x4e447ccd), computeIcrc(new Icrc(), f, f.buffer()));
        // and the IPv6 ACK rxe-rc-pingpong-ipv6.pcap frame 17: 0xaff620e6
        RoceFrame g = Captures.frame("rxe-rc-pingpong-ipv6.pcap", 17);
        assertEquals(Integer.reverseBytes(0xaff620e6), computeIcrc(new Icrc(), g, g.buffer()));
    }

    @Test
    void icrcIsStoredLittleEndianAfterThePad() {
        // the last 4 wire bytes of frame 34 are 4e 44 7c cd (tshark "0x4e447ccd"); CRC32 = 0xcd7c444e
        RoceFrame f = Captures.frame("rxe-rc-write-bw.pcap", 34);
        byte[] p = f.udpPayload();
        int n = p.length;
        assertEquals(0x4e, p[n - 4] & 0xff);
        assertEquals(0xcd, p[n - 1] & 0xff);
        PacketBuffer b = PacketBuffer.allocate(8);
        Icrc.write(b, 2, 0xcd7c444e);
        assertEquals((byte) 0x4e, b.bb.get(2));
        assertEquals((byte) 0x44, b.bb.get(3));
        assertEquals((byte) 0x7c, b.bb.get(4));
        assertEquals((byte) 0xcd, b.bb.get(5));
        assertEquals(0xcd7c444e, Icrc.read(b, 2));
    }

    @Test
    void solveIpv4IdRecoversTheCapturedIdOfEveryGoodIpv4Packet() {
        Icrc icrc = new Icrc();
        int n = 0;
        for (RoceFrame f : Captures.roceFrames()) {
            if (f.ipVersion() != 4 || f.id().equals("host-mad-ping.pcap#7")) {
                continue;
            }
            PacketBuffer b = f.buffer();
            int len = f.udpPayload().length - Icrc.LENGTH;
            int id = icrc.solveIpv4Id(f.src4(), f.dst4(), f.flagsFragOff(), f.srcPort(), f.dstPort(),
                b, 0, len, Icrc.read(b, len));
            assertEquals(f.ipId(), id, f.id());
            n++;
        }
        assertEquals(426 - 23 - 1, n, "all IPv4 packets but host-mad-ping#7");
    }

    @Test
    void solveIpv4IdFindsTheIdTheSenderAssumed_forTheHandMadePacketWhoseIdTheKernelReplaced() {
        // host-mad-ping.pcap frame 7: ICRC "computed assuming IP ID 0", kernel sent IP ID 0xcde1
        RoceFrame f = Captures.frame("host-mad-ping.pcap", 7);
        assertEquals(0xcde1, f.ipId());
        PacketBuffer b = f.buffer();
        int len = f.udpPayload().length - Icrc.LENGTH;
        assertEquals(0, new Icrc().solveIpv4Id(f.src4(), f.dst4(), f.flagsFragOff(), f.srcPort(), f.dstPort(),
            b, 0, len, Icrc.read(b, len)));
    }

    @Test
    void solveIpv4IdRejectsACorruptedPayload() {
        RoceFrame f = Captures.frame("rxe-rc-write-bw.pcap", 34);
        PacketBuffer b = f.buffer();
        int len = f.udpPayload().length - Icrc.LENGTH;
        int received = Icrc.read(b, len);
        Icrc icrc = new Icrc();
        int rejected = 0;
        for (int i = 100; i < 164; i++) {      // 64 single-bit errors in the payload
            b.bb.put(i, (byte) (b.bb.get(i) ^ 1));
            if (icrc.solveIpv4Id(f.src4(), f.dst4(), f.flagsFragOff(), f.srcPort(), f.dstPort(), b, 0, len, received) < 0) {
                rejected++;
            }
            b.bb.put(i, (byte) (b.bb.get(i) ^ 1));
        }
        // each passes with probability ~2^-16; all 64 rejected is what the captured bytes give
        assertEquals(64, rejected);
        assertNotEquals(-1, icrc.solveIpv4Id(f.src4(), f.dst4(), f.flagsFragOff(), f.srcPort(), f.dstPort(), b, 0, len, received));
    }

    @Test
    void solveIpv4IdRecoversEveryIdOfASyntheticPacket() {
        PacketBuffer b = PacketBuffer.allocate(64);
        new Bth().wrap(b.seg, 0).opcode(Opcode.RC_SEND_ONLY).pkey(0xffff).destQpn(0x11).psn(7).ackReq(true);
        for (int i = 12; i < 20; i++) {
            b.bb.put(i, (byte) (i * 37));
        }
        Icrc icrc = new Icrc();
        for (int id = 0; id < 65536; id += 251) {
            int c = icrc.ipv4(0x0a4d000c, 0x0a4d000b, id, 0x4000, 49152, 4791, b, 0, 20);
            assertEquals(id, icrc.solveIpv4Id(0x0a4d000c, 0x0a4d000b, 0x4000, 49152, 4791, b, 0, 20, c));
        }
        int c = icrc.ipv4(0x0a4d000c, 0x0a4d000b, 0xffff, 0x4000, 49152, 4791, b, 0, 20);
        assertEquals(0xffff, icrc.solveIpv4Id(0x0a4d000c, 0x0a4d000b, 0x4000, 49152, 4791, b, 0, 20, c));
        assertTrue(icrc.solveIpv4Id(0x0a4d000c, 0x0a4d000b, 0x4000, 49153, 4791, b, 0, 20, c) != 0xffff,
            "another source port is not explained by any ID that is the right one");
    }
}
