package org.jrdma.rocev2.net;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Ipv4HeaderTest {
    /** The worked example of a 20-byte header with checksum 0xb861 (Wikipedia "IPv4 header checksum"). */
    @Test
    void checksumMatchesKnownHeader() {
        byte[] h = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
                (byte) 0xc0, (byte) 0xa8, 0x00, 0x01, (byte) 0xc0, (byte) 0xa8, 0x00, (byte) 0xc7};
        MemorySegment s = MemorySegment.ofArray(h);
        assertEquals(0xb861, Ipv4Header.checksum(s, 0, 20));
        MemorySegment w = MemorySegment.ofArray(new byte[20]);
        Ipv4Header.write(w, 0, 0, 0x73, 0, true, 64, 17, 0xc0a80001, 0xc0a800c7);
        assertEquals(0xb861, Ipv4Header.headerChecksum(w, 0));
        assertTrue(Ipv4Header.checksumValid(w, 0));
        assertTrue(Ipv4Header.dontFragment(w, 0));
        assertFalse(Ipv4Header.isFragment(w, 0));
        assertEquals(20, Ipv4Header.headerLength(w, 0));
        w.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 8, (byte) 63);
        assertFalse(Ipv4Header.checksumValid(w, 0));
    }

    @Test
    void udpHeaderRoundTrip() {
        MemorySegment s = MemorySegment.ofArray(new byte[8]);
        UdpHeader.write(s, 0, 0xc0ff, 4791, 36, 0);
        assertEquals(0xc0ff, UdpHeader.sourcePort(s, 0));
        assertEquals(4791, UdpHeader.destinationPort(s, 0));
        assertEquals(36, UdpHeader.length(s, 0));
        assertEquals(0, UdpHeader.checksum(s, 0));
        assertEquals(0x12, s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 2));
        assertEquals((byte) 0xb7, s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 3));
    }
}
