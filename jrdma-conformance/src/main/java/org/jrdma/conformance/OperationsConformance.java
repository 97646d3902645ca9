package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every RC operation with an exact check of the bytes moved and of both sides' completions
 * ({@code ibv_post_send(3)}, {@code ibv_poll_cq(3)}; IBTA Vol 1 §9.4, §10.8).
 */
public abstract class OperationsConformance extends ConformanceBase {
    private static final long SRC = 0, DST = 1 << 21, SRC_B = 1 << 22;
    private static final long MEM = 3L << 21;

    private static ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    private static SendWr wr(long id, WrOpcode op, Sge... sges) {
        return new SendWr().wrId(id).opcode(op).sendFlags(SendFlags.SIGNALED).sgList(sges);
    }

    @Test
    void send() {
        Pair p = connect(conn().memBytes(MEM));
        fill(p.ma, SRC, 3000, 1);
        p.b.postRecv(new RecvWr().wrId(77).sgList(sge(p.mrb, DST, 4096)));
        p.a.postSend(wr(5, WrOpcode.SEND, sge(p.mra, SRC, 3000)));
        WorkCompletion s = expect(p.sqa, 5, WcStatus.SUCCESS, "SEND at the requester");
        assertEquals(WcOpcode.SEND, s.opcode());
        assertEquals(p.a.qpNum(), s.qpNum());
        WorkCompletion r = expect(p.rqb, 77, WcStatus.SUCCESS, "SEND at the responder");
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(3000, r.byteLen());
        assertEquals(0, r.wcFlags() & WcFlags.WITH_IMM, "no immediate");
        assertEquals(p.b.qpNum(), r.qpNum());
        assertSameBytes(p.ma, SRC, p.mb, DST, 3000, "SEND payload");
    }

    @Test
    void sendWithImm() {
        require(Feature.IMMEDIATE);
        Pair p = connect(conn().memBytes(MEM));
        fill(p.ma, SRC, 100, 2);
        p.b.postRecv(new RecvWr().wrId(1).sgList(sge(p.mrb, DST, 4096)));
        p.a.postSend(wr(2, WrOpcode.SEND_WITH_IMM, sge(p.mra, SRC, 100)).immData(0xCAFEF00D));
        WorkCompletion s = expect(p.sqa, 2, WcStatus.SUCCESS, "SEND_WITH_IMM at the requester");
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = expect(p.rqb, 1, WcStatus.SUCCESS, "SEND_WITH_IMM at the responder");
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(100, r.byteLen());
        assertEquals(WcFlags.WITH_IMM, r.wcFlags() & WcFlags.WITH_IMM);
        assertEquals(0xCAFEF00D, r.immData());
        assertSameBytes(p.ma, SRC, p.mb, DST, 100, "SEND_WITH_IMM payload");
    }

    @Test
    void rdmaWrite() {
        Pair p = connect(conn().memBytes(MEM));
        fill(p.ma, SRC, 10000, 3);
        p.a.postSend(wr(9, WrOpcode.RDMA_WRITE, sge(p.mra, SRC, 10000)).rdma(p.mrb.addr() + DST + 100, p.mrb.rkey()));
        WorkCompletion s = expect(p.sqa, 9, WcStatus.SUCCESS, "RDMA WRITE");
        assertEquals(WcOpcode.RDMA_WRITE, s.opcode());
        assertSameBytes(p.ma, SRC, p.mb, DST + 100, 10000, "RDMA WRITE payload");
        assertAllBytes(p.mb, DST, 100, (byte) 0, "bytes before the WRITE");
        assertAllBytes(p.mb, DST + 10100, 100, (byte) 0, "bytes after the WRITE");
        assertCqEmpty(p.rqb, "a WRITE consumes no receive");
    }

