package org.jrdma.rocev2.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The CNP against a CNP of a ConnectX NIC: NVIDIA's "RoCEv2 CNP Packet Format Example" (Mellanox
 * community article, the packet as scapy shows it: {@code IP(src 22.22.22.8, dst 22.22.22.7,
 * id 0x98c6, DF, ttl 0x20, tos 0x89) / UDP(sport 56238, dport 4791, chksum 0) / cnp(dqpn 0xd2)},
 * also the golden packet of libconntrack-cm's CNP test). Its UDP payload, with the ICRC the NIC
 * computed, is written out below; the codec must write exactly its BTH and reserved bytes and
 * the ICRC over them must be the NIC's.
 */
class CnpTest {
    /** The whole IPv4 datagram of the example. */
    private static final byte[] EXAMPLE = HexFormat.of().parseHex(
            "4589003C98C640002011692716161608"
            + "16161607DBAE12B7002800008100FFFF"
            + "400000D2000000000000000000000000"
            + "0000000000000000DAFC1BEF");
    private static final int UDP_PAYLOAD = 20 + 8;

    @Test
    void writesTheBytesOfAConnectXCnp() {
        PacketBuffer b = PacketBuffer.allocate(64);
        b.seg.fill((byte) 0x5a); // whatever was there before
        Cnp.write(b.seg, 0, 0xd2, 0xffff);
        byte[] got = b.seg.asSlice(0, Cnp.LENGTH).toArray(ValueLayout.JAVA_BYTE);
        byte[] want = java.util.Arrays.copyOfRange(EXAMPLE, UDP_PAYLOAD, UDP_PAYLOAD + Cnp.LENGTH);
        assertArrayEquals(want, got);
        assertEquals(32, Cnp.LENGTH + Icrc.LENGTH, "UDP length 0x28 = 8 + 32");
    }

    @Test
    void theIcrcIsTheNics() {
        PacketBuffer b = PacketBuffer.allocate(64);
        Cnp.write(b.seg, 0, 0xd2, 0xffff);
        int src = 0x16161608;
        int dst = 0x16161607;
        int icrc = new Icrc().ipv4(src, dst, 0x98c6, 0x4000, 56238, RoceV2.UDP_PORT, b, 0, Cnp.LENGTH);
        Icrc.write(b, Cnp.LENGTH, icrc);
        byte[] got = b.seg.asSlice(Cnp.LENGTH, 4).toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(HexFormat.of().parseHex("DAFC1BEF"), got);
    }

    @Test
    void readsAsACnpThroughTheFlyweightsAndTheValidator() {
        PacketBuffer b = PacketBuffer.allocate(64);
        MemorySegment.copy(MemorySegment.ofArray(EXAMPLE), UDP_PAYLOAD, b.seg, 0, Cnp.LENGTH + 4);
        Bth bth = new Bth().wrap(b.seg, 0);
        assertEquals(Opcode.CNP, bth.opcode());
        assertTrue(bth.becn());
        assertFalse(bth.fecn());
        assertEquals(0xd2, bth.destQpn());
        assertEquals(0, bth.psn());
        assertTrue(Cnp.isCnp(b.seg, 0));
        assertEquals(Opcode.TRANSPORT_CNP, Opcode.transport(Opcode.CNP));
        assertEquals(Cnp.LENGTH, Opcode.headerLength(Opcode.CNP));
        assertEquals(DropReason.OK, PacketValidator.validate(b, 0, Cnp.LENGTH + 4, 4096, true));
        assertEquals(0, PacketValidator.payloadLength(b, 0, Cnp.LENGTH + 4));
    }

    @Test
    void masksTheQpnAndWritesNoMore() {
        PacketBuffer b = PacketBuffer.allocate(64);
        b.seg.fill((byte) 0x77);
        Cnp.write(b.seg, 4, 0x7f123456, 0x8001);
        Bth bth = new Bth().wrap(b.seg, 4);
        assertEquals(0x123456, bth.destQpn());
        assertEquals(0x8001, bth.pkey());
        assertEquals(0x77, b.seg.get(ValueLayout.JAVA_BYTE, 3) & 0xff, "nothing before the packet");
        assertEquals(0x77, b.seg.get(ValueLayout.JAVA_BYTE, 4 + Cnp.LENGTH) & 0xff, "nothing after it");
    }
}
