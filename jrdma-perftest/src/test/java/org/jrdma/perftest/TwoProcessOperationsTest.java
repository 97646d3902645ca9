package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jrdma.perftest.TwoJvm.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 4's "at least one end-to-end test of every operation runs two JVM processes": each RDMA
 * operation through a tool whose server and client are separate JVMs ({@link TwoJvm}) — RDMA WRITE,
 * SEND/RECV, RDMA READ, both atomics, UC WRITE, UD SEND, SEND_WITH_IMM and RDMA_WRITE_WITH_IMM — each
 * with both sides exiting 0 and printing the result for the size and iterations asked.
 */
class TwoProcessOperationsTest {
    /** perftest's REPORT_FMT row: size, iterations, peak, average, message rate. */
    static Pattern bwRow(long size, long iters) {
        return Pattern.compile(" " + size + " +" + iters + " +\\d+\\.\\d\\d +\\d+\\.\\d\\d\\s+\\d+\\.\\d{6}");
    }

    /** perftest's REPORT_FMT_LAT row. */
    static Pattern latRow(long size, long iters) {
        return Pattern.compile(" " + size + " +" + iters + "(\\s+\\d+\\.\\d\\d){7}\\s*");
    }

    static void bothOk(Run[] sc) {
        assertEquals(0, sc[1].exit(), "client:\n" + sc[1].text() + "\nserver:\n" + sc[0].text());
        assertEquals(0, sc[0].exit(), "server:\n" + sc[0].text() + "\nclient:\n" + sc[1].text());
    }

    static void header(Run r, String line) {
        assertTrue(r.out().stream().anyMatch(l -> l.strip().equals(line) || l.contains(line)),
                "'" + line + "' expected in\n" + r.text());
    }

    @Test
    void sendRecvBw() throws Exception {
        Run[] sc = TwoJvm.pair("ib_send_bw", "-n", "20", "-s", "8192", "-F");
        bothOk(sc);
        header(sc[1], "Send BW Test");
        sc[1].row(bwRow(8192, 20));
        sc[0].row(bwRow(8192, 20)); // the receiving server measures its own
    }

    @Test
    void sendRecvLat() throws Exception {
        Run[] sc = TwoJvm.pair("ib_send_lat", "-n", "20", "-s", "64", "-F");
        bothOk(sc);
        sc[1].row(latRow(64, 20));
        sc[0].row(latRow(64, 20));
    }

    @Test
    void readBw() throws Exception {
        Run[] sc = TwoJvm.pair("ib_read_bw", "-n", "20", "-s", "8192", "-F");
        bothOk(sc);
        header(sc[1], "RDMA_Read BW Test");
        assertEquals(sc[1].row(bwRow(8192, 20)), sc[0].row(bwRow(8192, 20)));
    }

    @Test
    void readLat() throws Exception {
        Run[] sc = TwoJvm.pair("ib_read_lat", "-n", "20", "-s", "64", "-F");
        bothOk(sc);
        sc[1].row(latRow(64, 20));
    }

    @Test
    void atomicCompareAndSwap() throws Exception {
        Run[] sc = TwoJvm.pair("ib_atomic_bw", "-n", "20", "-A", "CMP_AND_SWAP", "-F");
        bothOk(sc);
        header(sc[1], "Atomic CMP_AND_SWAP BW Test");
        assertEquals(sc[1].row(bwRow(8, 20)), sc[0].row(bwRow(8, 20)));
    }

    @Test
    void atomicFetchAndAdd() throws Exception {
        Run[] sc = TwoJvm.pair("ib_atomic_bw", "-n", "20", "-A", "FETCH_AND_ADD", "-F");
        bothOk(sc);
        header(sc[1], "Atomic FETCH_AND_ADD BW Test");
        assertEquals(sc[1].row(bwRow(8, 20)), sc[0].row(bwRow(8, 20)));
    }

    @Test
    void atomicLatency() throws Exception {
        Run[] sc = TwoJvm.pair("ib_atomic_lat", "-n", "20", "-F");
        bothOk(sc);
        sc[1].row(latRow(8, 20));
    }

    @Test
    void ucWrite() throws Exception {
        Run[] sc = TwoJvm.pair("ib_write_bw", "-c", "UC", "-n", "20", "-s", "8192", "-F");
        bothOk(sc);
        header(sc[1], "Connection type : UC");
        assertEquals(sc[1].row(bwRow(8192, 20)), sc[0].row(bwRow(8192, 20)));
    }