    @Test
    void rdmaWriteWithImmConsumesAReceive() {
        require(Feature.IMMEDIATE);
        Pair p = connect(conn().memBytes(MEM));
        fill(p.ma, SRC, 5000, 4);
        fill(p.mb, SRC_B, 64, 44);
        p.b.postRecv(new RecvWr().wrId(31).sgList(sge(p.mrb, SRC_B, 64)));
        p.a.postSend(wr(32, WrOpcode.RDMA_WRITE_WITH_IMM, sge(p.mra, SRC, 5000)).immData(0x01020304)
                .rdma(p.mrb.addr() + DST, p.mrb.rkey()));
        WorkCompletion s = expect(p.sqa, 32, WcStatus.SUCCESS, "RDMA_WRITE_WITH_IMM at the requester");
        assertEquals(WcOpcode.RDMA_WRITE, s.opcode());
        WorkCompletion r = expect(p.rqb, 31, WcStatus.SUCCESS, "RDMA_WRITE_WITH_IMM at the responder");
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
        assertEquals(5000, r.byteLen(), "byte_len is the length of the WRITE");
        assertEquals(WcFlags.WITH_IMM, r.wcFlags() & WcFlags.WITH_IMM);
        assertEquals(0x01020304, r.immData());
        assertSameBytes(p.ma, SRC, p.mb, DST, 5000, "WRITE payload");
        java.lang.foreign.MemorySegment orig = arena.allocate(64);
        fill(orig, 0, 64, 44);
        assertSameBytes(orig, 0, p.mb, SRC_B, 64, "the receive buffer is not touched");
    }

    @Test
    void rdmaRead() {
        Pair p = connect(conn().memBytes(MEM));
        fill(p.mb, SRC_B, 7000, 5);
        p.a.postSend(wr(3, WrOpcode.RDMA_READ, sge(p.mra, DST, 7000)).rdma(p.mrb.addr() + SRC_B, p.mrb.rkey()));
        WorkCompletion s = expect(p.sqa, 3, WcStatus.SUCCESS, "RDMA READ");
        assertEquals(WcOpcode.RDMA_READ, s.opcode());
        assertEquals(7000, s.byteLen());
        assertSameBytes(p.mb, SRC_B, p.ma, DST, 7000, "READ data");
        assertAllBytes(p.ma, DST + 7000, 64, (byte) 0, "bytes after the READ");
    }

    @Test
    void atomicFetchAndAddInHostByteOrder() {
        require(Feature.ATOMICS);
        Pair p = connect(conn().memBytes(MEM));
        long word = SRC_B + 64;
        p.mb.set(LONG, word, 0x00000000FFFFFFFFL);
        p.a.postSend(wr(1, WrOpcode.ATOMIC_FETCH_AND_ADD, sge(p.mra, DST, 8))
                .atomic(p.mrb.addr() + word, p.mrb.rkey(), 1, 0));
        WorkCompletion s = expect(p.sqa, 1, WcStatus.SUCCESS, "FETCH_AND_ADD");
        assertEquals(WcOpcode.FETCH_ADD, s.opcode());
        assertEquals(0x00000000FFFFFFFFL, p.ma.get(LONG, DST), "the original value, host byte order");
        assertEquals(0x0000000100000000L, p.mb.get(LONG, word), "the sum, host byte order");
        p.a.postSend(wr(2, WrOpcode.ATOMIC_FETCH_AND_ADD, sge(p.mra, DST + 8, 8))
                .atomic(p.mrb.addr() + word, p.mrb.rkey(), -2L, 0));
        expect(p.sqa, 2, WcStatus.SUCCESS, "FETCH_AND_ADD of -2");
        assertEquals(0x0000000100000000L, p.ma.get(LONG, DST + 8));
        assertEquals(0x00000000FFFFFFFEL, p.mb.get(LONG, word), "wraps as 64-bit two's complement");
    }

