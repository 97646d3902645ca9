package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.MemoryWindow;
import org.jrdma.verbs.MwBind;
import org.jrdma.verbs.MwType;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.ReregMrFlags;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code ibv_rereg_mr(3)}: CHANGE_TRANSLATION, CHANGE_PD, CHANGE_ACCESS, their errors (EINVAL as the
 * kernel's {@code ib_uverbs_rereg_mr} and libibverbs' IBV_REREG_MR_ERR_INPUT give them; a region with
 * bound windows refuses), the keys (kept, as rxe keeps them) and the completions of traffic that races
 * a rereg (a request checked before the change finishes, later ones see the new region).
 *
 * <p>Layout: B's region {@link #mr} is the target of A's RDMA operations.
 */
public abstract class ReregMrConformance extends ConformanceBase {
    private static final int CHANGE_ALL = ReregMrFlags.CHANGE_TRANSLATION | ReregMrFlags.CHANGE_PD
            | ReregMrFlags.CHANGE_ACCESS;
    private Pair p;
    private MemorySegment mem;
    private MemoryRegion mr;

    @BeforeEach
    final void requireRereg() {
        require(Feature.REREG_MR);
    }

    private void pair(int access) {
        p = connect(conn());
        mem = arena.allocate(1 << 16, 4096);
        mr = track(p.pb.regMr(mem, access));
    }

