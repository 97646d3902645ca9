package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * F8 (FABRIC-REFERENCE.md §9; Guo et al. SIGCOMM 2016 §4 [R]; shipped {@code f8-go-back-0.fabric}
 * and {@code f8-go-back-n.fabric}): a switch drops every data frame whose IP ID ends in 0xff (1 in
 * 256 transmissions). With go-back-0 a 4 MB message (4,000 packets) never completes and its goodput
 * falls to 0 (livelock: each restart resends what the receiver has, and the next drop comes before
 * the frontier moves); go-back-N completes it. Model facts, no timing oracle.
 */
class GoBack0LivelockTest {
    private static Path run(Path tmp, String name) throws Exception {
        Path d = tmp.resolve(name);
        Runs.run(Files.readString(Runs.shipped(name + ".fabric")).replace("duration 20ms", "duration 15ms"), 1, d);
        return d;
    }

    @Test
    void goBack0LivelocksWhereGoBackNCompletes(@TempDir Path tmp) throws Exception {
        Path g0 = run(tmp, "f8-go-back-0");
        Path gn = run(tmp, "f8-go-back-n");
        Map<String, String> s0 = Runs.summary(g0);
        Map<String, String> sn = Runs.summary(gn);
        assertEquals(1, Runs.num(sn, "flows_finished"));
        assertEquals(4_000_000, Runs.num(sn, "delivered_bytes"));
        assertEquals(0, Runs.num(s0, "flows_finished"));
        assertTrue(Runs.num(s0, "delivered_bytes") < 4_000_000);
        // sending on and on, delivering nothing: the last 3 ms of goodput samples are 0
        assertTrue(Runs.rows(g0, "rate.txt").stream().filter(r -> r[0] > 12_000_000).allMatch(r -> r[3] == 0));
        assertTrue(Runs.num(s0, "data_packets_sent") > 10 * Runs.num(sn, "data_packets_sent"));
        System.out.println("F8: go-back-0 delivered " + s0.get("delivered_bytes") + " of 4000000 B in 15 ms with "
                + s0.get("data_packets_sent") + " packets sent (livelock); go-back-N done with "
                + sn.get("data_packets_sent") + " packets (source [R]: go-back-0 ~0, go-back-N progresses)");
    }
}
