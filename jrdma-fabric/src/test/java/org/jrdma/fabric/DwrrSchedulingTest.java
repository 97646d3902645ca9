package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.jrdma.fabric.scenario.ScenarioException;
import org.jrdma.fabric.scenario.ScenarioParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Strict priority and deficit weighted round robin at a switch port, from first principles.
 *
 * <p>Three senders on priorities 1, 2 and 3 send at line rate (no congestion control) through one
 * switch to one receiver; PFC keeps the three egress queues of the bottleneck port backlogged and
 * lossless. Deficit round robin (Shreedhar and Varghese, SIGCOMM 1995, Lemma 2) gives each
 * backlogged queue i, over any interval in which all stay backlogged, its share
 * {@code w_i / Σ w} of the bytes sent within {@code Q_i + Max} bytes (Q_i its quantum per turn, Max
 * one frame): here 4 × 1062 + 1062 B against the 5 MB that the port sends in the 4 ms window, so
 * 0.1 % of the capacity. The measure (goodput at the receivers in 100 µs samples) adds a frame or
 * two in flight per flow and sample edge; the stated tolerance is ±1 % of the capacity per share.
 *
 * <p>The buffer's headroom is 6 × C × d here, not HPCC's 3 × C × d: at 10 Gbit/s and 1 µs, 3 × C × d
 * is 3,750 B, less than what can still arrive after an XOFF (2 × C × d for the round trip plus a frame
 * in serialization at each end: 4,688 B), so HPCC's sizing drops a frame now and then at this rate;
 * a drop's go-back-N would empty a low-weight queue for milliseconds and break the premise that every
 * queue stays backlogged.
 */
class DwrrSchedulingTest {
    private static final double CAPACITY = 10e9 * 1000 / 1062; // payload bits/s of the 10 G bottleneck

    private static String scenario(String scheduler, boolean withQueue2) {
        return "topology incast senders=3 rate=10Gbps delay=1us\n"
                + "buffer size=4MB headroom-factor=6\n"
                + "pfc mode=xon-xoff\n"
                + scheduler + "\n"
                + "flow q1 src=h1 dst=h0 size=1GB priority=1\n"
                + (withQueue2 ? "flow q2 src=h2 dst=h0 size=1GB priority=2\n" : "")
                + "flow q3 src=h3 dst=h0 size=1GB priority=3\n"
                + "sample interval=100us\n"
                + "duration 5ms\n";
    }

    /** Mean goodput per flow (bit/s) over samples in (1 ms, 5 ms], by flow index. */
    private static double[] shares(Path dir, int flows) throws IOException {
        double[] sum = new double[flows];
        int[] n = new int[flows];
        for (long[] r : Runs.rows(dir, "rate.txt")) {
            if (r[0] > 1_000_000 && r[0] <= 5_000_000) {
                sum[(int) r[1]] += r[3];
                n[(int) r[1]]++;
            }
        }
        for (int i = 0; i < flows; i++) {
            assertEquals(40, n[i], "samples of flow " + i);
            sum[i] /= n[i];
        }
        return sum;
    }

    @Test
    void weightsOneTwoFourGiveOneTwoFourSevenths(@TempDir Path tmp) throws Exception {
        Runs.run(scenario("scheduler dwrr weights=1,2,4,1,1,1,1", true), 1, tmp);
        Map<String, String> s = Runs.summary(tmp);
        assertEquals("dwrr quantum=1062 weights=1,2,4,1,1,1,1", s.get("scheduler"));
        assertEquals(0, Runs.num(s, "switch_drops"));
        assertTrue(Runs.num(s, "pfc_pause_frames") > 0, "the queues must stay backlogged");
        double[] g = shares(tmp, 3);
        double[] want = {1 / 7.0, 2 / 7.0, 4 / 7.0};
        System.out.printf(Locale.ROOT, "DWRR 1:2:4 at 10 Gbit/s: shares %.4f / %.4f / %.4f of capacity "
                + "(first principles %.4f / %.4f / %.4f, tolerance ±0.01)%n", g[0] / CAPACITY, g[1] / CAPACITY,
                g[2] / CAPACITY, want[0], want[1], want[2]);
        for (int i = 0; i < 3; i++) {
            assertEquals(want[i], g[i] / CAPACITY, 0.01, "flow " + i);
        }
    }

