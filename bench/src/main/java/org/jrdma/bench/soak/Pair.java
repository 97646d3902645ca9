package org.jrdma.bench.soak;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AddressHandle;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;

/**
 * One life of two connected QPs of one type (RC, UC or UD), one on each device, each with its own
 * PD, send CQ, receive CQ and memory: created and connected (RESET → INIT → RTR → RTS), driven
 * in bursts of up to {@link #W} signaled work requests from one side to the other (the direction
 * alternates), then moved to ERR, drained and destroyed. Every completion is matched to its WR
 * ({@link Ledger}); every byte that arrives is checked ({@link Payload}, READs against the
 * responder's memory, atomics against a model of the responder's counter).
 *
 * <p>What each type does: RC SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ,
 * ATOMIC_FETCH_AND_ADD and ATOMIC_CMP_AND_SWP, up to 32 KiB, everything exactly once and in order;
 * UC SEND, SEND_WITH_IMM, RDMA_WRITE_WITH_IMM and RDMA_WRITE (unchecked: UC reports no delivery),
 * up to 16 KiB, where a message may be lost but never delivered twice or damaged; UD SEND and
 * SEND_WITH_IMM up to the 4096-byte MTU, likewise.
 *
 * <p>Threads: one worker thread runs a pair from creation to destruction (it posts and polls all
 * four CQs); the devices' I/O threads run the transport underneath. No locks of its own.
 */
final class Pair {
    /** Most work requests in one burst. */
    static final int W = 16;
    /** Bytes per message slot (the largest RC message). */
    static final int SLOT = 32768;
    /** Receive queue depth, kept full: twice a burst, so that receives stay posted across bursts and get flushed at the end. */
    static final int RQ = 2 * W;
    static final int UD_GRH = 40;
    private static final int READ_SOURCE = 256 * 1024;
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;
    /** How long an RC burst may take before the soak reports it stuck, ns. */
    private static final long STUCK_NANOS = 30_000_000_000L;
    /** How long a UC / UD receiver stays quiet before the missing messages of a burst count as lost, ns. */
    private static final long QUIET_NANOS = 20_000_000L;
    private static final long DRAIN_NANOS = 10_000_000_000L;

    final long serial;
    final QpType type;
    private final Stats stats;
    private final Live live;
    private final SplittableRandom rnd;
    private final Mtu mtu;
    private final String tag;
    final Side a, b;
    private final WorkCompletion[] wc = new WorkCompletion[16];
    private final SendWr swr = new SendWr();
    private final Sge ssge = new Sge();
    private final RecvWr rwr = new RecvWr();
    private final Sge rsge = new Sge();

    // the current burst
    private Side initiator;
    private int n;
    private long seqBase;
    private final WrOpcode[] opc = new WrOpcode[W];
    private final int[] len = new int[W];
    private final int[] readOff = new int[W];
    private final long[] expectFetch = new long[W];
    private final boolean[] received = new boolean[W];
    private int pendingSends, pendingRecvs;
    private long lastEvent;
    private boolean aborted;
    /** Set when the QPs are moved to ERR at the end of the life: flushes are expected from then on. */
    private boolean draining;
    /** Set by an error completion: the QPs are in ERR, the life ends. */
    boolean broken;

    /** One side of the pair: its QP, CQs, memory and what it posted. */
    final class Side {
        final String name;
        final Context ctx;
        ProtectionDomain pd;
        CompletionQueue scq, rcq;
        QueuePair qp;
        AddressHandle ah;
        /** UD: the Q_Key this side sends with (the peer's). */
        int sendQkey;
        Arena arena;
        MemorySegment src, dst, recv, rdSrc, rdDst, atom;
        MemoryRegion mSrc, mDst, mRecv, mRdSrc, mRdDst, mAtom;
        final Ledger sends, recvs;
        /** The value the peer's atomics have left in {@link #atom}, as the model says. */
        long atomModel;
        /** The peer's send sequence numbers delivered here (UC / UD: the duplicate check). */
        final BitSet delivered = new BitSet();
        /** RC: ops of the burst that consume a receive here, in posting order. */
        final int[] rcOrder = new int[W];
        int rcHead, rcTail;
        Side peer;

