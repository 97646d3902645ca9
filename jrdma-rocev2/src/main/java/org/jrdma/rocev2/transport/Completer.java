package org.jrdma.rocev2.transport;

import org.jrdma.rocev2.stats.Counters;

import java.lang.foreign.MemorySegment;
import org.jrdma.rocev2.wire.Aeth;
import org.jrdma.rocev2.wire.AtomicAckEth;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;

/**
 * The completer of an RC QP (IBTA Vol 1 §9.7.5.1, §9.9.2; rxe: {@code rxe_comp.c}): ACKs, NAKs and
 * READ / atomic responses retire send WQEs in order and write their CQEs; a NAK or an exhausted
 * retry counter completes the failing WQE with its status and moves the QP to ERR; a PSN sequence
 * NAK or a timeout rewinds the requester (go-back-N). Also the retransmission and RNR timers.
 *
 * <p>Runs under the QP lock in the device's I/O thread (and in posting threads for local errors).
 */
final class Completer {

    private final RxeQp qp;
    private final Aeth aeth = new Aeth();
    private final AtomicAckEth atomicAck = new AtomicAckEth();

    /** The PSN after the last one acknowledged: the base of the requester's window. */
    private int ackedPsn;
    /**
     * Retries left after timeouts and sequence NAKs: retry_cnt, 0..7, reloaded on forward progress
     * (IBTA Vol 1 §9.7.6.1.3): retry_cnt 7 means seven retries, as IBTA and hardware read it, so a
     * dead peer ends in RETRY_EXC_ERR after about (retry_cnt + 1) ACK timeouts. rdma_rxe reads 7 as
     * "without limit"; a device opened with {@code jrdma.retryCnt7=unlimited} does too (for slow
     * peers such as emulated guests that ACK after up to a second).
     */
    int retriesLeft;
    /** Retries left after RNR NAKs (rnr_retry; 7 = infinite). */
    int rnrRetriesLeft;
    /** Deadline of the retransmission timer, ns (System.nanoTime), 0 when off. */
    long retransmitDeadline;
    /** End of an RNR wait, ns, 0 when none. */
    long rnrDeadline;
    /**
     * A retry started by a NAK or an out-of-sequence response is under way: further NAKs and gaps
     * (caused by packets that were in flight before the rewind) start no new one until something
     * makes progress; a timeout always does (rxe: {@code comp.started_retry}).
     */
    private boolean startedRetry;
    /**
     * The highest PSN an ACK has carried. Only an ACK beyond it tells something new: the ACKs a
     * responder sends for the duplicates of a go-back-N resend repeat old PSNs and imply no NAK.
     */
    private int highestAckPsn;

    Completer(RxeQp qp) {
        this.qp = qp;
    }

    void reset(int sqPsn) {
        ackedPsn = sqPsn;
        highestAckPsn = Psn.add(sqPsn, -1);
        startedRetry = false;
        retriesLeft = qp.retryCnt();
        rnrRetriesLeft = qp.rnrRetry();
        retransmitDeadline = 0;
        rnrDeadline = 0;
        qp.timerChanged();
    }

    int oldestUnackedPsn() {
        return ackedPsn;
    }

    /** A requester-side local error is at or behind the head: report what can be reported. */
    void localErrorReady() {
        retireInOrder(Psn.add(ackedPsn, -1));
    }

    /** UC: a WQE whose packets are all sent is complete. */
    void completeUnreliable() {
        while (qp.sqHead() != qp.requester.next) {
            qp.retireSendHead(WcStatus.SUCCESS, 0, 0);
        }
    }

