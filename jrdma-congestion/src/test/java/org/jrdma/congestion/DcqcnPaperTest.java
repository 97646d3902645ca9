package org.jrdma.congestion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * F1 (FABRIC-REFERENCE.md §9, closed forms of §1.3): the paper variant with g = 1/256 and
 * K = T = 55 µs. Oracles: RC halves on a CNP at α = 1; with no CNP α decays as (1 − g)^n, half-life
 * ln 0.5 / ln(1 − 1/256) = 177.09 periods (9.74 ms); fast recovery closes the RT − RC gap by 2^−k
 * in k timer steps, 96.9 % after F = 5 steps (275 µs); then an additive step adds R_AI to RT.
 */
class DcqcnPaperTest {
    private static final long LINE = 40_000_000_000L;
    private static final long US = 1_000;
    private static final double G = 1.0 / 256;

    @Test
    void oneCnpAtAlphaOneHalvesTheRate() {
        DcqcnReactionPoint rp = new DcqcnReactionPoint(DcqcnParameters.paper(), LINE);
        assertEquals(1.0, rp.alpha());
        rp.onCnp(0);
        assertEquals(LINE / 2.0, rp.currentRateBps(), 1e-6);
        assertEquals(LINE, rp.targetRateBps(), 1e-6);
        assertEquals(1.0, rp.alpha(), 1e-12); // (1 − g)·1 + g
    }

    @Test
    void alphaHalvesIn177QuietPeriods() {
        DcqcnReactionPoint rp = new DcqcnReactionPoint(DcqcnParameters.paper(), LINE);
        rp.onCnp(0);
        rp.advance(177 * 55 * US - 1); // 176 decays
        assertEquals(Math.pow(1 - G, 176), rp.alpha(), 1e-12);
        assertTrue(rp.alpha() > 0.5);
        rp.advance(177 * 55 * US);
        assertEquals(Math.pow(1 - G, 177), rp.alpha(), 1e-12);
        assertTrue(rp.alpha() < 0.5005 && rp.alpha() > 0.4995, "α after 9.735 ms: " + rp.alpha());
        rp.advance(178 * 55 * US);
        assertTrue(rp.alpha() < 0.5);
        double halfLife = Math.log(0.5) / Math.log(1 - G);
        assertEquals(177.09, halfLife, 0.01);
        assertEquals(9.74e-3, halfLife * 55e-6, 0.005e-3);
    }

    @Test
    void fiveFastRecoveryStepsClose96point9PercentOfTheGapIn275us() {
        DcqcnReactionPoint rp = new DcqcnReactionPoint(DcqcnParameters.paper(), LINE);
        rp.onCnp(0);
        double gap = rp.targetRateBps() - rp.currentRateBps();
        for (int k = 1; k <= 5; k++) {
            rp.advance(k * 55 * US);
            assertEquals(gap / (1 << k), rp.targetRateBps() - rp.currentRateBps(), 1e-3, "step " + k);
        }
        double closed = 1 - (rp.targetRateBps() - rp.currentRateBps()) / gap;
        assertEquals(0.969, closed, 0.0005);
        // step 6: additive increase, RT + R_AI clamped to the line rate, RC to the midpoint
        double rc = rp.currentRateBps();
        rp.advance(6 * 55 * US);
        assertEquals(LINE, rp.targetRateBps(), 1e-6);
        assertEquals((LINE + rc) / 2, rp.currentRateBps(), 1e-3);
    }

    @Test
    void additiveIncreaseAddsRaiToTheTargetBelowLineRate() {
        DcqcnReactionPoint rp = new DcqcnReactionPoint(DcqcnParameters.paper(), LINE);
        rp.onCnp(0);
        rp.onCnp(1); // RT = 20 G, RC = 10 G (α stays 1)
        assertEquals(LINE / 2.0, rp.targetRateBps(), 1e-6);
        rp.advance(1 + 5 * 55 * US);
        double rt = rp.targetRateBps();
        assertEquals(LINE / 2.0, rt, 1e-6);
        rp.advance(1 + 6 * 55 * US);
        assertEquals(rt + 40e6, rp.targetRateBps(), 1e-3);
    }

    @Test
    void theByteCounterCountsStepsAndBothCountersAboveFGiveHyperIncrease() {
        DcqcnParameters p = DcqcnParameters.paper();
        DcqcnReactionPoint rp = new DcqcnReactionPoint(p, LINE);
        rp.onCnp(0);
        rp.onCnp(0); // RT = 20 G, RC = 10 G
        // 6 timer steps (T = 6 > F); then byte-counter steps: BC ≤ F is additive (one counter
        // above F), BC = 6 is hyper (both above F, min(T, BC) − F = 1 → + R_HAI)
        for (int k = 1; k <= 6; k++) {
            rp.advance(k * 55 * US);
        }
        double rt = rp.targetRateBps();
        for (int k = 1; k <= 5; k++) {
            rp.onSent(6 * 55 * US, (int) p.byteCounterBytes());
        }
        assertEquals(rt + 5 * p.rateAiBps(), rp.targetRateBps(), 1e-3);
        rt = rp.targetRateBps();
        rp.onSent(6 * 55 * US, (int) p.byteCounterBytes());
        assertEquals(rt + p.rateHaiBps(), rp.targetRateBps(), 1e-3);
    }

    @Test
    void theRateNeverFallsBelowTheMinimum() {
        DcqcnReactionPoint rp = new DcqcnReactionPoint(DcqcnParameters.paper(), LINE);
        for (int i = 0; i < 100; i++) {
            rp.onCnp(i);
        }
        assertEquals(DcqcnParameters.paper().minRateBps(), rp.currentRateBps(), 1e-9);
        assertEquals(100, rp.cnpHandled());
        assertEquals(100, rp.rateCuts());
    }

    @Test
    void sampling() {
        // advancing more often never changes the trajectory
        DcqcnReactionPoint a = new DcqcnReactionPoint(DcqcnParameters.paper(), LINE);
        DcqcnReactionPoint b = new DcqcnReactionPoint(DcqcnParameters.paper(), LINE);
        a.onCnp(3);
        b.onCnp(3);
        for (long t = 3; t < 20_000 * US; t += 7 * US + 13) {
            b.advance(t);
        }
        a.onCnp(20_000 * US);
        b.onCnp(20_000 * US);
        assertEquals(a.currentRateBps(), b.currentRateBps());
        assertEquals(a.alpha(), b.alpha());
        assertEquals(a.targetRateBps(), b.targetRateBps());
    }
}
