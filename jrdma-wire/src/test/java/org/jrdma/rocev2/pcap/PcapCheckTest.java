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
import java.util.Arrays;

import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapCheckTest {
    private record Run(int status, String out, String err) {
        long lines() {
            return out.lines().count();
        }
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = PcapCheck.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        Run r = new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertTrue(r.err().lines().count() <= 2, r.err());
        return r;
    }

    @Test
    void everyRxeCaptureIsClean() {
        int checked = 0;
        for (Path f : Captures.files()) {
            String name = f.getFileName().toString();
            if (name.equals("host-mad-ping.pcap")) {
                continue;
            }
            Run r = run(f.toString());
            assertEquals(0, r.status(), name + ": " + r.err());
            assertEquals("", r.err());
            checked++;
        }
        assertEquals(20, checked);
    }

    @Test
    void perPacketLinesAndSummary() {
        Run r = run(Captures.file("rxe-rc-write-bw.pcap").toString());
        assertEquals(0, r.status());
        assertEquals(45 + 1, r.lines(), "45 RoCE v2 packets (tshark) + summary");
        // the fields tshark shows for frame 34 (frame.time_relative 1.350700000)
        assertTrue(r.out().contains("#34 1.350700 10.77.0.12:49476 -> 10.77.0.11:4791 RC RDMA WRITE First QPN=0x000012"
            + " PSN=6007353 AckReq=0 RETH va=0x000055614da0f000 rkey=0x00000398 len=8192 payload=1024 ICRC ok\n"), r.out());
        assertTrue(r.out().contains(" RC RDMA WRITE Last QPN=0x000012 PSN=6007360 AckReq=1 payload=1024 ICRC ok\n"));
        assertTrue(r.out().endsWith("rxe-rc-write-bw.pcap: 100 frames, 45 RoCE v2 packets (UDP port 4791), 0 ICRC failures, 0 malformed\n"),
            r.out());
        Run v6 = run(Captures.file("rxe-rc-pingpong-ipv6.pcap").toString());
        assertTrue(v6.out().contains(" [fd77::11]:49728 -> [fd77::12]:4791 RC Acknowledge QPN=0x000018 PSN=12157990 AckReq=0 AETH ACK credits=31 MSN=1 ICRC ok\n"),
            v6.out());
    }

    @Test
    void theHandMadeBadPacketsFailAndTheFirstIsNamed() {
        Run r = run(Captures.file("host-mad-ping.pcap").toString());
        assertEquals(1, r.status());
        assertTrue(r.err().contains(": frame 7: bad ICRC"), r.err());
        assertTrue(r.out().contains("14 frames, 6 RoCE v2 packets (UDP port 4791), 2 ICRC failures, 0 malformed"), r.out());
        assertTrue(r.out().contains("matches IP ID 0x0000 instead of 0xcde1"), r.out());
    }

    @Test
    void siwCapturesHaveNoRocePackets() {
        Run r = run(Captures.file("siw-rping.pcap").toString());
        assertEquals(0, r.status());
        assertTrue(r.out().contains("37 frames, 0 RoCE v2 packets"));
    }

    @Test
    void pcapngInput() {
        Path p = Path.of(PcapCheckTest.class.getResource("/pcap/rxe-rc-pingpong-ipv6.pcapng").getPath());
        Run r = run(p.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("35 frames, 20 RoCE v2 packets"), r.out());
    }

    @Test
    void notACaptureIsStatus2WithOneLine() {
        Run r = run(Captures.dir().resolve("README.md").toString());
        assertEquals(2, r.status());
        assertEquals(1, r.err().lines().count());
        assertTrue(r.err().contains("not a pcap or pcapng capture"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void truncatedCaptureIsStatus1AfterThePacketsBeforeTheCut(@TempDir Path tmp) throws IOException {
        byte[] file = Files.readAllBytes(Captures.file("rxe-rc-write-bw.pcap"));
        Path cut = tmp.resolve("cut.pcap");
        Files.write(cut, Arrays.copyOf(file, file.length / 2));
        Run r = run(cut.toString());
        assertEquals(1, r.status());
        assertTrue(r.err().contains("capture cut short"), r.err());
        assertTrue(r.out().contains("capture damaged"), r.out());
        assertTrue(r.lines() > 5);

        Path header = tmp.resolve("header.pcap");
        Files.write(header, Arrays.copyOf(file, 10));
        Run h = run(header.toString());
        assertEquals(2, h.status(), "a cut file header is not a capture");
    }

    @Test
    void malformedPacketWithAGoodIcrcIsStatus1(@TempDir Path tmp) throws IOException {
        PacketBuffer b = PacketBuffer.allocate(128);
        new Bth().wrap(b.seg, 0).opcode(0x15).pkey(0xffff).destQpn(0x11).psn(3); // reserved opcode
        Icrc.write(b, 12, new Icrc().ipv4(0x0a4d000c, 0x0a4d000b, 7, 0x4000, 49152, 4791, b, 0, 12));
        Path p = tmp.resolve("bad.pcap");
        try (PcapWriter w = PcapWriter.create(p)) {
            w.writeIpv4(0, 0x0a4d000c, 0x0a4d000b, 7, 0x4000, 0, 64, 49152, 4791, b, 0, 16);
        }
        Run r = run(p.toString());
        assertEquals(1, r.status());
        assertTrue(r.out().contains("reserved 0x15 QPN=0x000011 PSN=3 AckReq=0 ICRC ok MALFORMED: unknown or reserved opcode"), r.out());
        assertTrue(r.out().contains("0 ICRC failures, 1 malformed"), r.out());
        assertTrue(r.err().contains("frame 1: unknown or reserved opcode"), r.err());
    }

    @Test
    void usageErrorsAreStatus2() {
        assertEquals(2, run().status());
        assertEquals(2, run("a.pcap", "b.pcap").status());
        assertEquals(2, run("--port").status());
        assertEquals(2, run("--port", "x", "a.pcap").status());
        assertEquals(2, run("--port=70000", "a.pcap").status());
        assertEquals(2, run("--frobnicate", "a.pcap").status());
        Run missing = run("/nonexistent/file.pcap");
        assertEquals(2, missing.status());
        assertTrue(missing.err().contains("no such file"));
        assertEquals(2, run(Captures.dir().toString()).status());
        Run help = run("--help");
        assertEquals(0, help.status());
        assertTrue(help.out().startsWith(PcapCheck.USAGE));
    }

    @Test
    void anotherPortSelectsOtherDatagrams() {
        Run r = run("--port", "4792", Captures.file("rxe-rc-pingpong.pcap").toString());
        assertEquals(0, r.status());
        assertTrue(r.out().contains("0 RoCE v2 packets (UDP port 4792)"), r.out());
        Run same = run("--port=4791", Captures.file("rxe-rc-pingpong.pcap").toString());
        assertTrue(same.out().contains("20 RoCE v2 packets (UDP port 4791)"), same.out());
    }
}
