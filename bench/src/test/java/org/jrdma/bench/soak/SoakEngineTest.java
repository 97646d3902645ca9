package org.jrdma.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The soak's engine for 15 seconds (so that every build exercises it): mixed RC/UC/UD traffic
 * through the fault shim with churn, then 0 lost or duplicated completions, 0 failures (wrong data,
 * error completions, ...) and nothing left over. Heap and RSS flatness is judged only by
 * {@code bench/soak} over minutes.
 */
class SoakEngineTest {
    @Test
    void fifteenSecondsOfMixedTrafficUnderFaultsLoseAndDuplicateNothingAndLeakNothing() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        SoakEngine.Result r = new SoakEngine(new SoakEngine.Config(15_000_000_000L, 5_000_000_000L, 3,
                System.nanoTime() & 0xFFFF, Soak.DEFAULT_FAULTS, out)).run();
        String report = buf.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        assertEquals(0, r.lost(), report);
        assertEquals(0, r.duplicates(), report);
        assertEquals(0, r.failures(), report);
        assertEquals(0, r.leaks(), report);
        // heap and RSS over 15 s of a test JVM are noise; every other check must pass
        assertTrue(r.reasons().stream().allMatch(x -> x.contains(" grew ")), report);
    }
}
