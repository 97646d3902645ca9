package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
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
 * Unreliable connected QPs (IBTA Vol 1 §9.8.2, table 38 "service types"): SEND and RDMA WRITE with
 * and without immediate work; RDMA READ and atomics are not UC operations and are refused at
 * post time with EINVAL ({@code ibv_post_send(3)}). On a loss-free path every message arrives.
 */
public abstract class UcConformance extends ConformanceBase {
    @BeforeEach
    void needsUc() {
        require(Feature.UC);
    }

    private Pair uc() {
        return connect(conn().type(QpType.UC));
    }

    @Test
    void sendAndSendWithImm() {
        Pair p = uc();
        fill(p.ma, 0, 10000, 1);
        p.b.postRecv(new RecvWr().wrId(1).sgList(sge(p.mrb, 0, 16384)));
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 10000)));
        WorkCompletion s = expect(p.sqa, 1, WcStatus.SUCCESS, "UC SEND");
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = expect(p.rqb, 1, WcStatus.SUCCESS, "UC receive");
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(10000, r.byteLen());
        assertSameBytes(p.ma, 0, p.mb, 0, 10000, "UC SEND payload (10 packets at MTU 1024)");
        if (fixture().supports(Feature.IMMEDIATE)) {
            p.b.postRecv(new RecvWr().wrId(2).sgList(sge(p.mrb, 16384, 4096)));
            p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(0x55AA)
                    .sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 300)));
            expect(p.sqa, 2, WcStatus.SUCCESS, "UC SEND_WITH_IMM");
            r = expect(p.rqb, 2, WcStatus.SUCCESS, "UC receive with immediate");
            assertEquals(300, r.byteLen());
            assertEquals(WcFlags.WITH_IMM, r.wcFlags() & WcFlags.WITH_IMM);
            assertEquals(0x55AA, r.immData());
            assertSameBytes(p.ma, 0, p.mb, 16384, 300, "UC SEND_WITH_IMM payload");
        }
    }

    @Test
    void writeAndWriteWithImm() {
        Pair p = uc();
        fill(p.ma, 0, 5000, 2);
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 5000)).rdma(p.mrb.addr() + 8192, p.mrb.rkey()));
        WorkCompletion s = expect(p.sqa, 1, WcStatus.SUCCESS, "UC WRITE");
        assertEquals(WcOpcode.RDMA_WRITE, s.opcode());
        // UC has no acknowledgement: the data is there once a later message is
        if (fixture().supports(Feature.IMMEDIATE)) {
            p.b.postRecv(new RecvWr().wrId(7).sgList(sge(p.mrb, 0, 64)));
            p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(77)
                    .sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 3000)).rdma(p.mrb.addr() + 65536, p.mrb.rkey()));
            expect(p.sqa, 2, WcStatus.SUCCESS, "UC WRITE_WITH_IMM");
            WorkCompletion r = expect(p.rqb, 7, WcStatus.SUCCESS, "UC RECV_RDMA_WITH_IMM");
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
            assertEquals(3000, r.byteLen());
            assertEquals(77, r.immData());
            assertSameBytes(p.ma, 0, p.mb, 65536, 3000, "UC WRITE_WITH_IMM payload");
        } else {
            p.b.postRecv(new RecvWr().wrId(7).sgList(sge(p.mrb, 0, 64)));
            p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 1)));
            expect(p.rqb, 7, WcStatus.SUCCESS, "UC SEND behind the WRITE");
        }
        assertSameBytes(p.ma, 0, p.mb, 8192, 5000, "UC WRITE payload");
    }

    @Test
    void readAndAtomicsAreRefusedAtPost() {
        Pair p = uc();
        assertErrno(Errno.EINVAL, () -> p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ)
                .sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 64)).rdma(p.mrb.addr(), p.mrb.rkey())), "UC RDMA READ");
        assertErrno(Errno.EINVAL, () -> p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                .sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 8)).atomic(p.mrb.addr(), p.mrb.rkey(), 0, 1)),
                "UC CMP_AND_SWP");
        assertErrno(Errno.EINVAL, () -> p.a.postSend(new SendWr().wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                .sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 8)).atomic(p.mrb.addr(), p.mrb.rkey(), 1, 0)),
                "UC FETCH_AND_ADD");
        assertEquals(QpState.RTS, queryState(p.a), "a refused post leaves the QP in RTS");
        p.a.postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sgList(sge(p.mra, 0, 8)).rdma(p.mrb.addr(), p.mrb.rkey()));
        expect(p.sqa, 4, WcStatus.SUCCESS, "the first completion is the WRITE posted after the refused ones");
    }
}