    @Test
    void atomicCompareAndSwap() {
        require(Feature.ATOMICS);
        Pair p = connect(conn().memBytes(MEM));
        long word = SRC_B + 128;
        p.mb.set(LONG, word, 0x1122334455667788L);
        p.a.postSend(wr(1, WrOpcode.ATOMIC_CMP_AND_SWP, sge(p.mra, DST, 8))
                .atomic(p.mrb.addr() + word, p.mrb.rkey(), 0x1122334455667700L, 0x7777L));
        WorkCompletion s = expect(p.sqa, 1, WcStatus.SUCCESS, "CMP_AND_SWP that does not match");
        assertEquals(WcOpcode.COMP_SWAP, s.opcode());
        assertEquals(0x1122334455667788L, p.ma.get(LONG, DST));
        assertEquals(0x1122334455667788L, p.mb.get(LONG, word), "no swap when the compare fails");
        p.a.postSend(wr(2, WrOpcode.ATOMIC_CMP_AND_SWP, sge(p.mra, DST + 8, 8))
                .atomic(p.mrb.addr() + word, p.mrb.rkey(), 0x1122334455667788L, 0x8877665544332211L));
        expect(p.sqa, 2, WcStatus.SUCCESS, "CMP_AND_SWP that matches");
        assertEquals(0x1122334455667788L, p.ma.get(LONG, DST + 8));
        assertEquals(0x8877665544332211L, p.mb.get(LONG, word), "swapped");
    }

