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
 * F5 (FABRIC-REFERENCE.md §9) from the shipped scenario {@code f5-hpcc-2to1.fabric}: the HPCC
 * simulator's default scenario, a 2-to-1 incast at 100 Gbit/s under HPCC with η = 0.95.
 *
 * <p>The source's expectation follows from HPCC's control law, not from a printed number: HPCC
 * holds the bottleneck's normalised in-flight bytes U at η, so the two flows split η × 100 Gbit/s
 * of the bottleneck's wire rate equally (payload: × 1000/1062), with a near-zero queue and no PFC
 * pause. Tolerances: each flow's goodput over 5–20 ms within ±5 % of η × 100 G × 1000/1062 / 2;
 * the bottleneck queue's mean over the same window below one BDP / 10 (about 5 KB); 0 PFC pauses.
 * The exact FCTs of the source need one run of the ns-3 simulator (not done): the model's are
 * printed beside the standalone FCT.
 */
class HpccFigureTest {
    @Test
    void twoHpccFlowsSplitEtaOfTheLinkWithANearZeroQueue(@TempDir Path tmp) throws Exception {
        Network.Result r = Network.build(ScenarioParser.parse(Runs.shipped("f5-hpcc-2to1.fabric")), 1, tmp).run();
        Map<String, String> s = Runs.summary(tmp);
        assertEquals("completed", s.get("status"));
        long from = 5_000_000;
        long to = 20_000_000;
        double[] sum = new double[2];
        int[] n = new int[2];
        for (long[] x : Runs.rows(tmp, "rate.txt")) {
            if (x[0] > from && x[0] <= to) {
                sum[(int) x[1]] += x[3];
                n[(int) x[1]]++;
            }
        }
        double g0 = sum[0] / n[0];
        double g1 = sum[1] / n[1];
        double share = 0.95 * 100e9 * 1000 / 1062 / 2;
        double meanQueue = 0;
        long maxQueue = 0;
        for (long[] q : Runs.rows(tmp, "queue.txt")) {
            if (q[0] > from && q[0] <= to && q[1] == 0 && q[2] == 1) { // s0, its port to h0
                meanQueue += q[3];
                maxQueue = Math.max(maxQueue, q[3]);
            }
        }
        meanQueue /= (to - from) / 10_000.0;
        List<long[]> fct = Runs.fct(tmp);
        System.out.printf(Locale.ROOT, "F5 (f5-hpcc-2to1, seed 1, 5-20 ms): goodput %.2f / %.2f Gbit/s (source: equal "
                + "split of eta x 100 G = %.2f each in payload; tolerance ±5 %%); bottleneck queue mean %.0f B, max %d B "
                + "(source: near zero; bound: mean < 5000 B); PFC pauses %s (source: 0); FCTs %s / %s us, standalone "
                + "%s us (source: not measured); events %d%n", g0 / 1e9, g1 / 1e9, share / 1e9, meanQueue, maxQueue,
                s.get("pfc_pause_frames"), fct.size() > 0 ? fct.get(0)[6] / 1000 : -1,
                fct.size() > 1 ? fct.get(1)[6] / 1000 : -1, fct.size() > 0 ? fct.get(0)[7] / 1000 : -1, r.events());
        assertEquals(2, r.flowsFinished());
        assertEquals(share, g0, 0.05 * share);
        assertEquals(share, g1, 0.05 * share);
        assertTrue(meanQueue < 5_000, "mean queue " + meanQueue);
        assertEquals(0, Runs.num(s, "pfc_pause_frames"));
        assertEquals(0, Runs.num(s, "switch_drops"));
    }

    /** HPCC and DCQCN together are refused at the hpcc line. */
    @Test
    void hpccAndDcqcnTogetherAreRefused() {
        org.jrdma.fabric.scenario.ScenarioException e = org.junit.jupiter.api.Assertions.assertThrows(
                org.jrdma.fabric.scenario.ScenarioException.class, () -> ScenarioParser.parse("bad.fabric",
                        "topology incast senders=2 rate=100Gbps\nhpcc eta=0.95\ndcqcn paper\n"));
        assertEquals(2, e.line());
        e = org.junit.jupiter.api.Assertions.assertThrows(org.jrdma.fabric.scenario.ScenarioException.class,
                () -> ScenarioParser.parse("bad.fabric", "topology incast senders=2 rate=100Gbps\nhpcc eta=1.5\n"));
        assertEquals("eta", e.field());
    }
}
