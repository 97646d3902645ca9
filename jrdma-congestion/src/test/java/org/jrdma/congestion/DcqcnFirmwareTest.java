package org.jrdma.congestion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * F2 (FABRIC-REFERENCE.md §9, §1.3): the NVIDIA firmware set — dce_tcp_g 1019 (α ← 1019/1024·α
 * per quiet 1 µs update), decrease check every 4 µs, min_dec_fac 50 %. Oracles: α half-life
 * ln 0.5 / ln(1019/1024) = 141.6 updates ≈ 142 µs; at most one cut per 4 µs; a cut never takes the
 * rate below 50 % of what it was.
 */
class DcqcnFirmwareTest {
    private static final long LINE = 100_000_000_000L;
    private static final long US = 1_000;

    @Test
    void alphaHalfLifeIs142us() {
        DcqcnReactionPoint rp = new DcqcnReactionPoint(DcqcnParameters.nvidia(), LINE);
        rp.onCnp(0);
        rp.advance(1 * US); // first update: the CNP bit is set
        double a0 = 1023.0 / 1024 * (1019.0 / 1024) + 5.0 / 1024;
        assertEquals(a0, rp.alpha(), 1e-12);
        rp.advance(142 * US); // 141 quiet updates
        assertTrue(rp.alpha() / a0 > 0.5, "after 141 updates");
        assertEquals(Math.pow(1019.0 / 1024, 141), rp.alpha() / a0, 1e-9);
        rp.advance(143 * US);
        assertTrue(rp.alpha() / a0 < 0.5, "after 142 updates");
        assertEquals(141.6, Math.log(0.5) / Math.log(1019.0 / 1024), 0.05);
    }

    @Test
    void atMostOneCutPer4usAndNoCutBelowHalf() {
        DcqcnReactionPoint rp = new DcqcnReactionPoint(DcqcnParameters.nvidia(), LINE);
        long cuts = 0;
        double before = rp.currentRateBps();
        for (long t = 0; t <= 40 * US; t += 500) { // a CNP every 0.5 µs for 40 µs
            rp.onCnp(t);
            if (rp.rateCuts() != cuts) {
                assertEquals(cuts + 1, rp.rateCuts(), "one cut at a time");
                assertTrue(rp.currentRateBps() >= 0.5 * before - 1e-6, "cut below 50 %");
                cuts = rp.rateCuts();
            }
            before = rp.currentRateBps();
        }
        assertEquals(81, rp.cnpHandled());
        assertEquals(11, rp.rateCuts()); // the first CNP at once, then one per 4 µs up to 40 µs
    }

    @Test
    void theFirstCutHalvesAtAlphaOne() {
        DcqcnParameters nv = DcqcnParameters.nvidia();
        DcqcnParameters alphaOne = new DcqcnParameters("t", nv.variant(), nv.cnpIntervalNs(), nv.alphaPeriodNs(),
                nv.g(), 1.0, nv.rateDecreasePeriodNs(), nv.maxDecreaseFraction(), 0, nv.minRateBps(),
                nv.increaseTimerNs(), nv.byteCounterBytes(), nv.fastRecoverySteps(), nv.rateAiBps(), nv.rateHaiBps(),
                nv.clampTargetRate(), nv.clampAfterTimeIncrease());
        DcqcnReactionPoint rp = new DcqcnReactionPoint(alphaOne, LINE);
        rp.onCnp(0);
        assertEquals(LINE / 2.0, rp.currentRateBps(), 1e-6);
    }

    @Test
    void oneFastRecoveryStepThenOneAdditiveThenHyperSteps() {
        DcqcnParameters nv = DcqcnParameters.nvidia();
        DcqcnReactionPoint rp = new DcqcnReactionPoint(nv, LINE);
        rp.onCnp(0);
        rp.advance(5 * US); // α decays; no pending cut
        double rc = rp.currentRateBps();
        double rt = rp.targetRateBps();
        assertEquals(LINE, rt, 1e-6); // clamp_tgt_rate 0: the first cut keeps the target
        rp.onCnp(10 * US); // second cut at the 12 µs check: no increase since the first, target kept
        rp.advance(12 * US);
        assertTrue(rp.currentRateBps() < rc);
        assertEquals(LINE, rp.targetRateBps(), 1e-6);
        rc = rp.currentRateBps();
        rp.advance(12 * US + 300 * US); // T = 1 ≤ F: fast recovery
        assertEquals((LINE + rc) / 2, rp.currentRateBps(), 1e-3);
        // cut again: an increase came since the last cut, so the target clamps to the current rate
        rp.onCnp(313 * US);
        double atCut = rp.currentRateBps();
        rp.advance(316 * US);
        assertEquals(atCut, rp.targetRateBps(), 1e-6);
        long t0 = 316 * US;
        rt = rp.targetRateBps();
        rp.advance(t0 + 300 * US); // T = 1: fast recovery
        assertEquals(rt, rp.targetRateBps(), 1e-6);
        rp.advance(t0 + 600 * US); // T = 2 = F + 1: additive
        assertEquals(rt + nv.rateAiBps(), rp.targetRateBps(), 1e-3);
        rp.advance(t0 + 900 * US); // T = 3: hyper, fixed R_HAI
        assertEquals(rt + nv.rateAiBps() + nv.rateHaiBps(), rp.targetRateBps(), 1e-3);
    }
}
