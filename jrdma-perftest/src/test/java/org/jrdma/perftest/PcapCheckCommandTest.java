package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jrdma pcap-check}: PcapCheck's exit status and output through the jrdma command line. */
class PcapCheckCommandTest {
    record Outcome(int exit, String out, String err) {
    }

    static Outcome run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Jrdma.commandLine(new PrintStream(out, true), new PrintStream(err, true)).execute(args);
        return new Outcome(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Path capture(String name) {
        Path f = Logs.captures().resolve(name);
        assertTrue(Files.isRegularFile(f), "capture " + f + " missing");
        return f;
    }

    @Test
    void linuxCaptureIsAllGood() {
        Outcome o = run("pcap-check", capture("rxe-rc-pingpong.pcap").toString());
        assertEquals(0, o.exit(), o.err());
        // rxe-rc-pingpong: RC SEND Only x10, ACK x10 (captures/README.md)
        assertTrue(o.out().contains(": 33 frames, 20 RoCE v2 packets (UDP port 4791), 0 ICRC failures, 0 malformed"), o.out());
    }

    @Test
    void portOptionPassesThrough() {
        Outcome o = run("pcap-check", capture("rxe-rc-pingpong.pcap").toString(), "--port", "4792");
        assertEquals(0, o.exit(), o.err());
        assertTrue(o.out().contains("0 RoCE v2 packets (UDP port 4792)"), o.out());
    }

    @Test
    void aCorruptedPacketFails(@TempDir Path dir) throws Exception {
        byte[] b = Files.readAllBytes(capture("rxe-rc-pingpong.pcap"));
        // flip a byte inside the first 64-byte SEND payload: the ICRC no longer matches
        byte[] pattern = new byte[] {0x12, (byte) 0xb7}; // UDP destination port 4791
        int at = indexOf(b, pattern);
        assertTrue(at > 0);
        b[at + 2 + 4 + 2 + 12 + 10] ^= 0x40; // after UDP dport: len, csum, then BTH (12) and payload
        Path bad = dir.resolve("bad.pcap");
        Files.write(bad, b);
        Outcome o = run("pcap-check", bad.toString());
        assertEquals(1, o.exit(), o.out() + o.err());
    }

    @Test
    void usageErrors() {
        assertEquals(2, run("pcap-check").exit());
        assertEquals(2, run("pcap-check", "/nonexistent.pcap").exit());
        assertEquals(2, run("pcap-check", "x.pcap", "--port", "0").exit());
        Outcome h = run("pcap-check", "--help");
        assertEquals(0, h.exit());
        assertTrue(h.out().startsWith("usage: jrdma pcap-check FILE [--port N]"), h.out());
    }

    static int indexOf(byte[] b, byte[] p) {
        outer:
        for (int i = 0; i + p.length <= b.length; i++) {
            for (int j = 0; j < p.length; j++) {
                if (b[i + j] != p[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
