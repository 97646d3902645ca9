package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.jrdma.fabric.net.Network;
import org.jrdma.fabric.scenario.Scenario;
import org.jrdma.fabric.scenario.ScenarioParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped 1,024-host fat-tree of issue 16's scale item, scaled down to k = 8 (128 hosts, 80
 * switches, 384 links) and 20 µs of simulated time (the full k = 16, 10 ms run is a benchmark:
 * bench/fabric-scale): it runs, the flows deliver, and the event queue stays bounded by the ports
 * (a few events per port and flow, never one per packet in flight).
 */
class ScaleScenarioTest {
    @Test
    void theThousandHostFatTreeRunsScaledDown(@TempDir Path tmp) throws Exception {
        String text = java.nio.file.Files.readString(Runs.shipped("scale-fat-tree-1024.fabric"));
        assertTrue(text.contains("topology fat-tree k=16 "));
        Scenario s = ScenarioParser.parse("scale-fat-tree-128.fabric", text.replace("k=16", "k=8"))
                .withDuration(20_000_000);
        Network.Result r = Network.build(s, 1, tmp).run();
        Map<String, String> m = Runs.summary(tmp);
        assertEquals("completed", m.get("status"));
        assertEquals(128, Runs.num(m, "hosts"));
        assertEquals(80, Runs.num(m, "switches"));
        assertEquals(384, Runs.num(m, "links"));
        assertEquals(20_000, Runs.num(m, "simulated_ns"));
        // a cross-pod flow's first packet takes 6 links of 1 µs: ~13 µs of 100 Gbit/s (~160 KB) could arrive
        assertTrue(Runs.num(m, "delivered_bytes") > 128L * 20_000, m.toString());
        long ports = 2 * 384;
        assertTrue(Runs.num(m, "max_pending_events") < 4 * (ports + 128), m.get("max_pending_events"));
        assertTrue(r.events() > 100_000, "events " + r.events());
    }
}
