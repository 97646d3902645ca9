package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.jrdma.fabric.net.PfcQuanta;
import org.jrdma.fabric.net.SwitchMmu;
import org.junit.jupiter.api.Test;

/**
 * F13 and F14 (FABRIC-REFERENCE.md §9): the pause-quanta limits (IEEE 802.3 Annex 31B) and HPCC's
 * headroom and dynamic threshold sizing (third.cc / switch-mmu.cc) as closed forms; then the MMU's
 * XOFF, XON and drop rules.
 */
class SwitchMmuTest {
    private static SwitchMmu hpcc32MiB65Ports() {
        long[] headroom = new long[65];
        Arrays.fill(headroom, 3L * 100_000_000_000L * 1_000_000 / 8 / 1_000_000_000_000L); // 3·C·d/8, d = 1 µs
        int[] shift = new int[65];
        Arrays.fill(shift, 3);
        return new SwitchMmu(32L << 20, 4096, 3072, headroom, shift);
    }

    @Test
    void f14HeadroomAndInitialThreshold() {
        assertEquals(37_500, 3L * 100_000_000_000L * 1_000_000 / 8 / 1_000_000_000_000L);
        SwitchMmu mmu = hpcc32MiB65Ports();
        // (33 554 432 − 65 × 37 500 − 65 × 4 096) >> 3 = 3 856 336 B ≈ 3.86 MB
        assertEquals(3_856_336, mmu.pfcThreshold(0));
    }

    @Test
    void f13PauseQuanta() {
        assertEquals(1.342e-3, PfcQuanta.durationPs(65535, 25_000_000_000L) / 1e12, 0.0005e-3);
        assertEquals(0.839e-3, PfcQuanta.durationPs(65535, 40_000_000_000L) / 1e12, 0.0005e-3);
        assertEquals(0.336e-3, PfcQuanta.durationPs(65535, 100_000_000_000L) / 1e12, 0.0005e-3);
        assertEquals(0, PfcQuanta.durationPs(0, 100_000_000_000L));
    }

    @Test
    void xoffAtTheThresholdHeadroomAbsorbsAndXonBelowTheResumeOffset() {
        SwitchMmu mmu = new SwitchMmu(100_000, 4096, 3072, new long[] {10_000, 10_000}, new int[] {3, 3});
        // free = 100 000 − 20 000 − 8 192 = 71 808; threshold = free / 8 while empty
        assertEquals(71_808 >> 3, mmu.pfcThreshold(0));
        int pkt = 1000;
        int n = 0;
        while (!mmu.shouldPause(0, 3)) {
            assertTrue(mmu.admit(0, 3, pkt));
            mmu.enqueue(0, 3, 1, pkt);
            n++;
        }
        // XOFF came when a packet had to go to headroom (its shared use would pass the threshold)
        assertEquals(1000, mmu.headroomUsed(0, 3));
        assertTrue(mmu.sharedUsed(0, 3) + 1000 > mmu.pfcThreshold(0));
        assertFalse(mmu.shouldPause(0, 3), "one XOFF");
        // in flight after XOFF: headroom takes it, up to the port's headroom; then drops
        int absorbed = 0;
        while (mmu.admit(0, 3, pkt)) {
            mmu.enqueue(0, 3, 1, pkt);
            absorbed++;
        }
        assertEquals(9, absorbed); // 10 000 B of headroom in all
        assertEquals(10_000, mmu.headroomUsed(0, 3));
        // drain: no XON while headroom is in use
        int left = n + absorbed;
        while (mmu.headroomUsed(0, 3) > 0) {
            assertFalse(mmu.shouldResume(0, 3));
            mmu.dequeue(0, 3, 1, pkt);
            left--;
        }
        while (!mmu.shouldResume(0, 3)) {
            mmu.dequeue(0, 3, 1, pkt);
            left--;
        }
        long used = mmu.sharedUsed(0, 3);
        assertTrue(used == 0 || used + 3072 <= mmu.pfcThreshold(0));
        while (left-- > 0) {
            mmu.dequeue(0, 3, 1, pkt);
        }
        assertEquals(0, mmu.sharedUsed());
        assertEquals(0, mmu.egressBytes(1, 3));
    }

    @Test
    void aBufferWithNoSharedSpaceIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new SwitchMmu(20_000, 4096, 3072, new long[] {10_000, 10_000}, new int[] {3, 3}));
    }
}
