package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * F12 (FABRIC-REFERENCE.md §9; shipped scenarios {@code pfc-deadlock-ring*.fabric}): a cyclic buffer
 * dependency in a clockwise-routed ring of three switches. The facts asserted are the model's
 * mechanism, not its timing: (1) with the bad buffer (200 KB a switch) the three ring egress queues
 * pause each other, every flow's goodput falls to 0 and the buffers stay frozen after the senders
 * stop (20 ms) to the end of the run, and a probe flow over one ring hop never moves; (2) the PFC
 * watchdog (SONiC: poll, detect, restore 200 ms, drop, on every port) finds the three queues one
 * detection time after the deadlock formed (in whole polls: within [detect, detect + poll]),
 * flushes them, and the probe then completes; (3) with the corrected buffer (12 MB: the PFC
 * threshold above Kmax, so ECN and DCQCN act before PFC) no pause is sent at all and the probe
 * takes its standalone FCT. Sources: Hu et al. HotNets 2016 [R] (CBD, persistence), SONiC
 * {@code pfcwd} defaults [V].
 */
class PfcDeadlockTest {
    private static final long STOP_NS = 20_000_000;
    private static final long PROBE_START_NS = 30_000_000;
    private static final long END_NS = 1_000_000_000;

    private static Path run(Path tmp, String file) throws Exception {
        Path dir = tmp.resolve(file);
        Runs.run(Files.readString(Runs.shipped(file + ".fabric")), 1, dir);
        return dir;
    }

    /** Goodput samples of a flow in (from, to], ns. */
    private static List<Long> goodput(Path dir, int flow, long from, long to) throws Exception {
        return Runs.rows(dir, "rate.txt").stream().filter(r -> r[1] == flow && r[0] > from && r[0] <= to)
                .map(r -> r[3]).toList();
    }

    /** Bytes buffered in all switches per sample time (queue.txt). */
    private static Map<Long, Long> buffered(Path dir) throws Exception {
        Map<Long, Long> m = new TreeMap<>();
        for (long[] r : Runs.rows(dir, "queue.txt")) {
            m.merge(r[0], r[3], Long::sum);
        }
        return m;
    }

    /** The time the last XOFF reached a switch's port (the deadlock's closing pause), ns. */
    private static long lastSwitchPause(Path dir) throws Exception {
        return Runs.rows(dir, "pfc.txt").stream().filter(r -> r[2] == 1 && r[4] == 1).mapToLong(r -> r[0]).max()
                .orElseThrow();
    }

    @Test
    void theBadBufferDeadlocksAndTheDeadlockOutlivesTheSenders(@TempDir Path tmp) throws Exception {
        Path dir = run(tmp, "pfc-deadlock-ring");
        Map<String, String> s = Runs.summary(dir);
        long formed = lastSwitchPause(dir);
        // each switch's ring port is paused and never resumed
        List<long[]> pfc = Runs.rows(dir, "pfc.txt").stream().filter(r -> r[2] == 1).toList();
        assertEquals(3, pfc.size(), "three switch ports paused, no resume");
        assertTrue(pfc.stream().allMatch(r -> r[4] == 1));
        for (int f = 0; f < 3; f++) {
            List<Long> g = goodput(dir, f, 1_000_000, STOP_NS);
            assertEquals(18, g.size()); // 2 .. 19 ms: at 20 ms the flow has stopped
            assertTrue(g.stream().allMatch(x -> x == 0), "flow " + f + " moved during the deadlock");
        }
        assertTrue(goodput(dir, 3, PROBE_START_NS, END_NS).stream().allMatch(x -> x == 0), "the probe moved");
        Map<Long, Long> b = buffered(dir);
        long atStop = b.get(STOP_NS);
        assertTrue(atStop > 0);
        // frozen: every sample from the senders' stop to the end holds the same bytes
        b.forEach((t, bytes) -> {
            if (t >= STOP_NS) {
                assertEquals(atStop, bytes, "at " + t + " ns");
            }
        });
        assertEquals(atStop, Runs.num(s, "buffered_bytes_at_end"));
        assertEquals(3, Runs.num(s, "paused_nonempty_queues_at_end"));
        assertEquals(0, Runs.num(s, "flows_finished"));
        assertEquals(3, Runs.num(s, "flows_stopped"));
        assertEquals(0, Runs.num(s, "switch_drops"), "lossless: nothing dropped");
        System.out.printf(Locale.ROOT, "F12 deadlock: formed %.1f us after the start; %d B frozen in 3 paused queues "
                + "from the senders' stop (20 ms) to the end (1 s); probe goodput 0 (source [R]: throughput 0, persists "
                + "after the sources stop)%n", formed / 1e3, atStop);
    }

