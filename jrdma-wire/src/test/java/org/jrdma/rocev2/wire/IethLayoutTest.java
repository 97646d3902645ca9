package org.jrdma.rocev2.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The Invalidate Extended Transport Header against IBTA Vol 1: the SEND with Invalidate opcodes of
 * table 38 (RC 0x16 SEND Last with Invalidate, 0x17 SEND Only with Invalidate; no UC or UD opcode has
 * one), the BTH of §9.2 followed directly by the 4-byte IETH of §9.3.8 (the R_Key, big-endian), then
 * the payload. The golden bytes are written out by hand from the spec, not produced by jrdma's
 * flyweights; the flyweights must read them and write exactly them.
 */
class IethLayoutTest {
    /** RC SEND Only with Invalidate, SE 0, pad 1, P_Key 0xFFFF, DestQP 0x000123, AckReq, PSN 0x000010, R_Key 0xA1B2C3D4, "abc". */
    private static final byte[] SEND_ONLY_WITH_INVALIDATE = {
            0x17, 0x10, (byte) 0xFF, (byte) 0xFF,             // BTH: OpCode; SE|M|PadCnt|TVer; P_Key
            0x00, 0x00, 0x01, 0x23,                           // BTH: reserved; DestQP
            (byte) 0x80, 0x00, 0x00, 0x10,                    // BTH: A|reserved; PSN
            (byte) 0xA1, (byte) 0xB2, (byte) 0xC3, (byte) 0xD4, // IETH: R_Key
            'a', 'b', 'c', 0x00                               // payload, 1 pad byte
    };

    @Test
    void flyweightsReadTheSpecBytes() {
        MemorySegment s = MemorySegment.ofArray(SEND_ONLY_WITH_INVALIDATE.clone());
        Bth bth = new Bth().wrap(s, 0);
        assertEquals(Opcode.RC_SEND_ONLY_WITH_INVALIDATE, bth.opcode());
        assertEquals(0x17, Opcode.RC_SEND_ONLY_WITH_INVALIDATE);
        assertEquals(0x16, Opcode.RC_SEND_LAST_WITH_INVALIDATE);
        assertEquals(1, bth.padCount());
        assertEquals(0x123, bth.destQpn());
        assertEquals(0x10, bth.psn());
        assertEquals(12, Opcode.offset(bth.opcode(), Opcode.IETH), "IETH right after the 12-byte BTH");
        assertEquals(16, Opcode.headerLength(bth.opcode()), "BTH + IETH, then the payload");
        assertEquals(0xA1B2C3D4, new Ieth().wrap(s, 12).rkey());
        assertEquals('a', s.get(ValueLayout.JAVA_BYTE, Opcode.headerLength(bth.opcode())));
        for (int op : new int[] {Opcode.RC_SEND_LAST_WITH_INVALIDATE, Opcode.RC_SEND_ONLY_WITH_INVALIDATE}) {
            assertEquals(Ieth.LENGTH, 4);
            assertEquals(12, Opcode.offset(op, Opcode.IETH), Opcode.name(op));
            assertEquals(-1, Opcode.offset(op, Opcode.IMM_DT), Opcode.name(op) + " carries no ImmDt");
            assertEquals(-1, Opcode.offset(op, Opcode.RETH), Opcode.name(op) + " carries no RETH");
        }
    }

    @Test
    void flyweightsWriteTheSpecBytes() {
        MemorySegment s = MemorySegment.ofArray(new byte[SEND_ONLY_WITH_INVALIDATE.length]);
        int op = Opcode.of(Opcode.TRANSPORT_RC, Opcode.REQUEST | Opcode.OP_SEND | Opcode.ONLY | Opcode.IETH);
        new Bth().wrap(s, 0).opcode(op).se(false).migReq(false).padCount(1).tver(0).pkey(0xFFFF).fecn(false)
                .becn(false).destQpn(0x123).ackReq(true).psn(0x10);
        new Ieth().wrap(s, Opcode.offset(op, Opcode.IETH)).rkey(0xA1B2C3D4);
        s.set(ValueLayout.JAVA_BYTE, 16, (byte) 'a');
        s.set(ValueLayout.JAVA_BYTE, 17, (byte) 'b');
        s.set(ValueLayout.JAVA_BYTE, 18, (byte) 'c');
        assertArrayEquals(SEND_ONLY_WITH_INVALIDATE, s.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void onlyRcHasSendWithInvalidate() {
        int last = Opcode.REQUEST | Opcode.OP_SEND | Opcode.LAST | Opcode.IETH;
        assertEquals(0x16, Opcode.of(Opcode.TRANSPORT_RC, last));
        assertEquals(-1, Opcode.of(Opcode.TRANSPORT_UC, last));
        assertEquals(-1, Opcode.of(Opcode.TRANSPORT_UD, Opcode.REQUEST | Opcode.OP_SEND | Opcode.ONLY | Opcode.IETH));
        assertEquals(-1, Opcode.of(Opcode.TRANSPORT_RC, Opcode.REQUEST | Opcode.OP_SEND | Opcode.MIDDLE | Opcode.IETH),
                "IETH only on the last packet of the message");
    }

    @Test
    void aSendWithInvalidateTooShortForItsIethIsDropped() {
        PacketBuffer b = PacketBuffer.allocate(64);
        MemorySegment.copy(MemorySegment.ofArray(SEND_ONLY_WITH_INVALIDATE), 0, b.seg, 0, 12);
        b.seg.set(ValueLayout.JAVA_BYTE, 1, (byte) 0); // no pad
        // BTH + 4 bytes that can only be the ICRC: no room for the IETH
        assertEquals(DropReason.TRUNCATED_HEADER, PacketValidator.validate(b, 0, 12 + 4, 1024, true));
        assertEquals(DropReason.OK, PacketValidator.validate(b, 0, 16 + 4, 1024, true), "BTH + IETH + ICRC, no payload");
    }
}
