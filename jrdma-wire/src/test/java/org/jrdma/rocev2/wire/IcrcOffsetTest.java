package org.jrdma.rocev2.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The ICRC of a packet that lies at an offset in a buffer (as the packets of a train do) equals
 * the ICRC of the same bytes at offset 0, whatever packets of the buffer were computed before.
 */
class IcrcOffsetTest {
    @Test
    void aPacketAtAnOffsetAfterAShorterOneHasTheIcrcOfTheSameBytesAtZero() {
        PacketBuffer train = PacketBuffer.allocate(4096);
        PacketBuffer alone = PacketBuffer.allocate(4096);
        for (int i = 0; i < 4096; i++) {
            train.seg.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 5));
        }
        Icrc icrc = new Icrc();
        int first = icrc.ipv4(0x7f000001, 0x7f000002, 7, 0x4000, 0xC000, 4791, train, 0, 1036);
        int second = icrc.ipv4(0x7f000001, 0x7f000002, 8, 0x4000, 0xC000, 4791, train, 1040, 1036);
        int third = icrc.ipv6(1, 2, 3, 4, 0xC000, 4791, train, 2080, 500);
        MemorySegment.copy(train.seg, 0, alone.seg, 0, 1036);
        assertEquals(icrc.ipv4(0x7f000001, 0x7f000002, 7, 0x4000, 0xC000, 4791, alone, 0, 1036), first);
        MemorySegment.copy(train.seg, 1040, alone.seg, 0, 1036);
        assertEquals(icrc.ipv4(0x7f000001, 0x7f000002, 8, 0x4000, 0xC000, 4791, alone, 0, 1036), second);
        MemorySegment.copy(train.seg, 2080, alone.seg, 0, 500);
        assertEquals(icrc.ipv6(1, 2, 3, 4, 0xC000, 4791, alone, 0, 500), third);
    }
}
