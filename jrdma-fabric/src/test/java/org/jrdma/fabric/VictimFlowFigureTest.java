package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.jrdma.fabric.net.Network;
import org.jrdma.fabric.scenario.ScenarioParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * F4 (FABRIC-REFERENCE.md §9) from the shipped scenario {@code f4-victim-flow.fabric}: the setup of
 * {@code sc20anonymous/DCQCN-validation} (README, topology.png, dcqcn_cc_rate.png,
 * dcqcn_overall_throughput.png [V]). The source's values: F1's CC rate "improperly reduced to about
 * 9Gbps" (from about 17 Gbit/s before the burst, read off dcqcn_cc_rate.png), and "the
 * under-utilization time of link P2-P1 is 16ms".
 *
 * <p>Pass/fail is the part of the mechanism that the model reproduces: S1's PFC pauses S2 (no pause
 * in a control run of the same file without the burst); S2's egress P2, which F1 shares with F2,
 * queues beyond Kmax and marks, while F1's own egress at S1 (to R1) never queues beyond Kmin; no
 * drop; and the link P2–P1 stays under-used far longer than the 1 ms burst: 16 ms in the source,
 * asserted within a stated ±50 % (the source ran ns3-rdma's DCQCN and buffer model; its link rate
 * and buffer are not stated, the scenario's comment names what was chosen).
 *
 * <p>Not reproduced, printed and not asserted: F1's CC-rate cut. In the model the burst's marks at
 * P2 last too briefly to cut F1 deeply (one cut, to about 85 %, against the source's ~53 %); F2,
 * whose own egress congests, is cut and recovers slowly, and F1 takes part of F2's share: over
 * 3–8 ms F1 runs above the control. The under-use of P2–P1 is F2's in the model, F1's and F2's in
 * the source.
 */
class VictimFlowFigureTest {
    /** F1's mean DCQCN rate over (fromNs, toNs]. */
    private static double meanF1Rate(List<long[]> rate, long fromNs, long toNs) {
        return rate.stream().filter(x -> x[1] == 0 && x[0] > fromNs && x[0] <= toNs).mapToLong(x -> x[2]).average()
                .orElseThrow();
    }

    @Test
    void pfcBackPressureCutsAFlowThatCrossesNoCongestedLink(@TempDir Path tmp) throws Exception {
        String text = Files.readString(Runs.shipped("f4-victim-flow.fabric"));
        Network.Result r = Network.build(ScenarioParser.parse("f4-victim-flow.fabric", text), 1, tmp.resolve("burst"))
                .run();
        String control = text.lines().filter(l -> !l.contains("start=3ms")).collect(Collectors.joining("\n"));
        Network.build(ScenarioParser.parse("f4-control.fabric", control), 1, tmp.resolve("control")).run();
        Path dir = tmp.resolve("burst");
        Map<String, String> s = Runs.summary(dir);
        assertEquals("completed", s.get("status"));
        List<long[]> rate = Runs.rows(dir, "rate.txt");
        List<long[]> controlRate = Runs.rows(tmp.resolve("control"), "rate.txt");
        double pre = meanF1Rate(rate, 1_000_000, 3_000_000);
        double after = meanF1Rate(rate, 3_000_000, 8_000_000);
        double controlAfter = meanF1Rate(controlRate, 3_000_000, 8_000_000);
        double f2After = rate.stream().filter(x -> x[1] == 1 && x[0] > 3_000_000 && x[0] <= 8_000_000)
                .mapToLong(x -> x[2]).average().orElseThrow();
        double f2Control = controlRate.stream().filter(x -> x[1] == 1 && x[0] > 3_000_000 && x[0] <= 8_000_000)
                .mapToLong(x -> x[2]).average().orElseThrow();
        double min = Double.MAX_VALUE;
        long minAt = 0;
        double[] link = new double[301]; // F1 + F2 goodput per 100 µs sample
        for (long[] x : rate) {
            int i = (int) (x[0] / 100_000);
            if (x[1] == 0 && x[0] > 3_000_000 && x[2] < min) {
                min = x[2];
                minAt = x[0];
            }
            if (x[1] <= 1 && i < link.length) {
                link[i] += x[3];
            }
        }
        double preLink = 0;
        for (int i = 11; i <= 30; i++) {
            preLink += link[i] / 20;
        }
        // under-use of P2 - P1: from the burst's start (3 ms) until the 1 ms mean of F1 + F2 is back at
        // its 1-3 ms mean
        long underUseEndNs = -1;
        for (int i = 40; i + 10 <= 300; i++) {
            double m = 0;
            for (int k = i; k < i + 10; k++) {
                m += link[k] / 10;
            }
            if (m >= preLink) {
                underUseEndNs = (i + 10) * 100_000L;
                break;
            }
        }
        long f1OwnQueue = 0;
        long p2Queue = 0;
        for (long[] q : Runs.rows(dir, "queue.txt")) {
            if (q[1] == 0 && q[2] == 2) { // S1 (node 0), its port to R1 (ifIndex 2)
                f1OwnQueue = Math.max(f1OwnQueue, q[3]);
            }
            if (q[1] == 1 && q[2] == 3) { // S2 (node 1), P2: its port to S1 (ifIndex 3)
                p2Queue = Math.max(p2Queue, q[3]);
            }
        }
        double underUseMs = underUseEndNs < 0 ? Double.NaN : (underUseEndNs - 3_000_000) / 1e6;
        System.out.printf(Locale.ROOT, "F4 (f4-victim-flow, seed 1): F1 CC rate %.1f Gbit/s before the burst, mean "
                + "%.1f Gbit/s over 3-8 ms (control without the burst %.1f), least %.1f Gbit/s at %.2f ms, a cut to "
                + "%.0f %% (source: ~17 -> ~9 Gbit/s, a cut to ~53 %%; tolerance ±50 %% of 9 Gbit/s: outside, not "
                + "asserted); F2 mean %.1f Gbit/s over 3-8 ms (control %.1f); link P2-P1 under-used for %.1f ms (source: 16 ms; tolerance ±50 %%); F1's own egress "
                + "(S1 -> R1) queue max %d B (Kmin 5000); S2's P2 queue max %d B; PFC pauses %s; events %d%n",
                pre / 1e9, after / 1e9, controlAfter / 1e9, min / 1e9, minAt / 1e6, 100 * min / pre, f2After / 1e9, f2Control / 1e9, underUseMs,
                f1OwnQueue, p2Queue, s.get("pfc_pause_frames"), r.events());
        // the mechanism
        assertTrue(Runs.num(s, "pfc_pause_frames") > 0);
        assertEquals(0, Runs.num(Runs.summary(tmp.resolve("control")), "pfc_pause_frames"), "no pause without the burst");
        assertEquals(0, Runs.num(s, "switch_drops"));
        assertTrue(f1OwnQueue <= 5_000, "F1's own egress queued " + f1OwnQueue + " B");
        assertTrue(p2Queue > 100_000, "S2's P2 queue " + p2Queue + " B");
        assertTrue(underUseEndNs > 0, "P2-P1 never recovered in 30 ms");
        // the number within the stated tolerance
        assertEquals(16, underUseMs, 0.5 * 16, "under-use of P2-P1");
    }
}
