package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.MemoryWindow;
import org.jrdma.verbs.MwBind;
import org.jrdma.verbs.MwBindInfo;
import org.jrdma.verbs.MwType;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Memory windows, type 1 and type 2 ({@code ibv_alloc_mw(3)}, {@code ibv_bind_mw(3)},
 * {@code ibv_post_send(3)} IBV_WR_BIND_MW, IBV_WR_LOCAL_INV, IBV_WR_SEND_WITH_INV; IBTA Vol 1 §10.6.7,
 * §9.4.1.1 (SEND with Invalidate)), with rxe's behaviour where the spec leaves a choice
 * ({@code rxe_mw.c}, {@code rxe_req.c} {@code rxe_do_local_ops}, {@code rxe_resp.c}). Every call and
 * every error path: the errno libibverbs returns, the completion status rxe produces. Where jrdma
 * checks more than rxe (IBTA rules rxe skips), the test says so.
 *
 * <p>Layout: A (first device) is the requester; B (second device) owns the windows, over a region
 * {@link #bmr} registered with MW_BIND, and binds them through its QP.
 */
public abstract class MemoryWindowConformance extends ConformanceBase {
    private static final int BIND_ACCESS = ALL_ACCESS | AccessFlags.MW_BIND;
    private static final int RW = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
    private static final long REGION = 1 << 16, WIN = 16384, WLEN = 8192;
    /** {@code IBV_ACCESS_HUGETLB} (verbs.h): not a right a window can have. */
    private static final int IBV_ACCESS_HUGETLB = 1 << 7;

    private MemorySegment bmem;
    private MemoryRegion bmr;
    private Pair p;

    @BeforeEach
    final void requireWindows() {
        require(Feature.MEMORY_WINDOWS);
    }

    /** A connected pair with a 64 KiB region on B that allows MW_BIND. */
    private Pair pair() {
        p = connect(conn());
        bmem = arena.allocate(REGION, 4096);
        bmr = track(p.pb.regMr(bmem, BIND_ACCESS));
        return p;
    }

    private static MwBind bind(long wrId, MemoryRegion mr, long addr, long len, int access) {
        MwBind b = new MwBind().wrId(wrId).sendFlags(SendFlags.SIGNALED);
        b.bindInfo().set(mr, addr, len, access);
        return b;
    }

    /** Binds type 1 {@code mw} to [WIN, WIN + len) of {@link #bmr} through B's QP; returns the new rkey. */
    private int bind1(MemoryWindow mw, long off, long len, int access) {
        int key = p.b.bindMw(mw, bind(900, bmr, bmr.addr() + off, len, access));
        WorkCompletion c = expect(p.sqb, 900, WcStatus.SUCCESS, "type 1 bind");
        assertEquals(WcOpcode.BIND_MW, c.opcode(), "bind completion opcode");
        return key;
    }

    private static SendWr bindWr(long wrId, MemoryWindow mw, int rkey, MemoryRegion mr, long addr, long len, int access) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                .bindMw(mw, rkey, new MwBindInfo().set(mr, addr, len, access));
    }

    /** Binds type 2 {@code mw} with IBV_WR_BIND_MW on B's QP; returns the rkey it now has. */
    private int bind2(MemoryWindow mw, long off, long len, int access) {
        int key = SendWr.incRkey(mw.rkey());
        p.b.postSend(bindWr(901, mw, key, bmr, bmr.addr() + off, len, access));
        WorkCompletion c = expect(p.sqb, 901, WcStatus.SUCCESS, "type 2 bind");
        assertEquals(WcOpcode.BIND_MW, c.opcode());
        return key;
    }

    private WorkCompletion remote(WrOpcode op, long id, long va, int rkey, int len) {
        p.a.postSend(new SendWr().wrId(id).opcode(op).sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, len))
                .rdma(va, rkey));
        return pollOne(p.sqa, op + " through rkey 0x" + Integer.toHexString(rkey));
    }

    private void writeOk(long va, int rkey, int len, String what) {
        WorkCompletion c = remote(WrOpcode.RDMA_WRITE, 1, va, rkey, len);
        assertEquals(WcStatus.SUCCESS, c.status(), what + ": " + c);
    }

    /** A remote access that must fail: REM_ACCESS_ERR at A (NAK remote access error), both QPs in ERR. */
    private void accessFails(WrOpcode op, long va, int rkey, int len, String what) {
        WorkCompletion c = remote(op, 2, va, rkey, len);
        assertEquals(WcStatus.REM_ACCESS_ERR, c.status(), what + ": " + c);
        awaitState(p.a, QpState.ERR, what + ": requester");
        awaitState(p.b, QpState.ERR, what + ": responder");
    }

    // ------------------------------------------------------------------ allocation

    @Test
    void allocMwGivesAnUnboundWindowOfEachType() {
        pair();
        for (MwType t : MwType.values()) {
            MemoryWindow mw = track(p.pb.allocMw(t));
            assertEquals(t, mw.type());
            assertEquals(p.pb, mw.pd());
            assertNotEquals(0, mw.rkey(), "an rkey");
        }
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        accessFails(WrOpcode.RDMA_WRITE, bmr.addr(), mw.rkey(), 8, "a window that was never bound grants nothing");
    }

    @Test
    void type3AndNullTypesAreEinval() {
        pair();
        assertErrno(Errno.EINVAL, () -> MwType.of(3), "IBV_MW_TYPE 3");
        assertErrno(Errno.EINVAL, () -> MwType.of(0), "IBV_MW_TYPE 0");
        assertEquals(MwType.TYPE_2, MwType.of(2));
        assertErrno(Errno.EINVAL, () -> p.pb.allocMw(null), "ibv_alloc_mw without a type");
    }

    @Test
    void aPdWithAWindowIsBusyAndARegionWithABoundWindowCannotBeDeregistered() {
        pair();
        ProtectionDomain pd = track(cb.allocPd());
        MemoryWindow mw = pd.allocMw(MwType.TYPE_1);
        assertErrno(Errno.EBUSY, pd::close, "ibv_dealloc_pd with a window");
        mw.close();
        pd.close();
        MemoryWindow w = track(p.pb.allocMw(MwType.TYPE_1));
        bind1(w, WIN, WLEN, RW);
        assertErrno(Errno.EINVAL, bmr::close, "ibv_dereg_mr with a bound window (rxe_dereg_mr)");
        w.close();
        bmr.close(); // no window left: deregisters
    }

    // ------------------------------------------------------------------ type 1

    @Test
    void type1WindowGrantsItsRangeAndRights() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        int before = mw.rkey();
        int key = bind1(mw, WIN, WLEN, RW);
        assertEquals(key, mw.rkey(), "ibv_bind_mw sets mw->rkey");
        assertEquals(before & 0xFFFFFF00, key & 0xFFFFFF00, "the upper 24 bits stay");
        assertEquals((before + 1) & 0xFF, key & 0xFF, "the key byte is ibv_inc_rkey's");
        fill(p.ma, 0, 4096, 7);
        writeOk(bmr.addr() + WIN + 100, key, 4096, "WRITE inside the window");
        assertSameBytes(p.ma, 0, bmem, WIN + 100, 4096, "bytes written through the window");
        assertAllBytes(bmem, 0, WIN + 100, (byte) 0, "before the window");
        WorkCompletion r = remote(WrOpcode.RDMA_READ, 3, bmr.addr() + WIN + WLEN - 64, key, 64);
        assertEquals(WcStatus.SUCCESS, r.status(), "READ of the window's last 64 bytes: " + r);
        accessFails(WrOpcode.RDMA_WRITE, bmr.addr() + WIN + WLEN - 4, key, 8, "a WRITE 4 bytes past the window's end");
        assertAllBytes(bmem, WIN + WLEN, REGION - WIN - WLEN, (byte) 0, "after the window");
    }

    @Test
    void type1WindowBelowItsStartIsARemoteAccessError() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        int key = bind1(mw, WIN, WLEN, RW);
        accessFails(WrOpcode.RDMA_READ, bmr.addr() + WIN - 1, key, 2, "a READ starting 1 byte before the window");
    }

    @Test
    void type1WindowEnforcesItsOwnRightsNotTheRegions() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        int key = bind1(mw, WIN, WLEN, AccessFlags.REMOTE_READ);
        WorkCompletion r = remote(WrOpcode.RDMA_READ, 3, bmr.addr() + WIN, key, 64);
        assertEquals(WcStatus.SUCCESS, r.status(), r.toString());
        accessFails(WrOpcode.RDMA_WRITE, bmr.addr() + WIN, key, 64, "a WRITE through a read-only window");
        assertAllBytes(bmem, 0, REGION, (byte) 0, "nothing written");
    }

    @Test
    void atomicsThroughAWindowNeedItsRemoteAtomicRight() {
        require(Feature.ATOMICS);
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        int key = bind1(mw, WIN, WLEN, AccessFlags.REMOTE_ATOMIC);
        bmem.set(ValueLayout.JAVA_LONG, WIN + 64, 40);
        p.a.postSend(new SendWr().wrId(6).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).atomic(bmr.addr() + WIN + 64, key, 2, 0));
        expect(p.sqa, 6, WcStatus.SUCCESS, "FETCH_ADD through a window with REMOTE_ATOMIC");
        assertEquals(40, p.ma.get(ValueLayout.JAVA_LONG, 0), "the original value");
        assertEquals(42, bmem.get(ValueLayout.JAVA_LONG, WIN + 64), "added in the window");
        int k2 = bind1(mw, WIN, WLEN, RW);
        p.a.postSend(new SendWr().wrId(7).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).atomic(bmr.addr() + WIN + 64, k2, 2, 0));
        expect(p.sqa, 7, WcStatus.REM_ACCESS_ERR, "FETCH_ADD through a window without REMOTE_ATOMIC");
        assertEquals(42, bmem.get(ValueLayout.JAVA_LONG, WIN + 64), "unchanged");
    }

    @Test
    void aWindowWithNoRightsGrantsNothing() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        int key = bind1(mw, WIN, WLEN, 0); // rxe binds it: rights are checked at use
        accessFails(WrOpcode.RDMA_READ, bmr.addr() + WIN, key, 8, "a READ through a window without rights");
    }

    @Test
    void rebindingAdvancesTheKeyAndTheOldRkeyStopsWorking() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        int k1 = bind1(mw, WIN, WLEN, RW);
        int k2 = bind1(mw, 0, 4096, RW);
        assertEquals(SendWr.incRkey(k1), k2, "each bind advances the key byte by one");
        writeOk(bmr.addr(), k2, 64, "WRITE through the new binding");
        accessFails(WrOpcode.RDMA_WRITE, bmr.addr() + WIN, k1, 64, "the rkey of the previous binding");
        assertAllBytes(bmem, WIN, WLEN, (byte) 0, "the old window's range");
    }

    @Test
    void keyByteWrapsAfter256Binds() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        int first = mw.rkey();
        int k = first;
        for (int i = 0; i < 256; i++) {
            k = bind1(mw, WIN, WLEN, RW);
        }
        assertEquals(first, k, "256 binds bring the key byte round (ibv_inc_rkey wraps in 8 bits)");
        writeOk(bmr.addr() + WIN, k, 8, "the window still works");
    }

    @Test
    void unbindingAType1WindowWithLengthZero() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        bind1(mw, WIN, WLEN, RW);
        MwBind unbind = new MwBind().wrId(5).sendFlags(SendFlags.SIGNALED); // mr null, addr 0, length 0
        int key = p.b.bindMw(mw, unbind);
        expect(p.sqb, 5, WcStatus.SUCCESS, "zero-length bind");
        accessFails(WrOpcode.RDMA_READ, bmr.addr() + WIN, key, 8, "an unbound window");
    }

    @Test
    void deallocatedWindowIsARemoteAccessError() {
        pair();
        MemoryWindow mw = p.pb.allocMw(MwType.TYPE_1);
        int key = bind1(mw, WIN, WLEN, RW);
        writeOk(bmr.addr() + WIN, key, 8, "before ibv_dealloc_mw");
        mw.close();
        accessFails(WrOpcode.RDMA_WRITE, bmr.addr() + WIN, key, 8, "after ibv_dealloc_mw");
    }

    @Test
    void type1WindowWorksThroughAnyQpOfItsPd() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        int key = bind1(mw, WIN, WLEN, RW);
        QueuePair[] q = secondPair(p.pa, p.pb);
        q[0].postSend(new SendWr().wrId(8).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 64)).rdma(bmr.addr() + WIN, key));
        expect(q[0].sendCq(), 8, WcStatus.SUCCESS, "WRITE through a type 1 window on another QP of its PD");
    }

    @Test
    void ibvBindMwArgumentErrors() {
        pair();
        MemoryWindow t1 = track(p.pb.allocMw(MwType.TYPE_1));
        MemoryWindow t2 = track(p.pb.allocMw(MwType.TYPE_2));
        assertErrno(Errno.EINVAL, () -> p.b.bindMw(t2, bind(1, bmr, bmr.addr(), 64, RW)), "ibv_bind_mw of a type 2 window");
        assertErrno(Errno.EINVAL, () -> p.b.bindMw(t1, bind(1, null, 0, 64, RW)), "no region but a length");
        assertErrno(Errno.EINVAL, () -> p.b.bindMw(t1, bind(1, null, bmr.addr(), 0, RW)), "no region but an address");
        assertErrno(Errno.EINVAL, () -> p.b.bindMw(t1, bind(1, bmr, bmr.addr(), 64, RW | AccessFlags.ZERO_BASED)),
                "a zero-based type 1 window (rxe's provider)");
        ProtectionDomain other = track(cb.allocPd());
        MemoryRegion foreign = track(other.regMr(arena.allocate(4096, 4096), BIND_ACCESS));
        assertErrno(Errno.EPERM, () -> p.b.bindMw(t1, bind(1, foreign, foreign.addr(), 64, RW)),
                "a region of another PD (libibverbs ibv_bind_mw: EPERM)");
        assertErrno(Errno.EINVAL, () -> p.b.bindMw(null, bind(1, bmr, bmr.addr(), 64, RW)), "no window");
        assertCqEmpty(p.sqb, "nothing was posted");
        assertEquals(QpState.RTS, p.b.state());
        bind1(t1, WIN, WLEN, RW); // the QP still binds
    }

    @Test
    void bindOverARegionWithoutMwBindIsMwBindErr() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        p.b.bindMw(mw, bind(3, p.mrb, p.mrb.addr(), 64, RW)); // p.mrb has all rights but MW_BIND
        WorkCompletion c = expect(p.sqb, 3, WcStatus.MW_BIND_ERR, "bind over a region without MW_BIND (C10-73)");
        assertEquals(WcOpcode.BIND_MW, c.opcode());
        awaitState(p.b, QpState.ERR, "a failed bind moves the QP to ERR (rxe)");
    }

    @Test
    void bindBeyondTheRegionIsMwBindErr() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        p.b.bindMw(mw, bind(3, bmr, bmr.addr() + REGION - 4096, 4097, RW));
        expect(p.sqb, 3, WcStatus.MW_BIND_ERR, "a window 1 byte past the region (C10-75)");
        awaitState(p.b, QpState.ERR, "after MW_BIND_ERR");
    }

    @Test
    void bindBeforeTheRegionIsMwBindErr() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        p.b.bindMw(mw, bind(3, bmr, bmr.addr() - 1, 64, RW));
        expect(p.sqb, 3, WcStatus.MW_BIND_ERR, "a window starting before the region (C10-75)");
    }

    @Test
    void writableWindowOverARegionWithoutLocalWriteIsMwBindErr() {
        pair();
        MemoryRegion ro = track(p.pb.regMr(arena.allocate(4096, 4096), AccessFlags.REMOTE_READ | AccessFlags.MW_BIND));
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        p.b.bindMw(mw, bind(4, ro, ro.addr(), 64, AccessFlags.REMOTE_READ));
        expect(p.sqb, 4, WcStatus.SUCCESS, "a read-only window over a region without LOCAL_WRITE");
        p.b.bindMw(mw, bind(5, ro, ro.addr(), 64, AccessFlags.REMOTE_WRITE));
        expect(p.sqb, 5, WcStatus.MW_BIND_ERR, "a writable window over a region without LOCAL_WRITE (C10-74)");
    }

    @Test
    void bindCompletionsComeInOrderWithTheOtherWork() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        // B writes to A, binds, writes again: three completions in post order
        p.b.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mrb, 0, 8192)).rdma(p.mra.addr(), p.mra.rkey()));
        int key = p.b.bindMw(mw, bind(2, bmr, bmr.addr() + WIN, WLEN, RW));
        p.b.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mrb, 0, 8192)).rdma(p.mra.addr(), p.mra.rkey()));
        List<WorkCompletion> cs = pollMany(p.sqb, 3, "WRITE, BIND, WRITE");
        for (int i = 0; i < 3; i++) {
            assertEquals(i + 1, cs.get(i).wrId(), "completion " + i + " in post order");
            assertEquals(WcStatus.SUCCESS, cs.get(i).status());
        }
        assertEquals(WcOpcode.BIND_MW, cs.get(1).opcode());
        writeOk(bmr.addr() + WIN, key, 8, "the window");
    }

    @Test
    void anUnsignaledBindCompletesSilently() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        int key = p.b.bindMw(mw, bind(9, bmr, bmr.addr() + WIN, WLEN, RW).sendFlags(0));
        writeOk(bmr.addr() + WIN, key, 8, "through an unsignaled bind's window");
        assertCqEmpty(p.sqb, "no completion for an unsignaled bind");
    }

    // ------------------------------------------------------------------ type 2

    @Test
    void type2BindWriteLocalInvalidate() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        int key = bind2(mw, WIN, WLEN, RW);
        assertEquals(key, mw.rkey());
        fill(p.ma, 0, 1000, 3);
        writeOk(bmr.addr() + WIN, key, 1000, "WRITE through a type 2 window");
        assertSameBytes(p.ma, 0, bmem, WIN, 1000, "bytes");
        p.b.postSend(new SendWr().wrId(11).opcode(WrOpcode.LOCAL_INV).sendFlags(SendFlags.SIGNALED).invalidateRkey(key));
        WorkCompletion c = expect(p.sqb, 11, WcStatus.SUCCESS, "LOCAL_INV");
        assertEquals(WcOpcode.LOCAL_INV, c.opcode());
        accessFails(WrOpcode.RDMA_WRITE, bmr.addr() + WIN, key, 8, "a WRITE after LOCAL_INV");
    }

    @Test
    void type2RebindNeedsInvalidationFirst() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        int k1 = bind2(mw, WIN, WLEN, RW);
        p.b.postSend(new SendWr().wrId(12).opcode(WrOpcode.LOCAL_INV).sendFlags(SendFlags.SIGNALED).invalidateRkey(k1));
        expect(p.sqb, 12, WcStatus.SUCCESS, "LOCAL_INV");
        int k2 = bind2(mw, 0, 4096, RW);
        assertEquals(SendWr.incRkey(k1), k2);
        writeOk(bmr.addr(), k2, 8, "after rebinding");
        p.b.postSend(bindWr(13, mw, SendWr.incRkey(k2), bmr, bmr.addr(), 64, RW));
        expect(p.sqb, 13, WcStatus.MW_BIND_ERR, "binding a bound type 2 window (o10-37.2.30: not FREE)");
        awaitState(p.b, QpState.ERR, "after MW_BIND_ERR");
    }

    @Test
    void type2ZeroBasedWindowIsAddressedFromZero() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        int key = bind2(mw, WIN, WLEN, RW | AccessFlags.ZERO_BASED);
        fill(p.ma, 0, 256, 5);
        writeOk(100, key, 256, "WRITE at offset 100 of a zero-based window");
        assertSameBytes(p.ma, 0, bmem, WIN + 100, 256, "the bytes land at window start + 100");
        accessFails(WrOpcode.RDMA_WRITE, WLEN - 8, key, 16, "past the zero-based window's length");
    }

    /** rxe binds a type 1 window posted as IBV_WR_BIND_MW too (rxe_bind_mw handles both types). */
    @Test
    void aType1WindowMayAlsoBeBoundWithAWorkRequest() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_1));
        int key = SendWr.incRkey(mw.rkey());
        p.b.postSend(bindWr(25, mw, key, bmr, bmr.addr() + WIN, WLEN, RW));
        expect(p.sqb, 25, WcStatus.SUCCESS, "IBV_WR_BIND_MW of a type 1 window");
        assertEquals(key, mw.rkey());
        writeOk(bmr.addr() + WIN, key, 8, "through it");
    }

    @Test
    void type2BindOfLengthZeroIsMwBindErr() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        p.b.postSend(bindWr(20, mw, SendWr.incRkey(mw.rkey()), bmr, bmr.addr(), 0, RW));
        expect(p.sqb, 20, WcStatus.MW_BIND_ERR, "a type 2 bind of length 0 (o10-37.2.40)");
        awaitState(p.b, QpState.ERR, "after MW_BIND_ERR");
    }

    /** The region must be of the window's PD (C10-72; rxe's kernel does not check it for a type 2 bind, jrdma does). */
    @Test
    void type2BindOverARegionOfAnotherPdIsMwBindErr() {
        pair();
        ProtectionDomain other = track(cb.allocPd());
        MemoryRegion foreign = track(other.regMr(arena.allocate(4096, 4096), BIND_ACCESS));
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        p.b.postSend(bindWr(26, mw, SendWr.incRkey(mw.rkey()), foreign, foreign.addr(), 64, RW));
        expect(p.sqb, 26, WcStatus.MW_BIND_ERR, "a type 2 window over a region of another PD");
    }

    /** A zero-based window's bytes must lie inside the region too (C10-75; rxe checks only the length). */
    @Test
    void zeroBasedWindowOutsideTheRegionIsMwBindErr() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        p.b.postSend(bindWr(23, mw, SendWr.incRkey(mw.rkey()), bmr, bmr.addr() + REGION - 4096, 8192,
                RW | AccessFlags.ZERO_BASED));
        expect(p.sqb, 23, WcStatus.MW_BIND_ERR, "a zero-based window running past the region's end");
    }

    @Test
    void type2BindWithRightsAWindowCannotHaveIsMwBindErr() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        p.b.postSend(bindWr(24, mw, SendWr.incRkey(mw.rkey()), bmr, bmr.addr(), 64, RW | IBV_ACCESS_HUGETLB));
        expect(p.sqb, 24, WcStatus.MW_BIND_ERR, "IBV_ACCESS_HUGETLB: outside RXE_ACCESS_SUPPORTED_MW (rxe: EOPNOTSUPP)");
    }

    @Test
    void type2BindThroughAQpOfAnotherPdIsMwBindErr() {
        pair();
        ProtectionDomain other = track(cb.allocPd());
        QueuePair[] q = secondPair(p.pa, other);
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        q[1].postSend(bindWr(21, mw, SendWr.incRkey(mw.rkey()), bmr, bmr.addr(), 64, RW));
        expect(q[1].sendCq(), 21, WcStatus.MW_BIND_ERR, "a type 2 bind through a QP of another PD (C10-72)");
    }

    @Test
    void postSendBindMwArgumentErrors() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        SendWr withSge = bindWr(22, mw, mw.rkey(), bmr, bmr.addr(), 64, RW).sgList(sge(bmr, 0, 8));
        assertErrno(Errno.EINVAL, () -> p.b.postSend(withSge), "BIND_MW with an SGE (rxe validate_send_wr)");
        assertErrno(Errno.EINVAL, () -> p.b.postSend(bindWr(22, null, 0, bmr, bmr.addr(), 64, RW)), "BIND_MW without a window");
        assertErrno(Errno.EINVAL, () -> p.b.postSend(bindWr(22, mw, 0, null, 0, 64, RW)), "no region but a length");
        assertCqEmpty(p.sqb, "nothing was posted");
    }

    @Test
    void type2WindowIsBoundToTheQpThatBoundIt() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        int key = bind2(mw, WIN, WLEN, RW);
        QueuePair[] q = secondPair(p.pa, p.pb);
        q[0].postSend(new SendWr().wrId(30).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 64)).rdma(bmr.addr() + WIN, key));
        expect(q[0].sendCq(), 30, WcStatus.REM_ACCESS_ERR, "a type 2B window through another QP of its PD");
        assertAllBytes(bmem, 0, REGION, (byte) 0, "nothing written");
        writeOk(bmr.addr() + WIN, key, 64, "the QP that bound it still may");
    }

    // ------------------------------------------------------------------ LOCAL_INV

    @Test
    void localInvalidateOfWhatCannotBeInvalidatedIsLocQpOpErr() {
        for (int which = 0; which < 3; which++) {
            pair();
            MemoryWindow t1 = track(p.pb.allocMw(MwType.TYPE_1));
            int key = switch (which) {
                case 0 -> bind1(t1, WIN, WLEN, RW);         // o10-37.2.26: a type 1 window
                case 1 -> bmr.rkey();                        // a region (rxe: not a fast-register MR)
                default -> ThreadLocalRandom.current().nextInt() | 1; // nothing (almost surely)
            };
            p.b.postSend(new SendWr().wrId(40).opcode(WrOpcode.LOCAL_INV).sendFlags(SendFlags.SIGNALED).invalidateRkey(key));
            WorkCompletion c = expect(p.sqb, 40, WcStatus.LOC_QP_OP_ERR, "LOCAL_INV case " + which);
            assertEquals(WcOpcode.LOCAL_INV, c.opcode());
            awaitState(p.b, QpState.ERR, "LOCAL_INV case " + which);
        }
    }

    @Test
    void localInvalidateOfAFreeType2WindowIsLocQpOpErr() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        p.b.postSend(new SendWr().wrId(41).opcode(WrOpcode.LOCAL_INV).sendFlags(SendFlags.SIGNALED)
                .invalidateRkey(mw.rkey()));
        expect(p.sqb, 41, WcStatus.LOC_QP_OP_ERR, "LOCAL_INV of a window that is not bound");
    }

    // ------------------------------------------------------------------ SEND_WITH_INV

    private WorkCompletion sendWithInv(int rkey, int len) {
        p.b.postRecv(new RecvWr().wrId(50).sgList(sge(p.mrb, 0, 4096)));
        fill(p.ma, 0, len, 9);
        p.a.postSend(new SendWr().wrId(51).opcode(WrOpcode.SEND_WITH_INV).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, len)).invalidateRkey(rkey));
        WorkCompletion s = pollOne(p.sqa, "SEND_WITH_INV at the requester");
        assertEquals(WcOpcode.SEND, s.opcode(), s.toString());
        assertEquals(WcStatus.SUCCESS, s.status(), "the requester's SEND completes (rxe acknowledges it): " + s);
        return pollOne(p.rqb, "SEND_WITH_INV at the responder");
    }

    @Test
    void sendWithInvalidateInvalidatesAType2WindowRemotely() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        int key = bind2(mw, WIN, WLEN, RW);
        writeOk(bmr.addr() + WIN, key, 64, "before the invalidation");
        WorkCompletion r = sendWithInv(key, 3000);
        assertEquals(WcStatus.SUCCESS, r.status(), r.toString());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(3000, r.byteLen());
        assertEquals(WcFlags.WITH_INV, r.wcFlags() & (WcFlags.WITH_INV | WcFlags.WITH_IMM), "IBV_WC_WITH_INV only");
        assertEquals(key, r.invalidatedRkey(), "wc.invalidated_rkey");
        assertSameBytes(p.ma, 0, p.mb, 0, 3000, "the SEND's payload (over three packets: First, Middle, Last with Invalidate)");
        accessFails(WrOpcode.RDMA_WRITE, bmr.addr() + WIN, key, 8, "a WRITE after the remote invalidation");
    }

    @Test
    void theWindowCanBeBoundAgainAfterRemoteInvalidation() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        int key = bind2(mw, WIN, WLEN, RW);
        assertEquals(WcStatus.SUCCESS, sendWithInv(key, 16).status());
        int k2 = bind2(mw, WIN, WLEN, RW);
        writeOk(bmr.addr() + WIN, k2, 8, "through the rebound window");
    }

    /**
     * A SEND with Invalidate whose key cannot be invalidated (rxe class J): the data is placed, the
     * receive completes with REM_INV_REQ_ERR, the request is acknowledged (the SEND completes at the
     * requester) and the responder's QP moves to ERR. Nothing is invalidated.
     */
    @Test
    void sendWithInvalidateOfWhatCannotBeInvalidatedIsRemInvReqErr() {
        for (int which = 0; which < 4; which++) {
            pair();
            MemoryWindow t1 = track(p.pb.allocMw(MwType.TYPE_1));
            int key = switch (which) {
                case 0 -> bmr.rkey();          // a region's rkey: regions cannot be invalidated
                case 1 -> bind1(t1, WIN, WLEN, RW); // a type 1 window (o10-37.2.26)
                case 2 -> track(p.pb.allocMw(MwType.TYPE_2)).rkey(); // a type 2 window not bound
                default -> ThreadLocalRandom.current().nextInt() | 1; // an unknown key
            };
            WorkCompletion r = sendWithInv(key, 64);
            assertEquals(WcStatus.REM_INV_REQ_ERR, r.status(), "case " + which + ": " + r);
            awaitState(p.b, QpState.ERR, "case " + which + ": the responder");
            if (which == 1) {
                assertEquals(key, t1.rkey());
            }
        }
    }

    @Test
    void sendWithInvalidateFromAnotherQpOrPdLeavesTheWindowAlone() {
        pair();
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        int key = bind2(mw, WIN, WLEN, RW);
        // another QP of the window's PD (IBTA type 2B: only the QP it is bound to may invalidate; rxe does not check)
        QueuePair[] q = secondPair(p.pa, p.pb);
        // and a QP of another PD on B (IBTA: the PDs must match; rxe does not check)
        QueuePair[] r = secondPair(p.pa, track(cb.allocPd()));
        for (QueuePair[] x : new QueuePair[][] {q, r}) {
            MemoryRegion rmr = track(x[1].pd().regMr(arena.allocate(4096, 4096), AccessFlags.LOCAL_WRITE));
            x[1].postRecv(new RecvWr().wrId(60).sgList(sge(rmr, 0, 4096)));
            x[0].postSend(new SendWr().wrId(61).opcode(WrOpcode.SEND_WITH_INV).sendFlags(SendFlags.SIGNALED)
                    .sgList(sge(p.mra, 0, 32)).invalidateRkey(key));
            expect(x[1].recvCq(), 60, WcStatus.REM_INV_REQ_ERR, "SEND_WITH_INV from a QP the window is not bound to");
        }
        writeOk(bmr.addr() + WIN, key, 64, "the window is still bound");
    }

    @Test
    void sendWithInvalidateIsRcOnly() {
        require(Feature.UC);
        p = connect(conn().type(QpType.UC));
        assertErrno(Errno.EINVAL, () -> p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_INV)
                .sgList(sge(p.mra, 0, 8)).invalidateRkey(1)), "SEND_WITH_INV on UC (IBTA: RC only)");
    }

    // ------------------------------------------------------------------ binds racing traffic

    /**
     * B rebinds a window over and over, alternating a writable range R1 with a read-only range R2 and
     * (type 2) invalidating between binds, while A writes through whatever key and range it last heard
     * of. UC, so that a refused WRITE is dropped (IBTA class D/E) and the QPs live on. Afterwards no byte
     * outside R1 was written: no access ever reached memory outside the live window's range and rights.
     */
    @Test
    void bindsAndInvalidationsRacingWritesNeverReachOutsideTheLiveWindow() throws Exception {
        require(Feature.UC);
        for (MwType type : MwType.values()) {
            p = connect(conn().type(QpType.UC).depth(512, 16));
            bmem = arena.allocate(REGION, 4096);
            bmr = track(p.pb.regMr(bmem, BIND_ACCESS));
            MemoryWindow mw = track(p.pb.allocMw(type));
            long r1 = 8192, r2 = 32768, len = 8192;
            fill(p.ma, 0, 4096, 11);
            AtomicReference<long[]> live = new AtomicReference<>(new long[] {bmr.addr() + r1, 0});
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
              try {
                WorkCompletion[] wc = {new WorkCompletion()};
                SendWr w = new SendWr().opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 4096));
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                long posted = 0, done = 0;
                while (!stop.get()) {
                    long[] l = live.get();
                    long va = rnd.nextInt(4) == 0 ? bmr.addr() + r2 : l[0]; // sometimes the read-only range
                    if (posted - done < 256) {
                        p.a.postSend(w.wrId(posted++).rdma(va + rnd.nextInt(4096), (int) l[1]));
                    }
                    done += p.sqa.poll(wc);
                }
              } catch (Throwable t) {
                failure.set(t);
              }
            });
            try {
                MwBind b = new MwBind().wrId(1);
                for (int i = 0; i < 300; i++) {
                    boolean writable = (i & 1) == 0;
                    long off = writable ? r1 : r2;
                    int access = writable ? AccessFlags.REMOTE_WRITE : AccessFlags.REMOTE_READ;
                    int key;
                    if (type == MwType.TYPE_1) {
                        b.bindInfo().set(bmr, bmr.addr() + off, len, access);
                        key = p.b.bindMw(mw, b);
                    } else {
                        key = SendWr.incRkey(mw.rkey());
                        p.b.postSend(bindWr(2, mw, key, bmr, bmr.addr() + off, len, access).sendFlags(0));
                    }
                    live.set(new long[] {bmr.addr() + off, key});
                    pause(2); // no poll here: a thread polling B's CQ would take B's receiving over and then sleep
                    if (type == MwType.TYPE_2) {
                        p.b.postSend(new SendWr().wrId(3).opcode(WrOpcode.LOCAL_INV).invalidateRkey(key));
                    }
                }
            } finally {
                stop.set(true);
                writer.join(LIVENESS_NS / 1_000_000);
            }
            pause(50);
            drainOk(p.sqb); // unsignaled: only an error would complete
            if (failure.get() != null) {
                throw new AssertionError("the writer failed", failure.get());
            }
            assertEquals(QpState.RTS, p.b.state(), type + ": every bind and invalidation succeeded");
            assertEquals(QpState.RTS, p.a.state(), type + ": refused UC WRITEs are dropped, the requester lives on");
            assertTrue(bmem.asSlice(r1, len).mismatch(arena.allocate(len)) >= 0,
                    type + ": some WRITEs went through the live window (the race was exercised)");
            assertAllBytes(bmem, 0, r1, (byte) 0, type + ": below R1");
            assertAllBytes(bmem, r1 + len, REGION - r1 - len, (byte) 0, type + ": R2 (read-only) and beyond");
        }
    }

    private static void drainOk(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        while (cq.poll(wc) > 0) {
            assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0].toString());
        }
    }

    // ------------------------------------------------------------------ helpers

    /**
     * A second RC connection from a QP of {@code pdA} on A to a QP of {@code pdB} on B, each with its
     * own CQ: {@code {qpA, qpB}}.
     */
    private QueuePair[] secondPair(ProtectionDomain pdA, ProtectionDomain pdB) {
        Conn c = conn();
        CompletionQueue cqa = track(ca.createCq(64, null)), cqb = track(cb.createCq(64, null));
        QueuePair qa = track(pdA.createQp(initAttr(cqa, cqa, c)));
        QueuePair qb = track(pdB.createQp(initAttr(cqb, cqb, c)));
        Gid ga = ca.queryGid(fixture().portNum(), fixture().gidIndex());
        Gid gb = cb.queryGid(fixture().portNum(), fixture().gidIndex());
        toInit(qa, QpType.RC, QP_ALL_REMOTE);
        toInit(qb, QpType.RC, QP_ALL_REMOTE);
        toRtr(qa, c, qb.qpNum(), gb, 0x3000);
        toRtr(qb, c, qa.qpNum(), ga, 0x4000);
        toRts(qa, c, 0x4000);
        toRts(qb, c, 0x3000);
        return new QueuePair[] {qa, qb};
    }
}
