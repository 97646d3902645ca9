package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicReference;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.MemoryWindow;
import org.jrdma.verbs.MwBindInfo;
import org.jrdma.verbs.MwType;
import org.jrdma.verbs.QpEx;
import org.jrdma.verbs.QpInitAttrEx;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendOpsFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code ibv_create_qp_ex(3)} and the {@code ibv_wr_*} builders ({@code ibv_wr_post(3)}): the
 * attribute checks (rxe's {@code check_qp_init_attr}: EINVAL without a PD, EOPNOTSUPP for
 * create_flags, XRC/RSS/TSO comp_mask bits and send_ops_flags the QP type lacks), a batch posts
 * nothing before {@code wr_complete} and all of it then, {@code wr_abort} discards it, every
 * builder and setter posts what its {@code ibv_post_send} twin posts, and the errors a batch
 * collects come out of {@code wr_complete} with their errno, with nothing of the batch posted.
 */
public abstract class ExtendedQpConformance extends ConformanceBase {
    /** Every operation an RC QP of the software providers may select. */
    protected static final int RC_OPS = SendOpsFlags.WITH_RDMA_WRITE | SendOpsFlags.WITH_RDMA_WRITE_WITH_IMM
            | SendOpsFlags.WITH_SEND | SendOpsFlags.WITH_SEND_WITH_IMM | SendOpsFlags.WITH_RDMA_READ
            | SendOpsFlags.WITH_ATOMIC_CMP_AND_SWP | SendOpsFlags.WITH_ATOMIC_FETCH_AND_ADD;

    /** A connected pair whose A side is a QP of the extended API with {@code ops}. */
    protected final ExPair connectEx(Conn c, int ops) {
        ExPair p = new ExPair();
        p.pa = track(ca.allocPd());
        p.pb = track(cb.allocPd());
        p.sqa = track(ca.createCq(c.cqe, null));
        p.rqa = track(ca.createCq(c.cqe, null));
        p.sqb = track(cb.createCq(c.cqe, null));
        p.rqb = track(cb.createCq(c.cqe, null));
        QpInitAttrEx ax = new QpInitAttrEx().sendOpsFlags(ops);
        ax.attr().sendCq(p.sqa).recvCq(p.rqa).qpType(c.type).sqSigAll(c.sqSigAll);
        ax.attr().cap().maxSendWr(c.maxSendWr).maxRecvWr(c.maxRecvWr).maxSendSge(c.maxSge).maxRecvSge(c.maxSge)
                .maxInlineData(c.maxInline);
        p.ax = p.pa.createQpEx(ax);
        p.a = track(p.ax.qp());
        p.b = track(p.pb.createQp(initAttr(p.sqb, p.rqb, c)));
        p.ma = arena.allocate(c.memBytes, 4096);
        p.mb = arena.allocate(c.memBytes, 4096);
        p.mra = track(p.pa.regMr(p.ma, ALL_ACCESS));
        p.mrb = track(p.pb.regMr(p.mb, ALL_ACCESS));
        Gid ga = ca.queryGid(fixture().portNum(), fixture().gidIndex());
        Gid gb = cb.queryGid(fixture().portNum(), fixture().gidIndex());
        toInit(p.a, c.type, c.accessA);
        toInit(p.b, c.type, c.accessB);
        toRtr(p.a, c, p.b.qpNum(), gb, 0x1000);
        toRtr(p.b, c, p.a.qpNum(), ga, 0x2000);
        toRts(p.a, c, 0x2000);
        toRts(p.b, c, 0x1000);
        return p;
    }

    /** {@link Pair} with the extended view of A. */
    public static final class ExPair {
        public org.jrdma.verbs.ProtectionDomain pa, pb;
        public org.jrdma.verbs.CompletionQueue sqa, rqa, sqb, rqb;
        public QpEx ax;
        public org.jrdma.verbs.QueuePair a, b;
        public MemorySegment ma, mb;
        public org.jrdma.verbs.MemoryRegion mra, mrb;
    }

    private QpInitAttrEx rcAttr(org.jrdma.verbs.ProtectionDomain pd, int ops) {
        org.jrdma.verbs.CompletionQueue cq = track(ca.createCq(16, null));
        QpInitAttrEx ax = new QpInitAttrEx().pd(pd).sendOpsFlags(ops);
        ax.attr().sendCq(cq).recvCq(cq).qpType(QpType.RC).cap().maxSendWr(8).maxRecvWr(8);
        return ax;
    }

