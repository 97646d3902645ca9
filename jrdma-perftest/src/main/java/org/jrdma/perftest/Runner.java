package org.jrdma.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;

/**
 * The measurement loops of perftest ({@code perftest_resources.c}): {@code run_iter_bw},
 * {@code run_iter_bw_server}, {@code run_iter_lat_write}, {@code run_iter_lat} and
 * {@code run_iter_lat_send}, with {@link System#nanoTime()} for the cycle counter. Work requests,
 * SGEs and completions are built before a loop starts; the loops allocate nothing.
 */
final class Runner {
    /** {@code CTX_POLL_BATCH}. */
    static final int POLL_BATCH = 16;
    /** Idle time after which a receiving server gives up ({@code check_alive}: 60 s). */
    static final long ALIVE_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    private enum State { START, SAMPLE, STOP_SAMPLE, END }

    private final Params p;
    private final Resources r;
    private final WorkCompletion[] wc = new WorkCompletion[POLL_BATCH];
    /** Send WRs: {@code post_list} per QP, chained. */
    private SendWr[] wr;
    private Sge[] sge;
    private RecvWr[] rwr;
    private Sge[] rsge;
    private long[] myAddr;
    private long[] remAddr;
    private long[] rxBufferAddr;
    private Dest[] rem;
    /** perftest's receive credits ({@link SendCredits}: ib_send_bw on iWARP), else null. */
    private SendCredits credits;

    long[] tposted = new long[1];
    long[] tcompleted = new long[1];
    /** Messages counted in the sample window of a duration run. */
    long durationIters;

    private State state = State.END;
    private long deadline;

    Runner(Params p, Resources r) {
        this.p = p;
        this.r = r;
        for (int i = 0; i < POLL_BATCH; i++) {
            wc[i] = new WorkCompletion();
        }
    }

    // ---------------------------------------------------------------- setup

    /** Uses perftest's receive credits in the SEND BW loops (set after {@link SendCredits#setWqes}). */
    void credits(SendCredits c) {
        this.credits = c;
    }

    /** {@code ctx_set_send_wqes} for the current {@code p.size}. */
    void setSendWqes(Dest[] remDests) {
        this.rem = remDests;
        int n = p.numQps * p.postList;
        wr = new SendWr[n];
        sge = new Sge[n];
        myAddr = new long[p.numQps];
        remAddr = new long[p.numQps];
        WrOpcode op = switch (p.verb) {
            case SEND -> WrOpcode.SEND;
            case WRITE -> WrOpcode.RDMA_WRITE;
            case READ -> WrOpcode.RDMA_READ;
            case ATOMIC -> p.atomicType == Params.AtomicType.FETCH_AND_ADD ? WrOpcode.ATOMIC_FETCH_AND_ADD
                    : WrOpcode.ATOMIC_CMP_AND_SWP;
        };
        boolean cycle = p.size <= p.cycleBuffer / 2;
        for (int q = 0; q < p.numQps; q++) {
            myAddr[q] = r.buf.address() + q * r.sendQpBuffSize;
            remAddr[q] = remDests[q].vaddr();
            for (int j = 0; j < p.postList; j++) {
                int k = q * p.postList + j;
                sge[k] = new Sge(myAddr[q], (int) p.size, r.mr.lkey());
                SendWr w = new SendWr().wrId(q).opcode(op).sgList(sge[k]);
                wr[k] = w;
                long ra = remAddr[q];
                if (j > 0) {
                    sge[k].addr(sge[k - 1].addr());
                    ra = wr[k - 1].remoteAddr();
                    if (cycle || p.verb == Verb.ATOMIC) {
                        long step = Resources.inc(p.size, p.cacheLineSize);
                        if (cycle) {
                            sge[k].addr(next(sge[k].addr(), step, j - 1, myAddr[q]));
                        }
                        ra = next(ra, step, j - 1, remAddr[q]);
                    }
                }
                switch (p.verb) {
                    case WRITE, READ -> w.rdma(ra, remDests[q].rkey());
                    case ATOMIC -> w.atomic(ra, remDests[q].rkey(),
                            p.atomicType == Params.AtomicType.FETCH_AND_ADD ? 1 : 0, 0);
                    case SEND -> {
                        if (p.connection == Params.Connection.UD && p.rdmaCm) {
                            // ctx_set_send_wqes with work_rdma_cm: the CM's QPN and Q_Key, not the hand-shake's
                            w.ud(r.ah[q], r.remoteQpn[q], r.remoteQkey[q]);
                        } else if (p.connection == Params.Connection.UD) {
                            w.ud(r.ah[q], remDests[q].qpn(), Params.DEF_QKEY);
                        }
                    }
                }
                int flags = (j + 1) % p.cqMod == 0 ? SendFlags.SIGNALED : 0;
                if ((p.verb == Verb.SEND || p.verb == Verb.WRITE) && p.size <= p.inlineSize) {
                    flags |= SendFlags.INLINE;
                }
                w.sendFlags(flags);
                if (j > 0) {
                    wr[k - 1].next(w);
                }
            }
        }
    }

