package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Error completions with the status Linux (rdma_rxe, libibverbs {@code ibv_poll_cq(3)}) gives, the
 * QP states that follow, and the flush of every outstanding WR (IBTA Vol 1 §9.9, §10.8.3, §11.6.2).
 */
public abstract class ErrorCompletionConformance extends ConformanceBase {
    private static final long BUF = 0, TARGET = 65536;

    private static SendWr wr(long id, WrOpcode op, Sge... sges) {
        return new SendWr().wrId(id).opcode(op).sendFlags(SendFlags.SIGNALED).sgList(sges);
    }

    /** After an error both QPs are in ERR and B's posted receive is flushed. */
    private void assertBothInErrWithReceiveFlushed(Pair p, String what) {
        expect(p.rqb, 500, WcStatus.WR_FLUSH_ERR, what + ": the responder's posted receive");
        awaitState(p.a, QpState.ERR, what + ": requester");
        awaitState(p.b, QpState.ERR, what + ": responder");
    }

    @Test
    void badLkeyIsLocProtErr() {
        Pair p = connect(conn());
        p.a.postSend(wr(1, WrOpcode.SEND, new Sge(p.mra.addr(), 64, p.mra.lkey() ^ 0x5A5A5A00)));
        expect(p.sqa, 1, WcStatus.LOC_PROT_ERR, "SEND with a bad lkey");
        awaitState(p.a, QpState.ERR, "after LOC_PROT_ERR");
        p.a.postSend(wr(2, WrOpcode.RDMA_WRITE, sge(p.mra, 0, 8)).rdma(p.mrb.addr(), p.mrb.rkey()));
        expect(p.sqa, 2, WcStatus.WR_FLUSH_ERR, "a WR posted to a QP in ERR");
    }

    @Test
    void lkeyOfAnotherPdIsLocProtErr() {
        Pair p = connect(conn());
        ProtectionDomain other = track(ca.allocPd());
        MemoryRegion foreign = track(other.regMr(arena.allocate(4096, 4096), ALL_ACCESS));
        p.a.postSend(wr(1, WrOpcode.RDMA_WRITE, sge(foreign, 0, 64)).rdma(p.mrb.addr(), p.mrb.rkey()));
        expect(p.sqa, 1, WcStatus.LOC_PROT_ERR, "gather from an MR of another PD");
        awaitState(p.a, QpState.ERR, "after LOC_PROT_ERR");
    }

    @Test
    void readIntoMemoryWithoutLocalWriteIsLocProtErr() {
        Pair p = connect(conn());
        MemoryRegion ro = track(p.pa.regMr(arena.allocate(4096, 4096), AccessFlags.REMOTE_READ));
        p.a.postSend(wr(1, WrOpcode.RDMA_READ, sge(ro, 0, 64)).rdma(p.mrb.addr(), p.mrb.rkey()));
        expect(p.sqa, 1, WcStatus.LOC_PROT_ERR, "READ into an MR without LOCAL_WRITE");
        awaitState(p.a, QpState.ERR, "after LOC_PROT_ERR");
    }

    @Test
    void receiveBufferTooSmall() {
        Pair p = connect(conn());
        p.b.postRecv(new RecvWr().wrId(7).sgList(sge(p.mrb, BUF, 100)));
        p.b.postRecv(new RecvWr().wrId(8).sgList(sge(p.mrb, BUF + 4096, 4096)));
        p.a.postSend(wr(1, WrOpcode.SEND, sge(p.mra, BUF, 200)));
        expect(p.rqb, 7, WcStatus.LOC_LEN_ERR, "responder: receive of 100 bytes for a 200-byte SEND");
        expect(p.sqa, 1, WcStatus.REM_INV_REQ_ERR, "requester of a SEND too long for the receive");
        expect(p.rqb, 8, WcStatus.WR_FLUSH_ERR, "the responder's next receive");
        awaitState(p.a, QpState.ERR, "requester");
        awaitState(p.b, QpState.ERR, "responder");
    }

    /** Remote faults the responder reports as NAK remote access error (rdma_rxe rxe_resp.c check_rkey → RESPST_ERR_RKEY_VIOLATION). */
    public enum RemoteAccessFault {
        BAD_RKEY_WRITE, BAD_RKEY_READ, BAD_RKEY_ATOMIC, PAST_END_WRITE, PAST_END_READ, BEFORE_START_WRITE,
        MR_WITHOUT_REMOTE_WRITE, MR_WITHOUT_REMOTE_READ, MR_WITHOUT_REMOTE_ATOMIC, RKEY_OF_ANOTHER_PD_WRITE,
        RKEY_OF_ANOTHER_PD_READ, DEREGISTERED_RKEY_WRITE, DEREGISTERED_RKEY_READ
    }

