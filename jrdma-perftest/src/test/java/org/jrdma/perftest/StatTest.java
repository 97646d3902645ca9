package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.ext.HardwareCounters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The device counters a tool publishes ({@link StatsFile}) and {@code jrdma stat} ({@link Stat}). */
class StatTest {
    private String savedDevices;
    private String address;

    @BeforeEach
    void devices() {
        savedDevices = System.getProperty("jrdma.devices");
        address = TwoJvm.addresses()[0];
        System.setProperty("jrdma.devices", "statd0=" + address);
    }

    @AfterEach
    void restore() {
        if (savedDevices == null) {
            System.clearProperty("jrdma.devices");
        } else {
            System.setProperty("jrdma.devices", savedDevices);
        }
    }

    static Map<String, Long> sample() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("sent_pkts", 12L);
        m.put("rcvd_pkts", 10L);
        m.put("duplicate_request", 0L);
        return m;
    }

    @Test
    void formatAndParseRoundTrip() {
        Instant t = Instant.parse("2025-11-29T12:57:00.123Z");
        String text = StatsFile.format("jrxe0", "127.0.0.1", 4242, "ib_write_bw", "running", t, sample());
        assertEquals("""
                jrdma-stats 1
                device jrxe0
                address 127.0.0.1
                port 1
                pid 4242
                tool ib_write_bw
                state running
                updated 2025-11-29T12:57:00.123Z
                sent_pkts 12
                rcvd_pkts 10
                duplicate_request 0
                """, text);
        Stat.Snapshot s = Stat.parse(Path.of("x"), text);
        assertEquals("jrxe0", s.device());
        assertEquals(4242, s.pid());
        assertEquals(t, s.updated());
        assertEquals(sample(), s.counters());
    }

    @Test
    void qpDcqcnLinesRoundTripAndAreShownAsATable() {
        var r = new org.jrdma.verbs.ext.CongestionControl.QpRate(0x11, "nvidia", 50.025e9, 100e9, 0.999023, 1, 100e9);
        String line = StatsFile.qpLine(r);
        assertEquals("0x000011 nvidia 50025000000 100000000000 0.999023 1 100000000000", line);
        String text = StatsFile.format("jrxe0", "127.0.0.1", 1, "ib_write_bw", "running", Instant.EPOCH, sample(),
                java.util.List.of(line));
        assertTrue(text.endsWith("duplicate_request 0\nqp_dcqcn " + line + "\n"), text);
        Stat.Snapshot s = Stat.parse(Path.of("x"), text);
        assertEquals(sample(), s.counters(), "a QP line is no counter");
        assertEquals(java.util.List.of(line), s.qpLines());
        assertEquals("""
                    qp         dcqcn         rate Gb/s  target Gb/s     alpha       cnps
                    0x000011   nvidia           50.025      100.000    0.9990          1
                """, Stat.qpTable(s));
        assertEquals("    (no QP with a DCQCN rate limiter)\n",
                Stat.qpTable(Stat.parse(Path.of("x"), StatsFile.format("jrxe0", "", 1, "t", "closed", Instant.EPOCH,
                        sample()))));
    }

    @Test
    void rdmaStatisticForm() {
        Stat.Snapshot s = Stat.parse(Path.of("x"), StatsFile.format("jrxe0", "127.0.0.1", 1, "t", "closed",
                Instant.EPOCH, sample()));
        assertEquals("link jrxe0/1 sent_pkts 12 rcvd_pkts 10 duplicate_request 0\n", Stat.rdmaLine(s, false));
        assertEquals("link jrxe0/1 sent_pkts 12 rcvd_pkts 10\n", Stat.rdmaLine(s, true));
    }

    @Test
    void aWriterThatIsGoneIsStale() {
        long noSuchPid = Long.MAX_VALUE - 7;
        Stat.Snapshot s = Stat.parse(Path.of("x"), StatsFile.format("jrxe0", "127.0.0.1", noSuchPid, "t", "running",
                Instant.EPOCH, sample()));
        assertEquals("stale", s.status());
        Stat.Snapshot me = Stat.parse(Path.of("x"), StatsFile.format("jrxe0", "127.0.0.1",
                ProcessHandle.current().pid(), "t", "running", Instant.EPOCH, sample()));
        assertEquals("running", me.status());
    }

    @Test
    void notAStatsFile() {
        PerftestException e = assertThrows(PerftestException.class, () -> Stat.parse(Path.of("f"), "hello\n"));
        assertEquals("f is not a jrdma stats file", e.getMessage());
    }

    @Test
    void anOpenDevicePublishesItsCountersWithRxeNames(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("d.stats");
        try (Context ctx = Verbs.getDevice("statd0").open()) {
            HardwareCounters hw = ctx.extension(HardwareCounters.class).orElseThrow();
            StatsFile s = StatsFile.start(ctx, "unit", f.toString());
            Stat.Snapshot running = Stat.read(f);
            assertEquals(StatsFile.RUNNING, running.state());
            assertEquals("running", running.status());
            assertEquals("statd0", running.device());
            assertEquals(address, running.address());
            // every counter of the device, in the provider's order: rxe's 15 hw_counters first
            // (drivers/infiniband/sw/rxe/rxe_hw_counters.c), then jrdma's
            assertEquals(hw.names(), List.copyOf(running.counters().keySet()));
            assertEquals(RXE_HW_COUNTERS, hw.names().subList(0, RXE_HW_COUNTERS.size()));
            // traffic after the last periodic write: the closing write has it
            Params p = new Params();
            p.verb = Verb.WRITE;
            p.connection = Params.Connection.RC;
            p.size = 2;
            p.inlineSize = 0;
            p.currMtu = 3;
            p.jitWarmUpMillis = 100;
            p.gidIndex = 0;
            assertTrue(JitWarmUp.run(ctx, p, ctx.queryGid(1, 0)) > 0);
            // the device talks to itself, so at rest it has received every packet it sent; a last ACK or
            // tail-loss probe may still be on its way when the run returns: let it land (at most 2 s)
            // before the closing write, or that write misses it
            long settle = System.nanoTime() + 2_000_000_000L;
            while (hw.get("rcvd_pkts") < hw.get("sent_pkts") && System.nanoTime() < settle) {
                Thread.sleep(1);
            }
            s.close();
            Stat.Snapshot closed = Stat.read(f);
            assertEquals(StatsFile.CLOSED, closed.state());
            long sent = hw.get("sent_pkts");
            assertTrue(sent > 0, "looped-back packets counted");
            assertEquals(sent, closed.counters().get("sent_pkts"));
            assertEquals(hw.get("rcvd_pkts"), closed.counters().get("rcvd_pkts"));
        }
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no temporary file is left behind");
        }
    }

    /** Linux rxe's hw_counters, in its order ({@code rxe_hw_counters.c}, {@code rdma statistic show link}). */
    static final List<String> RXE_HW_COUNTERS = List.of("sent_pkts", "rcvd_pkts", "duplicate_request",
            "out_of_seq_request", "rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err",
            "retry_rnr_exceeded_err", "completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs");

    @Test
    void statCommandPrintsTheTable(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("jrxe9.stats");
        Files.writeString(f, StatsFile.format("jrxe9", "127.0.0.9", Long.MAX_VALUE - 7, "ib_send_bw", "closed",
                Instant.now(), sample()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Jrdma.commandLine(new PrintStream(out, true), new PrintStream(err, true))
                .execute("stat", "--stats-file", f.toString(), "-z");
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("jrxe9 port 1 (127.0.0.9): ib_send_bw, pid " + (Long.MAX_VALUE - 7) + ", closed, updated "),
                text);
        assertTrue(text.endsWith(" s ago\n    sent_pkts                        12\n    rcvd_pkts                        10\n"), text);
    }

    @Test
    void statWithoutCountersIsOneLine() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Jrdma.commandLine(new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true))
                .execute("stat", "--stats-file", "/nonexistent/x.stats");
        assertEquals(1, rc);
        assertEquals("stat: no stats file /nonexistent/x.stats\n", err.toString(StandardCharsets.UTF_8));
    }
}
