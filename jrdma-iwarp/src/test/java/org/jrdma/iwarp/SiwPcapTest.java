package org.jrdma.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jrdma.cm.CmEventType;
import org.jrdma.rocev2.pcap.PcapCheck;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.jrdma.verbs.ext.PacketCapture;
import org.junit.jupiter.api.Test;

/**
 * The device capture of jsiw (-Djrdma.pcap.jsiw1=FILE, started when the client's device opens) with
 * MPA CRC on: the MPA exchange, a SEND cut into FPDUs, a WRITE, a READ and the disconnect, read back
 * by {@code jrdma pcap-check} ({@link PcapCheck}: TCP reassembly, MPA frames, FPDU framing, CRC32c,
 * DDP/RDMAP headers): both directions are MPA streams, every CRC matches, nothing is malformed. A JVM
 * of its own (surefire reuseForks false), as the properties are read at open.
 */
class SiwPcapTest {
    static final Path FILE;

    static {
        try {
            FILE = Files.createTempFile("jsiw-capture", ".pcap");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.setProperty("jrdma.iwarp.mpaCrcRequired", "true");
        System.setProperty("jrdma.pcap.jsiw1", FILE.toString());
    }

    @Test
    void captureOfACrcConnectionPassesPcapCheck() throws IOException {
        try (SiwCmLoopbackTest.Pair p = new SiwCmLoopbackTest.Pair(1)) {
            PacketCapture cap = p.client.verbs().extension(PacketCapture.class).orElseThrow();
            assertTrue(cap.capturing());
            int n = 150_000;
            SiwCmLoopbackTest.fill(p.cmr.segment(), 0, n, 3);
            p.cqp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr(), n, p.cmr.lkey())));
            assertEquals(WcStatus.SUCCESS, SiwCmLoopbackTest.poll(p.ccq).status());
            assertEquals(WcStatus.SUCCESS, SiwCmLoopbackTest.poll(p.scq).status());
            p.cqp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr(), 999, p.cmr.lkey())).rdma(p.smr.addr() + 400_000, p.smr.rkey()));
            assertEquals(WcStatus.SUCCESS, SiwCmLoopbackTest.poll(p.ccq).status());
            p.cqp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr() + 600_000, 5000, p.cmr.lkey())).rdma(p.smr.addr(), p.smr.rkey()));
            assertEquals(WcStatus.SUCCESS, SiwCmLoopbackTest.poll(p.ccq).status());
            p.client.disconnect();
            SiwCmLoopbackTest.expect(p.cch, CmEventType.DISCONNECTED);
            SiwCmLoopbackTest.expect(p.sch, CmEventType.DISCONNECTED);
            long frames = cap.stop();
            assertFalse(cap.capturing());
            assertTrue(frames > 10, "frames " + frames);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = PcapCheck.run(new String[] {FILE.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String o = out.toString(StandardCharsets.UTF_8);
        String e = err.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, "pcap-check exit status; stdout:\n" + tail(o) + "\nstderr:\n" + e);
        // the summary line: both directions are MPA streams, with their request/reply frames, CRCs all good
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "(\\d+) iWARP streams \\(TCP\\): (\\d+) MPA frames, (\\d+) FPDUs, (\\d+) MPA CRC failures, (\\d+) malformed").matcher(o);
        assertTrue(m.find(), tail(o));
        assertEquals("2", m.group(1), "streams");
        assertEquals("2", m.group(2), "MPA frames");
        assertTrue(Integer.parseInt(m.group(3)) >= 6, "FPDUs " + m.group(3));
        assertEquals("0", m.group(4), "CRC failures");
        assertEquals("0", m.group(5), "malformed");
        Files.deleteIfExists(FILE);
    }

    private static String tail(String s) {
        return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    }
}
