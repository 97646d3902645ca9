package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.CqEx;
import org.jrdma.verbs.CqInitAttrEx;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcExFlags;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code ibv_create_cq_ex(3)} and its poll API ({@code ibv_start_poll}, {@code ibv_next_poll},
 * {@code ibv_end_poll}, the {@code ibv_wc_read_*} accessors): the attribute checks (EOPNOTSUPP for
 * wc_flags the provider lacks, parent domains, IGNORE_OVERRUN; EINVAL for a bad cqe, comp_mask or
 * comp_vector), ENOENT on an empty CQ, each completion made current is consumed in order, every
 * requested field reads what {@code ibv_poll_cq} gives, fields not requested and calls outside a
 * poll are EINVAL, completion timestamps (where the provider supports them) grow with time.
 */
public abstract class ExtendedCqConformance extends ConformanceBase {
    /** A connected pair whose four CQs are extended CQs with {@code wcFlags}; the fields {@code sqa}, {@code rqa}, {@code sqb}, {@code rqb} hold them. */
    protected final Pair connectWithCqEx(Conn c, long wcFlags) {
        Pair p = new Pair();
        p.pa = track(ca.allocPd());
        p.pb = track(cb.allocPd());
        sqa = ca.createCqEx(new CqInitAttrEx().cqe(c.cqe).wcFlags(wcFlags));
        rqa = ca.createCqEx(new CqInitAttrEx().cqe(c.cqe).wcFlags(wcFlags));
        sqb = cb.createCqEx(new CqInitAttrEx().cqe(c.cqe).wcFlags(wcFlags));
        rqb = cb.createCqEx(new CqInitAttrEx().cqe(c.cqe).wcFlags(wcFlags));
        p.sqa = track(sqa.cq());
        p.rqa = track(rqa.cq());
        p.sqb = track(sqb.cq());
        p.rqb = track(rqb.cq());
        p.a = track(p.pa.createQp(initAttr(p.sqa, p.rqa, c)));
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

    /** The extended CQs of the last {@link #connectWithCqEx}. */
    protected CqEx sqa, rqa, sqb, rqb;

    /** Waits (liveness bound) until a poll starts, i.e. a completion is current. */
    protected static void startPollWaiting(CqEx cq, String what) {
        long deadline = System.nanoTime() + LIVENESS_NS;
        while (cq.startPoll() == Errno.ENOENT) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no completion for " + what + " within the liveness bound");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    @Test
    void createCqExChecksItsAttributes() {
        require(Feature.EXTENDED_API);
        assertErrno(Errno.EINVAL, () -> ca.createCqEx(new CqInitAttrEx().cqe(0)), "cqe 0");
        assertErrno(Errno.EOPNOTSUPP, () -> ca.createCqEx(new CqInitAttrEx().cqe(4).wcFlags(WcExFlags.WITH_TM_INFO)),
                "wc_flags TM_INFO");
        assertErrno(Errno.EOPNOTSUPP, () -> ca.createCqEx(new CqInitAttrEx().cqe(4).wcFlags(1L << 40)), "an unknown wc_flags bit");
        assertErrno(Errno.EINVAL, () -> ca.createCqEx(new CqInitAttrEx().cqe(4).compMask(1 << 5)), "an unknown comp_mask bit");
        assertErrno(Errno.EOPNOTSUPP, () -> ca.createCqEx(new CqInitAttrEx().cqe(4).compMask(CqInitAttrEx.MASK_PD)),
                "a parent domain");
        assertErrno(Errno.EOPNOTSUPP, () -> ca.createCqEx(new CqInitAttrEx().cqe(4).flags(CqInitAttrEx.IGNORE_OVERRUN)),
                "IGNORE_OVERRUN");
        assertErrno(Errno.EINVAL, () -> ca.createCqEx(new CqInitAttrEx().cqe(4).compVector(-1)), "comp_vector -1");
        int vectors = ca.numCompVectors();
        assertErrno(Errno.EINVAL, () -> ca.createCqEx(new CqInitAttrEx().cqe(4).compVector(vectors)),
                "comp_vector num_comp_vectors (" + vectors + ")");
        track(ca.createCqEx(new CqInitAttrEx().cqe(4).compVector(vectors - 1)).cq());
        CqEx ok = ca.createCqEx(new CqInitAttrEx().cqe(4).wcFlags(WcExFlags.STANDARD_FLAGS)
                .flags(CqInitAttrEx.SINGLE_THREADED));
        track(ok.cq());
        assertEquals(WcExFlags.STANDARD_FLAGS, ok.wcFlags());
        assertTrue(ok.cq().cqe() >= 4, "cqe " + ok.cq().cqe());
    }

    @Test
    void anEmptyCqIsEnoentAndOpensNoPoll() {
        require(Feature.EXTENDED_API);
        CqEx cq = ca.createCqEx(new CqInitAttrEx().cqe(4));
        track(cq.cq());
        assertEquals(Errno.ENOENT, cq.startPoll());
        assertErrno(Errno.EINVAL, cq::endPoll, "end_poll after a start_poll that returned ENOENT");
        assertErrno(Errno.EINVAL, cq::nextPoll, "next_poll without a poll");
        assertErrno(Errno.EINVAL, cq::readOpcode, "read_opcode without a poll");
    }

    @Test
    void eachCompletionMadeCurrentIsConsumedInOrder() {
        require(Feature.EXTENDED_API);
        Pair p = connectWithCqEx(conn(), WcExFlags.WITH_BYTE_LEN);
        fill(p.ma, 0, 4096, 1);
        for (int i = 0; i < 4; i++) {
            p.a.postSend(new SendWr().wrId(10 + i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(sge(p.mra, i * 100L, 100 + i)).rdma(p.mrb.addr(), p.mrb.rkey()));
        }
        // wait until all four are in the CQ: the fourth's completion comes last
        startPollWaiting(sqa, "the first write");
        assertEquals(10, sqa.wrId());
        assertEquals(WcStatus.SUCCESS, sqa.status());
        assertEquals(WcOpcode.RDMA_WRITE, sqa.readOpcode());
        assertEquals(100, sqa.readByteLen());
        long deadline = System.nanoTime() + LIVENESS_NS;
        int seen = 1;
        while (seen < 3) {
            if (sqa.nextPoll() == 0) {
                assertEquals(10 + seen, sqa.wrId(), "completion " + seen);
                assertEquals(100 + seen, sqa.readByteLen());
                seen++;
            } else if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("completions missing");
            }
        }
        sqa.endPoll();
        WorkCompletion last = expect(p.sqa, 13, WcStatus.SUCCESS, "ibv_poll_cq gets the one not made current");
        assertEquals(103, last.byteLen());
        assertEquals(Errno.ENOENT, sqa.startPoll(), "all four consumed");
    }

    @Test
    void everyRequestedFieldReadsWhatPollCqGives() {
        require(Feature.EXTENDED_API);
        require(Feature.IMMEDIATE);
        Pair p = connectWithCqEx(conn(), WcExFlags.STANDARD_FLAGS);
        p.b.postRecv(new RecvWr().wrId(77).sgList(sge(p.mrb, 0, 4096)));
        fill(p.ma, 0, 300, 2);
        p.a.postSend(new SendWr().wrId(55).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 300)).immData(0xfeedbeef));
        startPollWaiting(rqb, "the receive");
        assertEquals(77, rqb.wrId());
        assertEquals(WcStatus.SUCCESS, rqb.status());
        assertEquals(WcOpcode.RECV, rqb.readOpcode());
        assertEquals(300, rqb.readByteLen());
        assertEquals(0xfeedbeef, rqb.readImmData());
        assertEquals(p.b.qpNum(), rqb.readQpNum());
        assertEquals(WcFlags.WITH_IMM, rqb.readWcFlags() & WcFlags.WITH_IMM);
        assertEquals(0, rqb.readVendorErr());
        assertEquals(0, rqb.readSlid(), "no LIDs on RoCE");
        assertEquals(0, rqb.readSl());
        assertEquals(0, rqb.readDlidPathBits());
        rqb.readSrcQp(); // requested: readable (meaningful for UD)
        rqb.endPoll();
        startPollWaiting(sqa, "the send");
        assertEquals(55, sqa.wrId());
        assertEquals(WcOpcode.SEND, sqa.readOpcode());
        assertEquals(p.a.qpNum(), sqa.readQpNum());
        sqa.endPoll();
        assertSameBytes(p.ma, 0, p.mb, 0, 300, "the SEND");
    }

