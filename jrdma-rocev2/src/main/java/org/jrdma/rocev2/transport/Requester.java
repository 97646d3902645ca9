package org.jrdma.rocev2.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.jrdma.rocev2.wire.AtomicEth;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Deth;
import org.jrdma.rocev2.wire.Feth;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Ieth;
import org.jrdma.rocev2.wire.ImmDt;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.Reth;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requester of an RC, UC or UD QP (IBTA Vol 1 §9.7.2; rxe: {@code rxe_req.c}) as a state
 * machine: {@link #run} steps through {@link State}s — take the next WQE, start it (fence,
 * max_rd_atomic, local checks, PSNs), check the window of unacknowledged PSNs, send one packet —
 * until the send queue is empty or something makes it wait (a {@code WAIT_*} state, which the
 * completer's progress ends). Segmentation at the path MTU, the AckReq policy; the opcode of each
 * packet and the headers it carries come from the opcode table ({@link Opcode#of}, {@link Opcode#has}).
 * The completer rewinds it for go-back-N retransmission ({@link #rewindTo}).
 *
 * <p>With DEBUG logging on for this class when the QP is created, every transition is logged, e.g.
 * {@code QP 0x11 req: CHECK_WINDOW -> SEND_PACKET psn 123}.
 *
 * <p>Runs under the QP lock: in a posting thread (a post sends what the window allows at once), and
 * in the thread that runs the completer (the I/O thread, a polling thread) when progress reopens the
 * window or a retry rewinds.
 */
final class Requester {
    private static final Logger LOG = LoggerFactory.getLogger(Requester.class);
    /** Unacknowledged PSNs allowed in flight (rxe: RXE_MAX_UNACKED_PSNS). */
    static final int MAX_UNACKED_PSNS = 128;
    /** A packet without AckReq is followed by one with it at least this often (rxe: RXE_MAX_PKT_PER_ACK). */
    static final int MAX_PKT_PER_ACK = 64;

    /** The requester's states. The {@code WAIT_*} states and {@link #IDLE} end a {@link #run}. */
    enum State {
        /** Look at the WQE at {@link #next}. */
        NEXT_WQE,
        /** A posted WQE: fence and max_rd_atomic, local checks, its PSNs (rxe: {@code req_next_wqe}, {@code rxe_do_local_ops}). */
        START_WQE,
        /** RC: the window of unacknowledged PSNs has room (rxe: {@code req.wait_psn}). */
        CHECK_WINDOW,
        /** Send the WQE's next SEND / WRITE packet. */
        SEND_PACKET,
        /** Send a READ request or an atomic. */
        SEND_READ_OR_ATOMIC,
        /** Send a UD datagram. */
        SEND_DATAGRAM,
        /** All of the WQE's packets are out; UC and UD complete it at once. */
        WQE_SENT,
        /** Nothing to send: the send queue is empty (or the QP cannot send: not RTS, or an RNR wait). */
        IDLE,
        /** A fenced WQE waits for the READs and atomics before it (rxe: {@code wait_fence}). */
        WAIT_FENCE,
        /** max_rd_atomic READs / atomics are outstanding (rxe: {@code need_rd_atomic}). */
        WAIT_RD_ATOMIC,
        /** The window of unacknowledged PSNs is full (rxe: {@code wait_psn}). */
        WAIT_PSN,
        /** A WQE failed its local checks; the completer reports it in order. */
        WAIT_LOCAL_ERROR,
        /**
         * Issue 16: the QP's DCQCN rate does not let the next packet go yet; the device's pacer runs
         * the requester again when it may ({@link RxeQp#mayTransmit}).
         */
        WAIT_RATE
    }

    private final RxeQp qp;
    /** A UD QP's datagram buffer (RC and UC packets are written into the sending thread's train). */
    private final PacketBuffer tx;
    private final Bth bth = new Bth();
    private final Reth reth = new Reth();
    private final ImmDt immDt = new ImmDt();
    private final AtomicEth atomicEth = new AtomicEth();
    private final Deth deth = new Deth();
    private final Feth feth = new Feth();
    private final Ieth ieth = new Ieth();
    private final boolean debug = LOG.isDebugEnabled();

    /** The next PSN to send. */
    private int psn;
    /** One past the highest PSN ever sent (ACKs up to it are believable after a rewind). */
    private int sentLimit;
    /** Index (into the send queue) of the next WQE to send or continue. */
    private long next;
    /** READ and atomic requests sent and not yet answered. */
    private int rdAtomicInFlight;
    private int noAckPackets;
    /** The WQE being handled by the current {@link #run}. */
    private RxeSendWqe w;
    /** The next packet asks for an ACK whatever its place: a tail-loss probe ({@link #probe}). */
    private boolean forceAckReq;
    /** The sending thread's train during a {@link #run}: RC and UC packets leave in it when the run ends (issue 14). */
    private PacketTrain train;
    /** The PSN of the first packet in {@link #train} (the train a post may leave waiting: {@link #mayDefer}). */
    private int trainFirstPsn;

    Requester(RxeQp qp) {
        this.qp = qp;
        this.tx = qp.type() == QpType.UD ? PacketBuffer.allocate(RxeQp.MAX_PACKET) : null;
    }

    /** RTS: send from {@code sqPsn}, starting with the WQE at {@code sqHead}. */
    void reset(int sqPsn, long sqHead) {
        psn = sqPsn;
        sentLimit = sqPsn;
        next = sqHead;
        rdAtomicInFlight = 0;
        noAckPackets = 0;
    }

    // ------------------------------------------------------------------ what the completer asks

    /** Index of the next WQE to send or continue: the WQEs before it are all sent. */
    long nextWqe() {
        return next;
    }

    /** True when {@code psn} was sent at some time (it lies before the highest PSN sent). */
    boolean wasSent(int psn) {
        return Psn.diff(psn, sentLimit) < 0;
    }

    /** A READ or atomic was answered (or its WQE retired): one more may go out. */
    void readOrAtomicAnswered() {
        rdAtomicInFlight--;
    }

    /** The QP flushed its send queue: nothing is left to send, nothing is outstanding. */
    void flushed(long sqTail) {
        next = sqTail;
        rdAtomicInFlight = 0;
    }

    // ------------------------------------------------------------------ the state machine

    /** Sends what the window, the rd_atomic limit and fences allow (run by the completer, a timer, a probe). */
    void run() {
        run(false);
    }

    /**
     * Sends what the window, the rd_atomic limit and fences allow. A run for a post ({@code fromPost})
     * of an RC QP may leave its packets in the posting thread's train for the next post to add to
     * (issue 14: same-size small messages posted one by one leave as one train, {@link PacketTrain#COALESCE}),
     * under TCP's Nagle rule: only while packets sent before them are unacknowledged (so a response
     * is coming, and sends the train: {@link RxeQp#deferTrain}), only for packets shorter than the
     * path MTU, only while the train has room, and only when the run ended with nothing more to send
     * (not waiting for the window, a fence or the rd_atomic limit). A lone request (nothing in flight,
     * a latency test) leaves at once. Packets of this QP that wait in another thread's train leave
     * first, so that PSNs stay in order on the wire.
     */
    void run(boolean fromPost) {
        PacketTrain outer = train;
        if (outer == null) {
            PacketTrain waiting = qp.deferredTrain();
            train = PacketTrain.forRun(qp);
            if (waiting != null && waiting != train) {
                qp.flushDeferred();
            }
        }
        State s = State.NEXT_WQE;
        try {
            while (!isResting(s)) {
                State n = step(s);
                if (debug) {
                    LOG.debug("QP 0x{} req: {} -> {} psn {}", Integer.toHexString(qp.qpn()), s, n, psn);
                }
                s = n;
            }
        } finally {
            w = null;
            forceAckReq = false;
            boolean sent = train.count() > 0;
            if (outer != null) {
                // a nested run: the outer one sends the train
            } else if (fromPost && s == State.IDLE && mayDefer()) {
                qp.deferTrain(train);
            } else {
                qp.flushTrain(train); // what this run laid in the train leaves now, in PSN order
            }
            train = outer;
            if (sent && qp.type() == QpType.RC) {
                qp.completer.sent(Psn.add(psn, -1), Psn.diff(psn, sentLimit) >= 0);
            }
        }
    }

    /** Whether the train may wait for the next post ({@link #run(boolean)}'s rule). */
    private boolean mayDefer() {
        return PacketTrain.COALESCE && qp.type() == QpType.RC && train.count() > 0 && train.hasRoom()
                && train.segmentSize() < qp.mtuBytes() && train == PacketTrain.forThread()
                && Psn.diff(trainFirstPsn, qp.completer.windowBase()) > 0;
    }

    /**
     * The tail-loss probe ({@link Completer}): sends the last packet sent again, with AckReq (a
     * go-back-N from its PSN, so a READ asks again for what has not arrived), and what the window
     * then allows.
     */
    /** Whether the last packet sent belongs to a SEND or WRITE (not a READ, atomic, FLUSH, ATOMIC WRITE). */
    boolean lastSentIsSendOrWrite() {
        if (next != qp.sqTail()) {
            RxeSendWqe e = qp.sqEntry(next);
            if (e.wqeState == RxeSendWqe.SENDING && !e.opcode.isReadOrAtomic() && e.sentBytes > 0) {
                return true; // partly sent (the window is full)
            }
        }
        if (next == qp.sqHead()) {
            return false;
        }
        RxeSendWqe e = qp.sqEntry(next - 1);
        return e.wqeState == RxeSendWqe.SENT && !e.opcode.isReadOrAtomic();
    }

    /** The PSN of the last packet sent (the one a tail-loss probe sends again). */
    int lastSentPsn() {
        return Psn.add(psn, -1);
    }

    void probe() {
        rewindTo(Psn.add(psn, -1));
        forceAckReq = true;
        run();
    }

    /**
     * The offset in the train's buffer where the next packet, of {@code length} bytes with its
     * ICRC, is to be written; sends the train first when the packet does not fit it.
     */
    private int place(int length) {
        int at = train.reserve(length);
        if (at < 0) {
            qp.flushTrain(train);
            at = train.reserve(length);
        }
        if (at == 0) {
            trainFirstPsn = psn;
        }
        return at;
    }

    private static boolean isResting(State s) {
        return switch (s) {
            case IDLE, WAIT_FENCE, WAIT_RD_ATOMIC, WAIT_PSN, WAIT_LOCAL_ERROR, WAIT_RATE -> true;
            default -> false;
        };
    }

    private State step(State s) {
        return switch (s) {
            case NEXT_WQE -> nextWqeState();
            case START_WQE -> start();
            case CHECK_WINDOW -> checkWindow();
            case SEND_PACKET -> sendPacket();
            case SEND_READ_OR_ATOMIC -> {
                sendReadOrAtomic();
                yield State.WQE_SENT;
            }
            case SEND_DATAGRAM -> {
                sendDatagram();
                yield State.WQE_SENT;
            }
            case WQE_SENT -> {
                w.wqeState = RxeSendWqe.SENT;
                next++;
                if (qp.type() != QpType.RC) {
                    qp.completer.completeUnreliable();
                }
                yield State.NEXT_WQE;
            }
            case IDLE, WAIT_FENCE, WAIT_RD_ATOMIC, WAIT_PSN, WAIT_LOCAL_ERROR, WAIT_RATE -> s;
        };
    }

    private State nextWqeState() {
        if (next == qp.sqTail() || !qp.canSend()) {
            return State.IDLE;
        }
        w = qp.sqEntry(next);
        return switch (w.wqeState) {
            case RxeSendWqe.LOCAL_ERROR -> State.WAIT_LOCAL_ERROR;
            case RxeSendWqe.POSTED -> State.START_WQE;
            case RxeSendWqe.DONE -> {
                next++; // a local operation executed before a rewind: nothing to send
                yield State.NEXT_WQE;
            }
            default -> State.CHECK_WINDOW;
        };
    }

    /** Prepares a WQE's first packet, unless a fence or the rd_atomic limit makes it wait, or it fails locally. */
    private State start() {
        boolean readOrAtomic = w.opcode.isReadOrAtomic();
        if (readOrAtomic && rdAtomicInFlight >= Math.max(1, qp.maxRdAtomic())) {
            return State.WAIT_RD_ATOMIC;
        }
        if ((w.sendFlags & SendFlags.FENCE) != 0 && rdAtomicInFlight > 0) {
            return State.WAIT_FENCE;
        }
        if (w.opcode == WrOpcode.BIND_MW || w.opcode == WrOpcode.LOCAL_INV) {
            return localOperation();
        }
        WcStatus st = qp.resolveWqe(w, readOrAtomic);
        if (st == WcStatus.SUCCESS && w.length > RxeQp.MAX_MSG_SIZE) {
            st = WcStatus.LOC_LEN_ERR;
        }
        if (st == WcStatus.SUCCESS && qp.type() == QpType.UD
                && (w.length > qp.udMtuBytes() || !qp.sameFamily(w.udAv.grh().dgid()))) {
            st = w.length > qp.udMtuBytes() ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_QP_OP_ERR;
        }
        if (st != WcStatus.SUCCESS) {
            w.wqeState = RxeSendWqe.LOCAL_ERROR;
            w.localStatus = st;
            qp.completer.localErrorReady();
            return State.WAIT_LOCAL_ERROR;
        }
        w.firstPsn = psn;
        w.lastPsn = Psn.add(psn, w.packets(qp.mtuBytes()) - 1);
        w.sentBytes = 0;
        w.readBytes = 0;
        w.wqeState = RxeSendWqe.SENDING;
        if (readOrAtomic) {
            rdAtomicInFlight++;
        }
        return State.CHECK_WINDOW;
    }

    /**
     * BIND_MW and LOCAL_INV execute when the requester reaches them and take no PSN (rxe
     * {@code rxe_do_local_ops}); the completer completes them in order. A failure completes the WQE
     * with its status (MW_BIND_ERR, LOC_QP_OP_ERR) and moves the QP to ERR, as rxe does.
     */
    private State localOperation() {
        WcStatus st = qp.executeLocalOperation(w);
        w.firstPsn = Psn.add(psn, -1); // before the next PSN: a rewind walks past it
        w.lastPsn = w.firstPsn;
        if (st != WcStatus.SUCCESS) {
            w.wqeState = RxeSendWqe.LOCAL_ERROR;
            w.localStatus = st;
            qp.completer.localErrorReady();
            return State.WAIT_LOCAL_ERROR;
        }
        w.wqeState = RxeSendWqe.DONE;
        next++;
        if (qp.type() == QpType.RC) {
            qp.completer.localOperationDone();
        } else {
            qp.completer.completeUnreliable();
        }
        return State.NEXT_WQE;
    }

    private State checkWindow() {
        if (qp.type() == QpType.RC && Psn.diff(psn, qp.completer.windowBase()) >= MAX_UNACKED_PSNS) {
            return State.WAIT_PSN; // an ACK reopens it
        }
        if (qp.type() == QpType.UD) {
            return State.SEND_DATAGRAM;
        }
        if (!qp.mayTransmit()) {
            return State.WAIT_RATE; // DCQCN: the pacer resumes the requester when the rate allows
        }
        return w.opcode.isReadOrAtomic() ? State.SEND_READ_OR_ATOMIC : State.SEND_PACKET;
    }

    /**
     * Rewinds to resend from {@code fromPsn} (go-back-N, IBTA Vol 1 §9.7.5.1.4): the WQE that holds
     * it continues from the packet of that PSN (a READ is re-requested for its remaining bytes:
     * {@code readBytes} already placed), and every later WQE starts over and gets its PSNs anew, in
     * the same order.
     */
    void rewindTo(int fromPsn) {
        qp.flushDeferred(); // packets still waiting go first, in PSN order; the rewind then resends from fromPsn
        int mtu = qp.mtuBytes();
        long i = qp.sqHead();
        while (i != next && Psn.diff(fromPsn, qp.sqEntry(i).lastPsn) > 0) {
            i++;
        }
        int from = fromPsn;
        if (i != qp.sqTail() && qp.sqEntry(i).wqeState != RxeSendWqe.DONE) {
            RxeSendWqe h = qp.sqEntry(i);
            if (h.wqeState != RxeSendWqe.POSTED && Psn.diff(fromPsn, h.firstPsn) < 0) {
                from = h.firstPsn;
            }
            if (h.opcode == WrOpcode.RDMA_READ && h.wqeState != RxeSendWqe.POSTED) {
                from = Psn.add(h.firstPsn, (int) (h.readBytes / mtu));
            }
        }
        next = i;
        psn = from;
        if (i == qp.sqTail()) {
            return;
        }
        for (long k = i + 1; k != qp.sqTail(); k++) {
            RxeSendWqe l = qp.sqEntry(k);
            if (l.wqeState == RxeSendWqe.SENT || l.wqeState == RxeSendWqe.SENDING) {
                l.wqeState = RxeSendWqe.POSTED;
                if (l.opcode.isReadOrAtomic()) {
                    rdAtomicInFlight--;
                }
            }
        }
        RxeSendWqe h = qp.sqEntry(i);
        if (h.wqeState == RxeSendWqe.POSTED || h.wqeState == RxeSendWqe.LOCAL_ERROR || h.wqeState == RxeSendWqe.DONE) {
            return; // nothing of it was sent yet, or it sends nothing (a local operation stays done, as rxe's req_retry)
        }
        h.wqeState = RxeSendWqe.SENDING;
        if (!h.opcode.isReadOrAtomic()) {
            h.sentBytes = Math.min(h.length, (long) Psn.diff(from, h.firstPsn) * mtu);
        }
    }

    // ------------------------------------------------------------------ packets

    /** The operation property of a send WQE's packets in the opcode table. */
    private static int operation(WrOpcode op) {
        return switch (op) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> Opcode.OP_SEND;
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> Opcode.OP_RDMA_WRITE;
            case RDMA_READ -> Opcode.OP_RDMA_READ;
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> Opcode.OP_ATOMIC;
            case FLUSH -> Opcode.OP_FLUSH;
            case ATOMIC_WRITE -> Opcode.OP_ATOMIC_WRITE;
            // local operations execute in START_WQE and send no packets
            case LOCAL_INV, BIND_MW -> throw new IllegalStateException(op + " is a local operation");
        };
    }

    private static boolean hasImmediate(WrOpcode op) {
        return op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.RDMA_WRITE_WITH_IMM;
    }

    private int transport() {
        return switch (qp.type()) {
            case RC -> Opcode.TRANSPORT_RC;
            case UC -> Opcode.TRANSPORT_UC;
            case UD -> Opcode.TRANSPORT_UD;
        };
    }

    /** The opcode of a packet of a SEND / WRITE message (IBTA Vol 1 §9.2, table 38), from the opcode table. */
    private int opcodeFor(boolean first, boolean last) {
        int props = Opcode.REQUEST | operation(w.opcode) | Opcode.position(first, last);
        if (last && hasImmediate(w.opcode)) {
            props |= Opcode.IMM_DT;
        }
        if (last && w.opcode == WrOpcode.SEND_WITH_INV) {
            props |= Opcode.IETH; // SEND Last / Only with Invalidate, 0x16 / 0x17
        }
        return Opcode.of(transport(), props);
    }

    /** Sends the next packet of a SEND / WRITE; the WQE is sent when its last byte is out. */
    private State sendPacket() {
        int mtu = qp.mtuBytes();
        long remaining = w.length - w.sentBytes;
        int payload = (int) Math.min(mtu, remaining);
        boolean first = w.sentBytes == 0;
        boolean last = remaining <= mtu;
        int op = opcodeFor(first, last);
        int hdr = Opcode.headerLength(op);
        int pad = (-payload) & 3;
        boolean ackReq = qp.type() == QpType.RC && (last || ++noAckPackets >= MAX_PKT_PER_ACK || forceAckReq);
        forceAckReq = false;
        if (ackReq) {
            noAckPackets = 0;
        }
        // the solicited event goes with the last packet of a SEND or of a WRITE with immediate
        boolean se = last && (w.sendFlags & SendFlags.SOLICITED) != 0
                && (Opcode.has(op, Opcode.OP_SEND) || Opcode.has(op, Opcode.IMM_DT));
        int length = hdr + payload + pad + Icrc.LENGTH;
        int at = place(length);
        MemorySegment seg = train.buffer().seg;
        writeBth(seg, at, op, se, pad, ackReq, psn, qp.destQpn());
        if (Opcode.has(op, Opcode.RETH)) {
            reth.wrap(seg, at + Opcode.offset(op, Opcode.RETH)).va(w.remoteAddr).rkey(w.rkey).dmaLength((int) w.length);
        }
        if (Opcode.has(op, Opcode.IMM_DT)) {
            immDt.wrap(seg, at + Opcode.offset(op, Opcode.IMM_DT)).immDt(w.immData);
        }
        if (Opcode.has(op, Opcode.IETH)) {
            ieth.wrap(seg, at + Opcode.offset(op, Opcode.IETH)).rkey(w.invalidateRkey);
        }
        qp.gatherPayload(w, w.sentBytes, seg, at + hdr, payload);
        zeroPad(seg, at + hdr + payload, pad);
        train.commit(length);
        qp.packetSent(length);
        w.sentBytes += payload;
        advance(1);
        return w.sentBytes >= w.length ? State.WQE_SENT : State.CHECK_WINDOW;
    }

    private static void zeroPad(MemorySegment seg, int at, int pad) {
        for (int i = 0; i < pad; i++) {
            seg.set(ValueLayout.JAVA_BYTE, at + i, (byte) 0);
        }
    }

    private void advance(int n) {
        psn = Psn.add(psn, n);
        if (Psn.diff(psn, sentLimit) > 0) {
            sentLimit = psn;
        }
    }

    /** A UD SEND Only (with immediate): BTH, DETH (Q_Key, source QPN), ImmDt, payload (IBTA Vol 1 §9.8.3). */
    private void sendDatagram() {
        int op = Opcode.of(Opcode.TRANSPORT_UD, Opcode.REQUEST | Opcode.OP_SEND | Opcode.ONLY
                | (hasImmediate(w.opcode) ? Opcode.IMM_DT : 0));
        int payload = (int) w.length;
        int hdr = Opcode.headerLength(op);
        int pad = (-payload) & 3;
        writeBth(tx.seg, 0, op, (w.sendFlags & SendFlags.SOLICITED) != 0, pad, false, psn, w.remoteQpn);
        // a Q_Key with the high bit set means "use the QP's own Q_Key" (IBTA Vol 1 §10.2.5)
        int qkey = w.remoteQkey < 0 ? qp.qkey() : w.remoteQkey;
        deth.wrap(tx.seg, Opcode.offset(op, Opcode.DETH)).qkey(qkey).srcQpn(qp.qpn());
        if (Opcode.has(op, Opcode.IMM_DT)) {
            immDt.wrap(tx.seg, Opcode.offset(op, Opcode.IMM_DT)).immDt(w.immData);
        }
        qp.gatherPayload(w, 0, tx.seg, hdr, payload);
        zeroPad(tx.seg, hdr + payload, pad);
        qp.transmitDatagram(tx, hdr + payload + pad, w);
        w.sentBytes = w.length;
        advance(1);
    }

    /**
     * A READ request (RETH for the bytes not yet placed), an atomic (AtomicETH), an ATOMIC WRITE (RETH
     * of 8 bytes, the 8 bytes as payload) or a FLUSH (FETH, RETH of the range; Annex A19, rxe
     * {@code rxe_init_roce_hdrs}); AckReq set.
     */
    private void sendReadOrAtomic() {
        int op = switch (w.opcode) {
            case RDMA_READ -> Opcode.RC_RDMA_READ_REQUEST;
            case ATOMIC_CMP_AND_SWP -> Opcode.RC_COMPARE_SWAP;
            case FLUSH -> Opcode.RC_FLUSH;
            case ATOMIC_WRITE -> Opcode.RC_ATOMIC_WRITE;
            default -> Opcode.RC_FETCH_ADD;
        };
        if (op == Opcode.RC_FLUSH || op == Opcode.RC_ATOMIC_WRITE) {
            sendPlacement(op);
            return;
        }
        int length = Opcode.headerLength(op) + Icrc.LENGTH;
        int at = place(length);
        MemorySegment seg = train.buffer().seg;
        writeBth(seg, at, op, false, 0, true, psn, qp.destQpn());
        if (Opcode.has(op, Opcode.RETH)) {
            long startByte = w.readBytes;
            reth.wrap(seg, at + Opcode.offset(op, Opcode.RETH)).va(w.remoteAddr + startByte).rkey(w.rkey)
                    .dmaLength((int) (w.length - startByte));
        }
        if (Opcode.has(op, Opcode.ATOMIC_ETH)) {
            // CmpSwap carries swap and compare; FetchAdd carries the addend in the swap/add field
            boolean cas = op == Opcode.RC_COMPARE_SWAP;
            atomicEth.wrap(seg, at + Opcode.offset(op, Opcode.ATOMIC_ETH)).va(w.remoteAddr).rkey(w.rkey)
                    .swapData(cas ? w.swap : w.compareAdd).compareData(cas ? w.compareAdd : 0);
        }
        train.commit(length);
        qp.packetSent(length);
        // a READ occupies one PSN per response packet still expected
        int span = w.opcode == WrOpcode.RDMA_READ ? Psn.diff(w.lastPsn, psn) + 1 : 1;
        advance(span);
    }

    /** RC FLUSH or RC ATOMIC WRITE: one packet, one PSN, answered by an RDMA READ response Only. */
    private void sendPlacement(int op) {
        int len = Opcode.headerLength(op) + (op == Opcode.RC_FLUSH ? 0 : 8);
        int at = place(len + Icrc.LENGTH);
        MemorySegment seg = train.buffer().seg;
        writeBth(seg, at, op, false, 0, true, psn, qp.destQpn());
        reth.wrap(seg, at + Opcode.offset(op, Opcode.RETH)).va(w.remoteAddr).rkey(w.rkey);
        if (op == Opcode.RC_FLUSH) {
            feth.wrap(seg, at + Opcode.offset(op, Opcode.FETH)).set(w.flushType, w.flushLevel);
            reth.dmaLength((int) w.flushLength);
        } else {
            reth.dmaLength(8);
            seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at + Opcode.headerLength(op), w.atomicWriteValue); // host order, as rxe's memcpy
        }
        train.commit(len + Icrc.LENGTH);
        qp.packetSent(len + Icrc.LENGTH);
        advance(1);
    }

    private void writeBth(MemorySegment seg, int at, int op, boolean se, int pad, boolean ackReq, int p, int destQpn) {
        bth.wrap(seg, at).opcode(op).se(se).migReq(false).padCount(pad).tver(0).pkey(RxeQp.DEFAULT_PKEY)
                .fecn(false).becn(false).destQpn(destQpn).ackReq(ackReq).psn(p);
    }
}