    private WorkCompletion remote(WrOpcode op, long id, long va, int len) {
        p.a.postSend(new SendWr().wrId(id).opcode(op).sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, len))
                .rdma(va, mr.rkey()));
        return pollOne(p.sqa, op.toString());
    }

    private void fails(WrOpcode op, long va, int len, String what) {
        WorkCompletion c = remote(op, 2, va, len);
        assertEquals(WcStatus.REM_ACCESS_ERR, c.status(), what + ": " + c);
        awaitState(p.b, QpState.ERR, what + ": the responder");
    }

    private void works(WrOpcode op, long va, int len, String what) {
        WorkCompletion c = remote(op, 1, va, len);
        assertEquals(WcStatus.SUCCESS, c.status(), what + ": " + c);
    }

    // ------------------------------------------------------------------ errors

    @Test
    void badFlagsAreEinvalAndChangeNothing() {
        pair(ALL_ACCESS);
        int key = mr.rkey();
        for (int flags : new int[] {0, ReregMrFlags.KEEP_VALID, 1 << 4, CHANGE_ALL | ReregMrFlags.KEEP_VALID, -1}) {
            assertErrno(Errno.EINVAL, () -> mr.rereg(flags, p.pb, mem, 0), "flags 0x" + Integer.toHexString(flags));
        }
        assertEquals(key, mr.rkey());
        assertEquals(ALL_ACCESS, mr.access());
        works(WrOpcode.RDMA_WRITE, mr.addr(), 64, "the region is unchanged");
    }

    @Test
    void badArgumentsAreEinvalAndChangeNothing() {
        pair(ALL_ACCESS);
        assertErrno(Errno.EINVAL, () -> mr.rereg(ReregMrFlags.CHANGE_TRANSLATION, null, null, 0), "no memory");
        assertErrno(Errno.EINVAL, () -> mr.rereg(ReregMrFlags.CHANGE_TRANSLATION, null, MemorySegment.ofArray(new byte[64]), 0),
                "heap memory");
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment c = confined.allocate(64);
            assertErrno(Errno.EINVAL, () -> mr.rereg(ReregMrFlags.CHANGE_TRANSLATION, null, c, 0), "thread-confined memory");
        }
        assertErrno(Errno.EINVAL, () -> mr.rereg(ReregMrFlags.CHANGE_TRANSLATION, null, arena.allocate(0), 0), "empty memory");
        assertErrno(Errno.EINVAL, () -> mr.rereg(ReregMrFlags.CHANGE_PD, null, null, 0), "no PD");
        ProtectionDomain foreign = track(ca.allocPd());
        assertErrno(Errno.EINVAL, () -> mr.rereg(ReregMrFlags.CHANGE_PD, foreign, null, 0), "a PD of another device");
        ProtectionDomain closed = cb.allocPd();
        closed.close();
        assertErrno(Errno.EINVAL, () -> mr.rereg(ReregMrFlags.CHANGE_PD, closed, null, 0), "a closed PD");
        assertErrno(Errno.EINVAL, () -> mr.rereg(ReregMrFlags.CHANGE_ACCESS, null, null, AccessFlags.REMOTE_WRITE),
                "REMOTE_WRITE without LOCAL_WRITE");
        assertErrno(Errno.EINVAL, () -> mr.rereg(ReregMrFlags.CHANGE_ACCESS, null, null, AccessFlags.REMOTE_ATOMIC),
                "REMOTE_ATOMIC without LOCAL_WRITE");
        assertErrno(Errno.EINVAL, () -> mr.rereg(ReregMrFlags.CHANGE_ACCESS | ReregMrFlags.CHANGE_TRANSLATION, null,
                arena.allocate(4096), AccessFlags.REMOTE_WRITE), "a bad access with a good translation: nothing changes");
        assertEquals(mem.address(), mr.addr(), "translation unchanged");
        assertEquals(p.pb, mr.pd(), "PD unchanged");
        assertEquals(ALL_ACCESS, mr.access(), "access unchanged");
        works(WrOpcode.RDMA_WRITE, mr.addr(), 64, "the region is unchanged");
    }

    @Test
    void aDeregisteredRegionIsEinval() {
        pair(ALL_ACCESS);
        mr.close();
        assertErrno(Errno.EINVAL, () -> mr.rereg(ReregMrFlags.CHANGE_ACCESS, null, null, AccessFlags.LOCAL_WRITE), "after ibv_dereg_mr");
    }

    @Test
    void aRegionWithABoundWindowIsEinval() {
        require(Feature.MEMORY_WINDOWS);
        pair(ALL_ACCESS | AccessFlags.MW_BIND);
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        MwBind b = new MwBind().wrId(1).sendFlags(SendFlags.SIGNALED);
        b.bindInfo().set(mr, mr.addr(), 4096, AccessFlags.REMOTE_READ);
        p.b.bindMw(mw, b);
        expect(p.sqb, 1, WcStatus.SUCCESS, "bind");
        for (int flags : new int[] {ReregMrFlags.CHANGE_ACCESS, ReregMrFlags.CHANGE_PD, ReregMrFlags.CHANGE_TRANSLATION}) {
            assertErrno(Errno.EINVAL, () -> mr.rereg(flags, p.pb, arena.allocate(4096), ALL_ACCESS),
                    "rereg 0x" + flags + " with a bound window");
        }
        mw.close();
        mr.rereg(ReregMrFlags.CHANGE_ACCESS, null, null, ALL_ACCESS); // no window left
        assertEquals(ALL_ACCESS, mr.access());
    }

    // ------------------------------------------------------------------ CHANGE_ACCESS

    @Test
    void changeAccessRevokesARightAndKeepsTheKeys() {
        pair(ALL_ACCESS);
        int lkey = mr.lkey(), rkey = mr.rkey();
        works(WrOpcode.RDMA_WRITE, mr.addr(), 64, "before");
        mr.rereg(ReregMrFlags.CHANGE_ACCESS, null, null, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
        assertEquals(lkey, mr.lkey(), "lkey kept (rxe rereg in place)");
        assertEquals(rkey, mr.rkey(), "rkey kept");
        assertEquals(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, mr.access());
        works(WrOpcode.RDMA_READ, mr.addr(), 64, "READ still allowed");
        fails(WrOpcode.RDMA_WRITE, mr.addr(), 64, "WRITE revoked");
    }

    @Test
    void changeAccessGrantsARight() {
        pair(AccessFlags.LOCAL_WRITE);
        mr.rereg(ReregMrFlags.CHANGE_ACCESS, null, null, ALL_ACCESS);
        fill(p.ma, 0, 256, 4);
        works(WrOpcode.RDMA_WRITE, mr.addr() + 8, 256, "WRITE granted by rereg");
        assertSameBytes(p.ma, 0, mem, 8, 256, "bytes");
    }

    @Test
    void revokingLocalWriteFailsTheNextReceive() {
        pair(ALL_ACCESS);
        mr.rereg(ReregMrFlags.CHANGE_ACCESS, null, null, AccessFlags.REMOTE_READ);
        p.b.postRecv(new RecvWr().wrId(7).sgList(sge(mr, 0, 4096)));
        p.a.postSend(new SendWr().wrId(8).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 64)));
        expect(p.rqb, 7, WcStatus.LOC_PROT_ERR, "a receive into a region without LOCAL_WRITE");
    }

    // ------------------------------------------------------------------ CHANGE_PD

    @Test
    void changePdMovesTheRegionAndItsUse() {
        pair(ALL_ACCESS);
        ProtectionDomain other = track(cb.allocPd());
        int rkey = mr.rkey();
        mr.rereg(ReregMrFlags.CHANGE_PD, other, null, 0);
        assertEquals(other, mr.pd());
        assertEquals(rkey, mr.rkey(), "rkey kept (rxe)");
        assertErrno(Errno.EBUSY, other::close, "the new PD holds the region");
        mr.rereg(ReregMrFlags.CHANGE_PD, p.pb, null, 0);
        other.close(); // the region left it
        works(WrOpcode.RDMA_WRITE, mr.addr(), 64, "back in the QP's PD");
    }

    @Test
    void aRegionMovedToAnotherPdIsARemoteAccessError() {
        pair(ALL_ACCESS);
        ProtectionDomain other = track(cb.allocPd());
        mr.rereg(ReregMrFlags.CHANGE_PD, other, null, 0);
        fails(WrOpcode.RDMA_READ, mr.addr(), 64, "READ through a region of another PD than the QP's");
    }

    @Test
    void aRegionMovedToAnotherPdCannotBeUsedLocally() {
        pair(ALL_ACCESS);
        ProtectionDomain other = track(cb.allocPd());
        mr.rereg(ReregMrFlags.CHANGE_PD, other, null, 0);
        p.b.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(mr, 0, 64)).rdma(p.mra.addr(), p.mra.rkey()));
        expect(p.sqb, 3, WcStatus.LOC_PROT_ERR, "an SGE of a region now in another PD");
    }

    // ------------------------------------------------------------------ CHANGE_TRANSLATION

    @Test
    void changeTranslationMovesTheRegionToNewMemory() {
        pair(ALL_ACCESS);
        long oldVa = mr.addr();
        int lkey = mr.lkey(), rkey = mr.rkey();
        MemorySegment fresh = arena.allocate(8192, 4096);
        mr.rereg(ReregMrFlags.CHANGE_TRANSLATION, null, fresh, 0);
        assertEquals(fresh.address(), mr.addr());
        assertEquals(8192, mr.length());
        assertEquals(fresh, mr.segment());
        assertEquals(lkey, mr.lkey(), "lkey kept");
        assertEquals(rkey, mr.rkey(), "rkey kept");
        fill(p.ma, 0, 4096, 6);
        works(WrOpcode.RDMA_WRITE, fresh.address() + 4096, 4096, "WRITE into the new memory");
        assertSameBytes(p.ma, 0, fresh, 4096, 4096, "bytes in the new memory");
        assertAllBytes(mem, 0, mem.byteSize(), (byte) 0, "the old memory untouched");
        // a local use: B sends from the new memory
        fill(fresh, 0, 100, 8);
        p.a.postRecv(new RecvWr().wrId(4).sgList(sge(p.mra, 8192, 4096)));
        p.b.postSend(new SendWr().wrId(5).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(sge(mr, 0, 100)));
        expect(p.sqb, 5, WcStatus.SUCCESS, "SEND from the new translation");
        expect(p.rqa, 4, WcStatus.SUCCESS, "its receive");
        assertSameBytes(fresh, 0, p.ma, 8192, 100, "the SEND's bytes");
        fails(WrOpcode.RDMA_WRITE, oldVa + 16384, 64, "WRITE to the old address");
    }

    @Test
    void allThreeChangesAtOnce() {
        pair(AccessFlags.LOCAL_WRITE);
        ProtectionDomain other = track(cb.allocPd());
        MemorySegment fresh = arena.allocate(4096, 4096);
        mr.rereg(CHANGE_ALL, other, fresh, ALL_ACCESS);
        assertEquals(other, mr.pd());
        assertEquals(fresh.address(), mr.addr());
        assertEquals(ALL_ACCESS, mr.access());
        mr.rereg(ReregMrFlags.CHANGE_PD, p.pb, null, 0);
        works(WrOpcode.RDMA_WRITE, fresh.address(), 64, "after all three changes and the PD back");
    }

    // ------------------------------------------------------------------ racing traffic

    /**
     * A stream of WRITEs while B revokes REMOTE_WRITE: every WRITE checked before the rereg completes
     * SUCCESS, the first after it REM_ACCESS_ERR (NAK remote access error), the rest WR_FLUSH_ERR; never
     * a SUCCESS after an error.
     */
    @Test
    void writesRacingAnAccessRevocation() {
        pair(ALL_ACCESS);
        racing(() -> mr.rereg(ReregMrFlags.CHANGE_ACCESS, null, null, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ),
                mr.addr(), "access revoked");
    }

    /** The same while B moves the region to new memory: the WRITEs aim at the old addresses. */
    @Test
    void writesRacingATranslationChange() {
        pair(ALL_ACCESS);
        MemorySegment fresh = arena.allocate(1 << 16, 4096);
        racing(() -> mr.rereg(ReregMrFlags.CHANGE_TRANSLATION, null, fresh, 0), mr.addr(), "translation changed");
        assertAllBytes(fresh, 0, fresh.byteSize(), (byte) 0, "no WRITE aimed at the old memory reached the new");
    }

    /** The same while B moves the region to another PD. */
    @Test
    void writesRacingAPdChange() {
        pair(ALL_ACCESS);
        ProtectionDomain other = track(cb.allocPd());
        racing(() -> mr.rereg(ReregMrFlags.CHANGE_PD, other, null, 0), mr.addr(), "PD changed");
    }

    private void racing(Runnable change, long va, String what) {
        int n = 200;
        fill(p.ma, 0, 4096, 1);
        for (int i = 0; i < n; i++) {
            p.a.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(sge(p.mra, 0, 4096)).rdma(va + (i % 16) * 4096L, mr.rkey()));
            if (i == n / 4) {
                change.run();
            }
        }
        List<WorkCompletion> cs = pollMany(p.sqa, n, what);
        int ok = 0;
        while (ok < n && cs.get(ok).status() == WcStatus.SUCCESS) {
            ok++;
        }
        assertTrue(ok < n, what + ": some WRITE after the change fails");
        assertEquals(WcStatus.REM_ACCESS_ERR, cs.get(ok).status(), what + ": the first failure: " + cs.get(ok));
        for (int i = ok + 1; i < n; i++) {
            assertEquals(WcStatus.WR_FLUSH_ERR, cs.get(i).status(), what + ": after the failure: " + cs.get(i));
        }
        for (int i = 0; i < n; i++) {
            assertEquals(i, cs.get(i).wrId(), what + ": completions in order");
        }
    }
}
