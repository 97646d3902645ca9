package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.jrdma.verbs.ext.HardwareCounters;
import org.jrdma.verbs.ext.ResourceCounts;
import org.junit.jupiter.api.Test;

/**
 * Provider extensions ({@code Context.extension(Class)}, like rdma-core's per-provider
 * {@code *dv} interfaces and {@code rdma statistic}/{@code rdma resource}): what any application
 * can read of its device through the API alone. {@link HardwareCounters}: a fixed list of unique
 * names, non-negative counts that traffic moves and nothing moves back, the same counters through
 * every context of a device. {@link ResourceCounts}: the device's live PDs, CQs, QPs and MRs over
 * all its contexts in this process, as {@code rdma resource show} counts them. Counter names and
 * which counter a packet moves are the provider's (the RoCE v2 provider's own tests pin rxe's).
 */
public abstract class ExtensionsConformance extends ConformanceBase {
    /** An extension no provider offers. */
    interface NoSuchExtension {
    }

    private static long[] snapshot(HardwareCounters hw) {
        long[] v = new long[hw.names().size()];
        hw.snapshot(v);
        return v;
    }

    private static long sum(long[] v) {
        long s = 0;
        for (long x : v) {
            s += x;
        }
        return s;
    }

    private HardwareCounters counters(Context ctx) {
        return ctx.extension(HardwareCounters.class)
                .orElseThrow(() -> new AssertionError(fixture().name() + " offers no HardwareCounters"));
    }

    @Test
    void anExtensionTheProviderLacksIsEmpty() {
        assertTrue(ca.extension(NoSuchExtension.class).isEmpty());
    }

    @Test
    void hardwareCountersHaveUniqueNamesAndCheckTheirArguments() {
        require(Feature.HARDWARE_COUNTERS);
        HardwareCounters hw = counters(ca);
        List<String> names = hw.names();
        assertFalse(names.isEmpty(), "no counters");
        assertEquals(names.size(), new HashSet<>(names).size(), "names are unique: " + names);
        assertEquals(names, counters(ca).names(), "the list never changes");
        long[] v = snapshot(hw);
        for (int i = 0; i < names.size(); i++) {
            assertTrue(v[i] >= 0, names.get(i) + " = " + v[i]);
            assertTrue(hw.get(i) >= v[i] && hw.get(names.get(i)) >= v[i], names.get(i) + " went back");
        }
        assertThrows(IllegalArgumentException.class, () -> hw.get("no_such_counter"));
        assertThrows(IndexOutOfBoundsException.class, () -> hw.get(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> hw.get(names.size()));
    }

    @Test
    void trafficMovesTheCountersOfBothDevicesAndNoneGoesBack() {
        require(Feature.HARDWARE_COUNTERS);
        HardwareCounters ha = counters(ca);
        HardwareCounters hb = counters(cb);
        long[] a0 = snapshot(ha);
        long[] b0 = snapshot(hb);
        Pair p = connect(conn());
        for (int i = 0; i < 10; i++) {
            p.a.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(sge(p.mra, 0, 3000)).rdma(p.mrb.addr(), p.mrb.rkey()));
            expect(p.sqa, i, WcStatus.SUCCESS, "RDMA WRITE " + i);
        }
        long[] a1 = snapshot(ha);
        long[] b1 = snapshot(hb);
        for (int i = 0; i < a0.length; i++) {
            assertTrue(a1[i] >= a0[i], ha.names().get(i) + " went back on the first device");
        }
        for (int i = 0; i < b0.length; i++) {
            assertTrue(b1[i] >= b0[i], hb.names().get(i) + " went back on the second device");
        }
        assertTrue(sum(a1) > sum(a0), "10 WRITEs moved no counter of the requester's device");
        assertTrue(sum(b1) > sum(b0), "10 WRITEs moved no counter of the responder's device");
    }

    @Test
    void everyContextOfADeviceSeesTheSameCounters() {
        require(Feature.HARDWARE_COUNTERS);
        Pair p = connect(conn());
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 3000)).rdma(p.mrb.addr(), p.mrb.rkey()));
        expect(p.sqa, 1, WcStatus.SUCCESS, "RDMA WRITE");
        try (Context other = fixture().openFirst()) {
            HardwareCounters mine = counters(ca);
            HardwareCounters theirs = counters(other);
            assertEquals(mine.names(), theirs.names());
            long[] before = snapshot(mine);
            long[] seen = snapshot(theirs);
            long[] after = snapshot(mine);
            assertTrue(sum(seen) > 0, "the other context sees none of the device's traffic");
            for (int i = 0; i < before.length; i++) {
                assertTrue(before[i] <= seen[i] && seen[i] <= after[i], mine.names().get(i) + ": this context "
                        + before[i] + ".." + after[i] + ", another context of the device " + seen[i]);
            }
        }
    }

    @Test
    void resourceCountsFollowCreateAndDestroyOverEveryContextOfTheDevice() {
        require(Feature.RESOURCE_COUNTS);
        ResourceCounts rc = ca.extension(ResourceCounts.class)
                .orElseThrow(() -> new AssertionError(fixture().name() + " offers no ResourceCounts"));
        int pds = rc.pds(), cqs = rc.cqs(), qps = rc.qps(), mrs = rc.mrs();
        ProtectionDomain pd = ca.allocPd();
        assertEquals(pds + 1, rc.pds(), "pd after ibv_alloc_pd");
        CompletionQueue cq = ca.createCq(16, null);
        assertEquals(cqs + 1, rc.cqs(), "cq after ibv_create_cq");
        QueuePair qp = pd.createQp(initAttr(cq, cq, conn()));
        assertEquals(qps + 1, rc.qps(), "qp after ibv_create_qp");
        MemoryRegion mr = pd.regMr(arena.allocate(4096, 4096), AccessFlags.LOCAL_WRITE);
        assertEquals(mrs + 1, rc.mrs(), "mr after ibv_reg_mr");
        try (Context other = fixture().openFirst()) {
            ProtectionDomain pd2 = other.allocPd();
            CompletionQueue cq2 = other.createCq(16, null);
            assertEquals(pds + 2, rc.pds(), "a PD of another context of the device");
            assertEquals(cqs + 2, rc.cqs(), "a CQ of another context of the device");
            assertEquals(rc.pds(), other.extension(ResourceCounts.class).orElseThrow().pds());
            cq2.close();
            pd2.close();
        }
        assertEquals(pds + 1, rc.pds());
        assertEquals(cqs + 1, rc.cqs());
        mr.close();
        assertEquals(mrs, rc.mrs(), "mr after ibv_dereg_mr");
        qp.close();
        assertEquals(qps, rc.qps(), "qp after ibv_destroy_qp");
        cq.close();
        assertEquals(cqs, rc.cqs(), "cq after ibv_destroy_cq");
        pd.close();
        assertEquals(pds, rc.pds(), "pd after ibv_dealloc_pd");
    }
}
