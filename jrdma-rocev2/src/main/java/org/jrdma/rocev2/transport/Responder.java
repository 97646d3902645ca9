package org.jrdma.rocev2.transport;

import org.jrdma.rocev2.stats.Counters;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.jrdma.rocev2.wire.Aeth;
import org.jrdma.rocev2.wire.AtomicAckEth;
import org.jrdma.rocev2.wire.AtomicEth;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Deth;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.ImmDt;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.Reth;
import org.jrdma.soft.RecvWqe;
import org.jrdma.soft.SoftMr;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;

/**
 * The responder of an RC or UC QP (IBTA Vol 1 §9.7.3–§9.7.5.2, §9.9.3; rxe: {@code rxe_resp.c}):
 * PSN checks (duplicates re-acknowledged, duplicate READs re-executed, duplicate atomics answered
 * from a replay cache, one PSN sequence NAK per gap), RNR NAK when no receive WQE is posted, rkey /
 * PD / bounds / access checks (NAK remote access error), invalid-request NAKs, SEND scatter,
 * RDMA WRITE placement, READ responses segmented at the path MTU, atomics (8-byte aligned, in host
 * byte order as rxe), the MSN and coalesced ACKs.
 *
 * <p>Runs under the QP lock in the device's I/O thread.
 */
final class Responder {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Responder.class);
    private static final VarHandle LONG_HANDLE = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle BYTE_HANDLE = ValueLayout.JAVA_BYTE.varHandle();
    /** AETH syndrome of an ACK with no end-to-end credits advertised ("unlimited", 0b11111), as rxe sends. */
    static final int ACK_UNLIMITED = 0x1F;
    private static final int REPLAY_SLOTS = 16;

    private final RxeQp qp;
    private final PacketBuffer tx;
    private final Bth bth = new Bth();
    private final Reth reth = new Reth();
    private final Aeth aeth = new Aeth();
    private final AtomicEth atomicEth = new AtomicEth();
    private final AtomicAckEth atomicAck = new AtomicAckEth();
    private final ImmDt immDt = new ImmDt();
    private final Deth deth = new Deth();
    /** Bytes of the GRH area at the start of a UD receive buffer. */
    static final int GRH_LENGTH = 40;
    private final MemorySegment grh = java.lang.foreign.Arena.ofAuto().allocate(GRH_LENGTH, 8);

    /** The expected PSN (ePSN). */
    int epsn;
    /** Message sequence number: requests completed, 24 bits. */
    int msn;
    /**
     * The PSN after the last SEND, WRITE or atomic executed (rxe: {@code resp.ack_psn}); a READ does
     * not move it, its responses acknowledge it. A duplicate SEND or WRITE is acknowledged with the
     * PSN before it.
     */
    private int ackPsnNext;
    private boolean seqNakSent;
    // SEND in progress
    private boolean inSend;
    private long sendOffset;
    // RDMA WRITE in progress
    private boolean inWrite;
    private SoftMr writeMr;
    private long writeOffset;
    private long writeRemaining;
    private int writeLength;
    // the RETH last resolved by resolveReth
    private SoftMr rethMr;
    private long rethOffset;
    private long rethLength;
    // coalesced ACK
    boolean ackPending;
    private int ackPsn;
    // atomic replay cache
    private final int[] replayPsn = new int[REPLAY_SLOTS];
    private final long[] replayValue = new long[REPLAY_SLOTS];
    private final boolean[] replayValid = new boolean[REPLAY_SLOTS];
    private int replayNext;

    Responder(RxeQp qp) {
        this.qp = qp;
        this.tx = PacketBuffer.allocate(RxeQp.MAX_PACKET);
    }

    void reset(int rqPsn) {
        epsn = rqPsn;
        ackPsnNext = rqPsn;
        msn = 0;
        seqNakSent = false;
        inSend = false;
        inWrite = false;
        writeMr = null;
        ackPending = false;
        java.util.Arrays.fill(replayValid, false);
    }

    /** A request packet for this QP arrived; the caller checked state and source. */
    void onRequest(int op, int psn, boolean se, boolean ackReq, MemorySegment pkt, int payloadOff, int payloadLen) {
        if (qp.type() == QpType.UC) {
            onUcRequest(op, psn, se, pkt, payloadOff, payloadLen);
            return;
        }
        int d = Psn.diff(psn, epsn);
        if (d < 0) {
            onDuplicate(op, psn, pkt);
            return;
        }
        if (d > 0) {
            qp.counters().increment(Counters.OUT_OF_SEQ_REQUEST);
            if (!seqNakSent) {
                seqNakSent = true;
                sendAck(epsn, 0x60 | Aeth.NAK_PSN_SEQUENCE_ERROR);
            }
            return;
        }
        seqNakSent = false;
        execute(op, psn, se, ackReq, pkt, payloadOff, payloadLen, true);
    }

    /** Executes an in-sequence request; false when it was refused (RNR, error). */
    private boolean execute(int op, int psn, boolean se, boolean ackReq, MemorySegment pkt, int payloadOff,
                            int payloadLen, boolean reliable) {
        int kind = op & 0x1F;
        boolean first = Opcode.has(op, Opcode.FIRST) || Opcode.has(op, Opcode.ONLY);
        boolean last = Opcode.has(op, Opcode.LAST) || Opcode.has(op, Opcode.ONLY);
        if (!operationEnabled(kind) || payloadLen > qp.mtuBytes()) {
            return invalidRequest(psn, reliable); // rxe: unsupported opcode / length error (class C)
        }
        switch (kind) {
            case 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x16, 0x17 -> { // SEND
                if (first == inSend || inWrite) {
                    return invalidRequest(psn, reliable);
                }
                if (first && !haveRecvWqe(psn, reliable)) {
                    return false;
                }
                RecvWqe r = qp.rqEntry(qp.rqHead());
                if (first) {
                    if (qp.resolveRecv(r) != WcStatus.SUCCESS) {
                        return localRecvError(WcStatus.LOC_PROT_ERR, psn, Aeth.NAK_REMOTE_OPERATIONAL_ERROR, reliable);
                    }
                    sendOffset = 0;
                    inSend = true;
                }
                if (sendOffset + payloadLen > r.length) {
                    return localRecvError(WcStatus.LOC_LEN_ERR, psn, Aeth.NAK_INVALID_REQUEST, reliable);
                }
                if (!last && payloadLen != qp.mtuBytes()) {
                    return invalidRequest(psn, reliable);
                }
                qp.scatterToRecv(r, sendOffset, pkt, payloadOff, payloadLen);
                sendOffset += payloadLen;
                if (last) {
                    inSend = false;
                    boolean imm = Opcode.has(op, Opcode.IMM_DT);
                    int immValue = imm ? immDt.wrap(pkt, Opcode.offset(op, Opcode.IMM_DT)).immDt() : 0;
                    qp.completeRecvHead(WcOpcode.RECV, (int) sendOffset, imm, immValue, se);
                    msn = Psn.add(msn, 1);
                }
            }
            case 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B -> { // RDMA WRITE
                if (first == inWrite || inSend) {
                    return invalidRequest(psn, reliable);
                }
                boolean imm = Opcode.has(op, Opcode.IMM_DT);
                if (imm && !haveRecvWqe(psn, reliable)) {
                    return false;
                }
                if (first) {
                    if (!resolveReth(pkt, op, AccessFlags.REMOTE_WRITE)) {
                        return remoteAccessError(psn, reliable);
                    }
                    long len = rethLength;
                    if (payloadLen > len || (last && payloadLen != len)) {
                        return invalidRequest(psn, reliable);
                    }
                    writeMr = rethMr;
                    writeOffset = rethOffset;
                    writeRemaining = len;
                    writeLength = (int) len;
                    inWrite = true;
                }
                if ((!last && payloadLen != qp.mtuBytes()) || payloadLen > writeRemaining
                        || (last && payloadLen != writeRemaining)) {
                    return invalidRequest(psn, reliable);
                }
                if (payloadLen > 0) {
                    try {
                        place(pkt, payloadOff, writeMr.segment(), writeOffset, payloadLen, last);
                    } catch (IllegalStateException freed) {
                        return remoteAccessError(psn, reliable); // the MR's memory was freed meanwhile
                    }
                }
                writeOffset += payloadLen;
                writeRemaining -= payloadLen;
                if (last) {
                    inWrite = false;
                    writeMr = null;
                    if (imm) {
                        RecvWqe r = qp.rqEntry(qp.rqHead());
                        if (qp.resolveRecv(r) != WcStatus.SUCCESS) {
                            return localRecvError(WcStatus.LOC_PROT_ERR, psn, Aeth.NAK_REMOTE_OPERATIONAL_ERROR, reliable);
                        }
                        int immValue = immDt.wrap(pkt, Opcode.offset(op, Opcode.IMM_DT)).immDt();
                        qp.completeRecvHead(WcOpcode.RECV_RDMA_WITH_IMM, writeLength, true, immValue, se);
                    }
                    msn = Psn.add(msn, 1);
                }
            }
            case 0x0C -> { // RDMA READ request
                if (inSend || inWrite) {
                    return invalidRequest(psn, reliable);
                }
                flushAck();
                if (!read(psn, pkt, op)) {
                    return false;
                }
                return true; // ePSN advanced by read()
            }
            case 0x13, 0x14 -> { // atomics
                if (inSend || inWrite) {
                    return invalidRequest(psn, reliable);
                }
                flushAck();
                return atomic(op, psn, pkt);
            }
            default -> {
                return invalidRequest(psn, reliable);
            }
        }
        epsn = Psn.add(psn, 1);
        ackPsnNext = epsn;
        if (reliable && ackReq) {
            ackPending = true;
            ackPsn = psn;
            qp.ackScheduled();
        }
        return true;
    }

    /**
     * Whether the QP's access flags enable the operation at all (IBTA Vol 1 §9.7.5.1.3, rxe
     * {@code check_op_valid}): an RDMA WRITE, READ or atomic the QP does not enable is an invalid
     * request, not an access error.
     */
    private boolean operationEnabled(int kind) {
        return switch (kind) {
            case 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B -> qp.qpAllows(AccessFlags.REMOTE_WRITE);
            case 0x0C -> qp.qpAllows(AccessFlags.REMOTE_READ);
            case 0x13, 0x14 -> qp.qpAllows(AccessFlags.REMOTE_ATOMIC);
            default -> true;
        };
    }

    /**
     * Copies a WRITE payload so that, on the message's last packet, its last byte becomes visible
     * last (perftest's latency tests poll the last byte of the buffer).
     */
    private static void place(MemorySegment pkt, long from, MemorySegment dst, long to, int len, boolean last) {
        if (!last) {
            MemorySegment.copy(pkt, from, dst, to, len);
            return;
        }
        if (len > 1) {
            MemorySegment.copy(pkt, from, dst, to, len - 1);
        }
        byte b = pkt.get(ValueLayout.JAVA_BYTE, from + len - 1);
        BYTE_HANDLE.setRelease(dst, to + len - 1, b);
    }

    /**
     * Checks the RETH of a packet against the QP's memory: the rkey names a valid region of the
     * QP's PD that grants {@code access} and holds [va, va + DMA length). A DMA length of 0 needs
     * no valid rkey (IBTA Vol 1 §9.7.4.1.5). On success the region, the offset of va in it and the
     * length are in {@link #rethMr}, {@link #rethOffset}, {@link #rethLength}.
     */
    private boolean resolveReth(MemorySegment pkt, int op, int access) {
        reth.wrap(pkt, Opcode.offset(op, Opcode.RETH));
        rethLength = reth.dmaLength() & 0xFFFFFFFFL;
        rethMr = null;
        rethOffset = 0;
        if (rethLength == 0) {
            return true;
        }
        rethMr = qp.remoteMr(reth.rkey(), access);
        rethOffset = rethMr == null ? -1 : rethMr.offsetOf(reth.va(), rethLength);
        return rethOffset >= 0;
    }

    private boolean read(int psn, MemorySegment pkt, int op) {
        if (!resolveReth(pkt, op, AccessFlags.REMOTE_READ)) {
            return remoteAccessError(psn, true);
        }
        SoftMr mr = rethMr;
        long off = rethOffset;
        long len = rethLength;
        int mtu = qp.mtuBytes();
        int packets = (int) Math.max(1, (len + mtu - 1) / mtu);
        boolean duplicate = Psn.diff(psn, epsn) < 0;
        if (!duplicate) {
            msn = Psn.add(msn, 1);
            epsn = Psn.add(psn, packets);
        }
        long remaining = len;
        for (int i = 0; i < packets; i++) {
            int payload = (int) Math.min(mtu, remaining);
            int rop;
            if (packets == 1) {
                rop = Opcode.RC_RDMA_READ_RESPONSE_ONLY;
            } else if (i == 0) {
                rop = Opcode.RC_RDMA_READ_RESPONSE_FIRST;
            } else if (i == packets - 1) {
                rop = Opcode.RC_RDMA_READ_RESPONSE_LAST;
            } else {
                rop = Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
            }
            int hdr = Opcode.headerLength(rop);
            int pad = (-payload) & 3;
            writeBth(rop, pad, Psn.add(psn, i));
            if (Opcode.has(rop, Opcode.AETH)) {
                aeth.wrap(tx.seg, Opcode.offset(rop, Opcode.AETH)).syndrome(ACK_UNLIMITED).msn(msn);
            }
            if (payload > 0) {
                try {
                    MemorySegment.copy(mr.segment(), off, tx.seg, hdr, payload);
                } catch (IllegalStateException freed) {
                    return remoteAccessError(psn, true); // the MR's memory was freed meanwhile
                }
            }
            for (int p = 0; p < pad; p++) {
                tx.seg.set(ValueLayout.JAVA_BYTE, hdr + payload + p, (byte) 0);
            }
            qp.transmit(tx, hdr + payload + pad);
            off += payload;
            remaining -= payload;
        }
        return true;
    }

    private boolean atomic(int op, int psn, MemorySegment pkt) {
        atomicEth.wrap(pkt, Opcode.offset(op, Opcode.ATOMIC_ETH));
        long va = atomicEth.va();
        if ((va & 7) != 0) {
            return invalidRequest(psn, true);
        }
        SoftMr mr = qp.remoteMr(atomicEth.rkey(), AccessFlags.REMOTE_ATOMIC);
        long off = mr == null ? -1 : mr.offsetOf(va, 8);
        if (off < 0) {
            return remoteAccessError(psn, true);
        }
        MemorySegment seg = mr.segment();
        long orig;
        try {
            if (op == Opcode.RC_COMPARE_SWAP) {
                orig = (long) LONG_HANDLE.compareAndExchange(seg, off, atomicEth.compareData(), atomicEth.swapData());
            } else {
                orig = (long) LONG_HANDLE.getAndAdd(seg, off, atomicEth.swapData());
            }
        } catch (IllegalStateException freed) {
            return remoteAccessError(psn, true); // the MR's memory was freed meanwhile
        }
        msn = Psn.add(msn, 1);
        epsn = Psn.add(psn, 1);
        ackPsnNext = epsn;
        int slot = replayNext;
        replayNext = (replayNext + 1) % REPLAY_SLOTS;
        replayPsn[slot] = psn;
        replayValue[slot] = orig;
        replayValid[slot] = true;
        sendAtomicAck(psn, orig);
        return true;
    }

    private void sendAtomicAck(int psn, long orig) {
        int rop = Opcode.RC_ATOMIC_ACKNOWLEDGE;
        writeBth(rop, 0, psn);
        aeth.wrap(tx.seg, Opcode.offset(rop, Opcode.AETH)).syndrome(ACK_UNLIMITED).msn(msn);
        atomicAck.wrap(tx.seg, Opcode.offset(rop, Opcode.ATOMIC_ACK_ETH)).origRemoteData(orig);
        qp.transmit(tx, Opcode.headerLength(rop));
    }

    private void onDuplicate(int op, int psn, MemorySegment pkt) {
        qp.counters().increment(Counters.DUPLICATE_REQUEST);
        int kind = op & 0x1F;
        if (kind == 0x0C) {
            flushAck();
            read(psn, pkt, op); // re-executed, responses carry the duplicate's PSNs
            return;
        }
        if (kind == 0x13 || kind == 0x14) {
            for (int i = 0; i < REPLAY_SLOTS; i++) {
                if (replayValid[i] && replayPsn[i] == psn) {
                    flushAck();
                    sendAtomicAck(psn, replayValue[i]);
                    return;
                }
            }
            return; // too old to answer: the requester's retry ends it
        }
        // SEND / WRITE: acknowledge again what was acknowledged (IBTA Vol 1 §9.9.3.1.1, C9-105): the
        // last SEND / WRITE / atomic, never a later READ's last PSN (rxe duplicate_request)
        ackPending = true;
        ackPsn = Psn.add(ackPsnNext, -1);
        qp.ackScheduled();
    }

    private void onUcRequest(int op, int psn, boolean se, MemorySegment pkt, int payloadOff, int payloadLen) {
        boolean first = Opcode.has(op, Opcode.FIRST) || Opcode.has(op, Opcode.ONLY);
        if (psn != epsn) {
            // a lost packet: the message in progress is dropped; resynchronize on a FIRST/ONLY
            qp.counters().increment(Counters.OUT_OF_SEQ_REQUEST);
            inSend = false;
            inWrite = false;
            if (!first) {
                epsn = Psn.add(psn, 1);
                return;
            }
        }
        if (!first && !inSend && !inWrite) {
            epsn = Psn.add(psn, 1);
            return; // the rest of a dropped message
        }
        if (!execute(op, psn, se, false, pkt, payloadOff, payloadLen, false)) {
            epsn = Psn.add(psn, 1);
            inSend = false;
            inWrite = false;
        }
    }

    private boolean haveRecvWqe(int psn, boolean reliable) {
        if (qp.rqHead() != qp.rqTail()) {
            return true;
        }
        if (reliable) {
            qp.counters().increment(Counters.SEND_RNR_ERR);
            flushAck();
            sendAck(psn, 0x20 | qp.minRnrTimer());
        } else {
            qp.counters().increment(Counters.RCVD_DROP_NO_RECV_WQE);
        }
        return false;
    }

    private boolean invalidRequest(int psn, boolean reliable) {
        return nakAndError(psn, Aeth.NAK_INVALID_REQUEST, reliable);
    }

    private boolean remoteAccessError(int psn, boolean reliable) {
        return nakAndError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, reliable);
    }

    private boolean localRecvError(WcStatus status, int psn, int nakCode, boolean reliable) {
        qp.completeRecvHeadError(status);
        return nakAndError(psn, nakCode, reliable);
    }

    /** Class C / D errors: NAK the request and move the QP to ERR (IBTA Vol 1 §9.9.3.1.2). */
    private boolean nakAndError(int psn, int code, boolean reliable) {
        qp.counters().increment(Counters.RESP_NAK_ERR);
        if (LOG.isDebugEnabled()) {
            LOG.debug("QP 0x{}: NAK code {} for PSN {} (ePSN {}, in SEND {}, in WRITE {})", Integer.toHexString(qp.qpNum()),
                    code, psn, epsn, inSend, inWrite, new Throwable("where"));
        }
        if (reliable) {
            flushAck();
            sendAck(psn, 0x60 | code);
            qp.enterErrorState();
        }
        inSend = false;
        inWrite = false;
        return false;
    }

    /**
     * A UD packet arrived (IBTA Vol 1 §9.8.3, §11.4.1.1): a SEND Only with a matching Q_Key consumes
     * a receive WQE; the first 40 bytes of its buffer get the GRH (the packet's network header), the
     * payload follows. Without a receive WQE, or with another Q_Key, the packet is dropped and
     * counted.
     */
    void onDatagram(int op, boolean se, MemorySegment pkt, int payloadOff, int payloadLen, SockAddr from, int udpPayload) {
        if (op != Opcode.UD_SEND_ONLY && op != Opcode.UD_SEND_ONLY_WITH_IMMEDIATE) {
            qp.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE);
            return;
        }
        deth.wrap(pkt, Opcode.offset(op, Opcode.DETH));
        if (deth.qkey() != qp.qkey()) {
            qp.counters().increment(Counters.RCVD_DROP_BAD_QKEY);
            return;
        }
        if (qp.rqHead() == qp.rqTail()) {
            qp.counters().increment(Counters.RCVD_DROP_NO_RECV_WQE);
            return;
        }
        RecvWqe r = qp.rqEntry(qp.rqHead());
        if (qp.resolveRecv(r) != WcStatus.SUCCESS) {
            qp.completeRecvHeadError(WcStatus.LOC_PROT_ERR);
            return;
        }
        if (GRH_LENGTH + payloadLen > r.length) {
            qp.completeRecvHeadError(WcStatus.LOC_LEN_ERR);
            return;
        }
        qp.writeGrh(grh, from, udpPayload);
        qp.scatterToRecv(r, 0, grh, 0, GRH_LENGTH);
        qp.scatterToRecv(r, GRH_LENGTH, pkt, payloadOff, payloadLen);
        boolean imm = op == Opcode.UD_SEND_ONLY_WITH_IMMEDIATE;
        int immValue = imm ? immDt.wrap(pkt, Opcode.offset(op, Opcode.IMM_DT)).immDt() : 0;
        qp.completeDatagram(GRH_LENGTH + payloadLen, imm, immValue, deth.srcQpn(), se);
    }

    /** Sends the coalesced ACK, if one is due. */
    void flushAck() {
        if (ackPending) {
            ackPending = false;
            sendAck(ackPsn, ACK_UNLIMITED);
        }
    }

    private void sendAck(int psn, int syndrome) {
        int op = Opcode.RC_ACKNOWLEDGE;
        writeBth(op, 0, psn);
        aeth.wrap(tx.seg, Opcode.offset(op, Opcode.AETH)).syndrome(syndrome).msn(msn);
        qp.transmit(tx, Opcode.headerLength(op));
    }

    private void writeBth(int op, int pad, int psn) {
        bth.wrap(tx.seg, 0).opcode(op).se(false).migReq(false).padCount(pad).tver(0).pkey(RxeQp.DEFAULT_PKEY)
                .fecn(false).becn(false).destQpn(qp.destQpn()).ackReq(false).psn(psn);
    }
}
