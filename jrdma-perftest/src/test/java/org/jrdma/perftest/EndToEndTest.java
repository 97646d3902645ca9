package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.jrdma.perftest.TwoJvm.Run;
import org.junit.jupiter.api.Test;

/**
 * Server and client of ib_write_bw and ib_write_lat as two JVMs ({@link TwoJvm}) over software RoCE
 * v2 devices on a random loopback pair, with few iterations.
 */
class EndToEndTest {
    private static final Pattern BW_ROW = Pattern.compile(" 8192 {7}5 {16}\\d+\\.\\d\\d +\\d+\\.\\d\\d *\t\t {3}\\d+\\.\\d{6}");
    private static final Pattern LAT_ROW = Pattern.compile(" 64 {6}100 {10}\\d+\\.\\d\\d +\\d+\\.\\d\\d +\\d+\\.\\d\\d .*");

    @Test
    void writeBw() throws Exception {
        Run[] sc = TwoJvm.pair("ib_write_bw", "-n", "5", "-s", "8192", "-F");
        Run s = sc[0];
        Run c = sc[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        // the server prints the client's report, received through xchg_bw_reports
        assertEquals(c.row(BW_ROW), s.row(BW_ROW));
        assertTrue(s.has("* Waiting for client to connect... *"), s.text());
        assertTrue(c.out().stream().anyMatch(l -> l.contains("Device         : jrxe1")), c.text());
        assertTrue(s.out().stream().anyMatch(l -> l.contains("Device         : jrxe0")), s.text());
    }

    /**
     * A duration run of the SEND bandwidth test: the server must keep receiving (and re-posting
     * receives) for the whole run, not stop after its first receive queue's worth of messages.
     */
    @Test
    void sendBwForADuration() throws Exception {
        Run[] sc = TwoJvm.pair("ib_send_bw", "-D", "2", "-s", "1024", "-F");
        Run s = sc[0];
        Run c = sc[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        Pattern row = Pattern.compile(" 1024 +(\\d+) +\\d+\\.\\d\\d +(\\d+\\.\\d\\d)\\s+\\d+\\.\\d{6}");
        java.util.regex.Matcher cm = row.matcher(c.row(row));
        java.util.regex.Matcher sm = row.matcher(s.row(row));
        assertTrue(cm.matches() && sm.matches(), c.text() + s.text());
        // far more than the 512 receives the server posts at the start, and counted on both sides
        assertTrue(Long.parseLong(cm.group(1)) > 5_000, c.text());
        assertTrue(Long.parseLong(sm.group(1)) > 5_000, s.text());
    }

    /** A duration run of the SEND latency test: the server answers for the whole run. */
    @Test
    void sendLatForADuration() throws Exception {
        Run[] sc = TwoJvm.pair("ib_send_lat", "-D", "2", "-s", "2", "-F");
        Run s = sc[0];
        Run c = sc[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        // duration rows: #bytes #iterations t_avg tps
        Pattern row = Pattern.compile(" 2 +(\\d+) +\\d+\\.\\d\\d +\\d+\\.\\d\\d\\s*");
        java.util.regex.Matcher cm = row.matcher(c.row(row));
        assertTrue(cm.matches(), c.text());
        assertTrue(Long.parseLong(cm.group(1)) > 1_000, c.text());
    }

    @Test
    void writeLat() throws Exception {
        Run[] sc = TwoJvm.pair("ib_write_lat", "-n", "100", "-s", "64", "-F");
        Run s = sc[0];
        Run c = sc[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        s.row(LAT_ROW);
        c.row(LAT_ROW);
    }
}