    @ParameterizedTest
    @EnumSource(RemoteAccessFault.class)
    void remoteAccessError(RemoteAccessFault fault) {
        if (fault.name().contains("ATOMIC")) {
            require(Feature.ATOMICS);
        }
        Pair p = connect(conn());
        MemorySegment target = arena.allocate(4096, 4096);
        int access = switch (fault) {
            case MR_WITHOUT_REMOTE_WRITE -> AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
            case MR_WITHOUT_REMOTE_READ -> AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC;
            case MR_WITHOUT_REMOTE_ATOMIC -> AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
            default -> ALL_ACCESS;
        };
        ProtectionDomain pd = fault.name().startsWith("RKEY_OF_ANOTHER_PD") ? track(cb.allocPd()) : p.pb;
        MemoryRegion mr = pd.regMr(target, access);
        long addr = mr.addr();
        int rkey = mr.rkey();
        if (fault.name().startsWith("DEREGISTERED")) {
            mr.close();
        } else {
            track(mr);
        }
        if (fault.name().startsWith("BAD_RKEY")) {
            rkey ^= 0x00A5A500;
        }
        long remote = switch (fault) {
            case PAST_END_WRITE, PAST_END_READ -> addr + 4096 - 32;
            case BEFORE_START_WRITE -> addr - 8;
            default -> addr + 64;
        };
        WrOpcode op = fault.name().endsWith("WRITE") ? WrOpcode.RDMA_WRITE
                : fault.name().endsWith("READ") ? WrOpcode.RDMA_READ : WrOpcode.ATOMIC_FETCH_AND_ADD;
        fill(p.ma, BUF, 64, 3);
        p.b.postRecv(new RecvWr().wrId(500).sgList(sge(p.mrb, BUF, 64)));
        SendWr w = op.isAtomic() ? wr(1, op, sge(p.mra, 4096, 8)).atomic(remote, rkey, 1, 0)
                : wr(1, op, sge(p.mra, op == WrOpcode.RDMA_READ ? 4096 : BUF, 64)).rdma(remote, rkey);
        p.a.postSend(w);
        expect(p.sqa, 1, WcStatus.REM_ACCESS_ERR, fault.toString());
        assertBothInErrWithReceiveFlushed(p, fault.toString());
        if (!fault.name().startsWith("DEREGISTERED")) {
            assertAllBytes(target, 0, 4096, (byte) 0, fault + ": the target memory is untouched");
        }
        assertAllBytes(p.ma, 4096, 64, (byte) 0, fault + ": nothing was read back");
    }

    /**
     * An operation the responder QP's access flags do not enable: rdma_rxe answers NAK invalid
     * request (rxe_resp.c check_op_valid → RESPST_ERR_UNSUPPORTED_OPCODE), so the requester sees
     * REM_INV_REQ_ERR; the MR's own rights are all granted here.
     */
    public enum QpAccessFault { QP_WITHOUT_REMOTE_WRITE, QP_WITHOUT_REMOTE_READ, QP_WITHOUT_REMOTE_ATOMIC }

    @ParameterizedTest
    @EnumSource(QpAccessFault.class)
    @Tag("known-failure") // rocev2 answers NAK remote access error (RxeQp.remoteMr checks the QP's flags with the MR's)
    void operationNotEnabledOnTheResponderQp(QpAccessFault fault) {
        WrOpcode op;
        int qpAccess;
        switch (fault) {
            case QP_WITHOUT_REMOTE_WRITE -> {
                op = WrOpcode.RDMA_WRITE;
                qpAccess = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
            }
            case QP_WITHOUT_REMOTE_READ -> {
                op = WrOpcode.RDMA_READ;
                qpAccess = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC;
            }
            default -> {
                require(Feature.ATOMICS);
                op = WrOpcode.ATOMIC_FETCH_AND_ADD;
                qpAccess = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
            }
        }
        Pair p = connect(conn().access(QP_ALL_REMOTE, qpAccess));
        p.b.postRecv(new RecvWr().wrId(500).sgList(sge(p.mrb, BUF, 64)));
        SendWr w = op.isAtomic() ? wr(1, op, sge(p.mra, 4096, 8)).atomic(p.mrb.addr() + TARGET, p.mrb.rkey(), 1, 0)
                : wr(1, op, sge(p.mra, BUF, 64)).rdma(p.mrb.addr() + TARGET, p.mrb.rkey());
        p.a.postSend(w);
        expect(p.sqa, 1, WcStatus.REM_INV_REQ_ERR, fault.toString());
        assertBothInErrWithReceiveFlushed(p, fault.toString());
        assertAllBytes(p.mb, TARGET, 64, (byte) 0, fault + ": the target memory is untouched");
    }

