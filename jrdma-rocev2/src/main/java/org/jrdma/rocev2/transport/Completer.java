package org.jrdma.rocev2.transport;

import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.Aeth;
import org.jrdma.rocev2.wire.AtomicAckEth;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.jrdma.verbs.jfr.JrdmaEvents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The completer of an RC QP (IBTA Vol 1 §9.7.5.1, §9.9.2; rxe: {@code rxe_comp.c}) as rxe's state
 * machine: a response packet, or a timer, runs through {@link State}s, one {@link #step} per state.
 * ACKs, NAKs and READ / atomic responses retire send WQEs in order and write their CQEs; a NAK or an
 * exhausted retry counter completes the failing WQE with its status and moves the QP to ERR; a PSN
 * sequence NAK, a response gap, an ACK that passes an unanswered READ or atomic (an implied NAK) or
 * a timeout rewinds the requester (go-back-N, {@link Requester#rewindTo}). It owns the
 * retransmission and RNR timers.
 *
 * <p>With DEBUG logging on for this class when the QP is created, every transition is logged, e.g.
 * {@code QP 0x11 comp: CHECK_ACK -> WRITE_SEND psn 123}.
 *
 * <p>Runs under the QP lock: in the thread that received the response (the device's I/O thread, or
 * an application thread polling a CQ), in the timer thread (the I/O thread), and in a posting thread
 * for local errors and to start the timer.
 */
final class Completer {
    private static final Logger LOG = LoggerFactory.getLogger(Completer.class);

    /** The completer's states (rxe: {@code enum comp_state}); the names are rxe's where rxe has the step. */
    enum State {
        /** A response arrived. */
        GET_ACK,
        /** Classify it by opcode and AETH syndrome. */
        CHECK_ACK,
        /** An ACK: does its PSN acknowledge something sent? */
        CHECK_PSN,
        /** An ACK retires the SENDs and WRITEs up to its PSN. */
        WRITE_SEND,
        /** A READ response: place its data. */
        READ,
        /** An ATOMIC Acknowledge: store the original value. */
        ATOMIC,
        /** A NAK: implicitly acknowledges what is before it, then a retry or an error. */
        NAK,
        /** A READ or atomic is answered: complete it and what follows up to the PSN. */
        COMP_ACK,
        /** Progress: restart the ACK timer and let the requester go on. */
        UPDATE_COMP,
        /** Go-back-N from {@link #retryPsn}, counted against retry_cnt. */
        ERROR_RETRY,
        /** An RNR NAK: wait its time, counted against rnr_retry. */
        RNR_RETRY,
        /** The ACK timer expired. */
        ACK_TIMEOUT,
        /** The RNR wait is over: resend. */
        RNR_WAIT_DONE,
        /**
         * No response for a few round trips while requests are outstanding (jrdma, issue 14; rxe
         * has no such step): send the last packet sent again, with AckReq, before the ACK timer.
         */
        TAIL_PROBE,
        /** Complete the head WQE with {@link #status} and move the QP to ERR. */
        ERROR,
        /** Done with the packet or the timer. */
        DONE
    }

    private final RxeQp qp;
    private final Aeth aeth = new Aeth();
    private final AtomicAckEth atomicAck = new AtomicAckEth();
    private final boolean debug = LOG.isDebugEnabled();

    /** The packet being handled (valid during {@link #onResponse} only). */
    private PacketInfo pkt;
    private int syndrome;
    private RxeSendWqe w;
    private WcStatus status;
    private int vendorErr;
    private int retryPsn;
    private boolean retryByTimeout;
    private boolean advanced;

    /** The PSN after the last one acknowledged: the base of the requester's window. */
    private int ackedPsn;
    /**
     * The highest PSN an ACK has carried. Only an ACK beyond it tells something new: the ACKs a
     * responder sends for the duplicates of a go-back-N resend repeat old PSNs and imply no NAK.
     */
    private int highestAckPsn;
    /**
     * Retries left after timeouts and sequence NAKs: retry_cnt, 0..7, reloaded on forward progress
     * (IBTA Vol 1 §9.7.6.1.3): retry_cnt 7 means seven retries, as IBTA and hardware read it, so a
     * dead peer ends in RETRY_EXC_ERR after about (retry_cnt + 1) ACK timeouts. rdma_rxe reads 7 as
     * "without limit"; a device opened with {@code jrdma.retryCnt7=unlimited} does too (for slow
     * peers such as emulated guests that ACK after up to a second).
     */
    private int retriesLeft;
    /** Retries left after RNR NAKs (rnr_retry; 7 = infinite). */
    private int rnrRetriesLeft;
    /** Deadline of the retransmission timer, ns (System.nanoTime), 0 when off. */
    private long retransmitDeadline;
    /** End of an RNR wait, ns, 0 when none. */
    private long rnrDeadline;
    /**
     * Deadline of the tail-loss probe, ns, 0 when off: armed with the retransmission timer, a few
     * smoothed round trips ahead ({@link #probeDelayNanos}), at most once per arming.
     */
    private long probeDeadline;
    /** Smoothed round trip from a request with AckReq to the response covering it, ns; 0 before the first sample. */
    private long srttNanos;
    /** The RTT sample in flight: responses beyond {@link #samplePsn} end it; false when none (or a retry voided it). */
    private boolean sampling;
    private int samplePsn;
    private long sampleSentNanos;
    /** Whether tail-loss probes run ({@code -Djrdma.tailProbe=false} turns them off, to measure against). */
    static final boolean TAIL_PROBES = Boolean.parseBoolean(System.getProperty("jrdma.tailProbe", "true"));
    /**
     * The shortest probe delay, ns: about the timer wheel's tick (1.05 ms), below which it makes no
     * difference; a probe sent early (a thread stalled on a loaded machine) costs one packet.
     */
    static final long MIN_PROBE_NANOS = 1_000_000;
    /**
     * A retry started by a NAK or an out-of-sequence response is under way: further NAKs and gaps
     * (caused by packets that were in flight before the rewind) start no new one until something
     * makes progress; a timeout always does (rxe: {@code comp.started_retry}).
     */
    private boolean startedRetry;

    Completer(RxeQp qp) {
        this.qp = qp;
    }

    /** RTS: the window starts at {@code sqPsn}, retry counters full, no timer. */
    void reset(int sqPsn) {
        ackedPsn = sqPsn;
        highestAckPsn = Psn.add(sqPsn, -1);
        startedRetry = false;
        retriesLeft = qp.retryCnt();
        rnrRetriesLeft = qp.rnrRetry();
        stopTimers();
    }

    // ------------------------------------------------------------------ what the others ask

    /** The oldest PSN not known to be done: the base of the requester's window. */
    int windowBase() {
        return ackedPsn;
    }

    /** A requester-side local error is at or behind the head: report what can be reported. */
    void localErrorReady() {
        retireInOrder(Psn.add(ackedPsn, -1));
    }

    /** RC: a local operation (BIND_MW, LOCAL_INV) executed; it completes when the WQEs before it have. */
    void localOperationDone() {
        retireInOrder(Psn.add(ackedPsn, -1));
    }

    /** UC, UD: a WQE whose packets are all sent is complete. */
    void completeUnreliable() {
        while (qp.sqHead() != qp.requester.nextWqe()) {
            qp.retireSendHead(WcStatus.SUCCESS, 0, 0);
        }
    }

    /** A WQE was posted and sent: start the ACK timer if it is not running. */
    void sendPosted() {
        if (retransmitDeadline == 0) {
            armTimer();
        }
    }

    /**
     * The requester sent packets up to {@code lastPsn} (new ones, or a go-back-N's): when no round-trip
     * sample is in flight and these are new, they start one (Karn's rule: a retry voids it).
     */
    void sent(int lastPsn, boolean fresh) {
        if (!sampling && fresh) {
            sampling = true;
            samplePsn = lastPsn;
            sampleSentNanos = System.nanoTime();
        }
    }

    /** The QP left RTS (ERR, RESET): no timer runs. */
    void stopTimers() {
        retransmitDeadline = 0;
        rnrDeadline = 0;
        probeDeadline = 0;
        sampling = false;
        qp.timerChanged();
    }

    /** The earliest deadline (retransmission, RNR wait, tail probe), System.nanoTime ns, 0 when no timer runs. */
    long nextDeadline() {
        return earliest(earliest(retransmitDeadline, rnrDeadline), probeDeadline);
    }

    private static long earliest(long a, long b) {
        if (a == 0) {
            return b;
        }
        if (b == 0) {
            return a;
        }
        return a - b <= 0 ? a : b;
    }

    /**
     * How long after the last progress the tail-loss probe goes: four smoothed round trips, at least
     * {@link #MIN_PROBE_NANOS}, at most half the ACK timeout.
     */
    long probeDelayNanos(long ackTimeoutNanos) {
        long d = Math.max(MIN_PROBE_NANOS, 4 * srttNanos);
        return Math.min(d, ackTimeoutNanos / 2);
    }

    /** The smoothed round trip, ns (0 before the first sample). */
    long srttNanos() {
        return srttNanos;
    }

    // ------------------------------------------------------------------ the state machine

    /** An RC response packet (ACK, NAK, READ response, atomic ACK) arrived. */
    void onResponse(PacketInfo p) {
        pkt = p;
        run(State.GET_ACK);
        pkt = null;
    }

    /** The timers, from the I/O thread's timer scan. */
    void onTimer(long now) {
        if (rnrDeadline != 0 && now - rnrDeadline >= 0) {
            run(State.RNR_WAIT_DONE);
        } else if (retransmitDeadline != 0 && now - retransmitDeadline >= 0) {
            run(State.ACK_TIMEOUT);
        } else if (probeDeadline != 0 && now - probeDeadline >= 0) {
            run(State.TAIL_PROBE);
        }
    }

    private void run(State s) {
        while (s != State.DONE) {
            State n = step(s);
            if (debug) {
                LOG.debug("QP 0x{} comp: {} -> {} psn {}", Integer.toHexString(qp.qpn()), s, n, pkt == null ? -1 : pkt.psn);
            }
            s = n;
        }
        w = null;
    }

    private State step(State s) {
        return switch (s) {
            case GET_ACK -> State.CHECK_ACK;
            case CHECK_ACK -> checkAck();
            case CHECK_PSN -> checkPsn();
            case WRITE_SEND -> writeSend();
            case READ -> read();
            case ATOMIC -> atomic();
            case NAK -> nak();
            case COMP_ACK -> completeAck();
            case UPDATE_COMP -> {
                progressed(advanced);
                yield State.DONE;
            }
            case ERROR_RETRY -> {
                retry(retryPsn, retryByTimeout);
                yield State.DONE;
            }
            case RNR_RETRY -> rnrRetry();
            case ACK_TIMEOUT -> ackTimeout();
            case TAIL_PROBE -> tailProbe();
            case RNR_WAIT_DONE -> {
                rnrDeadline = 0;
                qp.timerChanged();
                qp.pauseRequester(false);
                qp.requester.run();
                armTimer();
                yield State.DONE;
            }
            case ERROR -> {
                failHead(status, vendorErr);
                yield State.DONE;
            }
            case DONE -> State.DONE;
        };
    }

    /** Dispatch on the opcode table and the AETH syndrome (IBTA Vol 1 §9.3.5, table 42). */
    private State checkAck() {
        int op = pkt.opcode;
        if (Opcode.has(op, Opcode.AETH)) {
            syndrome = aeth.wrap(pkt.seg, Opcode.offset(op, Opcode.AETH)).syndrome();
            if (Aeth.isRnrNak(syndrome)) {
                return State.RNR_RETRY;
            }
            if (Aeth.isNak(syndrome)) {
                return State.NAK;
            }
        }
        if (Opcode.has(op, Opcode.OP_ACKNOWLEDGE)) {
            return State.CHECK_PSN;
        }
        if (Opcode.has(op, Opcode.OP_ATOMIC)) {
            return State.ATOMIC;
        }
        if (Opcode.has(op, Opcode.OP_RDMA_READ)) {
            return State.READ;
        }
        qp.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE);
        return State.DONE;
    }

    private State checkPsn() {
        int psn = pkt.psn;
        if (!qp.requester.wasSent(psn) || Psn.diff(psn, ackedPsn) < -1) {
            qp.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE); // acknowledges something never sent, or very old
            return State.DONE;
        }
        return State.WRITE_SEND;
    }

    private State writeSend() {
        int psn = pkt.psn;
        int base = ackedPsn;
        long head = qp.sqHead();
        boolean fresh = Psn.diff(psn, highestAckPsn) > 0;
        if (fresh) {
            highestAckPsn = psn;
        }
        retireInOrder(psn);
        if (fresh && passesReadOrAtomic(psn)) {
            // the responder executed a later request, so the READ's or atomic's response was lost:
            // an implied NAK (IBTA Vol 1 §9.7.5.1.3; rxe check_psn -> ERROR_RETRY); ask again now
            // rather than when the ACK timer fires (with timeout 0 it never would)
            retryPsn = ackedPsn;
            retryByTimeout = false;
            return State.ERROR_RETRY;
        }
        advanced = ackedPsn != base || qp.sqHead() != head;
        return State.UPDATE_COMP;
    }

    /** True when {@code psn} lies after the last PSN of a sent, unanswered READ or atomic at the head. */
    private boolean passesReadOrAtomic(int psn) {
        if (qp.sqHead() == qp.sqTail()) {
            return false;
        }
        RxeSendWqe h = qp.sqEntry(qp.sqHead());
        return h.opcode.isReadOrAtomic() && (h.wqeState == RxeSendWqe.SENT || h.wqeState == RxeSendWqe.SENDING)
                && Psn.diff(psn, h.lastPsn) > 0;
    }

    private State read() {
        int psn = pkt.psn;
        w = firstReadOrAtomicAfterRetiring(psn);
        if (w != null && (w.opcode == WrOpcode.FLUSH || w.opcode == WrOpcode.ATOMIC_WRITE)) {
            return placementAnswered();
        }
        if (w == null || w.opcode != WrOpcode.RDMA_READ) {
            qp.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE);
            return State.DONE;
        }
        int mtu = qp.mtuBytes();
        int expected = Psn.add(w.firstPsn, (int) (w.readBytes / mtu));
        if (psn != expected) {
            qp.counters().increment(Counters.RCVD_DROP_OUT_OF_SEQ_RESPONSE);
            if (Psn.diff(psn, expected) > 0) {
                // a response is missing: ask again from it at once rather than wait for the timer
                // (IBTA Vol 1 §9.7.5.1.2; rxe retries on an out-of-sequence response too)
                retryPsn = expected;
                retryByTimeout = false;
                return State.ERROR_RETRY;
            }
            return State.DONE;
        }
        int op = pkt.opcode;
        int len = pkt.payloadLength;
        boolean last = Opcode.isEnd(op);
        long remaining = w.length - w.readBytes;
        if (len > remaining || (!last && len != mtu) || (last && len != remaining)) {
            status = WcStatus.BAD_RESP_ERR;
            vendorErr = 0;
            return State.ERROR;
        }
        qp.scatterToWqe(w, w.readBytes, pkt.seg, pkt.payloadOffset, len);
        resetRetries();
        w.readBytes += len;
        advanceBase(Psn.add(psn, 1));
        if (last) {
            return State.COMP_ACK;
        }
        advanced = true;
        return State.UPDATE_COMP;
    }

    /**
     * FLUSH and ATOMIC_WRITE are answered with an RDMA READ response Only without payload (IBTA Vol 1
     * Annex A19; rxe {@code check_ack}); any other response to them is a bad response.
     */
    private State placementAnswered() {
        if (pkt.opcode != Opcode.RC_RDMA_READ_RESPONSE_ONLY || pkt.payloadLength != 0) {
            status = WcStatus.BAD_RESP_ERR;
            vendorErr = 0;
            return State.ERROR;
        }
        resetRetries();
        return State.COMP_ACK;
    }

    private State atomic() {
        int psn = pkt.psn;
        w = firstReadOrAtomicAfterRetiring(psn);
        if (w == null || !w.opcode.isAtomic() || w.firstPsn != psn) {
            qp.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE);
            return State.DONE;
        }
        long orig = atomicAck.wrap(pkt.seg, Opcode.offset(pkt.opcode, Opcode.ATOMIC_ACK_ETH)).origRemoteData();
        qp.writeAtomicResult(w, orig);
        resetRetries();
        return State.COMP_ACK;
    }

    /** The READ or atomic at the head is answered: its CQE, then what it held back. */
    private State completeAck() {
        qp.requester.readOrAtomicAnswered();
        qp.retireSendHead(WcStatus.SUCCESS, w.completionByteLen(), 0);
        retireInOrder(pkt.psn);
        advanced = true;
        return State.UPDATE_COMP;
    }

    /**
     * A NAK implicitly acknowledges every request before its PSN (IBTA Vol 1 §9.7.5.1.4); when that
     * moves the window, the requester made progress and its retry counter starts over. A PSN
     * sequence error retries from the PSN; the other codes end the head WQE with their status.
     */
    private State nak() {
        int psn = pkt.psn;
        if (Psn.diff(psn, ackedPsn) > 0) {
            resetRetries();
        }
        retireInOrder(Psn.add(psn, -1));
        int code = Aeth.syndromeValue(syndrome);
        vendorErr = syndrome;
        switch (code) {
            case Aeth.NAK_PSN_SEQUENCE_ERROR -> {
                qp.counters().incrementAtomic(Counters.RCVD_SEQ_ERR);
                retryPsn = psn;
                retryByTimeout = false;
                return State.ERROR_RETRY;
            }
            case Aeth.NAK_REMOTE_ACCESS_ERROR -> status = WcStatus.REM_ACCESS_ERR;
            case Aeth.NAK_REMOTE_OPERATIONAL_ERROR -> status = WcStatus.REM_OP_ERR;
            default -> status = WcStatus.REM_INV_REQ_ERR;
        }
        return State.ERROR;
    }

    /** IBTA Vol 1 §9.7.5.2.8: rewind to the NAKed PSN and pause the requester for the RNR NAK's time. */
    private State rnrRetry() {
        int psn = pkt.psn;
        int timerCode = Aeth.syndromeValue(syndrome);
        qp.counters().incrementAtomic(Counters.RCVD_RNR_ERR);
        JrdmaEvents.rnrNak(qp.core().deviceName(), qp.qpNum(), psn, false, timerCode, RnrTimer.nanos(timerCode), rnrRetriesLeft);
        retireInOrder(Psn.add(psn, -1));
        if (qp.sqHead() == qp.requester.nextWqe() && qp.sqHead() == qp.sqTail()) {
            return State.DONE;
        }
        if (rnrRetriesLeft == 0) {
            qp.counters().incrementAtomic(Counters.RETRY_RNR_EXCEEDED_ERR);
            status = WcStatus.RNR_RETRY_EXC_ERR;
            vendorErr = syndrome;
            return State.ERROR;
        }
        if (qp.rnrRetry() != 7) {
            rnrRetriesLeft--;
        }
        rnrDeadline = System.nanoTime() + RnrTimer.nanos(timerCode);
        retransmitDeadline = 0;
        qp.timerChanged();
        qp.requester.rewindTo(psn);
        qp.pauseRequester(true);
        return State.DONE;
    }

    /**
     * The tail-loss probe (issue 14; TCP's, RFC 8985 §7, in go-back-N terms): requests are
     * outstanding and no response came for {@link #probeDelayNanos} — the last packets or the last
     * ACK were lost, so no later packet will make the responder NAK and only the ACK timer would
     * recover. The requester sends its last packet again with AckReq ({@link Requester#probe}): a
     * responder that has it answers the duplicate with an ACK of everything it has (rxe
     * {@code duplicate_request}), one that misses packets before it answers with a sequence NAK
     * ({@code check_psn}), which goes back at once. Counted in {@code tail_loss_probes}, not against
     * retry_cnt: the ACK timer runs on unchanged, so a peer that never answers still ends in
     * RETRY_EXC_ERR after the same timeouts. Once per arming of the timer, only once a round trip was
     * measured (a peer that never answered gets none), not while a retry is under way or after a
     * timeout until progress, and only for a SEND or WRITE (a READ's or atomic's responses are
     * asked again by the gap they leave or the timer).
     */
    private State tailProbe() {
        probeDeadline = 0;
        qp.timerChanged();
        if (rnrDeadline != 0 || !anyOutstanding() || startedRetry || retriesLeft != qp.retryCnt()
                || !qp.requester.lastSentIsSendOrWrite()) {
            return State.DONE; // a retry is under way, or the last request is a READ or atomic: the timer decides
        }
        qp.counters().incrementAtomic(Counters.TAIL_LOSS_PROBES);
        JrdmaEvents.retransmit(qp.core().deviceName(), qp.qpNum(), qp.requester.lastSentPsn(),
                JrdmaEvents.RETRANSMIT_TAIL_LOSS_PROBE, retriesLeft);
        sampling = false;
        qp.requester.probe();
        return State.DONE;
    }

    private State ackTimeout() {
        qp.counters().incrementAtomic(Counters.COMPLETER_RETRY_ERR);
        if (qp.sqHead() == qp.requester.nextWqe() && !anyOutstanding()) {
            retransmitDeadline = 0;
            qp.timerChanged();
            return State.DONE;
        }
        retryPsn = ackedPsn;
        retryByTimeout = true;
        return State.ERROR_RETRY;
    }

    // ------------------------------------------------------------------ helpers

    /** Completes, in order, every WQE whose last PSN is at or before {@code psn} (not READ/atomic ones). */
    private void retireInOrder(int psn) {
        while (qp.sqHead() != qp.requester.nextWqe() || headIsLocalError()) {
            RxeSendWqe h = qp.sqEntry(qp.sqHead());
            if (h.wqeState == RxeSendWqe.LOCAL_ERROR) {
                qp.retireSendHead(h.localStatus, 0, 0);
                qp.enterErrorState();
                return;
            }
            if (h.wqeState == RxeSendWqe.DONE) {
                qp.retireSendHead(WcStatus.SUCCESS, 0, 0); // a local operation, in order
                continue;
            }
            if (h.wqeState != RxeSendWqe.SENT || Psn.diff(h.lastPsn, psn) > 0 || h.opcode.isReadOrAtomic()) {
                break; // not all sent, not yet acknowledged, or needs its response
            }
            qp.retireSendHead(WcStatus.SUCCESS, (int) h.length, 0);
        }
        advanceBase(Psn.add(psn, 1));
    }

    /**
     * Moves the window base (the oldest PSN not known to be done, where a retry starts) forward to
     * {@code candidate}, but never past the first missing response of an outstanding READ or atomic
     * at the head: an ACK beyond such a request means its response was lost and must be asked again.
     */
    private void advanceBase(int candidate) {
        if (qp.sqHead() != qp.sqTail()) {
            RxeSendWqe h = qp.sqEntry(qp.sqHead());
            if (h.opcode.isReadOrAtomic() && (h.wqeState == RxeSendWqe.SENT || h.wqeState == RxeSendWqe.SENDING)) {
                int base = Psn.add(h.firstPsn, (int) (h.readBytes / qp.mtuBytes()));
                if (Psn.diff(candidate, base) > 0) {
                    candidate = base;
                }
            }
        }
        if (Psn.diff(candidate, ackedPsn) > 0) {
            ackedPsn = candidate;
            if (sampling && Psn.diff(candidate, samplePsn) > 0) { // the sample is answered: a round trip
                sampling = false;
                long rtt = System.nanoTime() - sampleSentNanos;
                srttNanos = srttNanos == 0 ? rtt : srttNanos + (rtt - srttNanos) / 8;
            }
        }
    }

    private boolean headIsLocalError() {
        return qp.sqHead() != qp.sqTail() && qp.sqEntry(qp.sqHead()).wqeState == RxeSendWqe.LOCAL_ERROR;
    }

    /**
     * A response for {@code psn} implicitly acknowledges the requests before it: retire those, then
     * return the head WQE if it is the READ / atomic the response belongs to.
     */
    private RxeSendWqe firstReadOrAtomicAfterRetiring(int psn) {
        while (qp.sqHead() != qp.requester.nextWqe()) {
            RxeSendWqe h = qp.sqEntry(qp.sqHead());
            if (h.opcode.isReadOrAtomic()) {
                return Psn.diff(psn, h.firstPsn) >= 0 && Psn.diff(psn, h.lastPsn) <= 0 ? h : null;
            }
            if (h.wqeState == RxeSendWqe.DONE) {
                qp.retireSendHead(WcStatus.SUCCESS, 0, 0);
                continue;
            }
            if (h.wqeState != RxeSendWqe.SENT || Psn.diff(h.lastPsn, psn) >= 0) {
                return null;
            }
            qp.retireSendHead(WcStatus.SUCCESS, (int) h.length, 0);
        }
        return null;
    }

    private void failHead(WcStatus st, int vendor) {
        if (qp.sqHead() != qp.sqTail()) {
            qp.retireSendHead(st, 0, vendor);
        }
        qp.enterErrorState();
    }

    /**
     * Go-back-N from {@code psn}; counts against retry_cnt. A NAK or a response gap starts a retry
     * only when none is under way ({@link #startedRetry}); a timeout always does. During an RNR wait
     * nothing starts: the wait rewound already and its end resends.
     */
    private void retry(int psn, boolean timeout) {
        if ((startedRetry && !timeout) || rnrDeadline != 0) {
            return;
        }
        if (retriesLeft == 0) {
            qp.counters().incrementAtomic(Counters.RETRY_EXCEEDED_ERR);
            failHead(WcStatus.RETRY_EXC_ERR, 0);
            return;
        }
        if (qp.retryCnt() != 7 || !qp.retryCnt7Unlimited()) {
            retriesLeft--;
        }
        startedRetry = true;
        sampling = false; // Karn: a response now may answer the first sending or the second
        qp.counters().incrementAtomic(Counters.RETRANSMITS);
        JrdmaEvents.retransmit(qp.core().deviceName(), qp.qpNum(), psn,
                timeout ? JrdmaEvents.RETRANSMIT_ACK_TIMEOUT : JrdmaEvents.RETRANSMIT_SEQUENCE, retriesLeft);
        qp.requester.rewindTo(psn);
        qp.requester.run();
        armTimer();
    }

    /** Forward progress: retry_cnt starts over and a new retry may start. */
    private void resetRetries() {
        retriesLeft = qp.retryCnt();
        startedRetry = false;
    }

    /** A response was handled: with {@code advanced} retries start over; the timer restarts and the requester goes on. */
    private void progressed(boolean advanced) {
        if (advanced) {
            resetRetries();
        }
        armTimer();
        qp.requester.run();
    }

    /** (Re)starts the retransmission timer while anything is unacknowledged; off during an RNR wait. */
    private void armTimer() {
        if (rnrDeadline != 0) {
            return; // during an RNR wait the ACK timer is off: only the wait's end resends
        }
        if (qp.sqHead() == qp.requester.nextWqe() && (qp.sqHead() == qp.sqTail() || !anySent())) {
            retransmitDeadline = 0;
            probeDeadline = 0;
            qp.timerChanged();
            return;
        }
        long t = qp.timeoutNanos();
        long now = System.nanoTime();
        retransmitDeadline = t == 0 ? 0 : now + t;
        probeDeadline = t == 0 || !TAIL_PROBES || srttNanos == 0 ? 0 : now + probeDelayNanos(t);
        qp.timerChanged();
    }

    private boolean anySent() {
        RxeSendWqe h = qp.sqEntry(qp.sqHead());
        return h.wqeState == RxeSendWqe.SENDING || h.wqeState == RxeSendWqe.SENT;
    }

    private boolean anyOutstanding() {
        return qp.sqHead() != qp.sqTail() && anySent();
    }
}
