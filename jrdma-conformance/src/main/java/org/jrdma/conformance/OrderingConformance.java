package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * Ordering on an RC connection (IBTA Vol 1 §10.8.6, §9.5): 10,000 mixed operations (SEND,
 * SEND_WITH_IMM, WRITE, WRITE_WITH_IMM, READ, FETCH_AND_ADD, CMP_AND_SWP, 1..2048 bytes, seeded) with
 * up to 64 outstanding; each CQE exactly once, in posting order, on both the send and the receive
 * queue; every byte and every atomic result checked against a model.
 */
public abstract class OrderingConformance extends ConformanceBase {
    private static final int N = 10_000;
    private static final int W = 64;
    private static final int SLOT = 2048;
    // A's memory
    private static final long A_SRC = 0, A_READ = 256 << 10, A_ATOMIC = 512 << 10;
    // B's memory
    private static final long B_RECV = 0, B_WRITE = 256 << 10, B_READ_SRC = 512 << 10, B_WORD = 768 << 10;
    private static final int READ_SRC_LEN = 128 << 10;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    @Test
    void tenThousandMixedOperationsInOrderWithExactData() {
        List<WrOpcode> ops = new ArrayList<>(List.of(WrOpcode.SEND, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ));
        if (fixture().supports(Feature.IMMEDIATE)) {
            ops.add(WrOpcode.SEND_WITH_IMM);
            ops.add(WrOpcode.RDMA_WRITE_WITH_IMM);
        }
        if (fixture().supports(Feature.ATOMICS)) {
            ops.add(WrOpcode.ATOMIC_FETCH_AND_ADD);
            ops.add(WrOpcode.ATOMIC_CMP_AND_SWP);
        }
        Pair p = connect(conn().depth(2 * W, 2 * W).cqe(4 * W));
        SplittableRandom rnd = new SplittableRandom(20240604);
        fill(p.mb, B_READ_SRC, READ_SRC_LEN, 999);
        MemorySegment scratch = arena.allocate(SLOT);

        WrOpcode[] opOf = new WrOpcode[W];
        int[] lenOf = new int[W];
        long[] remoteOf = new long[W];
        long[] atomicExpect = new long[W];
        // the receives, a ring indexed by receive sequence
        WrOpcode[] recvOp = new WrOpcode[W];
        int[] recvLen = new int[W];
        long[] recvSeed = new long[W];
        long model = rnd.nextLong();
        p.mb.set(LONG, B_WORD, model);

        SendWr wr = new SendWr().sendFlags(SendFlags.SIGNALED).sgList(sge(p.mra, 0, 0));
        RecvWr rwr = new RecvWr().sgList(sge(p.mrb, 0, SLOT));
        WorkCompletion[] wc = new WorkCompletion[16];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        long posted = 0, done = 0, recvPosted = 0, recvDone = 0;
        long deadline = System.nanoTime() + 6 * LIVENESS_NS;
        while (done < N || recvDone < recvPosted) {
            while (posted < N && posted - done < W) {
                int slot = (int) (posted % W);
                WrOpcode op = ops.get(rnd.nextInt(ops.size()));
                boolean consumesRecv = op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.RDMA_WRITE_WITH_IMM;
                if (consumesRecv && recvPosted - recvDone >= W) {
                    break;
                }
                int len = op.isAtomic() ? 8 : 1 + rnd.nextInt(SLOT);
                opOf[slot] = op;
                lenOf[slot] = len;
                wr.wrId(posted).opcode(op).immData((int) posted);
                switch (op) {
                    case SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM -> {
                        fill(p.ma, A_SRC + (long) slot * SLOT, len, posted);
                        wr.sgList()[0].set(p.mra.addr() + A_SRC + (long) slot * SLOT, len, p.mra.lkey());
                        wr.rdma(p.mrb.addr() + B_WRITE + (long) slot * SLOT, p.mrb.rkey());
                    }
                    case RDMA_READ -> {
                        long off = rnd.nextInt(READ_SRC_LEN - SLOT);
                        remoteOf[slot] = off;
                        wr.sgList()[0].set(p.mra.addr() + A_READ + (long) slot * SLOT, len, p.mra.lkey());
                        wr.rdma(p.mrb.addr() + B_READ_SRC + off, p.mrb.rkey());
                    }
                    case ATOMIC_FETCH_AND_ADD -> {
                        long add = rnd.nextLong();
                        atomicExpect[slot] = model;
                        model += add;
                        wr.sgList()[0].set(p.mra.addr() + A_ATOMIC + 8L * slot, 8, p.mra.lkey());
                        wr.atomic(p.mrb.addr() + B_WORD, p.mrb.rkey(), add, 0);
                    }
                    case ATOMIC_CMP_AND_SWP -> {
                        long cmp = rnd.nextBoolean() ? model : model ^ 1;
                        long swap = rnd.nextLong();
                        atomicExpect[slot] = model;
                        if (cmp == model) {
                            model = swap;
                        }
                        wr.sgList()[0].set(p.mra.addr() + A_ATOMIC + 8L * slot, 8, p.mra.lkey());
                        wr.atomic(p.mrb.addr() + B_WORD, p.mrb.rkey(), cmp, swap);
                    }
                }
                if (consumesRecv) {
                    int r = (int) (recvPosted % W);
                    recvOp[r] = op;
                    recvLen[r] = len;
                    recvSeed[r] = posted;
                    rwr.wrId(recvPosted).sgList()[0].set(p.mrb.addr() + B_RECV + (long) r * SLOT, SLOT, p.mrb.lkey());
                    p.b.postRecv(rwr);
                    recvPosted++;
                }
                p.a.postSend(wr);
                posted++;
            }
            int n = p.sqa.poll(wc);
            for (int k = 0; k < n; k++) {
                WorkCompletion c = wc[k];
                int slot = (int) (done % W);
                String what = "op " + done + " (" + opOf[slot] + ", " + lenOf[slot] + " bytes)";
                assertEquals(WcStatus.SUCCESS, c.status(), what + ": " + c);
                if (c.wrId() != done) {
                    fail("send CQE out of order or repeated: expected wr_id " + done + ", got " + c);
                }
                assertEquals(WcOpcode.of(opOf[slot]), c.opcode(), what);
                switch (opOf[slot]) {
                    case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> {
                        fill(scratch, 0, lenOf[slot], done);
                        assertSameBytes(scratch, 0, p.mb, B_WRITE + (long) slot * SLOT, lenOf[slot], what);
                    }
                    case RDMA_READ -> {
                        assertEquals(lenOf[slot], c.byteLen(), what + " byte_len");
                        assertSameBytes(p.mb, B_READ_SRC + remoteOf[slot], p.ma, A_READ + (long) slot * SLOT, lenOf[slot], what);
                    }
                    case ATOMIC_FETCH_AND_ADD, ATOMIC_CMP_AND_SWP ->
                        assertEquals(atomicExpect[slot], p.ma.get(LONG, A_ATOMIC + 8L * slot), what + " original value");
                    default -> {
                    }
                }
                done++;
            }
            n = p.rqb.poll(wc);
            for (int k = 0; k < n; k++) {
                WorkCompletion c = wc[k];
                int r = (int) (recvDone % W);
                String what = "receive " + recvDone + " of op " + recvSeed[r] + " (" + recvOp[r] + ", " + recvLen[r] + " bytes)";
                assertEquals(WcStatus.SUCCESS, c.status(), what + ": " + c);
                if (c.wrId() != recvDone) {
                    fail("receive CQE out of order or repeated: expected wr_id " + recvDone + ", got " + c);
                }
                assertEquals(recvLen[r], c.byteLen(), what + " byte_len");
                boolean imm = recvOp[r] != WrOpcode.SEND;
                assertEquals(imm ? WcFlags.WITH_IMM : 0, c.wcFlags() & WcFlags.WITH_IMM, what + " WITH_IMM");
                if (imm) {
                    assertEquals((int) recvSeed[r], c.immData(), what + " imm_data");
                }
                if (recvOp[r] == WrOpcode.RDMA_WRITE_WITH_IMM) {
                    assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, c.opcode(), what);
                } else {
                    assertEquals(WcOpcode.RECV, c.opcode(), what);
                    fill(scratch, 0, recvLen[r], recvSeed[r]);
                    assertSameBytes(scratch, 0, p.mb, B_RECV + (long) r * SLOT, recvLen[r], what);
                }
                recvDone++;
            }
            if (System.nanoTime() - deadline > 0) {
                fail("stuck: " + done + " of " + N + " send completions, " + recvDone + " of " + recvPosted + " receives");
            }
        }
        assertEquals(model, p.mb.get(LONG, B_WORD), "the atomic word after all atomics");
        pause(20);
        assertCqEmpty(p.sqa, "no extra send completion");
        assertCqEmpty(p.rqb, "no extra receive completion");
        assertCqEmpty(p.sqb, "the responder posted no send");
        assertCqEmpty(p.rqa, "the requester posted no receive");
    }
}
