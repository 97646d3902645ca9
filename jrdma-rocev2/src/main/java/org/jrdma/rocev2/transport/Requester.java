package org.jrdma.rocev2.transport;

import org.jrdma.rocev2.wire.AtomicEth;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.ImmDt;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.Reth;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;

/**
 * The requester of an RC or UC QP (IBTA Vol 1 §9.7.2; rxe: {@code rxe_req.c}): turns send WQEs into
 * request packets — segmentation at the path MTU, PSN assignment, the AckReq policy, a bounded
 * window of unacknowledged PSNs, the max_rd_atomic limit and fences — and rewinds for go-back-N
 * retransmission when the completer asks.
 *
 * <p>Runs under the QP lock, in the posting thread or the device's I/O thread.
 */
final class Requester {
    /** Unacknowledged PSNs allowed in flight (rxe: RXE_MAX_UNACKED_PSNS). */
    static final int MAX_UNACKED_PSNS = 128;
    /** A packet without AckReq is followed by one with it at least this often (rxe: RXE_MAX_PKT_PER_ACK). */
    static final int MAX_PKT_PER_ACK = 64;

    private final RxeQp qp;
    private final PacketBuffer tx;
    private final Bth bth = new Bth();
    private final Reth reth = new Reth();
    private final ImmDt immDt = new ImmDt();
    private final AtomicEth atomicEth = new AtomicEth();

    /** The next PSN to send. */
    int psn;
    /** One past the highest PSN ever sent (ACKs up to it are believable after a rewind). */
    int sentLimit;
    /** Index (into the send queue) of the next WQE to send or continue. */
    long next;
    /** READ and atomic requests sent and not yet answered. */
    int rdAtomicInFlight;
    private int noAckPackets;

    Requester(RxeQp qp) {
        this.qp = qp;
        this.tx = PacketBuffer.allocate(RxeQp.MAX_PACKET);
    }

    void reset(int sqPsn, long sqHead) {
        psn = sqPsn;
        sentLimit = sqPsn;
        next = sqHead;
        rdAtomicInFlight = 0;
        noAckPackets = 0;
    }

    /** Sends what the window, the rd_atomic limit and fences allow. */
    void run() {
        final int mtu = qp.mtuBytes();
        while (next != qp.sqTail() && qp.canSend()) {
            RxeSendWqe w = qp.sqEntry(next);
            if (w.wqeState == RxeSendWqe.LOCAL_ERROR) {
                return; // the completer reports it in order
            }
            if (w.wqeState == RxeSendWqe.POSTED) {
                if (!start(w, mtu)) {
                    return;
                }
            }
            if (qp.type() == QpType.RC && Psn.diff(psn, qp.completer.oldestUnackedPsn()) >= MAX_UNACKED_PSNS) {
                return; // window full; an ACK reopens it
            }
            if (w.opcode.isReadOrAtomic()) {
                sendReadOrAtomic(w);
                w.wqeState = RxeSendWqe.SENT;
                next++;
                continue;
            }
            sendNextPacket(w, mtu);
            if (w.sentBytes >= w.length) {
                w.wqeState = RxeSendWqe.SENT;
                next++;
                if (qp.type() == QpType.UC) {
                    qp.completer.completeUnreliable();
                }
            }
        }
    }

    /** Prepares a WQE's first packet; false when it must wait (fence, rd_atomic limit) or failed. */
    private boolean start(RxeSendWqe w, int mtu) {
        boolean readOrAtomic = w.opcode.isReadOrAtomic();
        if (readOrAtomic && rdAtomicInFlight >= Math.max(1, qp.maxRdAtomic())) {
            return false;
        }
        if ((w.sendFlags & SendFlags.FENCE) != 0 && rdAtomicInFlight > 0) {
            return false;
        }
        WcStatus st = qp.resolveWqe(w, readOrAtomic);
        if (st == WcStatus.SUCCESS && w.length > RxeQp.MAX_MSG_SIZE) {
            st = WcStatus.LOC_LEN_ERR;
        }
        if (st != WcStatus.SUCCESS) {
            w.wqeState = RxeSendWqe.LOCAL_ERROR;
            w.localStatus = st;
            qp.completer.localErrorReady();
            return false;
        }
        w.firstPsn = psn;
        w.lastPsn = Psn.add(psn, w.packets(mtu) - 1);
        w.sentBytes = 0;
        w.readBytes = 0;
        w.wqeState = RxeSendWqe.SENDING;
        if (readOrAtomic) {
            rdAtomicInFlight++;
        }
        return true;
    }

    /**
     * Rewinds to resend from {@code fromPsn}, which lies in WQE {@code index} (go-back-N, IBTA Vol 1
     * §9.7.5.1.4): that WQE continues from the packet of that PSN (a READ is re-requested for its
     * remaining bytes), and every later WQE starts over and gets its PSNs anew, in the same order.
     */
    void rewind(long index, int fromPsn, int mtu) {
        next = index;
        psn = fromPsn;
        if (index == qp.sqTail()) {
            return;
        }
        for (long i = index + 1; i != qp.sqTail(); i++) {
            RxeSendWqe l = qp.sqEntry(i);
            if (l.wqeState == RxeSendWqe.SENT || l.wqeState == RxeSendWqe.SENDING) {
                l.wqeState = RxeSendWqe.POSTED;
                if (l.opcode.isReadOrAtomic()) {
                    rdAtomicInFlight--;
                }
            }
        }
        RxeSendWqe w = qp.sqEntry(index);
        if (w.wqeState == RxeSendWqe.POSTED || w.wqeState == RxeSendWqe.LOCAL_ERROR) {
            return; // nothing of it was sent yet
        }
        w.wqeState = RxeSendWqe.SENDING;
        if (!w.opcode.isReadOrAtomic()) {
            w.sentBytes = Math.min(w.length, (long) Psn.diff(fromPsn, w.firstPsn) * mtu);
        }
    }

