package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.jrdma.fabric.net.Network;
import org.jrdma.fabric.scenario.ScenarioException;
import org.jrdma.fabric.scenario.ScenarioParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * IRN's selective repeat against go-back-N under random loss (FABRIC-REFERENCE.md §3): one 10 MB flow
 * at 10 Gbit/s, 1 % loss per frame and direction. Selective repeat resends only what was lost: its
 * data packets sent exceed the 10,000 needed by about the frames lost on the way there (1 % of them,
 * and a few resent twice), where go-back-N resends everything in flight after each loss; all bytes
 * arrive in order exactly once either way.
 */
class SelectiveRepeatTest {
    private static final String FLOW = """
            topology single-switch hosts=2 rate=10Gbps delay=1us loss=0.01
            flow f src=h0 dst=h1 size=10MB
            duration 200ms
            """;

    @Test
    void selectiveRepeatResendsOnlyWhatWasLost(@TempDir Path tmp) throws Exception {
        Network.Result sr = Runs.run(FLOW + "nic recovery=selective-repeat\n", 1, tmp.resolve("sr"));
        Network.Result gbn = Runs.run(FLOW + "nic rto=320us\n", 1, tmp.resolve("gbn"));
        Map<String, String> s = Runs.summary(tmp.resolve("sr"));
        Map<String, String> g = Runs.summary(tmp.resolve("gbn"));
        assertEquals(1, sr.flowsFinished(), s.toString());
        assertEquals(1, gbn.flowsFinished(), g.toString());
        assertEquals("selective-repeat rto-low=100us rto-high=320us rto-n=3 bdp-fc=on", s.get("recovery"));
        long srSent = Runs.num(s, "data_packets_sent");
        long gbnSent = Runs.num(g, "data_packets_sent");
        long srFct = Runs.fct(tmp.resolve("sr")).get(0)[6];
        long gbnFct = Runs.fct(tmp.resolve("gbn")).get(0)[6];
        long standalone = Runs.fct(tmp.resolve("sr")).get(0)[7];
        System.out.printf(Locale.ROOT, "1 %% loss, 10 MB at 10 Gbit/s: selective repeat %d packets sent (%d resent, "
                + "%s link losses), FCT %d us; go-back-N %d packets, FCT %d us; standalone %d us%n", srSent,
                Runs.num(s, "selective_retransmits"), s.get("link_losses"), srFct / 1000, gbnSent, gbnFct / 1000,
                standalone / 1000);
        assertEquals(10_000_000, Runs.num(s, "delivered_bytes"));
        // 10,000 packets; about 1 % of the data frames lost, each resent (a resend lost again is resent again)
        assertTrue(srSent >= 10_000 + Runs.num(s, "selective_retransmits") - 1);
        assertTrue(srSent < 10_000 * 1.03, "sent " + srSent);
        assertTrue(gbnSent > srSent, gbnSent + " vs " + srSent);
        assertTrue(srFct < gbnFct, srFct + " vs " + gbnFct);
    }

    /** BDP flow control caps what is outstanding at line rate × base RTT: an incast without PFC loses less. */
    @Test
    void bdpFlowControlCapsTheInFlightBytes(@TempDir Path tmp) throws Exception {
        String incast = """
                topology incast senders=8 rate=25Gbps delay=1us
                buffer size=300KB
                pfc off
                flows incast dst=h0 size=2MB
                duration 50ms
                """;
        Network.Result on = Runs.run(incast + "nic recovery=selective-repeat\n", 1, tmp.resolve("on"));
        Network.Result off = Runs.run(incast + "nic recovery=selective-repeat bdp-fc=off\n", 1, tmp.resolve("off"));
        Map<String, String> a = Runs.summary(tmp.resolve("on"));
        Map<String, String> b = Runs.summary(tmp.resolve("off"));
        System.out.printf(Locale.ROOT, "8-to-1 at 25 Gbit/s, 300 KB buffer, no PFC: selective repeat with BDP-FC %s "
                + "drops, %s finished; without %s drops, %s finished%n", a.get("switch_drops"), on.flowsFinished(),
                b.get("switch_drops"), off.flowsFinished());
        assertEquals(8, on.flowsFinished(), a.toString());
        assertEquals(16_000_000, Runs.num(a, "delivered_bytes"));
        assertTrue(Runs.num(a, "switch_drops") < Runs.num(b, "switch_drops"), a + " / " + b);
    }

    @Test
    void irnFieldsNeedSelectiveRepeat() {
        ScenarioException e = assertThrows(ScenarioException.class, () -> ScenarioParser.parse("bad.fabric",
                "topology single-switch hosts=2 rate=10Gbps\nnic rto-low=50us\n"));
        assertEquals(2, e.line());
        assertEquals("rto-low", e.field());
        e = assertThrows(ScenarioException.class, () -> ScenarioParser.parse("bad.fabric",
                "topology single-switch hosts=2 rate=10Gbps\nnic recovery=selective-repeat rto-low=500us rto-high=100us\n"));
        assertEquals("rto-high", e.field());
    }
}
