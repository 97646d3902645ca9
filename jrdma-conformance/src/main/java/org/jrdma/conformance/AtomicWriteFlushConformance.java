package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.QpEx;
import org.jrdma.verbs.QpInitAttrEx;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendOpsFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * {@code IBV_WR_ATOMIC_WRITE} and {@code IBV_WR_FLUSH} (IBTA Vol 1 Annex A19, "Memory Placement
 * Extensions"; rxe's semantics, Linux 6.2+), through {@code ibv_post_send} and the
 * {@code ibv_wr_atomic_write}/{@code ibv_wr_flush} builders: an ATOMIC WRITE places its 8 bytes
 * and completes with {@code IBV_WC_ATOMIC_WRITE}, byte_len 8; a FLUSH of a range or of the whole
 * region completes with {@code IBV_WC_FLUSH} after the writes before it; the responder refuses what
 * the QP does not enable (REMOTE_WRITE, FLUSH_GLOBAL / FLUSH_PERSISTENT in qp_access_flags: the
 * requester sees REM_INV_REQ_ERR), what the region does not grant or hold (REM_ACCESS_ERR) and a
 * misaligned ATOMIC WRITE (REM_INV_REQ_ERR); the post checks (no SGEs, no inline, a known flush type
 * and level, RC only: EINVAL) and the registration rule for FLUSH_PERSISTENT (persistent memory only).
 */
public abstract class AtomicWriteFlushConformance extends ConformanceBase {
    private static final int FLUSH_QP = QP_ALL_REMOTE | AccessFlags.FLUSH_GLOBAL | AccessFlags.FLUSH_PERSISTENT;

    private static SendWr atomicWrite(long wrId, MemoryRegion mr, long off, long value) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_WRITE).sendFlags(SendFlags.SIGNALED)
                .atomicWrite(mr.addr() + off, mr.rkey(), value);
    }

    private static SendWr flush(long wrId, MemoryRegion mr, long off, long len, int type, int level) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.FLUSH).sendFlags(SendFlags.SIGNALED)
                .flush(mr.addr() + off, mr.rkey(), len, type, level);
    }

    @Test
    void anAtomicWritePlacesItsEightBytes() {
        require(Feature.ATOMIC_WRITE);
        Pair p = connect(conn());
        p.mb.set(ValueLayout.JAVA_LONG, 64, -1);
        p.a.postSend(atomicWrite(1, p.mrb, 64, 0x1122_3344_5566_7788L));
        WorkCompletion wc = expect(p.sqa, 1, WcStatus.SUCCESS, "ATOMIC_WRITE");
        assertEquals(WcOpcode.ATOMIC_WRITE, wc.opcode());
        assertEquals(8, wc.byteLen());
        assertEquals(0x1122_3344_5566_7788L, p.mb.get(ValueLayout.JAVA_LONG, 64), "the value, as the host holds it");
        assertEquals(0, p.mb.get(ValueLayout.JAVA_LONG, 72), "nothing beyond the 8 bytes");
        assertEquals(0, p.mb.get(ValueLayout.JAVA_LONG, 56), "nothing before them");
    }

    @Test
    void theBuildersPostAtomicWriteAndFlush() {
        require(Feature.ATOMIC_WRITE);
        require(Feature.FLUSH);
        require(Feature.EXTENDED_API);
        Pair p = connect(conn().access(FLUSH_QP, FLUSH_QP));
        MemoryRegion flushable = track(p.pb.regMr(p.mb, ALL_ACCESS | AccessFlags.FLUSH_GLOBAL));
        QpInitAttrEx ax = new QpInitAttrEx().sendOpsFlags(SendOpsFlags.WITH_ATOMIC_WRITE | SendOpsFlags.WITH_FLUSH
                | SendOpsFlags.WITH_RDMA_WRITE);
        ax.attr().sendCq(p.sqa).recvCq(p.rqa).qpType(QpType.RC).cap().maxSendWr(16).maxRecvWr(1).maxSendSge(1);
        QpEx x = p.pa.createQpEx(ax);
        track(x.qp());
        // connect the extended QP to a second QP of B
        org.jrdma.verbs.QueuePair b2 = track(p.pb.createQp(initAttr(p.sqb, p.rqb, conn())));
        Conn c = conn();
        toInit(x.qp(), QpType.RC, FLUSH_QP);
        toInit(b2, QpType.RC, FLUSH_QP);
        toRtr(x.qp(), c, b2.qpNum(), cb.queryGid(fixture().portNum(), fixture().gidIndex()), 7);
        toRtr(b2, c, x.qp().qpNum(), ca.queryGid(fixture().portNum(), fixture().gidIndex()), 9);
        toRts(x.qp(), c, 9);
        toRts(b2, c, 7);
        fill(p.ma, 0, 512, 4);
        x.wrStart();
        x.wrId(1).wrFlags(0);
        x.wrRdmaWrite(flushable.rkey(), flushable.addr() + 1024);
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), 512);
        x.wrId(2).wrFlags(SendFlags.SIGNALED);
        x.wrAtomicWrite(flushable.rkey(), flushable.addr() + 2048, 0x0bad_cafeL);
        x.wrId(3);
        x.wrFlush(flushable.rkey(), flushable.addr() + 1024, 512, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_RANGE);
        x.wrComplete();
        assertEquals(WcOpcode.ATOMIC_WRITE, expect(p.sqa, 2, WcStatus.SUCCESS, "wr_atomic_write").opcode());
        WorkCompletion f = expect(p.sqa, 3, WcStatus.SUCCESS, "wr_flush");
        assertEquals(WcOpcode.FLUSH, f.opcode());
        assertSameBytes(p.ma, 0, p.mb, 1024, 512, "the write the FLUSH made visible");
        assertEquals(0x0bad_cafeL, p.mb.get(ValueLayout.JAVA_LONG, 2048));
    }

    @Test
    void aMisalignedAtomicWriteIsAnInvalidRequest() {
        require(Feature.ATOMIC_WRITE);
        Pair p = connect(conn());
        p.a.postSend(atomicWrite(1, p.mrb, 4, 7));
        expect(p.sqa, 1, WcStatus.REM_INV_REQ_ERR, "ATOMIC_WRITE at an address not 8-byte aligned");
        awaitState(p.a, QpState.ERR, "the requester after the NAK");
        assertEquals(0, p.mb.get(ValueLayout.JAVA_LONG, 0), "nothing written");
        assertEquals(0, p.mb.get(ValueLayout.JAVA_LONG, 8), "nothing written");
    }

    @Test
    void anAtomicWriteNeedsRemoteWriteOfTheRegionAndTheQp() {
        require(Feature.ATOMIC_WRITE);
        Pair p = connect(conn());
        MemoryRegion readOnly = track(p.pb.regMr(p.mb, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ));
        p.a.postSend(atomicWrite(1, readOnly, 0, 7));
        expect(p.sqa, 1, WcStatus.REM_ACCESS_ERR, "a region without REMOTE_WRITE");
        Pair q = connect(conn().access(QP_ALL_REMOTE, AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC));
        q.a.postSend(atomicWrite(2, q.mrb, 0, 7));
        expect(q.sqa, 2, WcStatus.REM_INV_REQ_ERR, "a QP without REMOTE_WRITE (an invalid request, as rxe)");
        Pair r = connect(conn());
        r.a.postSend(atomicWrite(3, r.mrb, r.mb.byteSize(), 7));
        expect(r.sqa, 3, WcStatus.REM_ACCESS_ERR, "8 bytes past the region's end");
        assertEquals(0, p.mb.get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    void postingChecksAtomicWriteAndFlush() {
        require(Feature.ATOMIC_WRITE);
        require(Feature.FLUSH);
        Pair p = connect(conn().maxInline(16));
        assertErrno(Errno.EINVAL, () -> p.a.postSend(atomicWrite(1, p.mrb, 0, 1).sgList(sge(p.mra, 0, 8))),
                "ATOMIC_WRITE with an SGE");
        assertErrno(Errno.EINVAL, () -> p.a.postSend(atomicWrite(1, p.mrb, 0, 1).sendFlags(SendFlags.INLINE)),
                "ATOMIC_WRITE inline");
        assertErrno(Errno.EINVAL, () -> p.a.postSend(flush(1, p.mrb, 0, 8, 0, SendWr.FLUSH_RANGE)), "flush type 0");
        assertErrno(Errno.EINVAL, () -> p.a.postSend(flush(1, p.mrb, 0, 8, 4, SendWr.FLUSH_RANGE)), "flush type 4");
        assertErrno(Errno.EINVAL, () -> p.a.postSend(flush(1, p.mrb, 0, 8, SendWr.FLUSH_GLOBAL, 2)), "flush level 2");
        assertErrno(Errno.EINVAL, () -> p.a.postSend(flush(1, p.mrb, 0, (1L << 31) + 1, SendWr.FLUSH_GLOBAL,
                SendWr.FLUSH_RANGE)), "a flush longer than 2^31");
        assertErrno(Errno.EINVAL, () -> p.a.postSend(flush(1, p.mrb, 0, 8, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_RANGE)
                .sgList(sge(p.mra, 0, 8))), "FLUSH with an SGE");
        pause(50);
        assertCqEmpty(p.sqa, "nothing was posted");
        assertEquals(QpState.RTS, p.a.state());
    }

    @Test
    void atomicWriteAndFlushAreRcOnly() {
        require(Feature.ATOMIC_WRITE);
        require(Feature.FLUSH);
        require(Feature.UC);
        Pair p = connect(conn().type(QpType.UC));
        assertErrno(Errno.EINVAL, () -> p.a.postSend(atomicWrite(1, p.mrb, 0, 1)), "ATOMIC_WRITE on UC");
        assertErrno(Errno.EINVAL, () -> p.a.postSend(flush(1, p.mrb, 0, 8, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_RANGE)),
                "FLUSH on UC");
    }

    @Test
    void aGlobalFlushOfARangeOrOfTheRegionCompletesAfterTheWritesBeforeIt() {
        require(Feature.FLUSH);
        Pair p = connect(conn().access(FLUSH_QP, FLUSH_QP));
        MemoryRegion flushable = track(p.pb.regMr(p.mb, ALL_ACCESS | AccessFlags.FLUSH_GLOBAL));
        fill(p.ma, 0, 8192, 9);
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sgList(sge(p.mra, 0, 8192))
                .rdma(flushable.addr(), flushable.rkey()));
        p.a.postSend(flush(2, flushable, 0, 8192, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_RANGE));
        WorkCompletion wc = expect(p.sqa, 2, WcStatus.SUCCESS, "FLUSH of the range");
        assertEquals(WcOpcode.FLUSH, wc.opcode());
        assertEquals(8192, wc.byteLen(), "rxe reports the range");
        assertSameBytes(p.ma, 0, p.mb, 0, 8192, "the write before the FLUSH");
        p.a.postSend(flush(3, flushable, 12345, 0, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_MR)); // VA and length not looked at
        assertEquals(WcOpcode.FLUSH, expect(p.sqa, 3, WcStatus.SUCCESS, "FLUSH of the whole region").opcode());
        p.a.postSend(flush(4, flushable, 100, 0, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_RANGE));
        expect(p.sqa, 4, WcStatus.SUCCESS, "a FLUSH of no bytes inside the region");
        assertEquals(QpState.RTS, p.a.state());
    }

    @Test
    void aFlushNeedsItsPlacementTypeOnTheQpAndTheRegion() {
        require(Feature.FLUSH);
        Pair p = connect(conn().access(FLUSH_QP, FLUSH_QP));
        p.a.postSend(flush(1, p.mrb, 0, 64, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_RANGE));
        expect(p.sqa, 1, WcStatus.REM_ACCESS_ERR, "a region without FLUSH_GLOBAL");
        Pair q = connect(conn().access(FLUSH_QP, QP_ALL_REMOTE));
        MemoryRegion flushable = track(q.pb.regMr(q.mb, ALL_ACCESS | AccessFlags.FLUSH_GLOBAL));
        q.a.postSend(flush(2, flushable, 0, 64, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_RANGE));
        expect(q.sqa, 2, WcStatus.REM_INV_REQ_ERR, "a QP without FLUSH_GLOBAL (an invalid request, as rxe)");
        Pair r = connect(conn().access(FLUSH_QP, FLUSH_QP));
        MemoryRegion global = track(r.pb.regMr(r.mb, ALL_ACCESS | AccessFlags.FLUSH_GLOBAL));
        r.a.postSend(flush(3, global, r.mb.byteSize() - 8, 64, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_RANGE));
        expect(r.sqa, 3, WcStatus.REM_ACCESS_ERR, "a range past the region's end");
        Pair s = connect(conn().access(FLUSH_QP, FLUSH_QP));
        MemoryRegion onlyGlobal = track(s.pb.regMr(s.mb, ALL_ACCESS | AccessFlags.FLUSH_GLOBAL));
        s.a.postSend(flush(4, onlyGlobal, 0, 64, SendWr.FLUSH_PERSISTENT, SendWr.FLUSH_RANGE));
        expect(s.sqa, 4, WcStatus.REM_ACCESS_ERR, "a PERSISTENT flush of a region without FLUSH_PERSISTENT");
    }

    @Test
    void persistentFlushesNeedPersistentMemory() throws IOException {
        require(Feature.FLUSH);
        Pair p = connect(conn().access(FLUSH_QP, FLUSH_QP));
        assertErrno(Errno.EINVAL, () -> p.pb.regMr(arena.allocate(4096, 4096), AccessFlags.LOCAL_WRITE
                | AccessFlags.REMOTE_WRITE | AccessFlags.FLUSH_PERSISTENT), "FLUSH_PERSISTENT on memory that is not persistent");
        Path file = Files.createTempFile("jrdma-flush", ".bin");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment pmem = ch.map(FileChannel.MapMode.READ_WRITE, 0, 8192, arena);
            MemoryRegion mr = track(p.pb.regMr(pmem, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE
                    | AccessFlags.FLUSH_GLOBAL | AccessFlags.FLUSH_PERSISTENT));
            fill(p.ma, 0, 4096, 17);
            p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sgList(sge(p.mra, 0, 4096))
                    .rdma(mr.addr() + 4096, mr.rkey()));
            p.a.postSend(flush(2, mr, 4096, 4096, SendWr.FLUSH_PERSISTENT | SendWr.FLUSH_GLOBAL, SendWr.FLUSH_RANGE));
            expect(p.sqa, 2, WcStatus.SUCCESS, "a PERSISTENT flush of file-backed memory");
            p.a.postSend(flush(3, mr, 0, 0, SendWr.FLUSH_PERSISTENT, SendWr.FLUSH_MR));
            expect(p.sqa, 3, WcStatus.SUCCESS, "a PERSISTENT flush of the whole region");
            ByteBuffer onDisk = ByteBuffer.allocate(4096);
            ch.read(onDisk, 4096);
            assertSameBytes(p.ma, 0, MemorySegment.ofArray(onDisk.array()), 0, 4096, "the file after the flush");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    // ------------------------------------------------------------------ through memory windows

    /** Binds type 2 {@code mw} over [4096, 8192) of {@code mr} through B's QP with {@code rights}; the new rkey. */
    private static int bindWindow(Pair p, org.jrdma.verbs.MemoryWindow mw, MemoryRegion mr, int rights) {
        int key = SendWr.incRkey(mw.rkey());
        p.b.postSend(new SendWr().wrId(90).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                .bindMw(mw, key, new org.jrdma.verbs.MwBindInfo().set(mr, mr.addr() + 4096, 4096, rights)));
        expect(p.sqb, 90, WcStatus.SUCCESS, "B binds the window");
        return key;
    }

    /**
     * An rkey of a bound window serves ATOMIC WRITE and FLUSH as a region's does (rxe resolves both
     * through {@code check_rkey}, windows included, and lets a bind grant the FLUSH rights): the 8
     * bytes land inside the window, a FLUSH of a range in it and of level MR complete, and an ATOMIC
     * WRITE before the window's first byte is REM_ACCESS_ERR.
     */
    @Test
    void atomicWriteAndFlushWorkThroughAMemoryWindow() {
        require(Feature.ATOMIC_WRITE);
        require(Feature.FLUSH);
        require(Feature.MEMORY_WINDOWS);
        Pair p = connect(conn().access(FLUSH_QP, FLUSH_QP));
        MemoryRegion bindable = track(p.pb.regMr(p.mb, ALL_ACCESS | AccessFlags.MW_BIND | AccessFlags.FLUSH_GLOBAL));
        org.jrdma.verbs.MemoryWindow mw = track(p.pb.allocMw(org.jrdma.verbs.MwType.TYPE_2));
        int key = bindWindow(p, mw, bindable, AccessFlags.REMOTE_WRITE | AccessFlags.FLUSH_GLOBAL);
        long win = bindable.addr() + 4096;
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.ATOMIC_WRITE).sendFlags(SendFlags.SIGNALED)
                .atomicWrite(win + 64, key, 0x5566_7788L));
        assertEquals(WcOpcode.ATOMIC_WRITE, expect(p.sqa, 1, WcStatus.SUCCESS, "ATOMIC_WRITE through the window").opcode());
        assertEquals(0x5566_7788L, p.mb.get(ValueLayout.JAVA_LONG, 4096 + 64), "the 8 bytes, inside the window");
        p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.FLUSH).sendFlags(SendFlags.SIGNALED)
                .flush(win, key, 4096, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_RANGE));
        assertEquals(WcOpcode.FLUSH, expect(p.sqa, 2, WcStatus.SUCCESS, "FLUSH of the window's range").opcode());
        p.a.postSend(new SendWr().wrId(3).opcode(WrOpcode.FLUSH).sendFlags(SendFlags.SIGNALED)
                .flush(0, key, 0, SendWr.FLUSH_GLOBAL, SendWr.FLUSH_MR));
        assertEquals(WcOpcode.FLUSH, expect(p.sqa, 3, WcStatus.SUCCESS, "FLUSH of level MR through the window").opcode());
        p.a.postSend(new SendWr().wrId(4).opcode(WrOpcode.ATOMIC_WRITE).sendFlags(SendFlags.SIGNALED)
                .atomicWrite(win - 8, key, 1));
        expect(p.sqa, 4, WcStatus.REM_ACCESS_ERR, "ATOMIC_WRITE before the window's first byte");
        assertEquals(0, p.mb.get(ValueLayout.JAVA_LONG, 4096 - 8), "nothing written outside the window");
    }

    /**
     * A window may grant FLUSH_PERSISTENT over any region (a bind does not look at the region's FLUSH
     * rights, as rxe), but a persistent flush still needs persistent memory: over memory that is not
     * file-backed it is REM_ACCESS_ERR (as the FLUSH_PERSISTENT registration rule).
     */
    @Test
    void aPersistentFlushThroughAWindowNeedsPersistentMemory() {
        require(Feature.FLUSH);
        require(Feature.MEMORY_WINDOWS);
        Pair p = connect(conn().access(FLUSH_QP, FLUSH_QP));
        MemoryRegion bindable = track(p.pb.regMr(p.mb, ALL_ACCESS | AccessFlags.MW_BIND | AccessFlags.FLUSH_GLOBAL));
        org.jrdma.verbs.MemoryWindow mw = track(p.pb.allocMw(org.jrdma.verbs.MwType.TYPE_2));
        int key = bindWindow(p, mw, bindable, AccessFlags.REMOTE_WRITE | AccessFlags.FLUSH_PERSISTENT);
        p.a.postSend(new SendWr().wrId(5).opcode(WrOpcode.FLUSH).sendFlags(SendFlags.SIGNALED)
                .flush(bindable.addr() + 4096, key, 64, SendWr.FLUSH_PERSISTENT, SendWr.FLUSH_RANGE));
        expect(p.sqa, 5, WcStatus.REM_ACCESS_ERR, "a persistent FLUSH of memory that is not file-backed");
    }
}