    @Test
    void theWatchdogBreaksTheDeadlockAfterItsDetectionTime(@TempDir Path tmp) throws Exception {
        Path dir = run(tmp, "pfc-deadlock-ring-watchdog");
        long formed = lastSwitchPause(dir);
        long detect = 200_000_000;
        long poll = 200_000_000;
        List<long[]> wd = Runs.rows(dir, "watchdog.txt");
        List<long[]> storms = wd.stream().filter(r -> r[4] == 1).toList();
        assertEquals(3, storms.size(), "one stormed ring queue per switch");
        for (long[] e : storms) {
            assertTrue(e[0] - formed >= detect && e[0] - formed <= detect + poll, "detected at " + e[0]);
        }
        long detected = storms.getFirst()[0];
        Map<Long, Long> b = buffered(dir);
        assertTrue(b.getOrDefault(detected - 1_000_000, 0L) > 0, "still frozen before detection");
        assertTrue(b.entrySet().stream().filter(x -> x.getKey() > detected).allMatch(x -> x.getValue() == 0),
                "buffers empty once detected");
        List<long[]> fct = Runs.fct(dir);
        assertEquals(1, fct.size(), "the probe completes");
        assertTrue(fct.getFirst()[5] + fct.getFirst()[6] > detected, "not before the watchdog acted");
        Map<String, String> s = Runs.summary(dir);
        assertEquals(0, Runs.num(s, "paused_nonempty_queues_at_end"));
        assertTrue(Runs.num(s, "watchdog_drops") > 0);
        System.out.printf(Locale.ROOT, "F12 watchdog (sonic, scope all): detected %.0f ms after the deadlock formed "
                + "(source: detection 200 ms, poll 200 ms; bound [detect, detect + poll]); probe done at %.0f ms%n",
                (detected - formed) / 1e6, (fct.getFirst()[5] + fct.getFirst()[6]) / 1e6);
    }

    @Test
    void theCorrectedBufferGivesNoDeadlock(@TempDir Path tmp) throws Exception {
        Path dir = run(tmp, "pfc-deadlock-ring-fixed");
        Map<String, String> s = Runs.summary(dir);
        assertEquals(0, Runs.num(s, "pfc_pause_frames"), "ECN acted before PFC");
        assertTrue(Runs.num(s, "rp_cnp_handled") > 0);
        assertEquals(0, Runs.num(s, "paused_nonempty_queues_at_end"));
        assertEquals(0, Runs.num(s, "buffered_bytes_at_end"));
        for (int f = 0; f < 3; f++) {
            assertTrue(goodput(dir, f, 1_000_000, STOP_NS).stream().allMatch(x -> x > 0), "flow " + f);
        }
        long[] probe = Runs.fct(dir).getFirst();
        assertTrue(probe[6] <= probe[7] * 1.05, "probe FCT " + probe[6] + " ns vs standalone " + probe[7]);
        System.out.printf(Locale.ROOT, "F12 corrected buffer (12 MB): 0 pauses, max queue %s B, probe FCT %.2f ms "
                + "(standalone %.2f ms)%n", s.get("max_egress_queue_bytes"), probe[6] / 1e6, probe[7] / 1e6);
    }
}
