package org.jrdma.rocev2.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.rocev2.pcap.Captures;
import org.jrdma.rocev2.pcap.Captures.RoceFrame;
import org.junit.jupiter.api.Test;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class PacketValidatorTest {
    /** A packet of {@code len} bytes (incl. ICRC) whose BTH has {@code op} and pad count {@code pad}. */
    private static PacketBuffer packet(int op, int pad, int len) {
        PacketBuffer b = PacketBuffer.allocate(8192);
        new Bth().wrap(b.seg, 0).opcode(op).padCount(pad).pkey(0xffff).destQpn(0x11).psn(1);
        b.length(len);
        return b;
    }

    private static int validate(PacketBuffer b, int mtu) {
        return PacketValidator.validate(b, 0, b.length(), mtu, true);
    }

    @Test
    void everyCapturedPacketIsWellFormed_andTheBadIcrcOnesAreDroppedForTheirIcrc() {
        Icrc icrc = new Icrc();
        int ok = 0;
        for (RoceFrame f : Captures.roceFrames()) {
            PacketBuffer b = f.buffer();
            int len = f.udpPayload().length;
            boolean icrcOk = IcrcCaptureTest.computeIcrc(icrc, f, b) == Icrc.read(b, len - 4);
            int reason = PacketValidator.validate(b, 0, len, 1024, icrcOk);
            if (f.id().equals("host-mad-ping.pcap#7") || f.id().equals("host-mad-ping.pcap#8")) {
                assertEquals(DropReason.BAD_ICRC, reason, f.id());
            } else {
                assertEquals(DropReason.OK, reason, f.id() + " " + DropReason.name(reason));
                ok++;
            }
        }
        assertEquals(424, ok);
    }

    @Test
    void tooShort() {
        assertEquals(DropReason.TOO_SHORT, validate(packet(Opcode.RC_SEND_ONLY, 0, 15), 1024));
        assertEquals(DropReason.OK, validate(packet(Opcode.RC_SEND_ONLY, 0, 16), 1024), "empty SEND Only");
    }

    @Test
    void icrcVerdictComesAfterLengthButBeforeHeaderChecks() {
        PacketBuffer b = packet(0x15, 0, 32);
        assertEquals(DropReason.BAD_ICRC, PacketValidator.validate(b, 0, 32, 1024, false));
        assertEquals(DropReason.BAD_OPCODE, PacketValidator.validate(b, 0, 32, 1024, true));
    }

    @Test
    void tverMustBeZero() {
        PacketBuffer b = packet(Opcode.RC_SEND_ONLY, 0, 32);
        new Bth().wrap(b.seg, 0).tver(1);
        assertEquals(DropReason.BAD_TVER, validate(b, 1024));
    }

    @Test
    void reservedRdAndVendorOpcodesAreRejected() {
        for (int op : new int[] {0x15, 0x18, 0x1b, 0x1e, 0x2c, 0x40, 0x66, 0x80, 0xc0, 0xff}) {
            assertEquals(DropReason.BAD_OPCODE, validate(packet(op, 0, 64), 1024), Integer.toHexString(op));
        }
    }

    @Test
    void truncatedExtensionHeaders() {
        // RDMA WRITE First: BTH 12 + RETH 16 + ICRC 4 = 32 bytes at least
        assertEquals(DropReason.TRUNCATED_HEADER, validate(packet(Opcode.RC_RDMA_WRITE_FIRST, 0, 28), 1024));
        assertEquals(DropReason.TRUNCATED_HEADER, validate(packet(Opcode.RC_COMPARE_SWAP, 0, 40), 1024));
        assertEquals(DropReason.OK, validate(packet(Opcode.RC_COMPARE_SWAP, 0, 44), 1024));
        assertEquals(DropReason.TRUNCATED_HEADER, validate(packet(Opcode.CNP, 0, 16), 1024));
        assertEquals(DropReason.OK, validate(packet(Opcode.CNP, 0, 32), 1024));
    }

    @Test
    void lengthsAndPads() {
        assertEquals(DropReason.BAD_LENGTH, validate(packet(Opcode.RC_SEND_ONLY, 0, 18), 1024), "not a multiple of 4");
        assertEquals(DropReason.BAD_LENGTH, validate(packet(Opcode.RC_ACKNOWLEDGE, 0, 24), 1024), "ACK with extra bytes");
        assertEquals(DropReason.BAD_PAD, validate(packet(Opcode.RC_ACKNOWLEDGE, 1, 20), 1024), "pad on an ACK");
        assertEquals(DropReason.BAD_PAD, validate(packet(Opcode.RC_SEND_ONLY, 3, 16), 1024), "pad without payload bytes");
        assertEquals(DropReason.OK, validate(packet(Opcode.RC_SEND_ONLY, 3, 20), 1024), "1 byte + 3 pad");
        assertEquals(1, PacketValidator.payloadLength(packet(Opcode.RC_SEND_ONLY, 3, 20), 0, 20));
        assertEquals(DropReason.BAD_PAD, validate(packet(Opcode.RC_SEND_FIRST, 1, 1040), 1024), "pad on a First");
        assertEquals(DropReason.BAD_PAD, validate(packet(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 2, 1040), 1024));
    }

    @Test
    void payloadOverThePathMtu() {
        assertEquals(DropReason.OK, validate(packet(Opcode.RC_SEND_MIDDLE, 0, 12 + 1024 + 4), 1024));
        assertEquals(DropReason.OVER_MTU, validate(packet(Opcode.RC_SEND_MIDDLE, 0, 12 + 1028 + 4), 1024));
        assertEquals(DropReason.OVER_MTU, validate(packet(Opcode.RC_SEND_LAST, 3, 12 + 1028 + 4), 1024), "1025 + 3 pad");
        assertEquals(DropReason.OK, validate(packet(Opcode.RC_SEND_LAST, 3, 12 + 1024 + 4), 1024), "1021 + 3 pad");
        assertEquals(DropReason.OK, validate(packet(Opcode.RC_SEND_MIDDLE, 0, 12 + 1028 + 4), 0), "0 = no MTU check");
    }

    @Test
    void rangeOutsideTheBufferIsCountedNotThrown() {
        PacketBuffer b = PacketBuffer.allocate(64);
        assertEquals(DropReason.OUT_OF_BUFFER, PacketValidator.validate(b, 60, 16, 1024, true));
        assertEquals(DropReason.OUT_OF_BUFFER, PacketValidator.validate(b, -1, 16, 1024, true));
        assertEquals(DropReason.OUT_OF_BUFFER, PacketValidator.validate(b, 0, -4, 1024, true));
        assertEquals(DropReason.OUT_OF_BUFFER, PacketValidator.validate(null, 0, 16, 1024, true));
    }

    @Property(tries = 2000)
    void randomInputNeverThrows(@ForAll @Size(max = 200) byte[] bytes, @ForAll @IntRange(min = -4, max = 210) int pos,
                                @ForAll @IntRange(min = -4, max = 210) int len, @ForAll boolean icrcOk,
                                @ForAll @IntRange(min = 0, max = 4096) int mtu) {
        PacketBuffer b = PacketBuffer.allocate(Math.max(1, bytes.length));
        b.seg.asByteBuffer().put(bytes);
        int r = PacketValidator.validate(b, pos, len, mtu, icrcOk);
        assertTrue(r >= 0 && r < DropReason.COUNT);
    }
}
