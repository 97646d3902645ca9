package org.jrdma.rocev2.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jrdma pcap-check} on the iWARP captures of Linux siw: MPA frames and FPDUs found, framed and
 * checked as the lab's {@code tools/roce.py mpa} and tshark's iwarp_mpa/iwarp_ddp_rdmap dissectors see them
 * (counts from roce.py, field values from tshark, {@code testdata/captures/README.md}); corrupted copies fail.
 */
class PcapCheckIwarpTest {
    private record Run(int status, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = PcapCheck.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        Run r = new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        return r;
    }

    /** roce.py mpa: iWARP streams and FPDUs per capture. */
    private static final Map<String, int[]> EXPECTED = Map.of(
        "siw-rping.pcap", new int[] {2, 21},
        "siw-crc-rping.pcap", new int[] {2, 21},
        "siw-write-bw.pcap", new int[] {4, 62},
        "siw-crc-write-bw.pcap", new int[] {4, 62},
        "siw-send-bw.pcap", new int[] {4, 54},
        "siw-read-bw.pcap", new int[] {4, 67});

    @Test
    void everySiwCaptureIsClean() {
        for (Map.Entry<String, int[]> e : EXPECTED.entrySet()) {
            Run r = run(Captures.file(e.getKey()).toString());
            assertEquals(0, r.status(), e.getKey() + ": " + r.err());
            assertEquals("", r.err());
            int streams = e.getValue()[0];
            int fpdus = e.getValue()[1];
            String pads = e.getKey().contains("rping") ? "" : ", 2 with non-zero pad";
            assertTrue(r.out().contains("; " + streams + " iWARP streams (TCP): " + streams + " MPA frames, " + fpdus
                + " FPDUs, 0 MPA CRC failures, 0 malformed" + pads + "\n"), e.getKey() + ": " + r.out());
            long crcOk = r.out().lines().filter(l -> l.endsWith(" CRC ok")).count();
            long crcOff = r.out().lines().filter(l -> l.endsWith(" CRC off")).count();
            boolean crc = e.getKey().startsWith("siw-crc-");
            assertEquals(crc ? fpdus : 0, crcOk, e.getKey());
            assertEquals(crc ? 0 : fpdus, crcOff, e.getKey());
        }
    }

    @Test
    void linesCarryTheFieldsTsharkShows() {
        Run r = run(Captures.file("siw-rping.pcap").toString());
        assertTrue(r.out().contains("#6 0.044941 10.77.1.12:49655 -> 10.77.1.11:7174 MPA Request rev=2 M=0 C=0 R=0 Enhanced"
            + " private_data=4 IRD=1 ORD=1\n"), r.out());
        assertTrue(r.out().contains("#12 0.128811 10.77.1.11:7174 -> 10.77.1.12:49655 RDMA Read Request L=1 QN=1 MSN=1 MO=0"
            + " sink STag=0x0b2c6f00 TO=0x000055f214c5bee0 size=64 source STag=0xfe260900 TO=0x0000560607b96b80 payload=0"
            + " CRC off\n"), r.out());
        assertTrue(r.out().contains("#13 0.138135 10.77.1.12:49655 -> 10.77.1.11:7174 RDMA Read Response (tagged) L=1"
            + " STag=0x0b2c6f00 TO=0x000055f214c5bee0 payload=64 CRC off\n"), r.out());
        Run w = run(Captures.file("siw-write-bw.pcap").toString());
        assertTrue(w.out().contains(" Send L=1 QN=0 MSN=4 MO=0 payload=2 pad=0040 (not zero) CRC off\n"), w.out());
        assertEquals(25, w.out().lines().filter(l -> l.contains(" RDMA Write (tagged) L=0 ") && l.contains(" payload=1428 ")).count());
    }

    @Test
    void rxeCapturesHaveNoIwarpStreams() {
        Run r = run(Captures.file("rxe-cm-write-bw.pcap").toString());
        assertEquals(0, r.status());
        assertFalse(r.out().contains("iWARP"), "perftest's TCP exchange is not iWARP");
    }

    /** The byte offset in the file of {@code needle} (a TCP payload), searched from the file's start. */
    private static int indexOf(byte[] hay, byte[] needle, int from) {
        outer:
        for (int i = from; i <= hay.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void aFlippedPayloadBitIsACrcFailure(@TempDir Path tmp) throws IOException {
        byte[] pcap = Files.readAllBytes(Captures.file("siw-crc-rping.pcap"));
        // the first text of rping's data, "rdma-ping-0: ABC...", is the payload of the Read Response in frame 19
        int at = indexOf(pcap, "rdma-ping-0: ".getBytes(StandardCharsets.US_ASCII), 0);
        assertTrue(at > 0);
        pcap[at] ^= 0x20;
        Path bad = tmp.resolve("bad-crc.pcap");
        Files.write(bad, pcap);
        Run r = run(bad.toString());
        assertEquals(1, r.status(), r.out());
        assertTrue(r.out().contains(" CRC BAD (0x"), r.out());
        assertTrue(r.out().contains("1 MPA CRC failures, 0 malformed"), r.out());
        assertTrue(r.err().contains(": frame 19: bad MPA CRC"), r.err());
    }

    @Test
    void aBadDdpVersionIsMalformedWithSiwsTerminateCodes(@TempDir Path tmp) throws IOException {
        byte[] pcap = Files.readAllBytes(Captures.file("siw-rping.pcap"));
        // frame 12's Read Request FPDU begins 00 2e 41 41 00 00 00 00 00 00 00 01
        byte[] rreq = java.util.HexFormat.of().parseHex("002e41410000000000000001");
        int at = indexOf(pcap, rreq, 0);
        assertTrue(at > 0);
        pcap[at + 2] = 0x42; // DV 2
        Path bad = tmp.resolve("bad-dv.pcap");
        Files.write(bad, pcap);
        Run r = run(bad.toString());
        assertEquals(1, r.status());
        assertTrue(r.out().contains("MALFORMED: DDP version not 1 (receiver's Terminate: layer DDP, type untagged buffer,"
            + " code 0x06 (invalid DDP version))"), r.out());
        assertTrue(r.out().contains("0 MPA CRC failures, 1 malformed"), r.out());
        assertTrue(r.err().contains(": frame 12: DDP version not 1"), r.err());
    }

    @Test
    void aNonZeroCrcFieldWithoutCrcFails(@TempDir Path tmp) throws IOException {
        byte[] pcap = Files.readAllBytes(Captures.file("siw-rping.pcap"));
        byte[] rreq = java.util.HexFormat.of().parseHex("002e41410000000000000001");
        int at = indexOf(pcap, rreq, 0);
        pcap[at + 48 + 3] = 1; // the CRC field's last byte (FPDU of 52 bytes)
        Path bad = tmp.resolve("crc-field.pcap");
        Files.write(bad, pcap);
        Run r = run(bad.toString());
        assertEquals(1, r.status());
        assertTrue(r.out().contains(" CRC BAD (field 0x01000000 without CRC negotiated)"), r.out());
    }
}