    @Test
    void misalignedAtomicIsRemInvReqErr() {
        require(Feature.ATOMICS);
        Pair p = connect(conn());
        p.b.postRecv(new RecvWr().wrId(500).sgList(sge(p.mrb, BUF, 64)));
        p.a.postSend(wr(1, WrOpcode.ATOMIC_CMP_AND_SWP, sge(p.mra, 4096, 8))
                .atomic(p.mrb.addr() + TARGET + 4, p.mrb.rkey(), 0, 1));
        expect(p.sqa, 1, WcStatus.REM_INV_REQ_ERR, "atomic at an address that is not 8-byte aligned");
        assertBothInErrWithReceiveFlushed(p, "misaligned atomic");
        assertAllBytes(p.mb, TARGET, 16, (byte) 0, "no swap");
    }

    @Test
    void errorFlushesEveryOutstandingWrInOrder() {
        Pair p = connect(conn());
        for (int i = 0; i < 3; i++) {
            p.a.postRecv(new RecvWr().wrId(100 + i).sgList(sge(p.mra, BUF + 1024L * i, 1024)));
        }
        for (int i = 0; i < 2; i++) {
            p.b.postRecv(new RecvWr().wrId(200 + i).sgList(sge(p.mrb, BUF + 1024L * i, 1024)));
        }
        // the first WR fails remotely; everything behind it, signaled or not, is flushed
        SendWr bad = wr(1, WrOpcode.RDMA_WRITE, sge(p.mra, 8192, 64)).rdma(p.mrb.addr() + TARGET, p.mrb.rkey() ^ 0x00A5A500);
        SendWr send = wr(2, WrOpcode.SEND, sge(p.mra, 8192, 64)).sendFlags(0);
        SendWr write = wr(3, WrOpcode.RDMA_WRITE, sge(p.mra, 8192, 64)).rdma(p.mrb.addr() + TARGET, p.mrb.rkey());
        SendWr read = wr(4, WrOpcode.RDMA_READ, sge(p.mra, 16384, 64)).rdma(p.mrb.addr() + TARGET, p.mrb.rkey())
                .sendFlags(0);
        SendWr write2 = wr(5, WrOpcode.RDMA_WRITE, sge(p.mra, 8192, 64)).rdma(p.mrb.addr() + TARGET, p.mrb.rkey());
        bad.next(send);
        send.next(write);
        write.next(read);
        read.next(write2);
        p.a.postSend(bad);
        expect(p.sqa, 1, WcStatus.REM_ACCESS_ERR, "the failing WR");
        for (int i = 2; i <= 5; i++) {
            WorkCompletion wc = expect(p.sqa, i, WcStatus.WR_FLUSH_ERR, "send WR " + i + " flushed");
            assertEquals(p.a.qpNum(), wc.qpNum());
        }
        for (int i = 0; i < 3; i++) {
            expect(p.rqa, 100 + i, WcStatus.WR_FLUSH_ERR, "requester's receive " + i + " flushed");
        }
        for (int i = 0; i < 2; i++) {
            expect(p.rqb, 200 + i, WcStatus.WR_FLUSH_ERR, "responder's receive " + i + " flushed");
        }
        awaitState(p.a, QpState.ERR, "requester");
        awaitState(p.b, QpState.ERR, "responder");
        // WRs posted in ERR complete at once with WR_FLUSH_ERR, even unsignaled ones
        p.a.postSend(wr(6, WrOpcode.SEND, sge(p.mra, 8192, 8)).sendFlags(0));
        p.a.postRecv(new RecvWr().wrId(103).sgList(sge(p.mra, BUF, 64)));
        expect(p.sqa, 6, WcStatus.WR_FLUSH_ERR, "SEND posted in ERR");
        expect(p.rqa, 103, WcStatus.WR_FLUSH_ERR, "receive posted in ERR");
        pause(20);
        assertCqEmpty(p.sqa, "each WR completes once");
        assertCqEmpty(p.rqa, "each receive completes once");
        assertCqEmpty(p.rqb, "each responder receive completes once");
        assertAllBytes(p.mb, TARGET, 64, (byte) 0, "no flushed WRITE executed");
    }

    @Test
    void unsignaledWrThatFailsStillCompletes() {
        Pair p = connect(conn());
        p.a.postSend(wr(1, WrOpcode.RDMA_WRITE, sge(p.mra, 0, 8)).sendFlags(0)
                .rdma(p.mrb.addr(), p.mrb.rkey() ^ 0x00A5A500));
        expect(p.sqa, 1, WcStatus.REM_ACCESS_ERR, "unsignaled WR with an error");
    }

