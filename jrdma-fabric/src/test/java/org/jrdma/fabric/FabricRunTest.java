package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jrdma.fabric.net.Network;
import org.jrdma.fabric.scenario.ScenarioException;
import org.jrdma.fabric.sim.Simulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whole runs: determinism, budgets, PFC's losslessness, go-back-N under loss, timed pauses. */
class FabricRunTest {
    private static final String TWO_TO_ONE = """
            topology incast senders=2 rate=40Gbps delay=1us
            buffer size=12MB
            ecn kmin=5KB kmax=200KB pmax=0.01
            dcqcn paper
            flow f1 src=h1 dst=h0 size=1GB
            flow f2 src=h2 dst=h0 size=1GB start=1ms
            duration 8ms
            """;

    private static final String[] FILES = {"fct.txt", "pfc.txt", "qlen.txt", "queue.txt", "rate.txt", "summary.txt"};

    @Test
    void theSameSeedGivesByteIdenticalOutputs(@TempDir Path tmp) throws Exception {
        Runs.run(TWO_TO_ONE, 42, tmp.resolve("a"));
        Runs.run(TWO_TO_ONE, 42, tmp.resolve("b"));
        Runs.run(TWO_TO_ONE, 43, tmp.resolve("c"));
        for (String f : FILES) {
            assertArrayEquals(Files.readAllBytes(tmp.resolve("a").resolve(f)), Files.readAllBytes(tmp.resolve("b").resolve(f)),
                    f);
        }
        assertTrue(Files.size(tmp.resolve("a").resolve("rate.txt")) > 10_000);
        // ECN marking draws from the seeded streams: another seed, another run
        assertFalse(java.util.Arrays.equals(Files.readAllBytes(tmp.resolve("a").resolve("rate.txt")),
                Files.readAllBytes(tmp.resolve("c").resolve("rate.txt"))));
    }

    /** A CNP acts after the NIC's reaction delay (23 µs: Soft-RoCE's loop, SwCC Table 1). */
    @Test
    void theCcReactionDelayDelaysTheCut(@TempDir Path tmp) throws Exception {
        Runs.run(TWO_TO_ONE, 1, tmp.resolve("hw"));
        Runs.run(TWO_TO_ONE + "nic cc-delay=23us\n", 1, tmp.resolve("soft"));
        Map<String, String> hw = Runs.summary(tmp.resolve("hw"));
        Map<String, String> soft = Runs.summary(tmp.resolve("soft"));
        assertEquals("0", hw.get("cc_reaction_delay_ns"));
        assertEquals("23000", soft.get("cc_reaction_delay_ns"));
        assertTrue(Runs.num(soft, "rp_cnp_handled") > 0);
        // the first CNP: handled 23 µs later, so the first rate below line rate comes later
        long firstCutHw = firstRateBelowLine(tmp.resolve("hw"));
        long firstCutSoft = firstRateBelowLine(tmp.resolve("soft"));
        assertTrue(firstCutSoft > firstCutHw, firstCutHw + " vs " + firstCutSoft);
    }

    private static long firstRateBelowLine(Path dir) throws IOException {
        return Runs.rows(dir, "rate.txt").stream().filter(r -> r[2] < 40_000_000_000L).mapToLong(r -> r[0]).min()
                .orElseThrow();
    }

    @Test
    void anEventBudgetStopsTheRunWithPartialOutputs(@TempDir Path tmp) throws Exception {
        Network.Result r = Runs.run(TWO_TO_ONE + "budget events=100000\n", 1, tmp);
        assertEquals(Simulator.StopReason.EVENT_BUDGET, r.stop());
        assertEquals(100_000, r.events());
        Map<String, String> s = Runs.summary(tmp);
        assertEquals("STOPPED: event budget of 100000 events spent (partial outputs)", s.get("status"));
        for (String f : FILES) {
            assertTrue(Files.exists(tmp.resolve(f)), f);
        }
        assertFalse(Runs.rows(tmp, "rate.txt").isEmpty());
    }

    @Test
    void aMemoryBudgetStopsTheRunWithPartialOutputs(@TempDir Path tmp) throws Exception {
        Network.Result r = Runs.run(TWO_TO_ONE + "budget memory=1KB\n", 1, tmp); // any heap in use exceeds it
        assertEquals(Simulator.StopReason.MEMORY_BUDGET, r.stop());
        assertEquals("STOPPED: memory budget of 1000 bytes passed (partial outputs)", Runs.summary(tmp).get("status"));
        assertTrue(Files.exists(tmp.resolve("fct.txt")) && Files.exists(tmp.resolve("qlen.txt")));
    }

