package org.jrdma.congestion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The NP: at most one CNP per flow per N = 50 µs (DCQCN §3; htsim and ns3-rdma CNP_INTERVAL 50). */
class DcqcnNotificationPointTest {
    @Test
    void oneCnpPerInterval() {
        DcqcnNotificationPoint np = new DcqcnNotificationPoint(50_000);
        assertTrue(np.onCongestionExperienced(1_000));
        assertFalse(np.onCongestionExperienced(1_001));
        assertFalse(np.onCongestionExperienced(50_999));
        assertTrue(np.onCongestionExperienced(51_000));
        int sent = 0;
        for (long t = 51_001; t < 51_000 + 1_000_000; t += 100) {
            sent += np.onCongestionExperienced(t) ? 1 : 0;
        }
        assertEquals(19, sent); // 1 ms more: one per 50 µs after the one at 51 µs
        assertEquals(2 + 19, np.cnpSent());
        assertEquals(4 + 10_000, np.ecnMarkedPackets());
    }

    @Test
    void namedSetsAndBadValues() {
        assertEquals("nvidia", DcqcnParameters.named("NVIDIA").name());
        assertEquals(DcqcnParameters.Variant.PAPER, DcqcnParameters.named("ns3-sample").variant());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DcqcnParameters.named("x"));
        assertTrue(e.getMessage().contains("paper, ns3-sample, nvidia"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new DcqcnNotificationPoint(0));
        assertThrows(IllegalArgumentException.class,
                () -> new DcqcnReactionPoint(DcqcnParameters.ns3Sample(), 10_000_000));
    }
}