    @Test
    void noReceiveWithRnrRetryZeroIsRnrRetryExcErr() {
        require(Feature.RNR);
        Pair p = connect(conn().rnrRetry(0).minRnrTimer(1));
        p.a.postSend(wr(1, WrOpcode.SEND, sge(p.mra, BUF, 64)));
        expect(p.sqa, 1, WcStatus.RNR_RETRY_EXC_ERR, "SEND without a receive, rnr_retry 0");
        awaitState(p.a, QpState.ERR, "requester after RNR retries exhausted");
    }

    @Test
    void noReceiveWithRnrRetrySevenWaitsForTheReceive() {
        require(Feature.RNR);
        Pair p = connect(conn().rnrRetry(7).minRnrTimer(12));
        fill(p.ma, BUF, 64, 11);
        p.a.postSend(wr(1, WrOpcode.SEND_WITH_IMM, sge(p.mra, BUF, 64)).immData(5)
                .opcode(fixture().supports(Feature.IMMEDIATE) ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND));
        pause(200);
        assertCqEmpty(p.sqa, "rnr_retry 7 retries for ever");
        assertEquals(QpState.RTS, queryState(p.a));
        p.b.postRecv(new RecvWr().wrId(9).sgList(sge(p.mrb, BUF, 64)));
        expect(p.sqa, 1, WcStatus.SUCCESS, "the SEND once a receive is posted");
        WorkCompletion r = expect(p.rqb, 9, WcStatus.SUCCESS, "the receive");
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(64, r.byteLen());
        assertSameBytes(p.ma, BUF, p.mb, BUF, 64, "payload after RNR");
    }

    @Test
    void peerQpGoneIsRetryExcErr() {
        require(Feature.ACK_TIMEOUT);
        Pair p = connect(conn().timeout(10).retryCnt(2));
        p.a.postSend(wr(1, WrOpcode.RDMA_WRITE, sge(p.mra, BUF, 8)).rdma(p.mrb.addr(), p.mrb.rkey()));
        expect(p.sqa, 1, WcStatus.SUCCESS, "a WRITE while the peer is there");
        p.b.close();
        p.a.postSend(wr(2, WrOpcode.RDMA_WRITE, sge(p.mra, BUF, 8)).rdma(p.mrb.addr(), p.mrb.rkey()));
        p.a.postSend(wr(3, WrOpcode.RDMA_READ, sge(p.mra, BUF, 8)).rdma(p.mrb.addr(), p.mrb.rkey()));
        expect(p.sqa, 2, WcStatus.RETRY_EXC_ERR, "WRITE to a destroyed QP after retry_cnt timeouts");
        expect(p.sqa, 3, WcStatus.WR_FLUSH_ERR, "the WR behind it");
        awaitState(p.a, QpState.ERR, "requester after retries exhausted");
    }

    @Test
    void peerContextClosedIsRetryExcErr() {
        require(Feature.ACK_TIMEOUT);
        Context cb2 = fixture().openSecond();
        try {
            Conn c = conn().timeout(10).retryCnt(2);
            ProtectionDomain pa = track(ca.allocPd());
            CompletionQueue cqa = track(ca.createCq(64, null));
            QueuePair a = track(pa.createQp(initAttr(cqa, cqa, c)));
            ProtectionDomain pb = cb2.allocPd();
            CompletionQueue cqb = cb2.createCq(64, null);
            QueuePair b = pb.createQp(initAttr(cqb, cqb, c));
            MemoryRegion mra = track(pa.regMr(arena.allocate(4096, 4096), ALL_ACCESS));
            MemoryRegion mrb = pb.regMr(arena.allocate(4096, 4096), ALL_ACCESS);
            toInit(a, c.type, QP_ALL_REMOTE);
            toInit(b, c.type, QP_ALL_REMOTE);
            toRtr(a, c, b.qpNum(), cb2.queryGid(fixture().portNum(), fixture().gidIndex()), 0);
            toRtr(b, c, a.qpNum(), ca.queryGid(fixture().portNum(), fixture().gidIndex()), 0);
            toRts(a, c, 0);
            toRts(b, c, 0);
            a.postSend(wr(1, WrOpcode.RDMA_WRITE, sge(mra, 0, 8)).rdma(mrb.addr(), mrb.rkey()));
            expect(cqa, 1, WcStatus.SUCCESS, "a WRITE while the peer's context is open");
            cb2.close();
            cb2 = null;
            a.postSend(wr(2, WrOpcode.RDMA_WRITE, sge(mra, 0, 8)).rdma(mrb.addr(), mrb.rkey()));
            expect(cqa, 2, WcStatus.RETRY_EXC_ERR, "WRITE after the peer's context was closed");
            awaitState(a, QpState.ERR, "requester after retries exhausted");
        } finally {
            if (cb2 != null) {
                cb2.close();
            }
        }
    }
}