    /** 8-to-1 incast at line rate, no congestion control: PFC pauses the senders and nothing drops. */
    @Test
    void pfcKeepsAnIncastLossless(@TempDir Path tmp) throws Exception {
        String incast = """
                topology incast senders=8 rate=25Gbps delay=1us
                buffer size=2MB
                pfc mode=xon-xoff
                flows incast dst=h0 size=2MB
                duration 20ms
                """;
        Network.Result r = Runs.run(incast, 1, tmp);
        Map<String, String> s = Runs.summary(tmp);
        assertEquals(8, r.flowsFinished(), s.toString());
        assertEquals(0, Runs.num(s, "switch_drops"));
        assertTrue(Runs.num(s, "pfc_pause_frames") > 0, s.toString());
        List<long[]> pfc = Runs.rows(tmp, "pfc.txt");
        assertTrue(pfc.stream().anyMatch(x -> x[4] == 1) && pfc.stream().anyMatch(x -> x[4] == 0));
        assertTrue(pfc.stream().allMatch(x -> x[2] == 0), "only hosts are paused in a single switch");
        // every flow's FCT is at least its standalone FCT (HPCC's slowdown ≥ 1)
        for (long[] f : Runs.fct(tmp)) {
            assertTrue(f[6] >= f[7] * 0.999, java.util.Arrays.toString(f));
        }
        // the same incast without PFC (and without congestion control): the buffer overflows, and
        // go-back-N at line rate collapses — in the same 20 ms no flow finishes
        Path lossy = tmp.resolve("lossy");
        Network.Result r2 = Runs.run(incast.replace("pfc mode=xon-xoff", "pfc off"), 1, lossy);
        Map<String, String> s2 = Runs.summary(lossy);
        assertTrue(Runs.num(s2, "switch_drops") > 0, s2.toString());
        assertTrue(Runs.num(s2, "nacks") > 0, s2.toString());
        assertEquals(0, r2.flowsFinished(), s2.toString());
    }

    @Test
    void timedPausesAlsoKeepItLossless(@TempDir Path tmp) throws Exception {
        Network.Result r = Runs.run("""
                topology incast senders=4 rate=100Gbps delay=1us
                buffer size=1MB
                pfc mode=quanta quanta=2000
                flows incast dst=h0 size=1MB
                duration 5ms
                """, 1, tmp);
        Map<String, String> s = Runs.summary(tmp);
        assertEquals(4, r.flowsFinished(), s.toString());
        assertEquals(0, Runs.num(s, "switch_drops"));
        assertTrue(Runs.num(s, "pfc_pause_frames") > 0);
    }

    @Test
    void goBackNRecoversFromRandomLoss(@TempDir Path tmp) throws Exception {
        Network.Result r = Runs.run("""
                topology single-switch hosts=2 rate=10Gbps delay=1us loss=0.001
                flow f src=h0 dst=h1 size=10MB
                nic rto=100us
                duration 100ms
                """, 1, tmp);
        Map<String, String> s = Runs.summary(tmp);
        assertEquals(1, r.flowsFinished(), s.toString());
        assertTrue(Runs.num(s, "link_losses") > 0);
        assertTrue(Runs.num(s, "nacks") > 0);
        long fct = Runs.fct(tmp).get(0)[6];
        long standalone = Runs.fct(tmp).get(0)[7];
        assertTrue(fct > standalone, "loss costs time");
    }

    @Test
    void aFlowWithNoPathIsRefusedBeforeTheRun(@TempDir Path tmp) {
        ScenarioException e = org.junit.jupiter.api.Assertions.assertThrows(ScenarioException.class, () -> Runs.run("""
                switch s0 s1
                host h0 h1
                link h0 s0 rate=1G
                link h1 s1 rate=1G
                flow f src=h0 dst=h1 size=1MB
                """, 1, tmp));
        assertEquals(5, e.line());
        assertEquals("dst", e.field());
    }

    @Test
    void theMmuCheckNamesTheSwitch(@TempDir Path tmp) throws IOException {
        ScenarioException e = org.junit.jupiter.api.Assertions.assertThrows(ScenarioException.class,
                () -> Runs.run("topology single-switch hosts=4 rate=400Gbps delay=10us\nbuffer size=100KB\n", 1, tmp));
        assertTrue(e.getMessage().contains("switch 's0'") && e.getMessage().contains("no shared space"), e.getMessage());
    }

    /** Static routes that send a flow round a loop with no exit are refused before the run. */
    @Test
    void aRoutingLoopIsRefusedBeforeTheRun(@TempDir Path tmp) {
        ScenarioException e = org.junit.jupiter.api.Assertions.assertThrows(ScenarioException.class, () -> Runs.run("""
                topology ring switches=3 rate=10Gbps
                route s1 to=h0 via=s2
                route s2 to=h0 via=s1
                flow f src=h1 dst=h0 size=1MB
                """, 1, tmp));
        assertEquals(4, e.line());
        assertTrue(e.getMessage().contains("the routes make a loop"), e.getMessage());
    }
}
