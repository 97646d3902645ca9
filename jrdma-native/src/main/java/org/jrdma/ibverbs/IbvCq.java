package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.jrdma.ibverbs.bind.IbvLayouts.WC;
import static org.jrdma.ibverbs.bind.IbvLayouts.WC_BYTE_LEN_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.WC_IMM_DATA_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.WC_OPCODE_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.WC_QP_NUM_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.WC_SRC_QP_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.WC_STATUS_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.WC_VENDOR_ERR_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.WC_WC_FLAGS_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.WC_WR_ID_OFF;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.ibverbs.bind.OpsCalls;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;

/**
 * A completion queue, {@code struct ibv_cq}. {@link #poll} calls the provider's {@code poll_cq} (the
 * context's ops table, {@code ibv_poll_cq} of verbs.h) into a preallocated array of
 * {@code struct ibv_wc} ({@link #BATCH} entries) and copies each into the caller's
 * {@link WorkCompletion}s: no allocation. Thread-safe: the CQ's monitor serializes polls (they share
 * the native array); taken after the context's lock, never before.
 */
final class IbvCq implements CompletionQueue {
    /** Completions read per {@code poll_cq} call. */
    static final int BATCH = 32;
    private static final WcStatus[] STATUS = WcStatus.values();

    private final IbvContext context;
    private final MemorySegment cq;
    final long id;
    private final IbvCompChannel channel;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wcs;
    private final MemorySegment pollFn;
    private final MemorySegment notifyFn;
    /** Completion events taken from the channel and acknowledged. */
    final EventCount compEvents = new EventCount();
    /** Asynchronous events (CQ_ERR) taken and acknowledged. */
    final EventCount asyncEvents = new EventCount();
    private boolean closed;       // guarded by this

    IbvCq(IbvContext context, MemorySegment cq, long id, IbvCompChannel channel) {
        this.context = context;
        this.cq = cq;
        this.id = id;
        this.channel = channel;
        this.wcs = arena.allocate(WC.byteSize() * BATCH, WC.byteAlignment());
        this.pollFn = context.pollCqFn;
        this.notifyFn = context.reqNotifyCqFn;
    }

    /** The {@code struct ibv_cq}. */
    MemorySegment native_() {
        return cq;
    }

    /** The number of entries, as the driver made it ({@code ibv_cq.cqe}: at least what was asked). */
    @Override
    public int cqe() {
        return cq.get(JAVA_INT, IbvLayouts.CQ_CQE_OFF);
    }

    @Override
    public int poll(WorkCompletion[] wc) {
        return poll(wc, wc.length);
    }

    /**
     * {@code ibv_poll_cq(3)}.
     *
     * @throws VerbsException EIO when the driver's poll_cq fails (e.g. the device is gone), EINVAL
     *                        after close
     */
    @Override
    public synchronized int poll(WorkCompletion[] wc, int max) {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "ibv_poll_cq: the CQ is destroyed");
        }
        int want = Math.min(max, wc.length);
        int got = 0;
        while (got < want) {
            int n = Math.min(BATCH, want - got);
            int rc = OpsCalls.pollCq(pollFn, cq, n, wcs);
            if (rc < 0) {
                throw new VerbsException(Errno.EIO, "ibv_poll_cq failed (" + rc + ")");
            }
            for (int i = 0; i < rc; i++) {
                read(i, wc[got + i]);
            }
            got += rc;
            if (rc < n) {
                break;
            }
        }
        return got;
    }

    private void read(int i, WorkCompletion w) {
        long at = WC.byteSize() * i;
        int status = wcs.get(JAVA_INT, at + WC_STATUS_OFF);
        int flags = wcs.get(JAVA_INT, at + WC_WC_FLAGS_OFF);
        int imm = wcs.get(JAVA_INT, at + WC_IMM_DATA_OFF);
        w.set(wcs.get(JAVA_LONG, at + WC_WR_ID_OFF),
                status >= 0 && status < STATUS.length ? STATUS[status] : WcStatus.GENERAL_ERR,
                opcode(wcs.get(JAVA_INT, at + WC_OPCODE_OFF)),
                wcs.get(JAVA_INT, at + WC_BYTE_LEN_OFF),
                (flags & WcFlags.WITH_IMM) != 0 ? Integer.reverseBytes(imm) : imm,
                wcs.get(JAVA_INT, at + WC_QP_NUM_OFF),
                wcs.get(JAVA_INT, at + WC_SRC_QP_OFF),
                flags,
                wcs.get(JAVA_INT, at + WC_VENDOR_ERR_OFF));
    }

    /** {@code enum ibv_wc_opcode} to the API's; a value it does not know (a vendor's) reads as SEND. */
    static WcOpcode opcode(int v) {
        return switch (v) {
            case 0 -> WcOpcode.SEND;
            case 1 -> WcOpcode.RDMA_WRITE;
            case 2 -> WcOpcode.RDMA_READ;
            case 3 -> WcOpcode.COMP_SWAP;
            case 4 -> WcOpcode.FETCH_ADD;
            case 5 -> WcOpcode.BIND_MW;
            case 6 -> WcOpcode.LOCAL_INV;
            case 8 -> WcOpcode.FLUSH;
            case 9 -> WcOpcode.ATOMIC_WRITE;
            case 128 -> WcOpcode.RECV;
            case 129 -> WcOpcode.RECV_RDMA_WITH_IMM;
            default -> WcOpcode.SEND;
        };
    }

    /** {@code ibv_req_notify_cq(3)}. @throws VerbsException with the driver's errno */
    @Override
    public void reqNotify(boolean solicitedOnly) {
        int rc = OpsCalls.reqNotifyCq(notifyFn, cq, solicitedOnly ? 1 : 0);
        if (rc != 0) {
            throw new VerbsException(rc < 0 ? -rc : rc, "ibv_req_notify_cq failed: " + Errno.name(rc < 0 ? -rc : rc));
        }
    }

    void eventDelivered() {
        compEvents.taken();
    }

    /** {@code ibv_ack_cq_events(3)}. */
    @Override
    public void ackEvents(int n) {
        if (n < 0) {
            throw new VerbsException(Errno.EINVAL, "ibv_ack_cq_events: nevents " + n + " is negative");
        }
        context.lib.ackCqEvents(cq, n);
        compEvents.acked(n);
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    /**
     * Always 0: a kernel device reports a CQ overrun as the asynchronous event
     * {@code IBV_EVENT_CQ_ERR}, not as a count libibverbs exposes.
     */
    @Override
    public long overruns() {
        return 0;
    }

    /** {@code ibv_resize_cq(3)}. */
    @Override
    public synchronized void resize(int cqe) {
        if (cqe < 1) {
            throw new VerbsException(Errno.EINVAL, "ibv_resize_cq: cqe " + cqe + " is below 1");
        }
        context.lib.resizeCq(cq, cqe);
    }

    /**
     * {@code ibv_destroy_cq(3)}. libibverbs waits for every event taken for the CQ (completion and
     * asynchronous) to be acknowledged; here the wait is at most one second, then EBUSY (the CQ stays
     * alive), as the soft providers do ({@link EventCount}).
     */
    @Override
    public void close() {
        compEvents.awaitAcked("ibv_destroy_cq");
        asyncEvents.awaitAcked("ibv_destroy_cq");
        synchronized (context.lock) {
            synchronized (this) {
                if (closed) {
                    return;
                }
                context.lib.destroyCq(cq);
                closed = true;
            }
        }
        arena.close();
        context.removed(this);
    }
}