    /** {@code increase_loc_addr} / {@code increase_rem_addr}: the next slot, wrapping at the cycle buffer. */
    private long next(long addr, long step, long count, long prim) {
        long a = addr + step;
        if ((count + 1) % (p.cycleBuffer / step) == 0) {
            a = prim;
        }
        return a;
    }

    /** {@code ctx_set_recv_wqes}: posts {@code rx_depth} receives per QP. */
    void setRecvWqes() {
        rwr = new RecvWr[p.numQps];
        rsge = new Sge[p.numQps];
        rxBufferAddr = new long[p.numQps];
        boolean ud = p.connection == Params.Connection.UD;
        int len = (int) p.size + (ud ? Params.UD_ADDITION : 0);
        boolean cycle = p.kind == Params.Kind.BW && p.size <= p.cycleBuffer / 2;
        for (int q = 0; q < p.numQps; q++) {
            long addr = r.buf.address() + (p.numQps + q) * r.sendQpBuffSize;
            if (ud) {
                addr += p.cacheLineSize - Params.UD_ADDITION;
            }
            rxBufferAddr[q] = addr;
            rsge[q] = new Sge(addr, len, r.mr.lkey());
            rwr[q] = new RecvWr().wrId(q).sgList(rsge[q]);
            for (int j = 0; j < rxPerQp(); j++) {
                postRecv(q);
                if (cycle) {
                    rsge[q].addr(next(rsge[q].addr(), Resources.inc(p.size, p.cacheLineSize), j, rxBufferAddr[q]));
                }
            }
            rsge[q].addr(rxBufferAddr[q]);
        }
    }

    /**
     * Receive WQEs per QP: {@code rx_depth}, or with {@code --use-srq} {@code rx_depth / num_qps} (perftest's
     * {@code size_per_qp}: the SRQ holds rx_depth in all, each QP's WR template posted that often).
     */
    private int rxPerQp() {
        return r.srq != null ? p.rxDepth / p.numQps : p.rxDepth;
    }

    /** Posts QP {@code q}'s receive template, to the SRQ with {@code --use-srq} (wr_id = q either way). */
    private void postRecv(int q) {
        try {
            if (r.srq != null) {
                r.srq.postSrqRecv(rwr[q]);
                return;
            }
            r.qp[q].postRecv(rwr[q]);
        } catch (VerbsException e) {
            throw new PerftestException("couldn't post receive on QP " + CFormat.altHex(r.qp[q].qpNum(), 6) + ": "
                    + e.getMessage());
        }
    }

    private void postSend(int q, SendWr w, long scnt) {
        try {
            r.qp[q].postSend(w);
        } catch (VerbsException e) {
            throw new PerftestException("couldn't post send: qp " + q + " scnt=" + scnt + ": " + e.getMessage());
        }
    }

    // ---------------------------------------------------------------- duration

    private void startDuration() {
        durationIters = 0;
        if (p.margin > 0) {
            state = State.START;
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(p.margin);
        } else {
            enterSample(System.nanoTime());
        }
    }

    private void enterSample(long now) {
        state = State.SAMPLE;
        tposted[0] = now;
        deadline = now + TimeUnit.SECONDS.toNanos(p.durationSec - 2L * p.margin);
    }

