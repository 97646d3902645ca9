package org.jrdma.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The soak's judgement of a heap series: noise is flat, a steady leak is not, even one inside the slack. */
class FlatnessTest {
    private static List<SoakEngine.Sample> heap(double... mb) {
        List<SoakEngine.Sample> s = new ArrayList<>();
        for (int i = 0; i < mb.length; i++) {
            s.add(new SoakEngine.Sample(i + 1, 0, 0, 0, 0, 0, 0, (long) (mb[i] * 1048576), 0));
        }
        return s;
    }

    private static List<String> judge(double... mb) {
        List<String> reasons = new ArrayList<>();
        SoakEngine.flat("heap after GC", heap(mb), SoakEngine.Sample::heapAfterGc, SoakEngine.HEAP_TOLERANCE,
                SoakEngine.HEAP_SLACK, SoakEngine.HEAP_MAX_SLOPE, reasons);
        return reasons;
    }

    @Test
    void noiseIsFlat() {
        assertEquals(List.of(), judge(10.3, 6.1, 7.9, 5.8, 8.2, 6.4, 7.7, 5.9, 8.0, 6.6));
    }

    @Test
    void fiveMegabytesAMinuteIsALeakThoughInsideTheSlack() {
        List<String> r = judge(10, 15, 20, 25, 30);
        assertTrue(r.size() == 1 && r.getFirst().contains("MB/min"), r.toString());
    }

    @Test
    void aJumpBeyondTheSlackIsGrowth() {
        List<String> r = judge(8, 8, 8, 8, 40);
        assertTrue(r.stream().anyMatch(x -> x.contains("grew 32.0 MB")), r.toString());
    }

    @Test
    void twoSamplesAreNotJudged() {
        assertEquals(List.of(), judge(5, 500));
    }
}