        Side(String name, Context ctx, int queueBase) {
            this.name = name;
            this.ctx = ctx;
            this.sends = new Ledger(serial, queueBase);
            this.recvs = new Ledger(serial, queueBase + 1);
        }
    }

    Pair(long serial, QpType type, Context ca, Context cb, Stats stats, Live live, SplittableRandom rnd) {
        this.serial = serial;
        this.type = type;
        this.stats = stats;
        this.live = live;
        this.rnd = rnd;
        Mtu[] mtus = {Mtu.MTU_1024, Mtu.MTU_2048, Mtu.MTU_4096};
        this.mtu = mtus[rnd.nextInt(mtus.length)];
        this.tag = "pair " + serial + " (" + type + ", " + mtu + ")";
        this.a = new Side("A", ca, 0);
        this.b = new Side("B", cb, 2);
        a.peer = b;
        b.peer = a;
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        swr.sgList(ssge);
        rwr.sgList(rsge);
    }

    // ------------------------------------------------------------------ life

    /** Creates both sides' objects and connects the QPs. */
    void open() {
        create(a);
        create(b);
        int qkey = 0x1000_0000 | rnd.nextInt(1 << 24);
        int psnA = rnd.nextInt(1 << 24), psnB = rnd.nextInt(1 << 24);
        connect(a, b, psnA, psnB, qkey);
        connect(b, a, psnB, psnA, qkey);
        stats.pairs.increment();
        (type == QpType.RC ? stats.rcPairs : type == QpType.UC ? stats.ucPairs : stats.udPairs).increment();
    }

    private void create(Side s) {
        s.arena = Arena.ofShared();
        s.pd = s.ctx.allocPd();
        live.pds.incrementAndGet();
        s.scq = s.ctx.createCq(W * 2, null);
        live.cqs.incrementAndGet();
        s.rcq = s.ctx.createCq(RQ * 2, null);
        live.cqs.incrementAndGet();
        QpInitAttr ia = new QpInitAttr().sendCq(s.scq).recvCq(s.rcq).qpType(type);
        ia.cap().maxSendWr(W).maxRecvWr(RQ).maxSendSge(1).maxRecvSge(1);
        s.qp = s.pd.createQp(ia);
        live.qps.incrementAndGet();
        stats.qpsCreated.increment();
        s.src = s.arena.allocate((long) W * SLOT, 4096);
        s.dst = s.arena.allocate((long) W * SLOT, 4096);
        s.recv = s.arena.allocate((long) RQ * SLOT, 4096);
        s.rdSrc = s.arena.allocate(READ_SOURCE, 4096);
        s.rdDst = s.arena.allocate((long) W * SLOT, 4096);
        s.atom = s.arena.allocate(8, 8);
        long key = serial * 31 + s.name.charAt(0);
        for (long off = 0; off < READ_SOURCE; off += 8) {
            s.rdSrc.set(ValueLayout.JAVA_LONG, off, Payload.word(key, off));
        }
        s.atomModel = rnd.nextLong();
        s.atom.set(ValueLayout.JAVA_LONG, 0, s.atomModel);
        s.mSrc = reg(s, s.src);
        s.mDst = reg(s, s.dst);
        s.mRecv = reg(s, s.recv);
        s.mRdSrc = reg(s, s.rdSrc);
        s.mRdDst = reg(s, s.rdDst);
        s.mAtom = reg(s, s.atom);
    }

    private MemoryRegion reg(Side s, MemorySegment m) {
        MemoryRegion mr = s.pd.regMr(m, ALL);
        live.mrs.incrementAndGet();
        stats.mrsRegistered.increment();
        return mr;
    }