    @Test
    void fieldsNotRequestedAndCallsOutsideThePollAreEinval() throws Exception {
        require(Feature.EXTENDED_API);
        Pair p = connectWithCqEx(conn(), WcExFlags.WITH_BYTE_LEN);
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).rdma(p.mrb.addr(), p.mrb.rkey()));
        startPollWaiting(sqa, "the write");
        assertEquals(8, sqa.readByteLen());
        sqa.readWcFlags(); // always there
        assertErrno(Errno.EINVAL, sqa::readImmData, "imm_data not requested");
        assertErrno(Errno.EINVAL, sqa::readQpNum, "qp_num not requested");
        assertErrno(Errno.EINVAL, sqa::readSrcQp, "src_qp not requested");
        assertErrno(Errno.EINVAL, sqa::readSlid, "slid not requested");
        assertErrno(Errno.EINVAL, sqa::readSl, "sl not requested");
        assertErrno(Errno.EINVAL, sqa::readDlidPathBits, "dlid_path_bits not requested");
        assertErrno(Errno.EINVAL, sqa::readCompletionTs, "completion_ts not requested");
        assertErrno(Errno.EINVAL, sqa::readCompletionWallclockNs, "completion_wallclock_ns not requested");
        assertErrno(Errno.EINVAL, sqa::startPoll, "start_poll inside a poll");
        int[] other = {-1};
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                sqa.readOpcode();
            } catch (VerbsException e) {
                other[0] = e.errno();
            }
        });
        t.join(10_000);
        assertEquals(Errno.EINVAL, other[0], "an accessor in a thread other than the poll's");
        sqa.endPoll();
        assertErrno(Errno.EINVAL, sqa::endPoll, "end_poll twice");
    }

    @Test
    void anErrorCompletionReadsItsStatusAndVendorError() {
        require(Feature.EXTENDED_API);
        Pair p = connectWithCqEx(conn(), WcExFlags.WITH_QP_NUM);
        p.a.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).rdma(p.mrb.addr(), p.mrb.rkey() ^ 0x5a5a5a00));
        startPollWaiting(sqa, "the write with a bad rkey");
        assertEquals(3, sqa.wrId());
        assertEquals(WcStatus.REM_ACCESS_ERR, sqa.status());
        assertEquals(p.a.qpNum(), sqa.readQpNum());
        sqa.readVendorErr(); // always readable; its value is the provider's
        sqa.endPoll();
    }

    @Test
    void completionTimestampsGrowWithTime() {
        require(Feature.EXTENDED_API);
        long flags = WcExFlags.WITH_COMPLETION_TIMESTAMP | WcExFlags.WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
        CqEx probe;
        try {
            probe = ca.createCqEx(new CqInitAttrEx().cqe(4).wcFlags(flags));
        } catch (VerbsException e) {
            Assumptions.assumeTrue(e.errno() != Errno.EOPNOTSUPP, "the provider has no completion timestamps");
            throw e;
        }
        probe.cq().close();
        Pair p = connectWithCqEx(conn(), flags);
        long wallBefore = System.currentTimeMillis() * 1_000_000L;
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).rdma(p.mrb.addr(), p.mrb.rkey()));
        startPollWaiting(sqa, "the first write");
        long ts1 = sqa.readCompletionTs();
        long wall1 = sqa.readCompletionWallclockNs();
        sqa.endPoll();
        pause(20);
        p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).rdma(p.mrb.addr(), p.mrb.rkey()));
        startPollWaiting(sqa, "the second write");
        long ts2 = sqa.readCompletionTs();
        long wall2 = sqa.readCompletionWallclockNs();
        sqa.endPoll();
        long wallAfter = System.currentTimeMillis() * 1_000_000L + 1_000_000L;
        assertTrue(ts2 > ts1, "completion_ts grows: " + ts1 + " then " + ts2);
        assertTrue(wall2 > wall1, "completion_wallclock_ns grows: " + wall1 + " then " + wall2);
        // a liveness-style bound (the wall clock read around the completions, with slack), not a duration
        long slack = 2_000_000_000L;
        assertTrue(wall1 >= wallBefore - slack && wall2 <= wallAfter + slack,
                "wall clock ns " + wall1 + ".." + wall2 + " within " + wallBefore + ".." + wallAfter);
    }

    /** The extended CQ works as an ordinary CQ too: {@code ibv_poll_cq} on {@code ibv_cq_ex_to_cq}. */
    @Test
    void theCqOfAnExtendedCqPollsAsAnyCq() {
        require(Feature.EXTENDED_API);
        Pair p = connectWithCqEx(conn(), 0);
        p.a.postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).rdma(p.mrb.addr(), p.mrb.rkey()));
        CompletionQueue plain = sqa.cq();
        WorkCompletion wc = expect(plain, 4, WcStatus.SUCCESS, "ibv_poll_cq on the extended CQ");
        assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
        assertEquals(Errno.ENOENT, sqa.startPoll());
    }
}
