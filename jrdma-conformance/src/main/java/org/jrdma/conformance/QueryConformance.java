package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.jrdma.verbs.AtomicCap;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.DeviceAttrEx;
import org.jrdma.verbs.DeviceCapFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.GidEntry;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.PortState;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The query verbs and their error paths ({@code ibv_query_device(3)}, {@code ibv_query_device_ex(3)},
 * {@code ibv_query_port(3)}, {@code ibv_query_gid(3)}, {@code ibv_query_gid_ex(3)},
 * {@code ibv_query_gid_table(3)}, {@code ibv_query_pkey(3)}, {@code ibv_get_pkey_index(3)}), completion
 * vectors ({@code ibv_create_cq(3)}'s {@code comp_vector} against {@code num_comp_vectors}) and
 * {@code ibv_resize_cq(3)} with completions in the CQ (up, down, and rdma_rxe's EINVAL below the
 * completions present). Provider-neutral: the values asserted are the relations the man pages and
 * verbs.h define, not one provider's numbers.
 */
public abstract class QueryConformance extends ConformanceBase {

    private int ports() {
        return ca.queryDevice().physPortCnt();
    }

    @Test
    void deviceAttributesAreConsistent() {
        DeviceAttr a = ca.queryDevice();
        assertTrue(a.physPortCnt() >= 1, "phys_port_cnt " + a.physPortCnt());
        assertTrue(fixture().portNum() <= a.physPortCnt(), "the fixture's port exists");
        assertEquals(ca.device().guid(), a.nodeGuid(), "node_guid is ibv_get_device_guid's");
        if (a.hasCap(DeviceCapFlags.SYS_IMAGE_GUID)) {
            assertNotEquals(0L, a.sysImageGuid(), "SYS_IMAGE_GUID set: sys_image_guid");
        }
        for (int v : new int[] {a.maxQp(), a.maxQpWr(), a.maxSge(), a.maxCq(), a.maxCqe(), a.maxMr(), a.maxPd(),
            a.maxPkeys()}) {
            assertTrue(v >= 1, "every count a program needs is positive: " + a);
        }
        assertTrue(a.maxMrSize() == -1 || a.maxMrSize() > 0, "max_mr_size (unsigned) " + a.maxMrSize());
        assertTrue(a.maxQpRdAtom() >= 0 && a.maxQpInitRdAtom() >= 0 && a.maxResRdAtom() >= 0, a.toString());
        assertEquals(fixture().supports(Feature.ATOMICS), a.atomicCap() != AtomicCap.NONE,
                "atomic_cap against the ATOMICS feature: " + a.atomicCap());
        assertEquals(a, ca.queryDevice(), "a second query gives the same attributes");
    }

    @Test
    void queryDeviceExExtendsQueryDevice() {
        DeviceAttr a = ca.queryDevice();
        DeviceAttrEx ex = ca.queryDeviceEx();
        assertEquals(a, ex.origAttr(), "orig_attr is ibv_query_device's");
        assertEquals(Integer.toUnsignedLong(a.deviceCapFlags()), ex.deviceCapFlagsEx() & 0xffffffffL,
                "device_cap_flags_ex holds device_cap_flags in its low 32 bits");
        assertEquals(a.physPortCnt(), ex.physPortCntEx(), "phys_port_cnt_ex");
    }

    /**
     * What the device says it has agrees with the features the provider declares: max_srq and
     * SRQ_RESIZE with SRQs, max_mw and MEM_WINDOW / MEM_WINDOW_TYPE_2B with memory windows, the
     * Memory Placement bits of device_cap_flags_ex with FLUSH and ATOMIC WRITE
     * ({@code IB_UVERBS_DEVICE_FLUSH_GLOBAL/FLUSH_PERSISTENT/ATOMIC_WRITE}).
     */
    @Test
    void capabilitiesAgreeWithTheFeatures() {
        DeviceAttrEx ex = ca.queryDeviceEx();
        DeviceAttr a = ex.origAttr();
        int caps = a.deviceCapFlags();
        boolean srq = fixture().supports(Feature.SRQ);
        assertEquals(srq, a.maxSrq() > 0, "max_srq against the SRQ feature: " + a);
        if (srq) {
            assertTrue(a.maxSrqWr() > 0 && a.maxSrqSge() > 0, "max_srq_wr, max_srq_sge: " + a);
        }
        boolean mw = fixture().supports(Feature.MEMORY_WINDOWS);
        assertEquals(mw, a.maxMw() > 0, "max_mw against the MEMORY_WINDOWS feature: " + a);
        assertEquals(mw, (caps & DeviceCapFlags.MEM_WINDOW) != 0, "MEM_WINDOW");
        assertEquals(mw, (caps & DeviceCapFlags.MEM_WINDOW_TYPE_2B) != 0, "MEM_WINDOW_TYPE_2B");
        long flushBits = org.jrdma.verbs.DeviceCapFlagsEx.FLUSH_GLOBAL | org.jrdma.verbs.DeviceCapFlagsEx.FLUSH_PERSISTENT;
        assertEquals(fixture().supports(Feature.FLUSH) ? flushBits : 0, ex.deviceCapFlagsEx() & flushBits, "FLUSH bits");
        assertEquals(fixture().supports(Feature.ATOMIC_WRITE), (ex.deviceCapFlagsEx()
                & org.jrdma.verbs.DeviceCapFlagsEx.ATOMIC_WRITE) != 0, "ATOMIC_WRITE bit");
        assertEquals(ex.completionTimestampMask() != 0, ex.hcaCoreClock() != 0,
                "a completion timestamp comes with its clock: mask " + ex.completionTimestampMask() + ", clock "
                        + ex.hcaCoreClock() + " kHz");
    }

    @Test
    void everyPortAnswersAndNoOtherDoes() {
        for (int port = 1; port <= ports(); port++) {
            PortAttr p = ca.queryPort(port);
            assertEquals(PortState.ACTIVE, p.state(), "port " + port + " of a device under test is up");
            assertTrue(p.activeMtu().bytes() <= p.maxMtu().bytes(), "active_mtu <= max_mtu: " + p);
            assertTrue(p.gidTblLen() >= 1, "gid_tbl_len: " + p);
            assertTrue(p.pkeyTblLen() >= 1, "pkey_tbl_len: " + p);
            assertTrue(p.maxMsgSz() > 0, "max_msg_sz: " + p);
            assertTrue(p.activeSpeedGbps() > 0, "a known width and speed: " + p);
        }
        int bad = ports() + 1;
        assertErrno(Errno.EINVAL, () -> ca.queryPort(0), "ibv_query_port port 0");
        assertErrno(Errno.EINVAL, () -> ca.queryPort(bad), "ibv_query_port port " + bad);
    }

    @Test
    void queryGidExGivesTheEntriesOfQueryGid() {
        int port = fixture().portNum();
        PortAttr p = ca.queryPort(port);
        int valid = 0;
        for (int i = 0; i < p.gidTblLen(); i++) {
            GidEntry e;
            try {
                e = ca.queryGidEx(port, i);
            } catch (VerbsException x) {
                assertEquals(Errno.name(Errno.ENODATA), Errno.name(x.errno()), "an index in the table: an entry or ENODATA");
                continue;
            }
            valid++;
            assertEquals(ca.queryGid(port, i), e.gid(), "GID " + i);
            assertEquals(i, e.gidIndex(), "gid_index");
            assertEquals(port, e.portNum(), "port_num");
        }
        assertTrue(valid >= 1, "the port has a GID");
        assertTrue(!ca.queryGidEx(port, fixture().gidIndex()).gid().isZero(), "the fixture's GID");
        assertErrno(Errno.EINVAL, () -> ca.queryGidEx(port, p.gidTblLen()), "ibv_query_gid_ex past the table");
        assertErrno(Errno.EINVAL, () -> ca.queryGidEx(port, -1), "ibv_query_gid_ex index -1");
        assertErrno(Errno.EINVAL, () -> ca.queryGidEx(ports() + 1, 0), "ibv_query_gid_ex of a missing port");
        assertErrno(Errno.EINVAL, () -> ca.queryGid(port, p.gidTblLen()), "ibv_query_gid past the table");
        assertErrno(Errno.EINVAL, () -> ca.queryGid(ports() + 1, 0), "ibv_query_gid of a missing port");
    }

    @Test
    void queryGidTableHoldsEveryValidEntryAndRefusesAShortBuffer() {
        List<GidEntry> expected = new ArrayList<>();
        int total = 0;
        for (int port = 1; port <= ports(); port++) {
            int len = ca.queryPort(port).gidTblLen();
            total += len;
            for (int i = 0; i < len; i++) {
                try {
                    expected.add(ca.queryGidEx(port, i));
                } catch (VerbsException x) {
                    // ENODATA: not a valid entry
                }
            }
        }
        GidEntry[] all = new GidEntry[total + 1];
        int n = ca.queryGidTable(all);
        assertEquals(expected, java.util.Arrays.asList(all).subList(0, n), "the valid entries, in port and index order");
        assertNull(all[n], "nothing written past the valid entries");
        GidEntry[] shorter = new GidEntry[n - 1];
        assertErrno(Errno.EINVAL, () -> ca.queryGidTable(shorter), "ibv_query_gid_table with max_entries "
                + (n - 1) + " for " + n + " valid entries");
        for (GidEntry e : shorter) {
            assertNull(e, "a refused call writes nothing");
        }
        assertErrno(Errno.EINVAL, () -> ca.queryGidTable(new GidEntry[0]), "ibv_query_gid_table with max_entries 0");
    }

    @Test
    void thePkeyTableAndItsIndex() {
        int port = fixture().portNum();
        PortAttr p = ca.queryPort(port);
        List<Integer> table = new ArrayList<>();
        for (int i = 0; i < p.pkeyTblLen(); i++) {
            int k = ca.queryPkey(port, i);
            assertTrue(k >= 0 && k <= 0xFFFF, "a P_Key is 16 bits: 0x" + Integer.toHexString(k));
            table.add(k);
        }
        // the QPs of this suite use P_Key index 0: it holds a full-member key (IBTA §10.9.1: bit 15)
        assertTrue((table.get(0) & 0x8000) != 0, "P_Key index 0 is a full member: 0x" + Integer.toHexString(table.get(0)));
        for (int i = 0; i < table.size(); i++) {
            assertEquals(table.indexOf(table.get(i)), ca.getPkeyIndex(port, table.get(i)), "ibv_get_pkey_index");
        }
        int absent = 1;
        while (table.contains(absent)) {
            absent++;
        }
        assertEquals(-1, ca.getPkeyIndex(port, absent), "a P_Key not in the table: -1");
        assertErrno(Errno.EINVAL, () -> ca.queryPkey(port, p.pkeyTblLen()), "ibv_query_pkey past the table");
        assertErrno(Errno.EINVAL, () -> ca.queryPkey(port, -1), "ibv_query_pkey index -1");
        assertErrno(Errno.EINVAL, () -> ca.queryPkey(ports() + 1, 0), "ibv_query_pkey of a missing port");
        assertErrno(Errno.EINVAL, () -> ca.getPkeyIndex(ports() + 1, table.get(0)), "ibv_get_pkey_index of a missing port");
    }

    @Test
    void everyCompletionVectorAndNoOther() {
        int n = ca.numCompVectors();
        assertTrue(n >= 1, "num_comp_vectors " + n);
        for (int v = 0; v < n; v++) {
            CompletionQueue cq = track(ca.createCq(16, null, v));
            assertTrue(cq.cqe() >= 16, "cqe on vector " + v);
        }
        assertErrno(Errno.EINVAL, () -> track(ca.createCq(16, null, n)), "comp_vector = num_comp_vectors");
        assertErrno(Errno.EINVAL, () -> track(ca.createCq(16, null, -1)), "comp_vector -1");
    }

    @Test
    void createCqChecksCqe() {
        int max = ca.queryDevice().maxCqe();
        assertTrue(track(ca.createCq(max, null)).cqe() >= max, "max_cqe entries");
        assertErrno(Errno.EINVAL, () -> track(ca.createCq(0, null)), "cqe 0");
        assertErrno(Errno.EINVAL, () -> track(ca.createCq(max + 1, null)), "cqe max_cqe + 1");
    }

    @Test
    void noMoreThanMaxCqCompletionQueues() {
        int max = ca.queryDevice().maxCq();
        Assumptions.assumeTrue(max <= 1 << 16, "max_cq " + max + " is too many CQs to create in a test");
        int created = 0;
        VerbsException refused = null;
        while (created <= max && refused == null) {
            try {
                track(ca.createCq(1, null));
                created++;
            } catch (VerbsException e) {
                refused = e;
            }
        }
        assertTrue(refused != null, max + 1 + " CQs created, max_cq is " + max);
        assertEquals(Errno.name(Errno.ENOMEM), Errno.name(refused.errno()), "past max_cq: " + refused.getMessage());
        assertTrue(created >= 1, "a CQ could be created");
    }

    // ------------------------------------------------------------------ ibv_resize_cq

    /** B's receive CQ under test, of {@code cqe} entries, holding {@code n} receive completions (wr_id 100..). */
    private Pair withReceives(int cqe, int n) {
        Pair p = connect(conn().cqe(cqe));
        for (int i = 0; i < n; i++) {
            p.b.postRecv(new RecvWr().wrId(100 + i).sgList(sge(p.mrb, 64L * i, 64)));
            sendOne(p, i);
        }
        // A's SEND completed: B acknowledged it, after its receive completion; give a provider that
        // writes the completion later a moment
        pause(50);
        return p;
    }

    private static void sendOne(Pair p, int i) {
        p.a.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)));
        expect(p.sqa, i, WcStatus.SUCCESS, "SEND " + i);
    }

    private static void expectReceives(CompletionQueue cq, int from, int to) {
        for (int i = from; i < to; i++) {
            WorkCompletion wc = expect(cq, 100 + i, WcStatus.SUCCESS, "receive " + i);
            assertEquals(8, wc.byteLen(), "receive " + i);
        }
        assertCqEmpty(cq, "after the receives");
    }

    @Test
    void resizeUpKeepsTheCompletionsInOrderAndTakesMore() {
        require(Feature.RESIZE_CQ);
        Pair p = withReceives(4, 3);
        p.rqb.resize(64);
        assertTrue(p.rqb.cqe() >= 64, "cqe after resize to 64: " + p.rqb.cqe());
        for (int i = 3; i < 40; i++) {
            p.b.postRecv(new RecvWr().wrId(100 + i).sgList(sge(p.mrb, 64L * i, 64)));
            sendOne(p, i);
        }
        pause(50);
        expectReceives(p.rqb, 0, 40);
        assertEquals(0, p.rqb.overruns(), "40 completions fit the resized CQ");
    }

    @Test
    void resizeDownKeepsTheCompletionsInOrder() {
        require(Feature.RESIZE_CQ);
        Pair p = withReceives(256, 5);
        p.rqb.resize(8);
        int size = p.rqb.cqe();
        assertTrue(size >= 8 && size < 256, "cqe after resize to 8: " + size);
        expectReceives(p.rqb, 0, 5);
    }

    @Test
    void resizeToExactlyTheCompletionsPresent() {
        require(Feature.RESIZE_CQ);
        Pair p = withReceives(64, 5);
        p.rqb.resize(5);
        assertTrue(p.rqb.cqe() >= 5, "cqe " + p.rqb.cqe());
        expectReceives(p.rqb, 0, 5);
    }

    @Test
    void resizeBelowTheCompletionsPresentIsEinvalAndLosesNothing() {
        require(Feature.RESIZE_CQ);
        Pair p = withReceives(16, 5);
        int before = p.rqb.cqe();
        assertErrno(Errno.EINVAL, () -> p.rqb.resize(4), "ibv_resize_cq to 4 with 5 completions in the CQ");
        assertEquals(before, p.rqb.cqe(), "a refused resize keeps the size");
        expectReceives(p.rqb, 0, 5);
    }

    @Test
    void resizeChecksCqe() {
        require(Feature.RESIZE_CQ);
        int max = ca.queryDevice().maxCqe();
        CompletionQueue cq = track(ca.createCq(8, null));
        assertErrno(Errno.EINVAL, () -> cq.resize(0), "ibv_resize_cq cqe 0");
        assertErrno(Errno.EINVAL, () -> cq.resize(-1), "ibv_resize_cq cqe -1");
        assertErrno(Errno.EINVAL, () -> cq.resize(max + 1), "ibv_resize_cq cqe max_cqe + 1");
        assertTrue(cq.cqe() >= 8 && cq.cqe() < max, "refused resizes keep the size: " + cq.cqe());
        cq.resize(max);
        assertTrue(cq.cqe() >= max, "resize to max_cqe: " + cq.cqe());
    }
}