    private void connect(Side s, Side peer, int sqPsn, int rqPsn, int qkey) {
        QueuePair q = s.qp;
        if (type == QpType.UD) {
            q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey),
                    QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
            q.modify(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE);
            q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn), QpAttrMask.STATE | QpAttrMask.SQ_PSN);
            AhAttr ah = new AhAttr().isGlobal(true).portNum(1);
            ah.grh().dgid(peer.ctx.queryGid(1, 0)).hopLimit(64);
            s.ah = s.pd.createAh(ah);
            live.ahs.incrementAndGet();
            s.sendQkey = qkey;
            return;
        }
        q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(ALL),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(peer.qp.qpNum()).rqPsn(rqPsn);
        rtr.ahAttr().isGlobal(true).portNum(1).grh().dgid(peer.ctx.queryGid(1, 0));
        int mask = QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
        if (type == QpType.RC) {
            // perftest's ACK timeout (exponent 14: 67 ms) and retry_cnt 7, as the fault tests use
            q.modify(rtr.maxDestRdAtomic(16).minRnrTimer(1), mask | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
            q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(16),
                    QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT
                            | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
        } else {
            q.modify(rtr, mask);
            q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn), QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        }
    }

    /**
     * Runs bursts until {@code endNanos} (or {@code stop}), alternating the direction; with
     * {@code abort} the last burst is cut short by moving both QPs to ERR with work in flight.
     * Then moves both QPs to ERR and drains every queue.
     */
    void run(long endNanos, boolean abort, java.util.function.BooleanSupplier stop) {
        Side from = a;
        while (!broken && System.nanoTime() < endNanos && !stop.getAsBoolean()) {
            burst(from, false);
            from = from.peer;
            if (!broken && rnd.nextInt(20) == 0) {
                reregister(from); // between bursts: nothing refers to these MRs now but posted receives, which use mRecv
            }
        }
        if (abort && !broken) {
            stats.aborts.increment();
            burst(from, true);
        }
        drain();
    }

    /** Deregisters and registers again a side's send source and RDMA target regions (new keys). */
    private void reregister(Side s) {
        s.mSrc.close();
        live.mrs.decrementAndGet();
        s.mSrc = reg(s, s.src);
        s.mDst.close();
        live.mrs.decrementAndGet();
        s.mDst = reg(s, s.dst);
    }

    // ------------------------------------------------------------------ a burst

    private void burst(Side from, boolean abort) {
        Side to = from.peer;
        fillRq(to);
        initiator = from;
        n = 1 + rnd.nextInt(W);
        seqBase = from.sends.posted();
        to.rcHead = to.rcTail = 0;
        pendingSends = 0;
        pendingRecvs = 0;
        java.util.Arrays.fill(received, false);
        for (int op = 0; op < n; op++) {
            if (!post(from, to, op)) {
                n = op;
                break;
            }
        }
        lastEvent = System.nanoTime();
        if (abort) {
            aborted = true;
            long until = System.nanoTime() + rnd.nextLong(3_000_000);
            while (System.nanoTime() < until) {
                pollAll();
            }
            return;
        }
        long stuck = System.nanoTime() + STUCK_NANOS;
        int idle = 0;
        while (!broken) {
            if (pendingSends == 0 && pendingRecvs == 0) {
                break;
            }
            if (type != QpType.RC && pendingSends == 0 && System.nanoTime() - lastEvent > QUIET_NANOS) {
                break; // the rest of this burst's messages were lost on the wire
            }
            if (System.nanoTime() > stuck) {
                stats.fail(tag + ": burst stuck for " + STUCK_NANOS / 1_000_000_000L + " s: " + pendingSends
                        + " sends and " + pendingRecvs + " receives of " + n + " not completed (A: " + a.qp.state()
                        + ", B: " + b.qp.state() + ")");
                broken = true;
                break;
            }
            idle = pollAll() > 0 ? 0 : idle + 1;
            backOff(idle);
        }
    }

    /** Fills the receive queue of {@code s} up to {@link #RQ} WRs. */
    private void fillRq(Side s) {
        while (s.recvs.outstanding() < RQ) {
            long id = s.recvs.next();
            int slot = Ledger.seq(id) % RQ;
            rsge.set(s.recv.address() + (long) slot * SLOT, SLOT, s.mRecv.lkey());
            try {
                s.qp.postRecv(rwr.wrId(id));
                stats.posted.increment();
            } catch (VerbsException e) {
                s.recvs.unpost();
                stats.fail(tag + ": postRecv on " + s.name + " (" + s.recvs.outstanding() + " outstanding): " + e);
                broken = true;
                return;
            }
        }
    }

    private boolean post(Side from, Side to, int op) {
        WrOpcode o = pick();
        int max = type == QpType.RC ? SLOT : type == QpType.UC ? SLOT / 2 : mtu == Mtu.MTU_1024 ? 1024 : 4096;
        int l = o.isAtomic() ? 8 : size(max);
        long id = from.sends.next();
        long slot = (long) op * SLOT;
        opc[op] = o;
        len[op] = l;
        swr.wrId(id).opcode(o).sendFlags(SendFlags.SIGNALED).immData(0);
        switch (o) {
            case SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM -> {
                Payload.fill(from.src, slot, l, id);
                ssge.set(from.src.address() + slot, l, from.mSrc.lkey());
                if (o == WrOpcode.SEND_WITH_IMM || o == WrOpcode.RDMA_WRITE_WITH_IMM) {
                    swr.immData(Ledger.seq(id));
                }
                if (o == WrOpcode.RDMA_WRITE || o == WrOpcode.RDMA_WRITE_WITH_IMM) {
                    swr.rdma(to.dst.address() + slot, to.mDst.rkey());
                }
            }
            case RDMA_READ -> {
                readOff[op] = rnd.nextInt(READ_SOURCE - l + 1);
                ssge.set(from.rdDst.address() + slot, l, from.mRdDst.lkey());
                swr.rdma(to.rdSrc.address() + readOff[op], to.mRdSrc.rkey());
            }
            case ATOMIC_FETCH_AND_ADD -> {
                long add = rnd.nextLong();
                ssge.set(from.rdDst.address() + slot, 8, from.mRdDst.lkey());
                swr.atomic(to.atom.address(), to.mAtom.rkey(), add, 0);
                expectFetch[op] = to.atomModel;
                to.atomModel += add;
            }
            case ATOMIC_CMP_AND_SWP -> {
                boolean match = rnd.nextBoolean();
                long compare = match ? to.atomModel : to.atomModel + 1 + rnd.nextInt(1000);
                long swap = rnd.nextLong();
                ssge.set(from.rdDst.address() + slot, 8, from.mRdDst.lkey());
                swr.atomic(to.atom.address(), to.mAtom.rkey(), compare, swap);
                expectFetch[op] = to.atomModel;
                if (match) {
                    to.atomModel = swap;
                }
            }
        }
        if (type == QpType.UD) {
            swr.ud(from.ah, to.qp.qpNum(), from.sendQkey);
        }
        try {
            from.qp.postSend(swr);
        } catch (VerbsException e) {
            from.sends.unpost();
            stats.fail(tag + ": postSend " + o + " on " + from.name + ": " + e);
            broken = true;
            return false;
        }
        stats.posted.increment();
        pendingSends++;
        boolean consumes = o == WrOpcode.SEND || o == WrOpcode.SEND_WITH_IMM || o == WrOpcode.RDMA_WRITE_WITH_IMM;
        if (consumes) {
            pendingRecvs++;
            if (type == QpType.RC) {
                to.rcOrder[to.rcTail++] = op;
            } else {
                (type == QpType.UC ? stats.ucSent : stats.udSent).increment();
            }
        }
        return true;
    }

    private WrOpcode pick() {
        int r = rnd.nextInt(100);
        return switch (type) {
            case RC -> r < 20 ? WrOpcode.SEND : r < 30 ? WrOpcode.SEND_WITH_IMM : r < 50 ? WrOpcode.RDMA_WRITE
                    : r < 62 ? WrOpcode.RDMA_WRITE_WITH_IMM : r < 80 ? WrOpcode.RDMA_READ
                    : r < 90 ? WrOpcode.ATOMIC_FETCH_AND_ADD : WrOpcode.ATOMIC_CMP_AND_SWP;
            case UC -> r < 35 ? WrOpcode.SEND : r < 55 ? WrOpcode.SEND_WITH_IMM : r < 85 ? WrOpcode.RDMA_WRITE_WITH_IMM
                    : WrOpcode.RDMA_WRITE;
            default -> r < 60 ? WrOpcode.SEND : WrOpcode.SEND_WITH_IMM;
        };
    }

    /** A message size in [HEADER, max]: half of them small, a third up to a page, the rest up to max. */
    private int size(int max) {
        int r = rnd.nextInt(6);
        int hi = r < 3 ? 256 : r < 5 ? 4096 : max;
        return Payload.HEADER + rnd.nextInt(Math.min(hi, max) - Payload.HEADER + 1);
    }

    // ------------------------------------------------------------------ completions

    /** Polls the four CQs once each; returns the completions handled. */
    private int pollAll() {
        return poll(a, true) + poll(a, false) + poll(b, true) + poll(b, false);
    }

    private int poll(Side s, boolean sendCq) {
        int k = (sendCq ? s.scq : s.rcq).poll(wc);
        for (int i = 0; i < k; i++) {
            handle(s, sendCq, wc[i]);
        }
        return k;
    }

    private void handle(Side s, boolean sendCq, WorkCompletion c) {
        Ledger l = sendCq ? s.sends : s.recvs;
        String where = s.name + (sendCq ? " send" : " recv") + " CQ";
        if (!l.owns(c.wrId())) {
            stats.fail(tag + ": completion on " + where + " for a WR not posted there: " + c);
            return;
        }
        if (!l.complete(c.wrId())) {
            stats.duplicates.increment();
            stats.fail(tag + ": duplicate completion on " + where + ": " + c);
            return;
        }
        stats.completed.increment();
        lastEvent = System.nanoTime();
        if (c.status() == WcStatus.WR_FLUSH_ERR) {
            stats.flushed.increment();
            if (!aborted && !draining) {
                stats.fail(tag + ": flushed while the pair was working: " + c + " on " + where);
                broken = true;
            }
            return;
        }
        if (c.status() != WcStatus.SUCCESS) {
            stats.fail(tag + ": error completion on " + where + ": " + c + " (A: " + a.qp.state() + ", B: " + b.qp.state() + ")");
            broken = true;
            return;
        }
        if (sendCq) {
            sendDone(s, c);
        } else {
            received(s, c);
        }
    }

    private void sendDone(Side s, WorkCompletion c) {
        int op = (int) (Ledger.seq(c.wrId()) - seqBase);
        if (s != initiator || op < 0 || op >= n) {
            stats.fail(tag + ": send completion outside its burst: " + c + " on " + s.name);
            return;
        }
        pendingSends--;
        WrOpcode o = opc[op];
        if (c.opcode() != WcOpcode.of(o)) {
            stats.fail(tag + ": completion opcode " + c.opcode() + " for a " + o + ": " + c);
            return;
        }
        Side to = s.peer;
        long slot = (long) op * SLOT;
        switch (o) {
            case RDMA_WRITE -> {
                if (type == QpType.RC) { // an RC completion means the responder placed it; UC's means only "sent"
                    long bad = Payload.check(to.dst, slot, len[op], c.wrId());
                    if (bad >= 0) {
                        stats.fail(tag + ": RDMA WRITE data wrong at byte " + bad + " of " + len[op] + ": " + c);
                    } else {
                        stats.verifiedMessages.increment();
                        stats.verifiedBytes.add(len[op]);
                    }
                }
            }
            case RDMA_READ -> {
                long bad = s.rdDst.asSlice(slot, len[op]).mismatch(to.rdSrc.asSlice(readOff[op], len[op]));
                if (bad >= 0) {
                    stats.fail(tag + ": RDMA READ data wrong at byte " + bad + " of " + len[op] + ": " + c);
                } else {
                    stats.verifiedReads.increment();
                    stats.verifiedBytes.add(len[op]);
                }
            }
            case ATOMIC_FETCH_AND_ADD, ATOMIC_CMP_AND_SWP -> {
                long got = s.rdDst.get(ValueLayout.JAVA_LONG, slot);
                if (got != expectFetch[op]) {
                    stats.fail(tag + ": " + o + " returned 0x" + Long.toHexString(got) + ", the model says 0x"
                            + Long.toHexString(expectFetch[op]) + ": " + c);
                } else {
                    stats.verifiedAtomics.increment();
                }
            }
            default -> {
            }
        }
    }

    private void received(Side s, WorkCompletion c) {
        Side from = s.peer;
        int slot = Ledger.seq(c.wrId()) % RQ;
        int grh = type == QpType.UD ? UD_GRH : 0;
        long peerSeq;
        if (c.opcode() == WcOpcode.RECV) {
            long id = Payload.id(s.recv, (long) slot * SLOT + grh);
            if (!from.sends.owns(id)) {
                stats.fail(tag + ": received a message whose header names no WR of the sender (0x" + Long.toHexString(id)
                        + "): " + c + " on " + s.name);
                return;
            }
            peerSeq = Ledger.seq(id);
        } else if (c.opcode() == WcOpcode.RECV_RDMA_WITH_IMM && type != QpType.UD) {
            peerSeq = c.immData() & 0xFFFF_FFFFL;
        } else {
            stats.fail(tag + ": receive completion with opcode " + c.opcode() + ": " + c + " on " + s.name);
            return;
        }
        if (s.delivered.get((int) peerSeq)) {
            stats.duplicateDeliveries.increment();
            stats.fail(tag + ": message " + peerSeq + " of " + from.name + " delivered twice: " + c + " on " + s.name);
            return;
        }
        s.delivered.set((int) peerSeq);
        if (type != QpType.RC) {
            (type == QpType.UC ? stats.ucReceived : stats.udReceived).increment();
        }
        int op = (int) (peerSeq - seqBase);
        if (from != initiator || op < 0 || op >= n) {
            // a UC / UD message that arrived after its burst gave up on it: its WRITE target may be reused by now
            if (type == QpType.RC) {
                stats.fail(tag + ": RC receive outside its burst: " + c + " on " + s.name);
            } else if (c.opcode() == WcOpcode.RECV) {
                checkReceived(s, c, s.recv, (long) slot * SLOT + grh, c.byteLen() - grh, peerSeq);
            }
            return;
        }
        WrOpcode o = opc[op];
        boolean imm = o == WrOpcode.SEND_WITH_IMM || o == WrOpcode.RDMA_WRITE_WITH_IMM;
        WcOpcode want = o == WrOpcode.RDMA_WRITE_WITH_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
        if (received[op] || c.opcode() != want || imm != ((c.wcFlags() & WcFlags.WITH_IMM) != 0)
                || (imm && c.immData() != (int) peerSeq) || c.byteLen() - grh != len[op]) {
            stats.fail(tag + ": receive does not match the " + o + " of " + len[op] + " bytes it names (op " + op + "): "
                    + c + " on " + s.name);
            return;
        }
        if (type == QpType.UD && (c.srcQp() != from.qp.qpNum() || (c.wcFlags() & WcFlags.GRH) == 0)) {
            stats.fail(tag + ": UD receive with source QP " + c.srcQp() + " (sender " + from.qp.qpNum() + ") or no GRH: " + c);
        }
        if (type == QpType.RC) {
            int expect = s.rcHead < s.rcTail ? s.rcOrder[s.rcHead] : -1;
            s.rcHead++;
            if (expect != op) {
                stats.fail(tag + ": RC receive out of order: op " + op + " arrived, op " + expect + " was next: " + c);
            }
        }
        received[op] = true;
        pendingRecvs--;
        if (o == WrOpcode.RDMA_WRITE_WITH_IMM) {
            checkReceived(s, c, s.dst, (long) op * SLOT, len[op], peerSeq);
        } else {
            checkReceived(s, c, s.recv, (long) slot * SLOT + grh, len[op], peerSeq);
        }
    }

    private void checkReceived(Side s, WorkCompletion c, MemorySegment m, long off, int l, long peerSeq) {
        long id = s.peer.sends.idOf((int) peerSeq);
        long bad = l < Payload.HEADER ? 0 : Payload.check(m, off, l, id);
        if (bad >= 0) {
            stats.fail(tag + ": received data wrong at byte " + bad + " of " + l + ": " + c + " on " + s.name);
        } else {
            stats.verifiedMessages.increment();
            stats.verifiedBytes.add(l);
        }
    }

    // ------------------------------------------------------------------ the end

    /** Moves both QPs to ERR and polls until every WR posted has completed (or the drain time is up). */
    private void drain() {
        draining = true;
        toErr(a);
        toErr(b);
        long until = System.nanoTime() + DRAIN_NANOS;
        int idle = 0;
        while (outstanding() > 0 && System.nanoTime() < until) {
            idle = pollAll() > 0 ? 0 : idle + 1;
            backOff(idle);
        }
        long late = System.nanoTime() + 5_000_000; // a moment more for completions that come twice
        while (System.nanoTime() < late) {
            pollAll();
            Thread.onSpinWait();
        }
        lost(a.sends, "A send queue");
        lost(a.recvs, "A receive queue");
        lost(b.sends, "B send queue");
        lost(b.recvs, "B receive queue");
        if (type == QpType.RC && !aborted && !broken) {
            for (Side s : new Side[] {a, b}) {
                long v = s.atom.get(ValueLayout.JAVA_LONG, 0);
                if (v != s.atomModel) {
                    stats.fail(tag + ": atomic target of " + s.name + " holds 0x" + Long.toHexString(v) + ", the model says 0x"
                            + Long.toHexString(s.atomModel));
                }
            }
        }
    }

    private int outstanding() {
        return a.sends.outstanding() + a.recvs.outstanding() + b.sends.outstanding() + b.recvs.outstanding();
    }

    private void lost(Ledger l, String what) {
        int k = l.outstanding();
        if (k > 0) {
            stats.lost.add(k);
            stats.fail(tag + ": " + what + ": " + k + " of " + l.posted() + " WRs never completed (first: wr_id 0x"
                    + Long.toHexString(l.idOf(l.firstMissing())) + ") though the QP was moved to ERR and drained "
                    + DRAIN_NANOS / 1_000_000_000L + " s");
        }
        if (l.duplicates() > 0) {
            stats.fail(tag + ": " + what + ": " + l.duplicates() + " duplicate completions");
        }
    }

    private void toErr(Side s) {
        try {
            s.qp.modify(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE);
        } catch (VerbsException e) {
            stats.fail(tag + ": modify " + s.name + " to ERR: " + e);
        }
    }

    /** Destroys everything the pair created, QPs first; a close that fails (EBUSY: something still uses it) is a failure. */
    void close() {
        for (Side s : new Side[] {a, b}) {
            if (s.qp != null) {
                close(s.qp, s.name + " QP");
                live.qps.decrementAndGet();
            }
        }
        for (Side s : new Side[] {a, b}) {
            if (s.ah != null) {
                close(s.ah, s.name + " AH");
                live.ahs.decrementAndGet();
            }
            for (CompletionQueue cq : new CompletionQueue[] {s.scq, s.rcq}) {
                if (cq != null) {
                    if (cq.overruns() != 0) {
                        stats.fail(tag + ": " + s.name + " CQ overran " + cq.overruns() + " times");
                    }
                    close(cq, s.name + " CQ");
                    live.cqs.decrementAndGet();
                }
            }
            for (MemoryRegion mr : new MemoryRegion[] {s.mSrc, s.mDst, s.mRecv, s.mRdSrc, s.mRdDst, s.mAtom}) {
                if (mr != null) {
                    close(mr, s.name + " MR");
                    live.mrs.decrementAndGet();
                }
            }
            if (s.pd != null) {
                close(s.pd, s.name + " PD");
                live.pds.decrementAndGet();
            }
            if (s.arena != null) {
                s.arena.close();
            }
        }
    }

    private void close(AutoCloseable c, String what) {
        try {
            c.close();
        } catch (Exception e) {
            stats.fail(tag + ": closing the " + what + ": " + e);
        }
    }

    /** Spins, then yields, then parks: the machine is shared, so an idle worker must not burn a core. */
    static void backOff(int idle) {
        if (idle < 64) {
            Thread.onSpinWait();
        } else if (idle < 256) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(50_000);
        }
    }

    @Override
    public String toString() {
        return tag;
    }
}