    private void sendNextPacket(RxeSendWqe w, int mtu) {
        long remaining = w.length - w.sentBytes;
        int payload = (int) Math.min(mtu, remaining);
        boolean first = w.sentBytes == 0;
        boolean last = remaining <= mtu;
        int op = opcodeFor(w.opcode, first, last, qp.type());
        int hdr = Opcode.headerLength(op);
        int pad = (-payload) & 3;
        boolean ackReq = qp.type() == QpType.RC && (last || ++noAckPackets >= MAX_PKT_PER_ACK);
        if (ackReq) {
            noAckPackets = 0;
        }
        writeBth(op, last && (w.sendFlags & SendFlags.SOLICITED) != 0 && isSendOrImm(w.opcode), pad, ackReq, psn);
        if (first && (w.opcode == WrOpcode.RDMA_WRITE || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM)) {
            reth.wrap(tx.seg, Opcode.offset(op, Opcode.RETH)).va(w.remoteAddr).rkey(w.rkey).dmaLength((int) w.length);
        }
        if (last && (w.opcode == WrOpcode.SEND_WITH_IMM || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM)) {
            immDt.wrap(tx.seg, Opcode.offset(op, Opcode.IMM_DT)).immDt(w.immData);
        }
        qp.gatherPayload(w, w.sentBytes, tx.seg, hdr, payload);
        for (int i = 0; i < pad; i++) {
            tx.seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, hdr + payload + i, (byte) 0);
        }
        qp.transmit(tx, hdr + payload + pad);
        w.sentBytes += payload;
        advance(1);
    }

    private void advance(int n) {
        psn = Psn.add(psn, n);
        if (Psn.diff(psn, sentLimit) > 0) {
            sentLimit = psn;
        }
    }

    private void sendReadOrAtomic(RxeSendWqe w) {
        int op;
        if (w.opcode == WrOpcode.RDMA_READ) {
            op = Opcode.RC_RDMA_READ_REQUEST;
            writeBth(op, false, 0, true, psn);
            long startByte = w.readBytes;
            reth.wrap(tx.seg, Opcode.offset(op, Opcode.RETH)).va(w.remoteAddr + startByte).rkey(w.rkey)
                    .dmaLength((int) (w.length - startByte));
        } else {
            op = w.opcode == WrOpcode.ATOMIC_CMP_AND_SWP ? Opcode.RC_COMPARE_SWAP : Opcode.RC_FETCH_ADD;
            writeBth(op, false, 0, true, psn);
            // CmpSwap carries swap and compare; FetchAdd carries the addend in the swap/add field
            boolean cas = op == Opcode.RC_COMPARE_SWAP;
            atomicEth.wrap(tx.seg, Opcode.offset(op, Opcode.ATOMIC_ETH)).va(w.remoteAddr).rkey(w.rkey)
                    .swapData(cas ? w.swap : w.compareAdd).compareData(cas ? w.compareAdd : 0);
        }
        qp.transmit(tx, Opcode.headerLength(op));
        // a READ occupies one PSN per response packet still expected
        int span = w.opcode == WrOpcode.RDMA_READ ? Psn.diff(w.lastPsn, psn) + 1 : 1;
        advance(span);
    }

    private void writeBth(int op, boolean se, int pad, boolean ackReq, int p) {
        bth.wrap(tx.seg, 0).opcode(op).se(se).migReq(false).padCount(pad).tver(0).pkey(RxeQp.DEFAULT_PKEY)
                .fecn(false).becn(false).destQpn(qp.destQpn()).ackReq(ackReq).psn(p);
    }

    private static boolean isSendOrImm(WrOpcode op) {
        return op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.RDMA_WRITE_WITH_IMM;
    }

    /** The request opcode for a packet of a message (IBTA Vol 1 §9.2, table 38). */
    static int opcodeFor(WrOpcode op, boolean first, boolean last, QpType type) {
        int base = type == QpType.UC ? 0x20 : 0x00;
        int o = switch (op) {
            case SEND -> first ? (last ? 0x04 : 0x00) : (last ? 0x02 : 0x01);
            case SEND_WITH_IMM -> first ? (last ? 0x05 : 0x00) : (last ? 0x03 : 0x01);
            case RDMA_WRITE -> first ? (last ? 0x0A : 0x06) : (last ? 0x08 : 0x07);
            case RDMA_WRITE_WITH_IMM -> first ? (last ? 0x0B : 0x06) : (last ? 0x09 : 0x07);
            case RDMA_READ -> 0x0C;
            case ATOMIC_CMP_AND_SWP -> 0x13;
            case ATOMIC_FETCH_AND_ADD -> 0x14;
        };
        return base | o;
    }
}