    @Test
    void createQpExChecksItsAttributes() {
        require(Feature.EXTENDED_API);
        org.jrdma.verbs.ProtectionDomain pd = track(ca.allocPd());
        org.jrdma.verbs.ProtectionDomain other = track(cb.allocPd());
        QpInitAttrEx noPd = rcAttr(pd, RC_OPS).compMask(QpInitAttrEx.MASK_SEND_OPS_FLAGS);
        assertErrno(Errno.EINVAL, () -> ca.createQpEx(noPd), "no IBV_QP_INIT_ATTR_PD");
        assertErrno(Errno.EINVAL, () -> ca.createQpEx(rcAttr(other, RC_OPS)), "a PD of another context");
        assertErrno(Errno.EOPNOTSUPP, () -> ca.createQpEx(rcAttr(pd, RC_OPS).createFlags(1)), "create_flags");
        QpInitAttrEx xrc = rcAttr(pd, RC_OPS);
        xrc.compMask(xrc.compMask() | QpInitAttrEx.MASK_XRCD);
        assertErrno(Errno.EOPNOTSUPP, () -> ca.createQpEx(xrc), "comp_mask XRCD");
        assertErrno(Errno.EOPNOTSUPP, () -> pd.createQpEx(rcAttr(pd, SendOpsFlags.WITH_TSO)), "TSO on RC");
        QpInitAttrEx uc = rcAttr(pd, SendOpsFlags.WITH_RDMA_READ);
        uc.attr().qpType(QpType.UC);
        assertErrno(Errno.EOPNOTSUPP, () -> pd.createQpEx(uc), "READ on UC (rxe's UC send ops)");
        QpInitAttrEx ucInv = rcAttr(pd, SendOpsFlags.WITH_SEND_WITH_INV);
        ucInv.attr().qpType(QpType.UC);
        assertErrno(Errno.EOPNOTSUPP, () -> pd.createQpEx(ucInv),
                "SEND_WITH_INV on UC (IBTA has no UC SEND with Invalidate opcode; postSend refuses it too)");
        QpEx ok = pd.createQpEx(rcAttr(pd, RC_OPS));
        track(ok.qp());
        assertEquals(RC_OPS, ok.sendOpsFlags());
        assertEquals(QpType.RC, ok.qp().qpType());
        assertEquals(QpState.RESET, ok.qp().state());
        assertSame(pd, ok.qp().pd());
    }

    @Test
    void aBatchPostsNothingBeforeWrCompleteThenAllOfItInOrder() {
        require(Feature.EXTENDED_API);
        ExPair p = connectEx(conn(), RC_OPS);
        fill(p.ma, 0, 3 * 256, 7);
        QpEx x = p.ax;
        x.wrStart();
        for (int i = 0; i < 3; i++) {
            x.wrId(100 + i).wrFlags(SendFlags.SIGNALED);
            x.wrRdmaWrite(p.mrb.rkey(), p.mrb.addr() + i * 256L);
            x.wrSetSge(p.mra.lkey(), p.mra.addr() + i * 256L, 256);
        }
        pause(100);
        assertCqEmpty(p.sqa, "before wr_complete");
        assertAllBytes(p.mb, 0, 3 * 256, (byte) 0, "the responder's memory before wr_complete");
        x.wrComplete();
        for (int i = 0; i < 3; i++) {
            WorkCompletion wc = expect(p.sqa, 100 + i, WcStatus.SUCCESS, "write " + i);
            assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
        }
        assertSameBytes(p.ma, 0, p.mb, 0, 3 * 256, "the three writes");
    }

