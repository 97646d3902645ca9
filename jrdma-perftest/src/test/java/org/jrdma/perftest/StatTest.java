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
import java.util.Map;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Verbs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The device counters a tool publishes ({@link StatsFile}) and {@code jrdma stat} ({@link Stat}). */
class StatTest {
    private String savedDevices;

    @BeforeEach
    void devices() {
        savedDevices = System.getProperty("jrdma.devices");
        String[] ip = TwoJvm.addresses();
        System.setProperty("jrdma.devices", "statd0=" + ip[0]);
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
            StatsFile s = StatsFile.start(ctx, "unit", f.toString());
            Stat.Snapshot running = Stat.read(f);
            assertEquals(StatsFile.RUNNING, running.state());
            assertEquals("running", running.status());
            assertEquals("statd0", running.device());
            // every counter of the provider, rxe's hw_counters names first, in id order
            assertEquals(Counters.COUNT, running.counters().size());
            assertEquals("sent_pkts", running.counters().keySet().iterator().next());
            for (int id = 0; id < Counters.COUNT; id++) {
                assertTrue(running.counters().containsKey(Counters.name(id)), Counters.name(id));
            }
            ((org.jrdma.rocev2.RxeContext) ctx).counters().add(Counters.RCVD_SEQ_ERR, 3);
            s.close();
            Stat.Snapshot closed = Stat.read(f);
            assertEquals(StatsFile.CLOSED, closed.state());
            assertEquals(3L, closed.counters().get("rcvd_seq_err"));
        }
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no temporary file is left behind");
        }
    }

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