    @Test
    void udSend() throws Exception {
        Run[] sc = TwoJvm.pair("ib_send_bw", "-c", "UD", "-n", "20", "-s", "1024", "-F");
        bothOk(sc);
        header(sc[0], "Connection type : UD");
        sc[1].row(bwRow(1024, 20));
        sc[0].row(bwRow(1024, 20));
    }

    private static final Pattern PP_ADDR = Pattern.compile(
            " {2}(local address: |remote address:) LID 0x0000, QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID (\\S+)");

    @Test
    void rcPingpongSendRecv(@TempDir Path dir) throws Exception {
        Path sStats = dir.resolve("server.stats");
        Path cStats = dir.resolve("client.stats");
        Run[] sc = TwoJvm.pair("rc_pingpong", List.of("-n", "50", "-s", "4096", "-m", "1024", "-c"),
                List.of("--stats-file", sStats.toString()), List.of("--stats-file", cStats.toString()));
        bothOk(sc);
        Run s = sc[0];
        Run c = sc[1];
        // ibv_rc_pingpong's lines: each side's local QPN/PSN is the other's remote one
        Matcher sl = match(s.out().get(0), s);
        Matcher sr = match(s.out().get(1), s);
        Matcher cl = match(c.out().get(0), c);
        Matcher cr = match(c.out().get(1), c);
        assertEquals(sl.group(2) + sl.group(3) + sl.group(4), cr.group(2) + cr.group(3) + cr.group(4));
        assertEquals(cl.group(2) + cl.group(3) + cl.group(4), sr.group(2) + sr.group(3) + sr.group(4));
        assertTrue(cl.group(4).startsWith("::ffff:127."), c.text());
        for (Run r : sc) {
            assertTrue(r.out().get(2).matches("409600 bytes in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d Mbit/sec"), r.text());
            assertTrue(r.out().get(3).matches("50 iters in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d usec/iter"), r.text());
            assertEquals(4, r.out().size(), "no 'invalid data in page' line (-c): " + r.text());
        }
        // the counters each process published: 50 messages of 4 packets (4096 B at MTU 1024) each way
        for (Path f : List.of(sStats, cStats)) {
            Stat.Snapshot snap = Stat.read(f);
            assertEquals(StatsFile.CLOSED, snap.state());
            assertEquals("rc_pingpong", snap.tool());
            assertTrue(snap.counters().get("sent_pkts") >= 200, snap.counters().toString());
            assertTrue(snap.counters().get("rcvd_pkts") >= 200, snap.counters().toString());
        }
    }

    private static Matcher match(String line, Run r) {
        Matcher m = PP_ADDR.matcher(line);
        assertTrue(m.matches(), "'" + line + "' is not an rc_pingpong address line:\n" + r.text());
        return m;
    }

    @Test
    void sendAndWriteWithImmediate() throws Exception {
        Run[] sc = TwoJvm.pair("imm_pingpong", "-n", "20", "-s", "3000", "-m", "1024", "-v");
        bothOk(sc);
        Run s = sc[0];
        Run c = sc[1];
        // iteration 0: SEND_WITH_IMM, message 0 to the server, 1 back; iteration 1: RDMA_WRITE_WITH_IMM, 2 and 3
        assertTrue(s.has("recv: opcode=RECV byte_len=3000 imm=0x11000000 data=ok"), s.text());
        assertTrue(c.has("recv: opcode=RECV byte_len=3000 imm=0x11000001 data=ok"), c.text());
        assertTrue(s.has("recv: opcode=RECV_RDMA_WITH_IMM byte_len=3000 imm=0x33000002 data=ok"), s.text());
        assertTrue(c.has("recv: opcode=RECV_RDMA_WITH_IMM byte_len=3000 imm=0x33000003 data=ok"), c.text());
        for (Run r : sc) {
            assertEquals(20, r.out().stream().filter(l -> l.startsWith("recv: ") && l.endsWith(" data=ok")).count(),
                    r.text());
            header(r, "SEND_WITH_IMM       3000 B: 10 sent, 10 received");
            header(r, "RDMA_WRITE_WITH_IMM 3000 B: 10 sent, 10 received");
        }
    }

    @Test
    void sweepWithPlots(@TempDir Path dir) throws Exception {
        Path svg = dir.resolve("lat.svg");
        Path png = dir.resolve("lat.png");
        Run[] sc = TwoJvm.pair("ib_write_lat", List.of("-a", "-n", "5", "-F"), List.of("--plot", png.toString()),
                List.of("--plot", svg.toString()));
        bothOk(sc);
        for (int i = 1; i < 24; i++) {
            sc[1].row(latRow(1L << i, 5));
        }
        PlotTest.assertSvg(svg);
        PlotTest.assertPng(png);
        assertTrue(Files.size(svg) > 1000);
    }
}