    /** {@code catch_alarm} without signals: advances the state when its deadline has passed. */
    private void tick() {
        if (state == State.END) {
            return;
        }
        long now = System.nanoTime();
        if (now - deadline < 0) {
            return;
        }
        switch (state) {
            case START -> enterSample(now);
            case SAMPLE -> {
                state = State.STOP_SAMPLE;
                tcompleted[0] = now;
                if (p.margin > 0) {
                    deadline = now + TimeUnit.SECONDS.toNanos(p.margin);
                } else {
                    state = State.END;
                }
            }
            case STOP_SAMPLE -> state = State.END;
            default -> {
            }
        }
    }

    // ---------------------------------------------------------------- events

    /** {@code ctx_notify_events}: waits for a CQ event (at most 100 ms, then polls anyway) and re-arms. */
    /**
     * Waits until {@code cq} yields one completion into {@code wc[0]}: through completion events
     * with {@code -e}, else by polling that yields the core when nothing comes.
     */
    private void awaitOneCompletion(CompletionQueue cq) {
        int idle = 0;
        while (true) {
            if (cq.poll(wc, 1) > 0) {
                return;
            }
            if (p.useEvent) {
                awaitEvent();
            } else {
                Spin.idle(idle++);
            }
        }
    }

    /**
     * {@code ctx_notify_events}: waits for the next event of the channel (at most 100 ms) and
     * re-arms the CQ that raised it, which may be another CQ than the one the caller waits on (send
     * and receive CQ share the channel); the caller then polls its CQ, which stays armed until it
     * raises an event itself. (Re-arming the caller's CQ instead left the CQ that fired disarmed,
     * and a later wait on it took up to the 100 ms timeout.)
     */
    private void awaitEvent() {
        try {
            CompletionQueue fired = r.channel.getEvent(100, TimeUnit.MILLISECONDS);
            if (fired != null) {
                fired.ackEvents(1);
                fired.reqNotify(false);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerftestException("interrupted while waiting for a completion event");
        }
    }

    void armEvents() {
        if (p.useEvent) {
            r.sendCq.reqNotify(false);
            if (r.recvCq != r.sendCq) {
                r.recvCq.reqNotify(false);
            }
        }
    }

    private static PerftestException completionError(String side, WorkCompletion w, long a, long b) {
        WcStatus s = w.status();
        return new PerftestException("completion with error at " + side + ": " + s.str() + " (status " + s.value()
                + ", wr_id " + w.wrId() + ", vendor_err 0x" + Integer.toHexString(w.vendorErr()) + "), scnt=" + a
                + ", ccnt=" + b);
    }

    // ---------------------------------------------------------------- warm up

    /** {@code perform_warm_up}: one queue-full of signaled WRs per QP, each waited for. */
    void warmUp() {
        int session = p.postList == 1 ? p.txDepth : p.postList;
        for (int q = 0; q < p.numQps; q++) {
            SendWr first = wr[q * p.postList];
            int saved = first.sendFlags();
            first.sendFlags(saved | SendFlags.SIGNALED);
            int outstanding = 0;
            for (int i = 0; i < session; i += p.postList) {
                postSend(q, first, i);
                outstanding++;
            }
            first.sendFlags(saved);
            for (int idle = 0; outstanding > 0; ) {
                int ne = r.sendCq.poll(wc, 1);
                if (ne == 0) {
                    Spin.idle(idle++);
                } else {
                    if (wc[0].status() != WcStatus.SUCCESS) {
                        throw completionError("client (warm up)", wc[0], session, 0);
                    }
                    outstanding--;
                }
            }
        }
    }

    // ---------------------------------------------------------------- BW

    /** Allocates the timestamp arrays of a BW run. */
    void allocBw() {
        int n = p.noPeak ? 1 : (int) (p.iters * p.numQps);
        tposted = new long[n];
        tcompleted = new long[n];
    }

    /** {@code run_iter_bw}: the sending side of a BW test. */
    void runIterBw() {
        int numQps = p.numQps;
        long iters = p.duration ? 0 : p.iters;
        long totIters = iters * numQps;
        long totscnt = 0;
        long totccnt = 0;
        long[] scnt = new long[numQps];
        long[] ccnt = new long[numQps];
        boolean cycle = p.postList == 1 && p.size <= p.cycleBuffer / 2;
        long step = Resources.inc(p.size, p.cacheLineSize);
        if (p.duration) {
            startDuration();
        }
        if (!p.duration && p.noPeak) {
            tposted[0] = System.nanoTime();
        }
        int idleRounds = 0;
        while (totscnt < totIters || totccnt < totIters || (p.duration && state != State.END)) {
            boolean noCredit = false;
            for (int q = 0; q < numQps; q++) {
                SendWr w = wr[q * p.postList];
                while ((scnt[q] < iters || p.duration) && scnt[q] - ccnt[q] + p.postList <= p.txDepth) {
                    if (credits != null && credits.windowFull(q, scnt[q])) {
                        noCredit = true;
                        break;
                    }
                    if (p.postList == 1 && scnt[q] % p.cqMod == 0 && p.cqMod > 1
                            && !(scnt[q] == iters - 1 && !p.duration)) {
                        w.sendFlags(w.sendFlags() & ~SendFlags.SIGNALED);
                    }
                    if (!p.noPeak) {
                        tposted[(int) totscnt] = System.nanoTime();
                    }
                    if (p.duration && state == State.END) {
                        break;
                    }
                    postSend(q, w, scnt[q]);
                    if (cycle) {
                        Sge s = sge[q * p.postList];
                        s.addr(next(s.addr(), step, scnt[q], myAddr[q]));
                        if (p.verb != Verb.SEND) {
                            w.remoteAddr(next(w.remoteAddr(), step, scnt[q], remAddr[q]));
                        }
                    } else if (p.verb == Verb.ATOMIC && p.postList == 1) {
                        w.remoteAddr(next(w.remoteAddr(), step, scnt[q], remAddr[q]));
                    }
                    scnt[q] += p.postList;
                    totscnt += p.postList;
                    if (p.postList == 1 && (scnt[q] % p.cqMod == p.cqMod - 1
                            || (!p.duration && scnt[q] == iters - 1))) {
                        w.sendFlags(w.sendFlags() | SendFlags.SIGNALED);
                    }
                }
            }
            if (totccnt < totIters || (p.duration && totccnt < totscnt)) {
                int ne = r.sendCq.poll(wc, POLL_BATCH);
                if (ne == 0 && (noCredit || scnt[0] - ccnt[0] + p.postList > p.txDepth)) {
                    // the queue is full: wait for a completion (an event, or let the I/O thread have the core)
                    if (p.useEvent) {
                        awaitEvent();
                    } else {
                        Spin.idle(idleRounds++);
                    }
                } else {
                    idleRounds = 0;
                }
                for (int i = 0; i < ne; i++) {
                    WorkCompletion c = wc[i];
                    if (c.status() != WcStatus.SUCCESS) {
                        throw completionError("client", c, totscnt, totccnt);
                    }
                    int id = (int) c.wrId();
                    ccnt[id] += p.cqMod;
                    totccnt += p.cqMod;
                    if (!p.noPeak) {
                        int idx = totccnt > totIters ? (int) (totIters - 1) : (int) (totccnt - 1);
                        tcompleted[idx] = System.nanoTime();
                    }
                    if (p.duration && state == State.SAMPLE) {
                        durationIters += p.cqMod;
                    }
                }
            }
            if (p.duration) {
                tick();
            }
        }
        if (p.noPeak && !p.duration) {
            tcompleted[0] = System.nanoTime();
        }
    }

    /** {@code run_iter_bw_server}: the receiving side of a SEND BW test. */
    void runIterBwServer() {
        int numQps = p.numQps;
        long totIters = p.duration ? 0 : p.iters * numQps;
        long rcnt = 0;
        long[] posted = new long[numQps];
        long[] unused = new long[numQps];
        long[] rcntQp = new long[numQps];
        for (int q = 0; q < numQps; q++) {
            posted[q] = rxPerQp();
        }
        boolean firstRx = true;
        boolean cycle = p.size + (p.connection == Params.Connection.UD ? Params.UD_ADDITION : 0) <= p.cycleBuffer / 2;
        long step = Resources.inc(p.size, p.cacheLineSize);
        long lastProgress = System.nanoTime();
        int idleRounds = 0;
        // a duration run starts its clock at the first message (state stays END until then)
        while (rcnt < totIters || (p.duration && (firstRx || state != State.END))) {
            int ne = r.recvCq.poll(wc, POLL_BATCH);
            if (ne == 0) {
                if (p.useEvent) {
                    awaitEvent();
                } else {
                    Spin.idle(idleRounds++);
                }
            } else {
                idleRounds = 0;
            }
            if (ne > 0) {
                lastProgress = System.nanoTime();
                if (firstRx) {
                    firstRx = false;
                    if (p.duration) {
                        startDuration();
                    } else {
                        tposted[0] = lastProgress;
                    }
                }
                for (int i = 0; i < ne; i++) {
                    WorkCompletion c = wc[i];
                    if (c.status() != WcStatus.SUCCESS) {
                        throw completionError("server", c, rcnt, rcnt);
                    }
                    int id = (int) c.wrId();
                    rcnt++;
                    unused[id]++;
                    if (p.duration && state == State.SAMPLE) {
                        durationIters++;
                    }
                    if ((p.duration || posted[id] + 1 <= p.iters) && unused[id] >= 1) {
                        postRecv(id);
                        unused[id]--;
                        posted[id]++;
                        if (cycle) {
                            rsge[id].addr(next(rsge[id].addr(), step, posted[id], rxBufferAddr[id]));
                        }
                    }
                    rcntQp[id]++;
                    if (credits != null) {
                        credits.received(id, rcntQp[id]);
                    }
                }
            } else if ((!p.duration || firstRx) && System.nanoTime() - lastProgress > ALIVE_NANOS) {
                throw new PerftestException("did not get a message for 60 seconds: received " + rcnt
                        + (p.duration ? "" : " of " + totIters));
            }
            if (p.duration && !firstRx) {
                tick();
            }
        }
        if (!p.duration) {
            tcompleted[0] = System.nanoTime();
        }
        if (credits != null) {
            credits.drain();
        }
    }

    /** The result of the last BW run ({@code print_report_bw}). */
    BwReport bwReport() {
        if (p.duration) {
            long[] tp = {tposted[0]};
            long[] tc = {tcompleted[0]};
            return BwStats.report(tp, tc, durationIters, p.postList, p.cqMod, p.size, true, p.reportGbits);
        }
        return BwStats.report(tposted, tcompleted, p.iters * p.numQps, p.postList, p.cqMod, p.size, p.noPeak,
                p.reportGbits);
    }


    /**
     * {@code run_iter_bw_infinitely}: sends forever and prints the BW of every {@code -D} seconds
     * (5 by default); returns only by an exception.
     */
    void runIterBwInfinitely(Printer out) {
        int numQps = p.numQps;
        long[] scnt = new long[numQps];
        long[] ccnt = new long[numQps];
        long window = TimeUnit.SECONDS.toNanos(p.durationSec);
        long start = System.nanoTime();
        long count = 0;
        long[] tp = new long[1];
        long[] tc = new long[1];
        for (int q = 0; q < numQps; q++) {
            wr[q * p.postList].sendFlags(wr[q * p.postList].sendFlags() | SendFlags.SIGNALED);
        }
        while (true) {
            for (int q = 0; q < numQps; q++) {
                SendWr w = wr[q * p.postList];
                while (scnt[q] - ccnt[q] + p.postList <= p.txDepth) {
                    if (credits != null && credits.windowFull(q, scnt[q])) {
                        break;
                    }
                    if (p.postList == 1 && p.cqMod > 1) {
                        w.sendFlags(scnt[q] % p.cqMod == p.cqMod - 1 ? w.sendFlags() | SendFlags.SIGNALED
                                : w.sendFlags() & ~SendFlags.SIGNALED);
                    }
                    postSend(q, w, scnt[q]);
                    scnt[q] += p.postList;
                }
            }
            int ne = r.sendCq.poll(wc, POLL_BATCH);
            for (int i = 0; i < ne; i++) {
                if (wc[i].status() != WcStatus.SUCCESS) {
                    throw completionError("client", wc[i], scnt[0], ccnt[0]);
                }
                ccnt[(int) wc[i].wrId()] += p.cqMod;
                count += p.cqMod;
            }
            long now = System.nanoTime();
            if (now - start >= window) {
                tp[0] = start;
                tc[0] = now;
                out.out(Printer.bwRow(BwStats.report(tp, tc, count, p.postList, p.cqMod, p.size, true, p.reportGbits),
                        p.output, p.reportGbits));
                start = now;
                count = 0;
            }
        }
    }

    /** {@code run_iter_bw_infinitely_server}: receives forever, re-posting every receive. */
    void runIterBwInfinitelyServer() {
        long[] rcntQp = new long[p.numQps];
        while (true) {
            int ne = r.recvCq.poll(wc, POLL_BATCH);
            for (int i = 0; i < ne; i++) {
                if (wc[i].status() != WcStatus.SUCCESS) {
                    throw completionError("server", wc[i], 0, 0);
                }
                int id = (int) wc[i].wrId();
                postRecv(id);
                rcntQp[id]++;
                if (credits != null && r.srq == null) {
                    credits.received(id, rcntQp[id]);
                }
            }
            if (ne == 0) {
                Thread.yield();
            }
        }
    }

    // ---------------------------------------------------------------- latency

    void allocLat() {
        tposted = new long[p.duration ? 1 : (int) p.iters];
        tcompleted = new long[1];
    }

    /**
     * {@code run_iter_lat_write}: the RDMA WRITE ping-pong on memory. Each side spins on the last
     * byte of its receive half until the peer's write stores the expected counter there; the server
     * writes first ({@code !(scnt < 1 && machine == SERVER)} skips its first wait).
     */
    void runIterLatWrite() {
        MemorySegment buf = r.buf;
        long postOff = p.size - 1;
        // the last byte of the peer's WRITE, at the address this side advertised (sized for the largest
        // message of a sweep), not at an offset recomputed from the current size
        long pollOff = r.recvOffset[0] + p.size - 1;
        SendWr w = wr[0];
        sge[0].addr(r.buf.address()).length((int) p.size);
        int flags = SendFlags.SIGNALED;
        if (p.size <= p.inlineSize) {
            flags |= SendFlags.INLINE;
        }
        w.sendFlags(flags).remoteAddr(rem[0].vaddr());
        long iters = p.duration ? 0 : p.iters;
        long scnt = 0;
        long ccnt = 0;
        long rcnt = 0;
        boolean server = p.machine == Params.Machine.SERVER;
        if (p.duration) {
            startDuration();
        }
        while (scnt < iters || ccnt < iters || rcnt < iters || (p.duration && state != State.END)) {
            if ((rcnt < iters || p.duration) && !(scnt < 1 && server)) {
                rcnt++;
                byte expect = (byte) rcnt;
                for (int idle = 0; (byte) BYTE.getAcquire(buf, pollOff) != expect; idle++) {
                    // polling the (empty-handed) send CQ lets this thread receive the peer's WRITE
                    // itself (the provider makes progress in poll) instead of waiting for the I/O thread
                    r.sendCq.poll(wc, 0);
                    Spin.idle(idle);
                    if (p.duration) {
                        tick();
                        if (state == State.END) {
                            break;
                        }
                    }
                }
            }
            if (scnt < iters || p.duration) {
                if (!p.duration) {
                    tposted[(int) scnt] = System.nanoTime();
                }
                BYTE.setRelease(buf, postOff, (byte) ++scnt);
                postSend(0, w, scnt);
            }
            if (p.duration) {
                tick();
                if (state == State.END) {
                    break;
                }
            }
            if (ccnt < iters || p.duration) {
                int ne;
                for (int idle = 0; (ne = r.sendCq.poll(wc, 1)) == 0; idle++) {
                    Spin.idle(idle);
                }
                if (wc[0].status() != WcStatus.SUCCESS) {
                    throw completionError(server ? "server" : "client", wc[0], scnt, ccnt);
                }
                ccnt++;
                if (p.duration && state == State.SAMPLE) {
                    durationIters++;
                }
            }
        }
    }

    /** {@code run_iter_lat}: READ or atomic round trips, one outstanding (the client only). */
    void runIterLat() {
        SendWr w = wr[0];
        sge[0].length((int) p.size);
        w.sendFlags(SendFlags.SIGNALED);
        long iters = p.duration ? 0 : p.iters;
        long scnt = 0;
        if (p.duration) {
            startDuration();
        }
        while (scnt < iters || (p.duration && state != State.END)) {
            if (!p.duration) {
                tposted[(int) scnt] = System.nanoTime();
            }
            scnt++;
            postSend(0, w, scnt);
            if (p.duration) {
                tick();
                if (state == State.END) {
                    break;
                }
            }
            awaitOneCompletion(r.sendCq);
            if (wc[0].status() != WcStatus.SUCCESS) {
                throw completionError("client", wc[0], scnt, scnt);
            }
            if (p.duration && state == State.SAMPLE) {
                durationIters++;
            }
        }
    }

    /**
     * {@code run_iter_lat_send}: the SEND ping-pong; the client sends first, each side answers each
     * receive with a send.
     */
    void runIterLatSend() {
        SendWr w = wr[0];
        sge[0].length((int) p.size);
        int base = p.size <= p.inlineSize ? SendFlags.INLINE : 0;
        w.sendFlags(base);
        long iters = p.duration ? 0 : p.iters;
        long scnt = 0;
        long rcnt = 0;
        boolean client = p.machine == Params.Machine.CLIENT;
        boolean firstRx = true;
        if (p.duration && client) {
            startDuration();
            firstRx = false;
        }
        // the server of a duration run starts its clock at the first message (state END until then)
        while (scnt < iters || rcnt < iters || (p.duration && (firstRx || state != State.END))) {
            if ((rcnt < iters || p.duration) && !(scnt < 1 && client)) {
                int ne;
                int idle = 0;
                do {
                    ne = r.recvCq.poll(wc, 1);
                    if (ne == 0 && p.useEvent) {
                        awaitEvent();
                    }
                    if (p.duration && !firstRx) {
                        tick();
                        if (state == State.END) {
                            break;
                        }
                    }
                    if (ne == 0 && !p.useEvent) {
                        Spin.idle(idle++);
                    }
                } while (ne == 0);
                if (ne > 0) {
                    if (firstRx) {
                        firstRx = false;
                        if (p.duration) {
                            startDuration();
                        }
                    }
                    if (wc[0].status() != WcStatus.SUCCESS) {
                        throw completionError(client ? "client" : "server", wc[0], scnt, rcnt);
                    }
                    rcnt++;
                    if (p.duration && state == State.SAMPLE) {
                        durationIters++;
                    }
                    if (p.duration || rcnt + rxPerQp() <= p.iters) {
                        postRecv((int) wc[0].wrId());
                    }
                }
            }
            if (scnt < iters || (p.duration && state != State.END)) {
                if (!p.duration) {
                    tposted[(int) scnt] = System.nanoTime();
                }
                scnt++;
                boolean poll = scnt % p.cqMod == 0 || (!p.duration && scnt == iters);
                w.sendFlags(poll ? base | SendFlags.SIGNALED : base);
                postSend(0, w, scnt);
                if (poll) {
                    awaitOneCompletion(r.sendCq);
                    if (wc[0].status() != WcStatus.SUCCESS) {
                        throw completionError(client ? "client" : "server", wc[0], scnt, scnt);
                    }
                }
            }
        }
    }

    /** The statistics of the last latency run (not a duration run). */
    LatencyStats.Result latencyResult() {
        return LatencyStats.compute(tposted, (int) p.iters, p.rttFactor());
    }

    /** t_avg of the last duration latency run, µs. */
    double durationTavg() {
        return LatencyStats.duration(tcompleted[0] - tposted[0], durationIters, p.rttFactor())[0];
    }

    /** The latency row of the last run. */
    String latencyRow() {
        if (p.duration) {
            double[] d = LatencyStats.duration(tcompleted[0] - tposted[0], durationIters, p.rttFactor());
            return Printer.latDurationRow(p.size, durationIters, d[0], d[1], p.output);
        }
        LatencyStats.Result res = LatencyStats.compute(tposted, (int) p.iters, p.rttFactor());
        return Printer.latRow(p.size, p.iters, res, p.output);
    }
}