    /** An RC response packet (ACK, NAK, READ response, atomic ACK) arrived. */
    void onResponse(int op, int psn, MemorySegment pkt, int payloadOff, int payloadLen) {
        if (op == Opcode.RC_ACKNOWLEDGE || op == Opcode.RC_ATOMIC_ACKNOWLEDGE || Opcode.has(op, Opcode.AETH)) {
            aeth.wrap(pkt, Opcode.offset(op, Opcode.AETH));
            int syndrome = aeth.syndrome();
            int kind = syndrome & 0x60;
            if (kind == 0x20) {
                onRnrNak(psn, syndrome & 0x1F);
                return;
            }
            if (kind == 0x60) {
                onNak(psn, syndrome & 0x1F);
                return;
            }
        }
        switch (op) {
            case Opcode.RC_ACKNOWLEDGE -> onAck(psn);
            case Opcode.RC_ATOMIC_ACKNOWLEDGE -> onAtomicAck(psn, pkt, op);
            case Opcode.RC_RDMA_READ_RESPONSE_FIRST, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE,
                 Opcode.RC_RDMA_READ_RESPONSE_LAST, Opcode.RC_RDMA_READ_RESPONSE_ONLY ->
                    onReadResponse(op, psn, pkt, payloadOff, payloadLen);
            default -> qp.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE);
        }
    }

    private void onAck(int psn) {
        if (Psn.diff(psn, qp.requester.sentLimit) >= 0 || Psn.diff(psn, ackedPsn) < -1) {
            qp.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE); // acknowledges something never sent, or very old
            return;
        }
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
            retry(ackedPsn, false);
            return;
        }
        progressed(ackedPsn != base || qp.sqHead() != head);
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

    /** Completes, in order, every WQE whose last PSN is at or before {@code psn} (not READ/atomic ones). */
    private void retireInOrder(int psn) {
        while (qp.sqHead() != qp.requester.next || headIsLocalError()) {
            RxeSendWqe w = qp.sqEntry(qp.sqHead());
            if (w.wqeState == RxeSendWqe.LOCAL_ERROR) {
                qp.retireSendHead(w.localStatus, 0, 0);
                qp.enterErrorState();
                return;
            }
            if (w.wqeState != RxeSendWqe.SENT && w.wqeState != RxeSendWqe.SENDING) {
                break;
            }
            if (Psn.diff(w.lastPsn, psn) > 0) {
                break;
            }
            if (w.opcode.isReadOrAtomic()) {
                break; // needs its response
            }
            if (w.wqeState != RxeSendWqe.SENT) {
                break;
            }
            qp.retireSendHead(WcStatus.SUCCESS, (int) w.length, 0);
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
        }
    }

    private boolean headIsLocalError() {
        return qp.sqHead() != qp.sqTail() && qp.sqEntry(qp.sqHead()).wqeState == RxeSendWqe.LOCAL_ERROR;
    }

    private void onReadResponse(int op, int psn, MemorySegment pkt, int payloadOff, int payloadLen) {
        RxeSendWqe w = firstReadOrAtomicAfterRetiring(psn);
        if (w == null || w.opcode != WrOpcode.RDMA_READ) {
            qp.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE);
            return;
        }
        int mtu = qp.mtuBytes();
        int expected = Psn.add(w.firstPsn, (int) (w.readBytes / mtu));
        if (psn != expected) {
            qp.counters().increment(Counters.RCVD_DROP_OUT_OF_SEQ_RESPONSE);
            if (Psn.diff(psn, expected) > 0) {
                // a response is missing: ask again from it at once rather than wait for the timer
                // (IBTA Vol 1 §9.7.5.1.2; rxe retries on an out-of-sequence response too)
                retry(expected, false);
            }
            return;
        }
        boolean last = op == Opcode.RC_RDMA_READ_RESPONSE_LAST || op == Opcode.RC_RDMA_READ_RESPONSE_ONLY;
        long remaining = w.length - w.readBytes;
        if (payloadLen > remaining || (!last && payloadLen != mtu) || (last && payloadLen != remaining)) {
            failHead(WcStatus.BAD_RESP_ERR, 0);
            return;
        }
        qp.scatterToWqe(w, w.readBytes, pkt, payloadOff, payloadLen);
        resetRetries();
        w.readBytes += payloadLen;
        advanceBase(Psn.add(psn, 1));
        if (last) {
            qp.requester.rdAtomicInFlight--;
            qp.retireSendHead(WcStatus.SUCCESS, (int) w.length, 0);
            retireInOrder(psn);
        }
        progressed(true);
    }

    private void onAtomicAck(int psn, MemorySegment pkt, int op) {
        RxeSendWqe w = firstReadOrAtomicAfterRetiring(psn);
        if (w == null || !w.opcode.isAtomic() || w.firstPsn != psn) {
            qp.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE);
            return;
        }
        long orig = atomicAck.wrap(pkt, Opcode.offset(op, Opcode.ATOMIC_ACK_ETH)).origRemoteData();
        qp.writeAtomicResult(w, orig);
        resetRetries();
        qp.requester.rdAtomicInFlight--;
        qp.retireSendHead(WcStatus.SUCCESS, 8, 0);
        retireInOrder(psn);
        progressed(true);
    }

    /**
     * A response for {@code psn} implicitly acknowledges the requests before it: retire those, then
     * return the head WQE if it is the READ / atomic the response belongs to.
     */
    private RxeSendWqe firstReadOrAtomicAfterRetiring(int psn) {
        while (qp.sqHead() != qp.requester.next) {
            RxeSendWqe w = qp.sqEntry(qp.sqHead());
            if (w.opcode.isReadOrAtomic()) {
                return Psn.diff(psn, w.firstPsn) >= 0 && Psn.diff(psn, w.lastPsn) <= 0 ? w : null;
            }
            if (w.wqeState != RxeSendWqe.SENT || Psn.diff(w.lastPsn, psn) >= 0) {
                return null;
            }
            qp.retireSendHead(WcStatus.SUCCESS, (int) w.length, 0);
        }
        return null;
    }

    private void onNak(int psn, int code) {
        // every request before the NAKed PSN is implicitly acknowledged (IBTA Vol 1 §9.7.5.1.4); when
        // that moves the window, the requester made progress and its retry counter starts over
        if (Psn.diff(psn, ackedPsn) > 0) {
            resetRetries();
        }
        retireInOrder(Psn.add(psn, -1));
        switch (code) {
            case Aeth.NAK_PSN_SEQUENCE_ERROR -> {
                qp.counters().incrementAtomic(Counters.RCVD_SEQ_ERR);
                retry(psn, false);
            }
            case Aeth.NAK_INVALID_REQUEST -> failHead(WcStatus.REM_INV_REQ_ERR, 0x60 | code);
            case Aeth.NAK_REMOTE_ACCESS_ERROR -> failHead(WcStatus.REM_ACCESS_ERR, 0x60 | code);
            case Aeth.NAK_REMOTE_OPERATIONAL_ERROR -> failHead(WcStatus.REM_OP_ERR, 0x60 | code);
            default -> failHead(WcStatus.REM_INV_REQ_ERR, 0x60 | code);
        }
    }

    private void onRnrNak(int psn, int timerCode) {
        qp.counters().incrementAtomic(Counters.RCVD_RNR_ERR);
        retireInOrder(Psn.add(psn, -1));
        if (qp.sqHead() == qp.requester.next && qp.sqHead() == qp.sqTail()) {
            return;
        }
        if (rnrRetriesLeft == 0) {
            qp.counters().incrementAtomic(Counters.RETRY_RNR_EXCEEDED_ERR);
            failHead(WcStatus.RNR_RETRY_EXC_ERR, 0x20 | timerCode);
            return;
        }
        if (qp.rnrRetry() != 7) {
            rnrRetriesLeft--;
        }
        rnrDeadline = System.nanoTime() + RnrTimer.nanos(timerCode);
        retransmitDeadline = 0;
        qp.timerChanged();
        rewindTo(psn);
        qp.pauseRequester(true);
    }

    private void failHead(WcStatus status, int vendorErr) {
        if (qp.sqHead() != qp.sqTail()) {
            qp.retireSendHead(status, 0, vendorErr);
        }
        qp.enterErrorState();
    }

    /**
     * Go-back-N from {@code psn}; counts against retry_cnt. A NAK or a response gap starts a retry
     * only when none is under way ({@link #startedRetry}); a timeout always does.
     */
    private void retry(int psn, boolean timeout) {
        if (startedRetry && !timeout) {
            return;
        }
        if (rnrDeadline != 0) {
            return; // an RNR wait rewound already; its end resends (IBTA Vol 1 §9.7.5.2.8)
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
        qp.counters().incrementAtomic(Counters.RETRANSMITS);
        rewindTo(psn);
        qp.requester.run();
        armTimer();
    }

    /** Forward progress: retry_cnt starts over and a new retry may start. */
    private void resetRetries() {
        retriesLeft = qp.retryCnt();
        startedRetry = false;
    }

    private void rewindTo(int psn) {
        long head = qp.sqHead();
        long i = head;
        while (i != qp.requester.next) {
            RxeSendWqe w = qp.sqEntry(i);
            if (Psn.diff(psn, w.lastPsn) <= 0) {
                break;
            }
            i++;
        }
        int from = psn;
        if (i != qp.sqTail()) {
            RxeSendWqe w = qp.sqEntry(i);
            if (w.wqeState != RxeSendWqe.POSTED && Psn.diff(psn, w.firstPsn) < 0) {
                from = w.firstPsn;
            }
            if (w.opcode == WrOpcode.RDMA_READ && w.wqeState != RxeSendWqe.POSTED) {
                from = Psn.add(w.firstPsn, (int) (w.readBytes / qp.mtuBytes()));
            }
        }
        qp.requester.rewind(i, from, qp.mtuBytes());
    }

    /** A response was handled: with {@code advanced} retries start over; the timer restarts and the requester goes on. */
    private void progressed(boolean advanced) {
        if (advanced) {
            resetRetries();
        }
        armTimer();
        qp.requester.run();
    }

    /** (Re)starts the retransmission timer while anything is unacknowledged. */
    void armTimer() {
        if (rnrDeadline != 0) {
            return; // during an RNR wait the ACK timer is off: only the wait's end resends
        }
        if (qp.sqHead() == qp.requester.next && (qp.sqHead() == qp.sqTail() || !anySent())) {
            retransmitDeadline = 0;
            qp.timerChanged();
            return;
        }
        long t = qp.timeoutNanos();
        retransmitDeadline = t == 0 ? 0 : System.nanoTime() + t;
        qp.timerChanged();
    }

    private boolean anySent() {
        RxeSendWqe w = qp.sqEntry(qp.sqHead());
        return w.wqeState == RxeSendWqe.SENDING || w.wqeState == RxeSendWqe.SENT;
    }

    /** Called by the I/O thread's timer scan. */
    void onTimer(long now) {
        if (rnrDeadline != 0 && now - rnrDeadline >= 0) {
            rnrDeadline = 0;
            qp.timerChanged();
            qp.pauseRequester(false);
            qp.requester.run();
            armTimer();
            return;
        }
        if (retransmitDeadline != 0 && now - retransmitDeadline >= 0) {
            qp.counters().incrementAtomic(Counters.COMPLETER_RETRY_ERR);
            if (qp.sqHead() == qp.requester.next && !anyOutstanding()) {
                retransmitDeadline = 0;
                qp.timerChanged();
                return;
            }
            retry(ackedPsn, true);
        }
    }

    private boolean anyOutstanding() {
        return qp.sqHead() != qp.sqTail() && anySent();
    }
}
