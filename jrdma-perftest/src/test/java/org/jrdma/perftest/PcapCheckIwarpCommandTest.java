package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code jrdma pcap-check} on a siw capture: the iWARP streams are checked through the jrdma command line. */
class PcapCheckIwarpCommandTest {
    @Test
    void siwCrcCaptureIsAllGood() {
        PcapCheckCommandTest.Outcome o = PcapCheckCommandTest.run("pcap-check",
            PcapCheckCommandTest.capture("siw-crc-rping.pcap").toString());
        assertEquals(0, o.exit(), o.err());
        // siw-crc-rping: MPA Request/Reply with C=1, 9 + 12 FPDUs with a CRC32c (captures/README.md, roce.py mpa)
        assertTrue(o.out().contains("; 2 iWARP streams (TCP): 2 MPA frames, 21 FPDUs, 0 MPA CRC failures, 0 malformed\n"),
            o.out());
        assertEquals(21, o.out().lines().filter(l -> l.endsWith(" CRC ok")).count());
    }
}
