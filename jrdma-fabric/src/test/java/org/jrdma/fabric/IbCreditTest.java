package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jrdma.fabric.scenario.ScenarioException;
import org.jrdma.fabric.scenario.ScenarioParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * InfiniBand credit-based link flow control (IBA §7.9; F10 of FABRIC-REFERENCE.md §9: the FaSST
 * loss study saw 0 drops in 50 T requests, so a model of IB links must never drop while credits are
 * honoured). An 8-to-1 incast through a two-level fabric with VL buffers of 16 KiB (256 blocks:
 * above the credit loop's bandwidth-delay product at 100 G) and no congestion control: nothing is
 * dropped, no VL ever holds more blocks than it advertised, and the receiver's link stays busy
 * (credits, not losses, pace the senders).
 * The same incast on Ethernet without PFC and with a buffer of the same size drops.
 */
class IbCreditTest {
    private static final String INCAST = """
            topology leaf-spine leaves=2 spines=1 hosts-per-leaf=5 rate=100Gbps delay=100ns
            packet mtu=1024 header=26
            dcqcn off
            flow a src=h1 dst=h0 size=1MB
            flow b src=h2 dst=h0 size=1MB
            flow c src=h3 dst=h0 size=1MB
            flow d src=h4 dst=h0 size=1MB
            flow e src=h5 dst=h0 size=1MB
            flow f src=h6 dst=h0 size=1MB
            flow g src=h7 dst=h0 size=1MB
            flow h src=h8 dst=h0 size=1MB
            duration 5ms
            """;

    @Test
    void anIncastOnCreditLinksDropsNothing(@TempDir Path tmp) throws Exception {
        Runs.run(INCAST + "pfc off\nib vl-buffer=16KiB credit-update=256ns\n", 1, tmp);
        Map<String, String> s = Runs.summary(tmp);
        assertEquals(8, Runs.num(s, "flows_finished"));
        assertEquals(0, Runs.num(s, "switch_drops"));
        assertEquals(0, Runs.num(s, "ib_credit_overruns"));
        assertEquals(0, Runs.num(s, "timeouts"));
        assertEquals(0, Runs.num(s, "nacks"));
        assertEquals(256, Runs.num(s, "ib_vl_buffer_blocks"));
        long held = Runs.num(s, "ib_max_held_blocks");
        assertTrue(held > 0 && held <= 256, "held " + held);
        // the bottleneck (h0's link) carries 8 MB + headers: the last flow ends near that time
        List<long[]> fct = Runs.fct(tmp);
        long last = fct.stream().mapToLong(r -> r[5] + r[6]).max().orElseThrow();
        double ideal = 8e6 * (1024 + 26) / 1024.0 * 8 / 100e9 * 1e9;
        System.out.printf(Locale.ROOT, "IB incast 8-to-1 at 100 G, 16 KiB per VL: 0 drops, max %d of 256 blocks held, "
                + "last flow done at %.1f us (bottleneck busy: %.1f us)%n", held, last / 1e3, ideal / 1e3);
        assertTrue(last < 1.1 * ideal + 10_000, "the bottleneck idled: " + last + " ns vs " + ideal);
    }

    @Test
    void theSameIncastOnLossyEthernetDrops(@TempDir Path tmp) throws Exception {
        Runs.run(INCAST.replace("1MB", "100KB") + "pfc off\nbuffer size=40KiB reserve=0 headroom-factor=0\nnic rto=100us\n", 1, tmp);
        assertTrue(Runs.num(Runs.summary(tmp), "switch_drops") > 0);
    }

    @Test
    void creditLinksRefusePfcAndBuffersBelowAPacket() {
        ScenarioException e = org.junit.jupiter.api.Assertions.assertThrows(ScenarioException.class,
                () -> ScenarioParser.parse("bad.fabric", INCAST + "pfc mode=xon-xoff\nib vl-buffer=4KiB\n"));
        assertTrue(e.getMessage().contains("turn PFC off"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(ScenarioException.class,
                () -> ScenarioParser.parse("bad.fabric", INCAST + "pfc off\nib vl-buffer=1000B\n"));
        assertEquals("vl-buffer", e.field());
    }
}
