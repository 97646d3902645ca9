package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jrdma.perftest.TwoJvm.Run;
import org.jrdma.verbs.Gid;
import org.junit.jupiter.api.Test;

/**
 * {@code jrdma ud_pingpong}: its lines as rdma-core 44's {@code ibv_ud_pingpong} printed them in the
 * lab ({@code testdata/ud_pingpong/}: the local address with ": GID", the remote one with ", GID"),
 * its usage errors, and a run between two JVMs with {@code -c} (the client's pattern checked by the
 * server).
 */
class UdPingpongTest {
    private static final Pattern LOCAL = Pattern.compile(
            " {2}local address: {2}LID 0x0000, QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}): GID (\\S+)");
    private static final Pattern REMOTE = Pattern.compile(
            " {2}remote address: LID 0x0000, QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID (\\S+)");

    static List<String> capture(String name) throws IOException {
        return Files.readAllLines(Path.of(System.getProperty("jrdma.testdata", "../testdata"), "ud_pingpong", name));
    }

    @Test
    void addressAndResultLinesAsTheGuestsPrintedThem() throws Exception {
        List<String> g1 = capture("ibv_ud_pingpong.g1-server.txt");
        assertEquals(g1.get(0) + "\n", new PingpongDest(0, 0x12, 0xb79362, Gid.of(InetAddress.getByName(
                "::ffff:10.77.0.11"))).line(true, ": GID "));
        assertEquals(g1.get(1) + "\n", new PingpongDest(0, 0x11, 0xeab333, Gid.of(InetAddress.getByName(
                "::ffff:10.77.0.12"))).line(false));
        // 5 iters of 64 B: 640 bytes; 26638.00 usec/iter x 5 = 133190 us
        assertEquals(g1.get(2) + "\n" + g1.get(3) + "\n", RcPingpong.result(640, 133190, 5));
        List<String> g2 = capture("ibv_ud_pingpong.g2-client.txt");
        assertTrue(LOCAL.matcher(g2.get(0)).matches(), g2.get(0));
        assertTrue(REMOTE.matcher(g2.get(1)).matches(), g2.get(1));
    }

    @Test
    void aMessageLargerThanAPacketIsAUsageError() {
        RcPingpongTest.Outcome o = RcPingpongTest.run("ud_pingpong", "-s", "5000");
        assertEquals(2, o.exit());
        assertEquals("ud_pingpong: -s/--size must be between 1 and 4096 bytes, a UD message fits one packet (got 5000)\n",
                o.err());
    }

    @Test
    void twoJvmsPingPongOverUd() throws Exception {
        Run[] sc = TwoJvm.pair("ud_pingpong", List.of("-n", "50", "-s", "1024", "-c"), List.of(), List.of());
        TwoProcessOperationsTest.bothOk(sc);
        Run s = sc[0];
        Run c = sc[1];
        Matcher sl = matcher(LOCAL, s.out().get(0), s);
        Matcher sr = matcher(REMOTE, s.out().get(1), s);
        Matcher cl = matcher(LOCAL, c.out().get(0), c);
        Matcher cr = matcher(REMOTE, c.out().get(1), c);
        assertEquals(sl.group(1) + sl.group(2) + sl.group(3), cr.group(1) + cr.group(2) + cr.group(3));
        assertEquals(cl.group(1) + cl.group(2) + cl.group(3), sr.group(1) + sr.group(2) + sr.group(3));
        for (Run r : sc) {
            assertTrue(r.out().get(2).matches("102400 bytes in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d Mbit/sec"), r.text());
            assertTrue(r.out().get(3).matches("50 iters in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d usec/iter"), r.text());
            assertEquals(4, r.out().size(), "no 'invalid data in page' line (-c): " + r.text());
        }
    }

    private static Matcher matcher(Pattern p, String line, Run r) {
        Matcher m = p.matcher(line);
        assertTrue(m.matches(), "'" + line + "' is not a ud_pingpong address line:\n" + r.text());
        return m;
    }
}
