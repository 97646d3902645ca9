package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TCP NIC model (transport tcp): NewReno with SACK over a lossy link, the minimum RTO, and
 * DCTCP against loss-based TCP in a 2-to-1 incast. Oracles are the RFCs' mechanisms (a loss is
 * repaired by fast retransmit, not a timeout, while ACKs keep coming; DCTCP keeps the queue near K
 * and drops nothing where NewReno fills the buffer and drops), not the code's numbers.
 */
class TcpModelTest {
    private static final String ONE = """
            topology single-switch hosts=2 rate=10Gbps delay=2us
            buffer size=4MB
            pfc off
            nic transport=tcp
            packet mtu=1448 header=70
            duration 20ms
            """;

    @Test
    void aLossFreeFlowCompletesWithNoRetransmission(@TempDir Path tmp) throws Exception {
        Runs.run(ONE + "flow f src=h0 dst=h1 size=2MB\n", 1, tmp);
        Map<String, String> s = Runs.summary(tmp);
        assertEquals(1, Runs.num(s, "flows_finished"));
        assertEquals(0, Runs.num(s, "tcp_retransmitted_segments"));
        long[] fct = Runs.fct(tmp).getFirst();
        // slow start from 10 segments: a few RTTs above the standalone time, well under twice
        assertTrue(fct[6] < 2 * fct[7], fct[6] + " vs " + fct[7]);
    }

    @Test
    void sackRecoversRandomLossByFastRetransmit(@TempDir Path tmp) throws Exception {
        String text = ONE.replace("delay=2us", "delay=2us loss=0.002") + "flow f src=h0 dst=h1 size=4MB\n";
        Runs.run(text, 3, tmp);
        Map<String, String> s = Runs.summary(tmp);
        assertEquals(1, Runs.num(s, "flows_finished"));
        assertTrue(Runs.num(s, "link_losses") > 0);
        assertTrue(Runs.num(s, "tcp_fast_recoveries") > 0);
        assertTrue(Runs.num(s, "tcp_retransmitted_segments") >= Runs.num(s, "link_losses") / 2);
        // the 200 ms minimum RTO never fired: the 20 ms run finished
        assertEquals(0, Runs.num(s, "timeouts"));
    }

    @Test
    void aLostTailWaitsForTheMinimumRto(@TempDir Path tmp) throws Exception {
        // every segment of one direction lost for a while: no dup ACKs, so only the timer recovers
        String text = """
                topology single-switch hosts=2 rate=10Gbps delay=2us loss=0.5
                pfc off
                nic transport=tcp
                tcp min-rto=5ms initial-rto=5ms
                flow f src=h0 dst=h1 size=3KB
                duration 400ms
                """;
        Runs.run(text, 2, tmp);
        Map<String, String> s = Runs.summary(tmp);
        List<long[]> fct = Runs.fct(tmp);
        assertEquals(1, fct.size());
        assertTrue(Runs.num(s, "timeouts") > 0, "this seed loses a tail");
        assertTrue(fct.getFirst()[6] >= 5_000_000, "a timeout takes at least the minimum RTO: " + fct.getFirst()[6]);
    }

    @Test
    void dctcpKeepsTheQueueNearKWhereNewRenoDrops(@TempDir Path tmp) throws Exception {
        String base = """
                topology incast senders=2 rate=10Gbps delay=2us
                buffer size=2MB   # each ingress may hold about 250 KB (free >> 3) before it drops
                pfc off
                nic transport=tcp
                packet mtu=1448 header=70
                flows incast dst=h0 size=20MB
                duration 8ms
                """;
        Runs.run(base, 1, tmp.resolve("reno"));
        Runs.run(base + "ecn kmin=100KB kmax=100.001KB pmax=1\ntcp dctcp=on\n", 1, tmp.resolve("dctcp"));
        Map<String, String> reno = Runs.summary(tmp.resolve("reno"));
        Map<String, String> dctcp = Runs.summary(tmp.resolve("dctcp"));
        assertTrue(Runs.num(reno, "switch_drops") > 0, "NewReno fills the buffer and drops");
        assertEquals(0, Runs.num(dctcp, "switch_drops"));
        assertTrue(Runs.num(dctcp, "ecn_marked") > 0);
        assertTrue(Runs.num(dctcp, "max_egress_queue_bytes") < Runs.num(reno, "max_egress_queue_bytes"));
        System.out.println("TCP 2-to-1 at 10 G, 2 MB buffer: NewReno max queue " + reno.get("max_egress_queue_bytes")
                + " B, drops " + reno.get("switch_drops") + "; DCTCP (K = 100 KB) max queue "
                + dctcp.get("max_egress_queue_bytes") + " B, drops 0");
    }
}
