package org.jrdma.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.TransportType;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;

/**
 * perftest's receive credits of {@code ib_send_bw} over iWARP, where a SEND that finds no receive
 * WQE ends the connection with a Terminate instead of an RNR NAK and retry: perftest 4.5's
 * {@code send_bw.c} sets {@code send_rcredit} when the device's transport is IWARP, and then
 * ({@code perftest_resources.c}):
 * <ul>
 *   <li>{@code ctx_alloc_credit}: both sides register a buffer of {@code 2 * num_qps} uint32
 *       ({@code ctrl_buf[num_qps]}, then {@code credit_buf[num_qps]}) with LOCAL_WRITE | REMOTE_WRITE,
 *       and advertise its rkey and {@code credit_buf + 4 * qp} in their {@code pingpong_dest} instead of
 *       the data buffer's;</li>
 *   <li>the receiver, after every {@code rx_depth / 3}-th receive of a QP (counted modulo
 *       {@code rx_depth}), stores the QP's receive count in {@code ctrl_buf[qp]} and RDMA-WRITEs those
 *       4 bytes (signaled, wr_id = qp) to the sender's {@code credit_buf[qp]}, keeping at most
 *       {@code tx_depth} such writes outstanding per QP, and at the end waits for all of them
 *       ({@code clean_scq_credit});</li>
 *   <li>the sender posts only while {@code (uint32)(scnt + post_list - credit_buf[qp]) < rx_depth}.</li>
 * </ul>
 * The counts are host-order (little-endian x86) uint32s, as perftest writes them. perftest divides by
 * {@code rx_depth / 3}, which is 0 (a crash) for {@code rx_depth} below 3; here a credit then goes
 * after every receive.
 *
 * <p>Threads: used only by the tool's one thread; the credit words are written into the MR by the
 * device's I/O thread and read here with acquire semantics. Allocates nothing once built.
 */
final class SendCredits implements AutoCloseable {
    private static final VarHandle U32 = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();

    private final Params p;
    private final Resources r;
    private final MemorySegment buf;
    private final MemoryRegion mr;
    /** {@code ctx->credit_cnt}: receives between two credits. */
    private final int creditCnt;
    private final SendWr[] wr;
    private final long[] outstanding;
    private long totOutstanding;
    private final WorkCompletion[] wc = new WorkCompletion[Runner.POLL_BATCH];

    /** Whether perftest uses credits for this test on this device ({@code send_rcredit}). */
    static boolean needed(Params p, Context ctx) {
        return p.verb == Verb.SEND && p.kind == Params.Kind.BW && ctx.device().transportType() == TransportType.IWARP;
    }

    /** {@code ctx_alloc_credit}: the credit buffer and its MR in the test's PD. */
    SendCredits(Params p, Resources r) {
        this.p = p;
        this.r = r;
        this.buf = r.arena.allocate(2L * p.numQps * Integer.BYTES, 8);
        try {
            this.mr = r.pd.regMr(buf, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
        } catch (VerbsException e) {
            throw new PerftestException("Couldn't allocate MR for the send credits: " + e.getMessage());
        }
        this.creditCnt = Math.max(1, p.rxDepth / 3);
        this.wr = new SendWr[p.numQps];
        this.outstanding = new long[p.numQps];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
    }

    /** The dests to advertise: {@code my} with the credit MR's rkey and {@code credit_buf + 4 * qp}. */
    Dest[] advertise(Dest[] my) {
        Dest[] out = new Dest[my.length];
        for (int q = 0; q < my.length; q++) {
            Dest d = my[q];
            out[q] = new Dest(d.lid(), d.outReads(), d.qpn(), d.psn(), mr.rkey(), creditAddress(q), d.gid(), d.srqn());
        }
        return out;
    }

    private long creditAddress(int q) {
        return buf.address() + (long) (p.numQps + q) * Integer.BYTES;
    }

    /** {@code ctx_set_credit_wqes}: one signaled 4-byte RDMA WRITE per QP, to the peer's credit word. */
    void setWqes(Dest[] rem) {
        for (int q = 0; q < p.numQps; q++) {
            Sge s = new Sge(buf.address() + (long) q * Integer.BYTES, Integer.BYTES, mr.lkey());
            wr[q] = new SendWr().wrId(q).opcode(WrOpcode.RDMA_WRITE).sgList(s).sendFlags(SendFlags.SIGNALED)
                    .rdma(rem[q].vaddr(), rem[q].rkey());
        }
    }

    /** The sender's check: true when QP {@code q} may not post {@code post_list} more now. */
    boolean windowFull(int q, long scnt) {
        int credit = (int) U32.getAcquire(buf, (long) (p.numQps + q) * Integer.BYTES);
        long window = Integer.toUnsignedLong((int) (scnt + p.postList) - credit);
        return window >= p.rxDepth;
    }

    /**
     * The receiver's step after its {@code rcnt}-th receive on QP {@code q}: a credit when due,
     * waiting (polling the send CQ) while {@code tx_depth} credits of the QP are outstanding.
     */
    void received(int q, long rcnt) {
        if ((rcnt % p.rxDepth) % creditCnt != 0) {
            return;
        }
        U32.setRelease(buf, (long) q * Integer.BYTES, (int) rcnt);
        while (outstanding[q] == p.txDepth) {
            reap();
        }
        try {
            r.qp[q].postSend(wr[q]);
        } catch (VerbsException e) {
            throw new PerftestException("Couldn't post send qp " + q + " credit = " + rcnt + ": " + e.getMessage());
        }
        outstanding[q]++;
        totOutstanding++;
    }

    /** {@code clean_scq_credit}: waits for every credit WRITE still outstanding. */
    void drain() {
        int idle = 0;
        while (totOutstanding > 0) {
            if (reap() == 0) {
                Spin.idle(idle++);
            } else {
                idle = 0;
            }
        }
    }

    private int reap() {
        int ne = r.sendCq.poll(wc, wc.length);
        for (int i = 0; i < ne; i++) {
            WorkCompletion c = wc[i];
            if (c.status() != WcStatus.SUCCESS) {
                throw new PerftestException("Poll send CQ error status=" + c.status().value() + " qp " + c.wrId()
                        + " (send credit): " + c.status().str());
            }
            outstanding[(int) c.wrId()]--;
            totOutstanding--;
        }
        return ne;
    }

    @Override
    public void close() {
        try {
            mr.close();
        } catch (RuntimeException ignored) {
            // best effort at exit, as Resources.close
        }
    }
}
