package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tshark check of the lab captures, on two real captures of the lab (ib_read_bw -s 2, rxe
 * server, jrdma client, 2026-11-29, .ci/run) in which tshark's InfiniBand dissector handed a 2-byte READ
 * response (the payload, then two zero pad bytes) to the EtherType's dissector (EXEH over IPv4,
 * LLDP over IPv6), which then called the packet malformed: that is perftest's data, not the RoCE
 * headers, and must not fail the run, while a packet tshark cannot dissect as RoCE still must.
 */
class CapturesTsharkTest {
    @TempDir
    Path dir;

    private Path copy(String name) throws IOException {
        Path p = dir.resolve(name);
        try (InputStream in = CapturesTsharkTest.class.getResourceAsStream("/tshark/" + name)) {
            Files.copy(in, p, StandardCopyOption.REPLACE_EXISTING);
        }
        return p;
    }

    private static boolean tsharkInstalled() {
        try {
            return new ProcessBuilder("tshark", "--version").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @Test
    void payloadsMisguessedAsAnEtherTypeAreReportedNotCounted() throws Exception {
        assumeTrue(tsharkInstalled(), "tshark is not installed (the lab set-up installs it)");
        for (String name : new String[] {"read-bw-s2-ipv4-exeh-guess.pcap", "read-bw-s2-ipv6-lldp-guess.pcap"}) {
            Captures.Check c = Captures.tshark(copy(name));
            assertTrue(c.problems().isEmpty(), name + ": " + c.problems());
            assertTrue(c.summary().startsWith("tshark: 40 RoCE v2 packets, 0 with errors"), c.summary());
            assertTrue(c.summary().contains("payloads mis-guessed"), c.summary());
        }
    }

    @Test
    void payloadDissectorFromFrameProtocols() {
        assertEquals("ethertype:lldp", Captures.payloadDissectedAs("eth:ethertype:ipv6:udp:infiniband:ethertype:lldp"));
        assertNull(Captures.payloadDissectedAs("eth:ethertype:ipv6:udp:infiniband:data"));
        assertNull(Captures.payloadDissectedAs("eth:ethertype:ip:udp:infiniband"));
        assertNull(Captures.payloadDissectedAs("eth:ethertype:ip:udp:data"));
    }
}