    @Test
    void zeroLengthSendWriteRead() {
        Pair p = connect(conn().memBytes(MEM));
        fill(p.mb, DST, 16, 6);
        java.lang.foreign.MemorySegment before = arena.allocate(16);
        fill(before, 0, 16, 6);
        p.b.postRecv(new RecvWr().wrId(10).sgList(sge(p.mrb, DST, 16)));
        p.a.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED));
        expect(p.sqa, 1, WcStatus.SUCCESS, "zero-length SEND");
        WorkCompletion r = expect(p.rqb, 10, WcStatus.SUCCESS, "zero-length SEND received");
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(0, r.byteLen());
        p.a.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .rdma(p.mrb.addr() + DST, p.mrb.rkey()));
        expect(p.sqa, 2, WcStatus.SUCCESS, "zero-length WRITE");
        p.a.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .rdma(p.mrb.addr() + DST, p.mrb.rkey()));
        WorkCompletion rd = expect(p.sqa, 3, WcStatus.SUCCESS, "zero-length READ");
        assertEquals(0, rd.byteLen());
        assertSameBytes(before, 0, p.mb, DST, 16, "nothing written");
        assertCqEmpty(p.rqb, "zero-length WRITE consumes no receive");
    }

    @Test
    void severalSgesOnBothSides() {
        Pair p = connect(conn().memBytes(MEM).maxSge(4));
        // gather 100 + 1 + 2000 + 900 bytes from scattered places, scatter into 1000 + 3 + 2000 (+ spare)
        fill(p.ma, SRC, 8192, 7);
        Sge[] gather = {sge(p.mra, SRC + 5, 100), sge(p.mra, SRC + 300, 1), sge(p.mra, SRC + 1000, 2000),
            sge(p.mra, SRC + 7000, 900)};
        java.lang.foreign.MemorySegment expected = arena.allocate(3001);
        long o = 0;
        for (Sge g : gather) {
            java.lang.foreign.MemorySegment.copy(p.ma, g.addr() - p.mra.addr(), expected, o, g.length());
            o += g.length();
        }
        p.b.postRecv(new RecvWr().wrId(1).sgList(sge(p.mrb, DST, 1000), sge(p.mrb, DST + 4096, 3),
                sge(p.mrb, DST + 8192, 2500)));
        p.a.postSend(wr(1, WrOpcode.SEND, gather));
        expect(p.sqa, 1, WcStatus.SUCCESS, "SEND of 4 SGEs");
        WorkCompletion r = expect(p.rqb, 1, WcStatus.SUCCESS, "receive into 3 SGEs");
        assertEquals(3001, r.byteLen());
        assertSameBytes(expected, 0, p.mb, DST, 1000, "first scatter SGE");
        assertSameBytes(expected, 1000, p.mb, DST + 4096, 3, "second scatter SGE");
        assertSameBytes(expected, 1003, p.mb, DST + 8192, 1998, "third scatter SGE");
        assertAllBytes(p.mb, DST + 8192 + 1998, 16, (byte) 0, "past the message in the last SGE");
        // WRITE gathers into one remote range
        p.a.postSend(wr(2, WrOpcode.RDMA_WRITE, gather).rdma(p.mrb.addr() + SRC_B, p.mrb.rkey()));
        expect(p.sqa, 2, WcStatus.SUCCESS, "WRITE of 4 SGEs");
        assertSameBytes(expected, 0, p.mb, SRC_B, 3001, "gathered WRITE");
        // READ scatters one remote range
        p.a.postSend(wr(3, WrOpcode.RDMA_READ, sge(p.mra, DST, 7), sge(p.mra, DST + 4096, 2994))
                .rdma(p.mrb.addr() + SRC_B, p.mrb.rkey()));
        WorkCompletion rd = expect(p.sqa, 3, WcStatus.SUCCESS, "READ into 2 SGEs");
        assertEquals(3001, rd.byteLen());
        assertSameBytes(expected, 0, p.ma, DST, 7, "first READ SGE");
        assertSameBytes(expected, 7, p.ma, DST + 4096, 2994, "second READ SGE");
    }

    @Test
    void inlineDataIsCopiedAtPostTime() {
        require(Feature.INLINE);
        Pair p = connect(conn().memBytes(MEM).maxInline(64));
        QpAttr attr = new QpAttr();
        p.a.query(attr, QpAttrMask.CAP);
        assertTrue(attr.cap().maxInlineData() >= 64, "max_inline_data " + attr.cap().maxInlineData());
        java.lang.foreign.MemorySegment expected = arena.allocate(64);
        fill(expected, 0, 64, 8);
        java.lang.foreign.MemorySegment.copy(expected, 0, p.ma, SRC, 64);
        p.b.postRecv(new RecvWr().wrId(1).sgList(sge(p.mrb, DST, 64)));
        p.a.postSend(wr(1, WrOpcode.SEND, sge(p.mra, SRC, 60)).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE));
        p.ma.asSlice(SRC, 64).fill((byte) 0xEE); // the source may be reused as soon as post_send returns
        expect(p.sqa, 1, WcStatus.SUCCESS, "inline SEND");
        WorkCompletion r = expect(p.rqb, 1, WcStatus.SUCCESS, "inline SEND received");
        assertEquals(60, r.byteLen());
        assertSameBytes(expected, 0, p.mb, DST, 60, "inline SEND payload");
        // inline WRITE; the lkey of an inline SGE is not checked (ibv_post_send(3))
        java.lang.foreign.MemorySegment.copy(expected, 0, p.ma, SRC, 64);
        p.a.postSend(wr(2, WrOpcode.RDMA_WRITE, new Sge(p.mra.addr() + SRC, 33, p.mra.lkey() ^ 0x5A5A5A00))
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).rdma(p.mrb.addr() + SRC_B, p.mrb.rkey()));
        p.ma.asSlice(SRC, 64).fill((byte) 0xDD);
        expect(p.sqa, 2, WcStatus.SUCCESS, "inline WRITE with an unchecked lkey");
        assertSameBytes(expected, 0, p.mb, SRC_B, 33, "inline WRITE payload");
    }

    @Test
    void unsignaledWrsCompleteSilently() {
        Pair p = connect(conn().memBytes(MEM));
        fill(p.ma, SRC, 300, 9);
        SendWr w = new SendWr().opcode(WrOpcode.RDMA_WRITE).sgList(sge(p.mra, SRC, 100));
        p.a.postSend(w.wrId(1).sendFlags(0).rdma(p.mrb.addr() + DST, p.mrb.rkey()));
        w.sgList()[0].addr(p.mra.addr() + SRC + 100);
        p.a.postSend(w.wrId(2).sendFlags(0).rdma(p.mrb.addr() + DST + 100, p.mrb.rkey()));
        w.sgList()[0].addr(p.mra.addr() + SRC + 200);
        p.a.postSend(w.wrId(3).sendFlags(SendFlags.SIGNALED).rdma(p.mrb.addr() + DST + 200, p.mrb.rkey()));
        expect(p.sqa, 3, WcStatus.SUCCESS, "the signaled WR is the only completion");
        pause(20);
        assertCqEmpty(p.sqa, "unsignaled WRs");
        assertSameBytes(p.ma, SRC, p.mb, DST, 300, "all three WRITEs landed");
    }

    @Test
    void sqSigAllSignalsEveryWr() {
        Pair p = connect(conn().memBytes(MEM).sqSigAll(true));
        SendWr w = new SendWr().opcode(WrOpcode.RDMA_WRITE).sendFlags(0).sgList(sge(p.mra, SRC, 8))
                .rdma(p.mrb.addr() + DST, p.mrb.rkey());
        for (int i = 1; i <= 3; i++) {
            p.a.postSend(w.wrId(i));
        }
        for (int i = 1; i <= 3; i++) {
            expect(p.sqa, i, WcStatus.SUCCESS, "sq_sig_all WR " + i);
        }
    }

    /** 1 byte to 1 MiB at each path MTU: SEND, WRITE, WRITE_WITH_IMM, READ; boundaries around the MTU. */
    @ParameterizedTest
    @EnumSource(Mtu.class)
    void messageSizesAcrossPathMtus(Mtu mtu) {
        if (mtu != Mtu.MTU_1024) {
            require(Feature.PATH_MTU);
        }
        Pair p = connect(conn().mtu(mtu).memBytes(MEM));
        int m = mtu.bytes();
        int[] sizes = {1, 2, m - 1, m, m + 1, 2 * m, 3 * m - 1, 65537, 1 << 20};
        fill(p.ma, SRC, 1 << 20, mtu.value());
        fill(p.mb, SRC_B, 1 << 20, 100 + mtu.value());
        long id = 0;
        for (int size : sizes) {
            String what = mtu + " " + size + " bytes";
            p.mb.asSlice(DST, size + 1).fill((byte) 0);
            p.b.postRecv(new RecvWr().wrId(++id).sgList(sge(p.mrb, DST, 1 << 20)));
            p.a.postSend(wr(id, WrOpcode.SEND, sge(p.mra, SRC, size)));
            expect(p.sqa, id, WcStatus.SUCCESS, "SEND " + what);
            assertEquals(size, expect(p.rqb, id, WcStatus.SUCCESS, "RECV " + what).byteLen(), "RECV byte_len " + what);
            assertSameBytes(p.ma, SRC, p.mb, DST, size, "SEND " + what);
            assertAllBytes(p.mb, DST + size, 1, (byte) 0, "past SEND " + what);

            p.mb.asSlice(DST, size + 1).fill((byte) 0);
            p.a.postSend(wr(++id, WrOpcode.RDMA_WRITE, sge(p.mra, SRC, size)).rdma(p.mrb.addr() + DST, p.mrb.rkey()));
            expect(p.sqa, id, WcStatus.SUCCESS, "WRITE " + what);
            assertSameBytes(p.ma, SRC, p.mb, DST, size, "WRITE " + what);
            assertAllBytes(p.mb, DST + size, 1, (byte) 0, "past WRITE " + what);

            if (fixture().supports(Feature.IMMEDIATE)) {
                p.mb.asSlice(DST, size + 1).fill((byte) 0);
                p.b.postRecv(new RecvWr().wrId(++id).sgList(sge(p.mrb, DST, 0)).numSge(0));
                p.a.postSend(wr(id, WrOpcode.RDMA_WRITE_WITH_IMM, sge(p.mra, SRC, size)).immData((int) id)
                        .rdma(p.mrb.addr() + DST, p.mrb.rkey()));
                expect(p.sqa, id, WcStatus.SUCCESS, "WRITE_WITH_IMM " + what);
                WorkCompletion r = expect(p.rqb, id, WcStatus.SUCCESS, "RECV_RDMA_WITH_IMM " + what);
                assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
                assertEquals(size, r.byteLen(), "byte_len of WRITE_WITH_IMM " + what);
                assertEquals((int) id, r.immData());
                assertSameBytes(p.ma, SRC, p.mb, DST, size, "WRITE_WITH_IMM " + what);
            }

            p.ma.asSlice(DST, size + 1).fill((byte) 0);
            p.a.postSend(wr(++id, WrOpcode.RDMA_READ, sge(p.mra, DST, size)).rdma(p.mrb.addr() + SRC_B, p.mrb.rkey()));
            assertEquals(size, expect(p.sqa, id, WcStatus.SUCCESS, "READ " + what).byteLen(), "READ byte_len " + what);
            assertSameBytes(p.mb, SRC_B, p.ma, DST, size, "READ " + what);
            assertAllBytes(p.ma, DST + size, 1, (byte) 0, "past READ " + what);
        }
    }
}