    @Test
    void wrAbortDiscardsTheBatch() {
        require(Feature.EXTENDED_API);
        ExPair p = connectEx(conn(), RC_OPS);
        fill(p.ma, 0, 64, 3);
        QpEx x = p.ax;
        x.wrStart();
        x.wrId(1).wrFlags(SendFlags.SIGNALED);
        x.wrRdmaWrite(p.mrb.rkey(), p.mrb.addr());
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), 64);
        x.wrAbort();
        pause(100);
        assertCqEmpty(p.sqa, "an aborted batch");
        assertAllBytes(p.mb, 0, 64, (byte) 0, "an aborted write");
        x.wrStart();
        x.wrId(2).wrFlags(SendFlags.SIGNALED);
        x.wrRdmaWrite(p.mrb.rkey(), p.mrb.addr());
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), 64);
        x.wrComplete();
        expect(p.sqa, 2, WcStatus.SUCCESS, "the batch after the aborted one");
        assertSameBytes(p.ma, 0, p.mb, 0, 64, "the write after the abort");
    }

    @Test
    void everyBuilderPostsItsOperation() {
        require(Feature.EXTENDED_API);
        require(Feature.IMMEDIATE);
        require(Feature.ATOMICS);
        ExPair p = connectEx(conn().maxInline(64), RC_OPS);
        for (int i = 0; i < 4; i++) {
            p.b.postRecv(new RecvWr().wrId(500 + i).sgList(sge(p.mrb, 8192 + i * 1024L, 1024)));
        }
        fill(p.ma, 0, 4096, 11);
        fill(p.mb, 4096, 1024, 12);
        p.mb.set(ValueLayout.JAVA_LONG, 16384, 40);
        MemorySegment inl = arena.allocate(24);
        fill(inl, 0, 24, 13);
        QpEx x = p.ax;
        x.wrStart();
        x.wrId(1).wrFlags(SendFlags.SIGNALED);
        x.wrSend();
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), 100);
        x.wrId(2);
        x.wrSendImm(0x01020304);
        x.wrSetSgeList(2, new Sge[] {sge(p.mra, 100, 50), sge(p.mra, 1000, 30)});
        x.wrId(3);
        x.wrRdmaWriteImm(p.mrb.rkey(), p.mrb.addr() + 12288, 0x0a0b0c0d);
        x.wrSetSge(p.mra.lkey(), p.mra.addr() + 2048, 200);
        x.wrId(4);
        x.wrRdmaRead(p.mrb.rkey(), p.mrb.addr() + 4096);
        x.wrSetSge(p.mra.lkey(), p.mra.addr() + 65536, 1024);
        x.wrId(5);
        x.wrAtomicFetchAdd(p.mrb.rkey(), p.mrb.addr() + 16384, 2);
        x.wrSetSge(p.mra.lkey(), p.mra.addr() + 70000, 8);
        x.wrId(6);
        x.wrAtomicCmpSwp(p.mrb.rkey(), p.mrb.addr() + 16384, 42, 99);
        x.wrSetSge(p.mra.lkey(), p.mra.addr() + 70008, 8);
        x.wrId(7);
        x.wrSend();
        x.wrSetInlineData(inl);
        fill(inl, 0, 24, 14); // copied when set: changing it now changes nothing
        x.wrComplete();
        WcOpcode[] ops = {WcOpcode.SEND, WcOpcode.SEND, WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ, WcOpcode.FETCH_ADD,
            WcOpcode.COMP_SWAP, WcOpcode.SEND};
        for (int i = 0; i < ops.length; i++) {
            WorkCompletion wc = expect(p.sqa, i + 1, WcStatus.SUCCESS, "WR " + (i + 1));
            assertEquals(ops[i], wc.opcode(), "WR " + (i + 1));
        }
        WorkCompletion r0 = expect(p.rqb, 500, WcStatus.SUCCESS, "wr_send");
        assertEquals(100, r0.byteLen());
        assertSameBytes(p.ma, 0, p.mb, 8192, 100, "wr_send + wr_set_sge");
        WorkCompletion r1 = expect(p.rqb, 501, WcStatus.SUCCESS, "wr_send_imm");
        assertEquals(80, r1.byteLen());
        assertEquals(0x01020304, r1.immData());
        assertEquals(WcFlags.WITH_IMM, r1.wcFlags() & WcFlags.WITH_IMM);
        assertSameBytes(p.ma, 100, p.mb, 9216, 50, "wr_set_sge_list, first SGE");
        assertSameBytes(p.ma, 1000, p.mb, 9266, 30, "wr_set_sge_list, second SGE");
        WorkCompletion r2 = expect(p.rqb, 502, WcStatus.SUCCESS, "wr_rdma_write_imm");
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r2.opcode());
        assertEquals(0x0a0b0c0d, r2.immData());
        assertSameBytes(p.ma, 2048, p.mb, 12288, 200, "wr_rdma_write_imm");
        assertSameBytes(p.mb, 4096, p.ma, 65536, 1024, "wr_rdma_read");
        assertEquals(40, p.ma.get(ValueLayout.JAVA_LONG, 70000), "fetch_add's original");
        assertEquals(42, p.ma.get(ValueLayout.JAVA_LONG, 70008), "cmp_swp's original");
        assertEquals(99, p.mb.get(ValueLayout.JAVA_LONG, 16384), "40 + 2, then swapped");
        WorkCompletion r3 = expect(p.rqb, 503, WcStatus.SUCCESS, "wr_set_inline_data");
        assertEquals(24, r3.byteLen());
        fill(inl, 0, 24, 13);
        assertSameBytes(inl, 0, p.mb, 11264, 24, "inline data as it was when set");
    }

    @Test
    void inlineDataListIsConcatenated() {
        require(Feature.EXTENDED_API);
        require(Feature.INLINE);
        ExPair p = connectEx(conn().maxInline(64), RC_OPS);
        p.b.postRecv(new RecvWr().wrId(9).sgList(sge(p.mrb, 0, 64)));
        fill(p.ma, 0, 1024, 21);
        QpEx x = p.ax;
        x.wrStart();
        x.wrId(1).wrFlags(SendFlags.SIGNALED);
        x.wrSend();
        x.wrSetInlineDataList(2, new MemorySegment[] {p.ma.asSlice(300, 10), p.ma.asSlice(400, 6)});
        x.wrComplete();
        expect(p.sqa, 1, WcStatus.SUCCESS, "inline list");
        WorkCompletion r = expect(p.rqb, 9, WcStatus.SUCCESS, "inline list received");
        assertEquals(16, r.byteLen());
        assertSameBytes(p.ma, 300, p.mb, 0, 10, "first buffer");
        assertSameBytes(p.ma, 400, p.mb, 10, 6, "second buffer");
    }

    @Test
    void anOperationNotInSendOpsFlagsFailsTheBatchWithEopnotsupp() {
        require(Feature.EXTENDED_API);
        ExPair p = connectEx(conn(), SendOpsFlags.WITH_RDMA_WRITE);
        fill(p.ma, 0, 64, 5);
        QpEx x = p.ax;
        x.wrStart();
        x.wrId(1).wrFlags(SendFlags.SIGNALED);
        x.wrRdmaWrite(p.mrb.rkey(), p.mrb.addr());
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), 64);
        x.wrRdmaRead(p.mrb.rkey(), p.mrb.addr()); // not selected
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), 64);
        assertErrno(Errno.EOPNOTSUPP, x::wrComplete, "RDMA READ not in send_ops_flags");
        pause(100);
        assertCqEmpty(p.sqa, "nothing of the failed batch");
        assertAllBytes(p.mb, 0, 64, (byte) 0, "the write before the refused WR was not posted either");
        x.wrStart();
        x.wrSend(); // not selected either
        assertErrno(Errno.EOPNOTSUPP, x::wrComplete, "SEND not in send_ops_flags");
    }

    @Test
    void theErrorsOfABuilderOrSetterComeOutOfWrComplete() {
        require(Feature.EXTENDED_API);
        ExPair p = connectEx(conn().depth(4, 4).maxSge(2), RC_OPS);
        QpEx x = p.ax;
        x.wrStart();
        for (int i = 0; i < 5; i++) {
            x.wrRdmaWrite(p.mrb.rkey(), p.mrb.addr());
        }
        assertErrno(Errno.ENOSPC, x::wrComplete, "5 WRs in a batch of a QP with max_send_wr 4");
        x.wrStart();
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), 8);
        assertErrno(Errno.EINVAL, x::wrComplete, "wr_set_sge without a WR");
        x.wrStart();
        x.wrSend();
        x.wrSetSgeList(3, new Sge[] {sge(p.mra, 0, 1), sge(p.mra, 1, 1), sge(p.mra, 2, 1)});
        assertErrno(Errno.EINVAL, x::wrComplete, "3 SGEs with max_send_sge 2");
        x.wrStart();
        x.wrSend();
        x.wrSetInlineData(p.ma.asSlice(0, 1)); // max_inline_data 0
        assertErrno(Errno.EINVAL, x::wrComplete, "inline data above max_inline_data");
        x.wrStart();
        x.wrSend();
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), -1);
        assertErrno(Errno.EINVAL, x::wrComplete, "an SGE length of 2^32-1");
        x.wrStart();
        x.wrId(1).wrFlags(SendFlags.SIGNALED);
        x.wrRdmaWrite(p.mrb.rkey(), p.mrb.addr());
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), 8);
        x.wrAtomicFetchAdd(p.mrb.rkey(), p.mrb.addr() + 64, 1);
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), 16); // an atomic needs one SGE of 8 bytes
        assertErrno(Errno.EINVAL, x::wrComplete, "the send queue's check of an atomic");
        pause(100);
        assertCqEmpty(p.sqa, "nothing of the failed batches");
        x.wrStart();
        x.wrComplete(); // an empty batch posts nothing and is fine
        assertEquals(QpState.RTS, p.a.state());
    }

    @Test
    void aBatchOnAQpThatCannotSendFailsLikePostSend() {
        require(Feature.EXTENDED_API);
        org.jrdma.verbs.ProtectionDomain pd = track(ca.allocPd());
        QpEx x = pd.createQpEx(rcAttr(pd, RC_OPS));
        track(x.qp());
        int postErrno = errnoOf(() -> x.qp().postSend(new SendWr().opcode(WrOpcode.SEND)));
        x.wrStart();
        x.wrSend();
        assertErrno(postErrno, x::wrComplete, "wr_complete in RESET (ibv_post_send: " + Errno.name(postErrno) + ")");
    }

    @Test
    void batchCallsOutsideABatchOfThisThreadAreEinval() throws Exception {
        require(Feature.EXTENDED_API);
        ExPair p = connectEx(conn(), RC_OPS);
        QpEx x = p.ax;
        assertErrno(Errno.EINVAL, x::wrSend, "a builder without wr_start");
        assertErrno(Errno.EINVAL, x::wrComplete, "wr_complete without wr_start");
        assertErrno(Errno.EINVAL, x::wrAbort, "wr_abort without wr_start");
        x.wrStart();
        assertErrno(Errno.EINVAL, x::wrStart, "wr_start twice");
        AtomicReference<Throwable> other = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                x.wrSend();
            } catch (Throwable e) {
                other.set(e);
            }
        });
        t.join(10_000);
        x.wrAbort();
        assertEquals(Errno.EINVAL, other.get() instanceof VerbsException v ? v.errno() : -1,
                "a builder of another thread than the batch's: " + other.get());
    }

    @Test
    void aSecondThreadsBatchWaitsForTheFirst() throws Exception {
        require(Feature.EXTENDED_API);
        ExPair p = connectEx(conn(), RC_OPS);
        fill(p.ma, 0, 128, 31);
        QpEx x = p.ax;
        x.wrStart();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                x.wrStart();
                x.wrId(2).wrFlags(SendFlags.SIGNALED);
                x.wrRdmaWrite(p.mrb.rkey(), p.mrb.addr() + 64);
                x.wrSetSge(p.mra.lkey(), p.mra.addr() + 64, 64);
                x.wrComplete();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        pause(100);
        x.wrId(1).wrFlags(SendFlags.SIGNALED);
        x.wrRdmaWrite(p.mrb.rkey(), p.mrb.addr());
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), 64);
        x.wrComplete();
        t.join(10_000);
        assertEquals(null, failure.get());
        expect(p.sqa, 1, WcStatus.SUCCESS, "the first thread's batch, completed first");
        expect(p.sqa, 2, WcStatus.SUCCESS, "the second thread's batch, started after it");
        assertSameBytes(p.ma, 0, p.mb, 0, 128, "both writes");
    }

    /**
     * The builders that need memory windows post through the send queue: where the provider refuses
     * LOCAL_INV and SEND_WITH_INV in ibv_post_send, wr_complete fails with the same errno (where it
     * posts them, the memory window suite covers them).
     */
    @Test
    void memoryWindowBuildersFailAsPostSendDoes() {
        require(Feature.EXTENDED_API);
        Assumptions.assumeFalse(fixture().supports(Feature.MEMORY_WINDOWS),
                "the provider has memory windows: the wr_bind_mw / wr_local_inv / wr_send_inv tests cover the builders");
        int ops = RC_OPS | SendOpsFlags.WITH_LOCAL_INV | SendOpsFlags.WITH_SEND_WITH_INV;
        ExPair p = connectEx(conn(), ops);
        int localInv = errnoOrZero(() -> p.a.postSend(new SendWr().opcode(WrOpcode.LOCAL_INV)));
        int sendInv = errnoOrZero(() -> p.a.postSend(new SendWr().opcode(WrOpcode.SEND_WITH_INV)));
        Assumptions.assumeTrue(localInv != 0 && sendInv != 0, "the provider posts LOCAL_INV and SEND_WITH_INV");
        QpEx x = p.ax;
        x.wrStart();
        x.wrLocalInv(p.mrb.rkey());
        assertErrno(localInv, x::wrComplete, "wr_local_inv");
        x.wrStart();
        x.wrSendInv(p.mrb.rkey());
        assertErrno(sendInv, x::wrComplete, "wr_send_inv");
    }

    // ------------------------------------------------------------------ memory windows through the builders

    private static final int WINDOW_RW = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    /** A region of {@code pd} over {@code mem} that windows may be bound to. */
    private MemoryRegion bindable(org.jrdma.verbs.ProtectionDomain pd, MemorySegment mem) {
        return track(pd.regMr(mem, ALL_ACCESS | AccessFlags.MW_BIND));
    }

    /** {@code ibv_wr_bind_mw} of type 2 {@code mw} over [4096, 4096 + 8192) of {@code mr} through A's QpEx; the new rkey. */
    private static int wrBind(ExPair p, MemoryWindow mw, MemoryRegion mr, long wrId) {
        int key = SendWr.incRkey(mw.rkey());
        QpEx x = p.ax;
        x.wrStart();
        x.wrId(wrId).wrFlags(SendFlags.SIGNALED);
        x.wrBindMw(mw, key, new MwBindInfo().set(mr, mr.addr() + 4096, 8192, WINDOW_RW));
        x.wrComplete();
        WorkCompletion c = expect(p.sqa, wrId, WcStatus.SUCCESS, "wr_bind_mw");
        assertEquals(WcOpcode.BIND_MW, c.opcode(), c.toString());
        assertEquals(key, mw.rkey(), "ibv_mw.rkey takes the bind's key byte");
        return key;
    }

    /** B writes {@code len} bytes of its region to {@code va} through {@code rkey}; the completion. */
    private static WorkCompletion writeFromB(ExPair p, long wrId, long va, int rkey, int len) {
        p.b.postSend(new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mrb, 0, len)).rdma(va, rkey));
        return pollOne(p.sqb, "B's RDMA WRITE through rkey 0x" + Integer.toHexString(rkey));
    }

    /**
     * {@code ibv_wr_bind_mw} binds a type 2 window as IBV_WR_BIND_MW does: the bind completes
     * (IBV_WC_BIND_MW), the window has the new rkey, the peer writes through it into the window's
     * bytes, and a write outside the window is REM_ACCESS_ERR.
     */
    @Test
    void wrBindMwBindsAWindowThePeerWritesThrough() {
        require(Feature.EXTENDED_API);
        require(Feature.MEMORY_WINDOWS);
        ExPair p = connectEx(conn(), RC_OPS | SendOpsFlags.WITH_BIND_MW);
        MemorySegment wmem = arena.allocate(1 << 14, 4096);
        MemoryRegion wmr = bindable(p.pa, wmem);
        MemoryWindow mw = track(p.pa.allocMw(MwType.TYPE_2));
        int key = wrBind(p, mw, wmr, 31);
        fill(p.mb, 0, 256, 31);
        WorkCompletion w = writeFromB(p, 32, wmr.addr() + 4096 + 512, key, 256);
        assertEquals(WcStatus.SUCCESS, w.status(), "a write inside the window: " + w);
        assertSameBytes(p.mb, 0, wmem, 4096 + 512, 256, "the bytes written through the window");
        WorkCompletion out = writeFromB(p, 33, wmr.addr(), key, 8);
        assertEquals(WcStatus.REM_ACCESS_ERR, out.status(), "a write before the window's first byte: " + out);
    }

    /**
     * {@code ibv_wr_send_inv} carries its rkey in the IETH: the receiver's completion has
     * IBV_WC_WITH_INV and the invalidated rkey, and the window it named grants nothing afterwards.
     */
    @Test
    void wrSendInvInvalidatesTheReceiversWindow() {
        require(Feature.EXTENDED_API);
        require(Feature.MEMORY_WINDOWS);
        ExPair p = connectEx(conn(), RC_OPS | SendOpsFlags.WITH_SEND_WITH_INV);
        MemorySegment wmem = arena.allocate(1 << 14, 4096);
        MemoryRegion wmr = bindable(p.pb, wmem);
        MemoryWindow mw = track(p.pb.allocMw(MwType.TYPE_2));
        int key = SendWr.incRkey(mw.rkey());
        p.b.postSend(new SendWr().wrId(40).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                .bindMw(mw, key, new MwBindInfo().set(wmr, wmr.addr() + 4096, 8192, WINDOW_RW)));
        expect(p.sqb, 40, WcStatus.SUCCESS, "B binds the window through its QP");
        p.b.postRecv(new RecvWr().wrId(41).sgList(sge(p.mrb, 0, 4096)));
        fill(p.ma, 0, 100, 41);
        QpEx x = p.ax;
        x.wrStart();
        x.wrId(42).wrFlags(SendFlags.SIGNALED);
        x.wrSendInv(key);
        x.wrSetSge(p.mra.lkey(), p.mra.addr(), 100);
        x.wrComplete();
        WorkCompletion s = expect(p.sqa, 42, WcStatus.SUCCESS, "wr_send_inv at the requester");
        assertEquals(WcOpcode.SEND, s.opcode(), s.toString());
        WorkCompletion r = expect(p.rqb, 41, WcStatus.SUCCESS, "wr_send_inv at the responder");
        assertEquals(WcOpcode.RECV, r.opcode(), r.toString());
        assertEquals(100, r.byteLen());
        assertEquals(WcFlags.WITH_INV, r.wcFlags() & (WcFlags.WITH_INV | WcFlags.WITH_IMM), "IBV_WC_WITH_INV only");
        assertEquals(key, r.invalidatedRkey(), "wc.invalidated_rkey is the rkey wr_send_inv named");
        assertSameBytes(p.ma, 0, p.mb, 0, 100, "the SEND's payload");
        p.a.postSend(new SendWr().wrId(43).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).rdma(wmr.addr() + 4096, key));
        WorkCompletion w = pollOne(p.sqa, "a write through the invalidated window");
        assertEquals(WcStatus.REM_ACCESS_ERR, w.status(), w.toString());
    }

    /** {@code ibv_wr_local_inv} invalidates the window it names: a remote access then is REM_ACCESS_ERR. */
    @Test
    void wrLocalInvThenARemoteAccessIsRemAccessErr() {
        require(Feature.EXTENDED_API);
        require(Feature.MEMORY_WINDOWS);
        ExPair p = connectEx(conn(), RC_OPS | SendOpsFlags.WITH_BIND_MW | SendOpsFlags.WITH_LOCAL_INV);
        MemorySegment wmem = arena.allocate(1 << 14, 4096);
        MemoryRegion wmr = bindable(p.pa, wmem);
        MemoryWindow mw = track(p.pa.allocMw(MwType.TYPE_2));
        int key = wrBind(p, mw, wmr, 50);
        assertEquals(WcStatus.SUCCESS, writeFromB(p, 51, wmr.addr() + 4096, key, 8).status(), "before the invalidation");
        QpEx x = p.ax;
        x.wrStart();
        x.wrId(52).wrFlags(SendFlags.SIGNALED);
        x.wrLocalInv(key);
        x.wrComplete();
        WorkCompletion c = expect(p.sqa, 52, WcStatus.SUCCESS, "wr_local_inv");
        assertEquals(WcOpcode.LOCAL_INV, c.opcode(), c.toString());
        WorkCompletion w = writeFromB(p, 53, wmr.addr() + 4096, key, 8);
        assertEquals(WcStatus.REM_ACCESS_ERR, w.status(), "a write after wr_local_inv: " + w);
    }

    /** The errno {@code call} throws, 0 when it returns. */
    protected static int errnoOrZero(org.junit.jupiter.api.function.Executable call) {
        try {
            call.execute();
            return 0;
        } catch (VerbsException e) {
            return e.errno();
        } catch (Throwable e) {
            throw new AssertionError("expected a VerbsException or nothing, got " + e, e);
        }
    }

    /** The errno {@code call} throws (it must throw a VerbsException). */
    protected static int errnoOf(org.junit.jupiter.api.function.Executable call) {
        try {
            call.execute();
        } catch (VerbsException e) {
            return e.errno();
        } catch (Throwable e) {
            throw new AssertionError("expected a VerbsException, got " + e, e);
        }
        throw new AssertionError("expected a VerbsException");
    }
}
