package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jrdma.fabric.net.Network;
import org.jrdma.fabric.scenario.ScenarioParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * F3, first part (FABRIC-REFERENCE.md §9), end to end from the shipped scenario
 * {@code dcqcn-2to1.fabric}: two DCQCN flows (paper parameters, Kmin 5 KB / Kmax 200 KB / Pmax 1 %)
 * through one 40 Gbit/s bottleneck converge to fair shares with a bounded queue and no PFC pause.
 *
 * <p>The source's values are tagged [R] (recalled, "near-equal shares; queue near Kmin..Kmax; PFC
 * pauses far fewer than PFC-only"), so this is a comparison with tolerances of ours, not the
 * paper's printed numbers: over 100–200 ms each flow's goodput is within ±10 % of half the
 * bottleneck's goodput capacity (40 Gbit/s × 1000/1062), together ≥ 95 % of it; the bottleneck queue
 * stays below Kmax; no PFC pause.
 */
class Dcqcn2to1FigureTest {
    @Test
    void twoFlowsConvergeToFairSharesWithABoundedQueue(@TempDir Path tmp) throws Exception {
        Network.Result r = Network.build(ScenarioParser.parse(Runs.shipped("dcqcn-2to1.fabric")), 1, tmp).run();
        Map<String, String> s = Runs.summary(tmp);
        assertEquals("completed", s.get("status"));
        long from = 100_000_000;
        long to = 200_000_000;
        double capacity = 40e9 * 1000 / 1062;
        double[] sum = new double[2];
        int[] n = new int[2];
        for (long[] row : Runs.rows(tmp, "rate.txt")) {
            if (row[0] > from && row[0] <= to) {
                sum[(int) row[1]] += row[3];
                n[(int) row[1]]++;
            }
        }
        double g0 = sum[0] / n[0];
        double g1 = sum[1] / n[1];
        long maxQueue = 0;
        double meanQueue = 0;
        List<long[]> queue = Runs.rows(tmp, "queue.txt");
        long samples = 0;
        for (long[] q : queue) {
            if (q[0] > from && q[0] <= to && q[1] == 0 && q[2] == 1) { // s0 (node 0), its port to h0 (ifIndex 1)
                maxQueue = Math.max(maxQueue, q[3]);
                meanQueue += q[3];
                samples++;
            }
        }
        meanQueue /= (to - from) / 10_000.0; // over every 10 µs sample, empty ones included
        System.out.printf(Locale.ROOT, "F3 (dcqcn-2to1, seed 1, 100-200 ms): model flow shares %.2f / %.2f Gbit/s "
                + "(fair %.2f; source [R]: near-equal; tolerance ±10 %%), sum %.1f %% of capacity; bottleneck queue "
                + "max %d B, mean %.0f B (source [R]: near Kmin 5 KB..Kmax 200 KB; bound: < Kmax); PFC pauses %s "
                + "(source [R]: far fewer than PFC-only; bound: 0); events %d%n", g0 / 1e9, g1 / 1e9, capacity / 2e9,
                100 * (g0 + g1) / capacity, maxQueue, meanQueue, s.get("pfc_pause_frames"), r.events());
        assertEquals(capacity / 2, g0, 0.10 * capacity / 2);
        assertEquals(capacity / 2, g1, 0.10 * capacity / 2);
        assertTrue(g0 + g1 >= 0.95 * capacity);
        assertTrue(samples > 0 && maxQueue < 200_000, "queue max " + maxQueue);
        assertEquals(0, Runs.num(s, "pfc_pause_frames"));
        assertEquals(0, Runs.num(s, "switch_drops"));
    }

    /** The PFC-only side of F3: the same two flows without DCQCN fill the buffer and pause the senders. */
    @Test
    void withoutDcqcnPfcPausesTheSenders(@TempDir Path tmp) throws Exception {
        String text = java.nio.file.Files.readString(Runs.shipped("dcqcn-2to1.fabric"))
                .replace("dcqcn paper", "dcqcn off").replace("duration 200ms", "duration 20ms");
        Runs.run(text, 1, tmp);
        Map<String, String> s = Runs.summary(tmp);
        System.out.printf(Locale.ROOT, "F3, PFC only (20 ms): %s PFC pause frames, bottleneck queue max %s B, "
                + "%s drops (with DCQCN over 200 ms: 0 pauses)%n", s.get("pfc_pause_frames"),
                s.get("max_egress_queue_bytes"), s.get("switch_drops"));
        assertTrue(Runs.num(s, "pfc_pause_frames") > 10, s.toString());
        assertEquals(0, Runs.num(s, "switch_drops"));
        assertTrue(Runs.num(s, "max_egress_queue_bytes") > 200_000);
    }
}