    /** The default round-robin (HPCC's) serves one packet per queue per turn: equal shares. */
    @Test
    void roundRobinSharesEqually(@TempDir Path tmp) throws Exception {
        Runs.run(scenario("scheduler rr", true), 1, tmp);
        double[] g = shares(tmp, 3);
        for (int i = 0; i < 3; i++) {
            assertEquals(1 / 3.0, g[i] / CAPACITY, 0.01, "flow " + i);
        }
    }

    /** A larger quantum per weight unit changes the burst per turn, not the shares. */
    @Test
    void theQuantumDoesNotChangeTheShares(@TempDir Path tmp) throws Exception {
        Runs.run(scenario("scheduler dwrr weights=1,2,4,1,1,1,1 quantum=9000B", true), 1, tmp);
        double[] g = shares(tmp, 3);
        double[] want = {1 / 7.0, 2 / 7.0, 4 / 7.0};
        for (int i = 0; i < 3; i++) {
            assertEquals(want[i], g[i] / CAPACITY, 0.01, "flow " + i);
        }
    }

    /** DWRR is work-conserving: an idle queue's weight goes to the others (1 : 4 of queues 1 and 3). */
    @Test
    void anIdleQueuesShareGoesToTheOthers(@TempDir Path tmp) throws Exception {
        Runs.run(scenario("scheduler dwrr weights=1,2,4,1,1,1,1", false), 1, tmp);
        double[] g = shares(tmp, 2);
        assertEquals(0.2, g[0] / CAPACITY, 0.01);
        assertEquals(0.8, g[1] / CAPACITY, 0.01);
    }

    /** A strict queue takes the whole port while it is backlogged; the DWRR queues get nothing. */
    @Test
    void aStrictQueueStarvesTheOthers(@TempDir Path tmp) throws Exception {
        Runs.run(scenario("scheduler dwrr weights=1,2,4,1,1,1,1 strict=2", true), 1, tmp);
        assertEquals("dwrr quantum=1062 weights=1,2,4,1,1,1,1 strict=2", Runs.summary(tmp).get("scheduler"));
        double[] g = shares(tmp, 3);
        assertEquals(1.0, g[1] / CAPACITY, 0.01);
        assertEquals(0.0, g[0] / CAPACITY, 0.001);
        assertEquals(0.0, g[2] / CAPACITY, 0.001);
    }

    /** Among strict queues the higher number goes first (IEEE 802.1Q: priority 7 highest). */
    @Test
    void theHigherStrictQueueGoesFirst(@TempDir Path tmp) throws Exception {
        Runs.run(scenario("scheduler rr strict=1,3", true), 1, tmp);
        double[] g = shares(tmp, 3);
        assertEquals(1.0, g[2] / CAPACITY, 0.01);
        assertEquals(0.0, g[0] / CAPACITY, 0.001);
        assertEquals(0.0, g[1] / CAPACITY, 0.001);
    }

    @Test
    void badSchedulerLinesNameTheField() {
        String base = "topology single-switch hosts=2 rate=25Gbps\n";
        ScenarioException e = assertThrows(ScenarioException.class,
                () -> ScenarioParser.parse("bad.fabric", base + "scheduler dwrr weights=1,2,3\n"));
        assertEquals(2, e.line());
        assertEquals("weights", e.field());
        e = assertThrows(ScenarioException.class,
                () -> ScenarioParser.parse("bad.fabric", base + "scheduler dwrr weights=1,0,1,1,1,1,1\n"));
        assertEquals("weights", e.field());
        e = assertThrows(ScenarioException.class,
                () -> ScenarioParser.parse("bad.fabric", base + "scheduler dwrr strict=0\n"));
        assertEquals("strict", e.field());
        e = assertThrows(ScenarioException.class,
                () -> ScenarioParser.parse("bad.fabric", base + "scheduler wfq\n"));
        assertEquals("kind", e.field());
        // a quantum below one frame (1000 + 62 B) is refused at its line, even when packet comes later
        e = assertThrows(ScenarioException.class,
                () -> ScenarioParser.parse("bad.fabric", base + "scheduler dwrr quantum=1000B\npacket mtu=1000\n"));
        assertEquals(2, e.line());
        assertEquals("quantum", e.field());
    }
}
