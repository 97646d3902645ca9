package org.jrdma.rocev2.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.Aeth;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.AtomicAckEth;
import org.jrdma.rocev2.wire.AtomicEth;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Deth;
import org.jrdma.rocev2.wire.Feth;
import org.jrdma.rocev2.wire.Ieth;
import org.jrdma.rocev2.wire.ImmDt;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.Reth;
import org.jrdma.soft.RecvWqe;
import org.jrdma.soft.RemoteRange;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.jfr.JrdmaEvents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The responder of an RC or UC QP (IBTA Vol 1 §9.7.3–§9.7.5.2, §9.9.3; rxe: {@code rxe_resp.c}) as
 * rxe's state machine: each request packet runs through {@link State}s, one {@link #step} per state,
 * from {@link State#CHK_PSN} via the checks (operation sequence, operation enabled, receive WQE,
 * length, rkey) to {@link State#EXECUTE}, {@link State#COMPLETE}, {@link State#ACKNOWLEDGE} and
 * {@link State#CLEANUP}; a failed check leads to one {@code ERR_*} state, which NAKs as its error
 * class demands (RC) or drops the message (UC). Duplicates are re-acknowledged, duplicate READs
 * re-executed, duplicate atomics answered from a replay cache; one PSN sequence NAK per gap; ACKs
 * are coalesced. Which headers are read follows the opcode table ({@link Opcode#has}).
 *
 * <p>With DEBUG logging on for this class when the QP is created, every transition is logged, e.g.
 * {@code QP 0x11 resp: CHK_PSN -> CHK_OP_SEQ psn 123}; otherwise the check costs a field read.
 *
 * <p>Runs under the QP lock, in the thread that received the packet (the device's I/O thread, or an
 * application thread polling a CQ) and, for {@link #flushAck}, in a thread sending deferred ACKs.
 */
final class Responder {
    private static final Logger LOG = LoggerFactory.getLogger(Responder.class);
    private static final VarHandle LONG_HANDLE = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle BYTE_HANDLE = ValueLayout.JAVA_BYTE.varHandle();
    private static final int REPLAY_SLOTS = 16;
    /** Bytes of the GRH area at the start of a UD receive buffer. */
    static final int GRH_LENGTH = 40;

    /** The responder's states (rxe: {@code enum resp_states}); the names are rxe's. */
    enum State {
        /** A request arrived. */
        GET_REQ,
        /** Compare the PSN with the ePSN: in sequence, duplicate, or ahead (a gap). */
        CHK_PSN,
        /** The opcode continues the message in progress, or starts one. */
        CHK_OP_SEQ,
        /** The QP's access flags enable the operation. */
        CHK_OP_VALID,
        /** A receive WQE is there for a SEND or a WRITE with immediate. */
        CHK_RESOURCE,
        /** Payload length against the path MTU and the packet's position. */
        CHK_LENGTH,
        /** The rkey names memory that allows the access, and the lengths fit the RETH. */
        CHK_RKEY,
        /** Place SEND / WRITE data. */
        EXECUTE,
        /** Send the READ responses. */
        READ_REPLY,
        /** Execute an atomic and send its ATOMIC Acknowledge. */
        ATOMIC_REPLY,
        /** Execute an ATOMIC WRITE and answer with an RDMA READ response Only of no payload (Annex A19). */
        ATOMIC_WRITE_REPLY,
        /** Make the FLUSH's range visible or persistent and answer like ATOMIC WRITE (Annex A19). */
        PROCESS_FLUSH,
        /** Write the receive CQE. */
        COMPLETE,
        /** Schedule the (coalesced) ACK. */
        ACKNOWLEDGE,
        /** Done with the packet. */
        CLEANUP,
        /** A request before the ePSN. */
        DUPLICATE_REQUEST,
        /** Class B: NAK PSN sequence error, once per gap. */
        ERR_PSN_OUT_OF_SEQ,
        /** Class C: a Middle / Last without a First. */
        ERR_MISSING_OPCODE_FIRST,
        /** Class C (RC): the message in progress is not continued. */
        ERR_MISSING_OPCODE_LAST_C,
        /** Class D1 (UC): the message in progress is not continued; it is dropped. */
        ERR_MISSING_OPCODE_LAST_D1E,
        /** Class C: the QP does not enable the operation. */
        ERR_UNSUPPORTED_OPCODE,
        /** Class C: an atomic's address is not 8-byte aligned. */
        ERR_MISALIGNED_ATOMIC,
        /** Class B: no receive WQE: RNR NAK (RC), drop (UC). */
        ERR_RNR,
        /** Class C: rkey, PD, bounds or access violation, or freed memory: NAK remote access error. */
        ERR_RKEY_VIOLATION,
        /** Class C: a length does not fit: NAK invalid request. */
        ERR_LENGTH,
        /** Class A: the receive WQE's SGEs do not resolve: NAK remote operational error. */
        ERR_MALFORMED_WQE,
        /**
         * Class J (rxe): a SEND with Invalidate whose IETH names a key that cannot be invalidated: the
         * receive completes with REM_INV_REQ_ERR, the request is acknowledged, the QP moves to ERR.
         */
        ERR_INVALIDATE_RKEY,
        /** Move the QP to ERR. */
        ERROR,
        /** The packet is handled. */
        DONE
    }

    private final RxeQp qp;
    private final PacketBuffer tx;
    private final Bth bth = new Bth();
    private final Reth reth = new Reth();
    private final Aeth aeth = new Aeth();
    private final AtomicEth atomicEth = new AtomicEth();
    private final AtomicAckEth atomicAck = new AtomicAckEth();
    private final ImmDt immDt = new ImmDt();
    private final Deth deth = new Deth();
    private final Feth feth = new Feth();
    private final Ieth ieth = new Ieth();
    private final MemorySegment grh = Arena.ofAuto().allocate(GRH_LENGTH, 8);
    private final boolean debug = LOG.isDebugEnabled();

    /** The packet being handled (valid during {@link #onRequest} only). */
    private PacketInfo pkt;
    private boolean reliable;

    /** The expected PSN (ePSN). */
    private int epsn;
    /** Message sequence number: requests completed, 24 bits. */
    private int msn;
    /**
     * The PSN after the last SEND, WRITE or atomic executed (rxe: {@code resp.ack_psn}); a READ does
     * not move it, its responses acknowledge it. A duplicate SEND or WRITE is acknowledged with the
     * PSN before it.
     */
    private int ackPsnNext;
    /** A PSN sequence NAK was sent for the current gap (rxe: {@code sent_psn_nak}). */
    private boolean seqNakSent;
    /** The operation of the message in progress ({@link Opcode#OP_SEND}, {@link Opcode#OP_RDMA_WRITE}), 0 for none. */
    private int msgOp;
    /** SEND in progress: bytes placed in the receive WQE. */
    private long sendOffset;
    // RDMA WRITE in progress
    private RemoteRange writeMr;
    private long writeOffset;
    private long writeRemaining;
    private int writeLength;
    // the RETH last resolved in CHK_RKEY
    private RemoteRange rethMr;
    private long rethOffset;
    private long rethLength;
    // the atomic's region resolved in CHK_RKEY
    private RemoteRange atomicMr;
    private long atomicOffset;
    /** A duplicate READ is being replayed: ePSN and MSN stay. */
    private boolean replay;
    /** The receive WQE's error status an ERR_* state completes it with, or null. */
    private WcStatus recvError;
    // coalesced ACK
    private boolean ackPending;
    private int ackPsn;
    // atomic replay cache
    private final int[] replayPsn = new int[REPLAY_SLOTS];
    private final long[] replayValue = new long[REPLAY_SLOTS];
    private final boolean[] replayValid = new boolean[REPLAY_SLOTS];
    /** The slot's request was a FLUSH or ATOMIC WRITE: its answer is an RDMA READ response Only of no payload. */
    private final boolean[] replayReadResponse = new boolean[REPLAY_SLOTS];
    private int replayNext;

    Responder(RxeQp qp) {
        this.qp = qp;
        this.tx = PacketBuffer.allocate(RxeQp.MAX_PACKET);
    }

    /** RTR: expect {@code rqPsn} next, no message in progress, nothing to acknowledge. */
    void reset(int rqPsn) {
        epsn = rqPsn;
        ackPsnNext = rqPsn;
        msn = 0;
        seqNakSent = false;
        msgOp = 0;
        writeMr = null;
        ackPending = false;
        Arrays.fill(replayValid, false);
    }

    /** A request packet for this QP arrived; the caller checked the QP state, transport and source. */
    void onRequest(PacketInfo p) {
        pkt = p;
        reliable = qp.type() == QpType.RC;
        replay = false;
        recvError = null;
        State s = State.GET_REQ;
        while (s != State.DONE) {
            State next = step(s);
            if (debug) {
                LOG.debug("QP 0x{} resp: {} -> {} psn {}", Integer.toHexString(qp.qpn()), s, next, p.psn);
            }
            s = next;
        }
        pkt = null;
        rethMr = null;
        atomicMr = null;
    }

    /** One step of the state machine: runs {@code s} and returns the next state. */
    private State step(State s) {
        return switch (s) {
            case GET_REQ -> State.CHK_PSN;
            case CHK_PSN -> checkPsn();
            case CHK_OP_SEQ -> checkOpSeq();
            case CHK_OP_VALID -> checkOpValid();
            case CHK_RESOURCE -> checkResource();
            case CHK_LENGTH -> checkLength();
            case CHK_RKEY -> checkRkey();
            case EXECUTE -> execute();
            case READ_REPLY -> readReply();
            case ATOMIC_REPLY -> atomicReply();
            case ATOMIC_WRITE_REPLY -> atomicWriteReply();
            case PROCESS_FLUSH -> processFlush();
            case COMPLETE -> complete();
            case ACKNOWLEDGE -> acknowledge();
            case CLEANUP -> State.DONE;
            case DUPLICATE_REQUEST -> duplicateRequest();
            case ERR_PSN_OUT_OF_SEQ -> {
                sendAck(epsn, Aeth.nakSyndrome(Aeth.NAK_PSN_SEQUENCE_ERROR));
                yield State.CLEANUP;
            }
            case ERR_MISSING_OPCODE_FIRST, ERR_MISSING_OPCODE_LAST_C, ERR_MISSING_OPCODE_LAST_D1E,
                 ERR_UNSUPPORTED_OPCODE, ERR_MISALIGNED_ATOMIC, ERR_LENGTH -> classCError(Aeth.NAK_INVALID_REQUEST);
            case ERR_RKEY_VIOLATION -> classCError(Aeth.NAK_REMOTE_ACCESS_ERROR);
            case ERR_MALFORMED_WQE -> classCError(Aeth.NAK_REMOTE_OPERATIONAL_ERROR);
            case ERR_RNR -> rnr();
            case ERR_INVALIDATE_RKEY -> invalidateError();
            case ERROR -> {
                qp.enterErrorState();
                yield State.DONE;
            }
            case DONE -> State.DONE;
        };
    }

    // ------------------------------------------------------------------ checks

    private State checkPsn() {
        int d = Psn.diff(pkt.psn, epsn);
        if (reliable) {
            if (d > 0) {
                qp.counters().increment(Counters.OUT_OF_SEQ_REQUEST);
                if (seqNakSent) {
                    return State.CLEANUP;
                }
                seqNakSent = true;
                return State.ERR_PSN_OUT_OF_SEQ;
            }
            if (d < 0) {
                return State.DUPLICATE_REQUEST;
            }
            seqNakSent = false;
            return State.CHK_OP_SEQ;
        }
        if (d != 0) {
            // UC: a lost packet drops the message in progress; resynchronize on a First / Only
            qp.counters().increment(Counters.OUT_OF_SEQ_REQUEST);
            msgOp = 0;
            if (!Opcode.isStart(pkt.opcode)) {
                epsn = Psn.add(pkt.psn, 1);
                return State.CLEANUP;
            }
        }
        return State.CHK_OP_SEQ;
    }

    /** The operation of a request opcode: {@link Opcode#OP_SEND}, {@link Opcode#OP_RDMA_WRITE}, READ or atomic bit. */
    private static int operation(int op) {
        return Opcode.mask(op) & (Opcode.OP_SEND | Opcode.OP_RDMA_WRITE | Opcode.OP_RDMA_READ | Opcode.OP_ATOMIC
                | Opcode.OP_FLUSH | Opcode.OP_ATOMIC_WRITE);
    }

    private State checkOpSeq() {
        int op = pkt.opcode;
        boolean start = Opcode.isStart(op);
        if (msgOp != 0) {
            if (operation(op) == msgOp && !start) {
                return State.CHK_OP_VALID;
            }
            return reliable ? State.ERR_MISSING_OPCODE_LAST_C : State.ERR_MISSING_OPCODE_LAST_D1E;
        }
        if (!start) {
            if (reliable) {
                return State.ERR_MISSING_OPCODE_FIRST;
            }
            epsn = Psn.add(pkt.psn, 1); // UC: the rest of a dropped message
            return State.CLEANUP;
        }
        return State.CHK_OP_VALID;
    }

    /**
     * Whether the QP's access flags enable the operation at all (IBTA Vol 1 §9.7.5.1.3, rxe
     * {@code check_op_valid}): an RDMA WRITE, READ or atomic the QP does not enable is an invalid
     * request, not an access error.
     */
    private State checkOpValid() {
        int required = switch (operation(pkt.opcode)) {
            case Opcode.OP_RDMA_WRITE -> AccessFlags.REMOTE_WRITE;
            case Opcode.OP_RDMA_READ -> AccessFlags.REMOTE_READ;
            case Opcode.OP_ATOMIC -> AccessFlags.REMOTE_ATOMIC;
            case Opcode.OP_ATOMIC_WRITE -> AccessFlags.REMOTE_WRITE;
            case Opcode.OP_FLUSH -> flushAccess(feth.wrap(pkt.seg, Opcode.offset(pkt.opcode, Opcode.FETH)).placementType());
            default -> 0;
        };
        return required == 0 || qp.qpAllows(required) ? State.CHK_RESOURCE : State.ERR_UNSUPPORTED_OPCODE;
    }

    /** A SEND's first packet and a WRITE's packet with immediate data consume a receive WQE (C9-29). */
    private State checkResource() {
        int op = pkt.opcode;
        boolean needsWqe = operation(op) == Opcode.OP_SEND ? Opcode.isStart(op) : Opcode.has(op, Opcode.IMM_DT);
        return needsWqe && !qp.takeRecvWqe() ? State.ERR_RNR : State.CHK_LENGTH;
    }

    /** Payload at most the path MTU; a First or Middle packet carries exactly the MTU (C9-91). */
    private State checkLength() {
        int len = pkt.payloadLength;
        int mtu = qp.mtuBytes();
        if (len > mtu) {
            return State.ERR_LENGTH;
        }
        int op = pkt.opcode;
        if (Opcode.hasPayload(op) && !Opcode.isEnd(op) && len != mtu) {
            return State.ERR_LENGTH;
        }
        return State.CHK_RKEY;
    }

    /**
     * The memory of a WRITE, READ or atomic (IBTA Vol 1 §9.7.4.1.5): the rkey names a valid region of
     * the QP's PD that grants the access, is not freed, and holds the range; a WRITE's packets fit
     * its DMA length. A DMA length of 0 needs no valid rkey.
     */
    private State checkRkey() {
        int op = pkt.opcode;
        int len = pkt.payloadLength;
        switch (operation(op)) {
            case Opcode.OP_RDMA_WRITE -> {
                if (Opcode.isStart(op)) {
                    if (!resolveReth(AccessFlags.REMOTE_WRITE)) {
                        return State.ERR_RKEY_VIOLATION;
                    }
                    if (len > rethLength || (Opcode.isEnd(op) && len != rethLength)) {
                        return State.ERR_LENGTH;
                    }
                    writeMr = rethMr;
                    writeOffset = rethOffset;
                    writeRemaining = rethLength;
                    writeLength = (int) rethLength;
                } else if (len > writeRemaining || (Opcode.isEnd(op) && len != writeRemaining)) {
                    return State.ERR_LENGTH;
                }
                return State.EXECUTE;
            }
            case Opcode.OP_RDMA_READ -> {
                flushAck(); // what was acknowledged goes before the responses
                return resolveReth(AccessFlags.REMOTE_READ) ? State.READ_REPLY : State.ERR_RKEY_VIOLATION;
            }
            case Opcode.OP_ATOMIC -> {
                flushAck();
                atomicEth.wrap(pkt.seg, Opcode.offset(op, Opcode.ATOMIC_ETH));
                long va = atomicEth.va();
                if ((va & 7) != 0) {
                    return State.ERR_MISALIGNED_ATOMIC;
                }
                atomicMr = qp.remoteMr(atomicEth.rkey(), AccessFlags.REMOTE_ATOMIC);
                atomicOffset = atomicMr == null ? -1 : atomicMr.offsetOf(va, 8);
                return atomicOffset < 0 ? State.ERR_RKEY_VIOLATION : State.ATOMIC_REPLY;
            }
            case Opcode.OP_ATOMIC_WRITE -> {
                flushAck();
                return checkAtomicWrite();
            }
            case Opcode.OP_FLUSH -> {
                flushAck();
                return checkFlush();
            }
            default -> {
                return State.EXECUTE;
            }
        }
    }

    /** The access bits a FLUSH of placement type {@code plt} needs of the QP and the region (rxe {@code check_rkey}). */
    private static int flushAccess(int plt) {
        return ((plt & Feth.PLT_GLOBAL) != 0 ? AccessFlags.FLUSH_GLOBAL : 0)
                | ((plt & Feth.PLT_PERSISTENT) != 0 ? AccessFlags.FLUSH_PERSISTENT : 0);
    }

    /**
     * ATOMIC WRITE (Annex A19.4.2; rxe {@code check_rkey}, {@code rxe_mr_do_atomic_write}): the rkey
     * names a region with REMOTE_WRITE that holds the 8 bytes at VA, the RETH's DMA length and the
     * payload are 8, VA is 8-byte aligned.
     */
    private State checkAtomicWrite() {
        reth.wrap(pkt.seg, Opcode.offset(pkt.opcode, Opcode.RETH));
        long va = reth.va();
        atomicMr = qp.remoteMr(reth.rkey(), AccessFlags.REMOTE_WRITE);
        if (atomicMr == null) {
            return State.ERR_RKEY_VIOLATION;
        }
        if (reth.dmaLength() != 8 || pkt.payloadLength != 8) {
            return State.ERR_LENGTH;
        }
        atomicOffset = atomicMr.offsetOf(va, 8);
        if (atomicOffset < 0) {
            return State.ERR_RKEY_VIOLATION;
        }
        return (va & 7) != 0 ? State.ERR_MISALIGNED_ATOMIC : State.ATOMIC_WRITE_REPLY;
    }

    /**
     * FLUSH (Annex A19.4.1; rxe {@code check_rkey}): the rkey names a region or a bound window that
     * grants the FETH's placement types, and for PERSISTENT its memory is persistent (file-backed; a
     * region is registered so, a window may be bound over any region); level MR covers the whole
     * range the key grants (the region, or the window's bytes: rxe flushes a window's whole region;
     * VA and DMA length are not looked at), any other level the RETH's range, which must lie inside it.
     */
    private State checkFlush() {
        int op = pkt.opcode;
        feth.wrap(pkt.seg, Opcode.offset(op, Opcode.FETH));
        reth.wrap(pkt.seg, Opcode.offset(op, Opcode.RETH));
        rethMr = qp.remoteMr(reth.rkey(), flushAccess(feth.placementType()));
        if (rethMr == null
                || ((feth.placementType() & Feth.PLT_PERSISTENT) != 0 && !rethMr.segment().isMapped())) {
            return State.ERR_RKEY_VIOLATION;
        }
        if (feth.selectivity() == Feth.SEL_MR) {
            rethOffset = rethMr.base();
            rethLength = rethMr.length();
            return State.PROCESS_FLUSH;
        }
        rethLength = Integer.toUnsignedLong(reth.dmaLength());
        rethOffset = rethMr.offsetOf(reth.va(), rethLength);
        return rethOffset < 0 ? State.ERR_RKEY_VIOLATION : State.PROCESS_FLUSH;
    }

    /**
     * Resolves the packet's RETH: on success the region, the offset of va in it and the length are
     * in {@link #rethMr}, {@link #rethOffset}, {@link #rethLength}.
     */
    private boolean resolveReth(int access) {
        reth.wrap(pkt.seg, Opcode.offset(pkt.opcode, Opcode.RETH));
        rethLength = Integer.toUnsignedLong(reth.dmaLength());
        rethMr = null;
        rethOffset = 0;
        if (rethLength == 0) {
            return true;
        }
        rethMr = qp.remoteMr(reth.rkey(), access);
        rethOffset = rethMr == null ? -1 : rethMr.offsetOf(reth.va(), rethLength);
        return rethOffset >= 0;
    }

    // ------------------------------------------------------------------ execution

    private State execute() {
        int op = pkt.opcode;
        int len = pkt.payloadLength;
        boolean last = Opcode.isEnd(op);
        if (operation(op) == Opcode.OP_SEND) {
            RecvWqe r = qp.recvWqe();
            if (Opcode.isStart(op)) {
                if (qp.resolveRecv(r) != WcStatus.SUCCESS) {
                    recvError = WcStatus.LOC_PROT_ERR;
                    return State.ERR_MALFORMED_WQE;
                }
                sendOffset = 0;
                msgOp = Opcode.OP_SEND;
            }
            if (sendOffset + len > r.length) {
                recvError = WcStatus.LOC_LEN_ERR;
                return State.ERR_LENGTH;
            }
            qp.scatterToRecv(r, sendOffset, pkt.seg, pkt.payloadOffset, len);
            sendOffset += len;
            // SEND Last / Only with Invalidate: after the data, as rxe's execute()
            if (Opcode.has(op, Opcode.IETH)
                    && !qp.invalidateRemote(ieth.wrap(pkt.seg, Opcode.offset(op, Opcode.IETH)).rkey())) {
                return State.ERR_INVALIDATE_RKEY;
            }
        } else {
            if (Opcode.isStart(op)) {
                msgOp = Opcode.OP_RDMA_WRITE;
            }
            if (len > 0) {
                try {
                    place(pkt.seg, pkt.payloadOffset, writeMr.segment(), writeOffset, len, last);
                } catch (IllegalStateException freed) {
                    return State.ERR_RKEY_VIOLATION; // the MR's memory was freed meanwhile
                }
            }
            writeOffset += len;
            writeRemaining -= len;
            if (last) {
                writeMr = null;
                if (Opcode.has(op, Opcode.IMM_DT) && qp.resolveRecv(qp.recvWqe()) != WcStatus.SUCCESS) {
                    recvError = WcStatus.LOC_PROT_ERR;
                    return State.ERR_MALFORMED_WQE;
                }
            }
        }
        epsn = Psn.add(pkt.psn, 1);
        ackPsnNext = epsn;
        if (!last) {
            return reliable ? State.ACKNOWLEDGE : State.CLEANUP;
        }
        msgOp = 0;
        msn = Psn.add(msn, 1);
        return State.COMPLETE;
    }

    /** The receive CQE of a SEND or a WRITE with immediate (C9-148: the MSN counts the message). */
    private State complete() {
        int op = pkt.opcode;
        boolean imm = Opcode.has(op, Opcode.IMM_DT);
        int immValue = imm ? immDt.wrap(pkt.seg, Opcode.offset(op, Opcode.IMM_DT)).immDt() : 0;
        if (Opcode.has(op, Opcode.IETH)) {
            qp.completeRecvHeadInvalidated((int) sendOffset, ieth.wrap(pkt.seg, Opcode.offset(op, Opcode.IETH)).rkey(),
                    pkt.se);
        } else if (operation(op) == Opcode.OP_SEND) {
            qp.completeRecvHead(WcOpcode.RECV, (int) sendOffset, imm, immValue, pkt.se);
        } else if (imm) {
            qp.completeRecvHead(WcOpcode.RECV_RDMA_WITH_IMM, writeLength, true, immValue, pkt.se);
        }
        return reliable ? State.ACKNOWLEDGE : State.CLEANUP;
    }

    /** Coalesces the ACK a request with AckReq asks for (sent by {@link #flushAck}). */
    private State acknowledge() {
        if (pkt.ackReq) {
            ackPending = true;
            ackPsn = pkt.psn;
            qp.ackScheduled();
        }
        return State.CLEANUP;
    }

    /**
     * Copies a WRITE payload so that, on the message's last packet, its last byte becomes visible
     * last (perftest's latency tests poll the last byte of the buffer).
     */
    private static void place(MemorySegment src, long from, MemorySegment dst, long to, int len, boolean last) {
        if (!last) {
            MemorySegment.copy(src, from, dst, to, len);
            return;
        }
        if (len > 1) {
            MemorySegment.copy(src, from, dst, to, len - 1);
        }
        byte b = src.get(ValueLayout.JAVA_BYTE, from + len - 1);
        BYTE_HANDLE.setRelease(dst, to + len - 1, b);
    }

    /** The READ responses, segmented at the path MTU; a replayed READ leaves ePSN and MSN (C9-148). */
    private State readReply() {
        RemoteRange mr = rethMr;
        long off = rethOffset;
        long len = rethLength;
        int mtu = qp.mtuBytes();
        int psn = pkt.psn;
        int packets = (int) Math.max(1, (len + mtu - 1) / mtu);
        if (!replay) {
            msn = Psn.add(msn, 1);
            epsn = Psn.add(psn, packets);
        }
        long remaining = len;
        // issue 14: the responses leave in trains (the receiving thread's, or its spare while the first
        // holds packets it posted: PacketTrain.forRun), each packet with its own ICRC
        PacketTrain train = PacketTrain.forRun(qp);
        qp.flushTrain(train); // packets this thread posted to this QP go first
        try {
            for (int i = 0; i < packets; i++) {
                int payload = (int) Math.min(mtu, remaining);
                int rop = Opcode.of(Opcode.TRANSPORT_RC,
                        Opcode.RESPONSE | Opcode.OP_RDMA_READ | Opcode.position(i == 0, i == packets - 1));
                int hdr = Opcode.headerLength(rop);
                int pad = (-payload) & 3;
                int length = hdr + payload + pad + Icrc.LENGTH;
                int at = train.reserve(length);
                if (at < 0) {
                    qp.flushTrain(train);
                    at = train.reserve(length);
                }
                MemorySegment seg = train.buffer().seg;
                bth.wrap(seg, at).opcode(rop).se(false).migReq(false).padCount(pad).tver(0).pkey(RxeQp.DEFAULT_PKEY)
                        .fecn(false).becn(false).destQpn(qp.destQpn()).ackReq(false).psn(Psn.add(psn, i));
                if (Opcode.has(rop, Opcode.AETH)) {
                    aeth.wrap(seg, at + Opcode.offset(rop, Opcode.AETH)).syndrome(Aeth.ACK_UNLIMITED).msn(msn);
                }
                if (payload > 0) {
                    try {
                        MemorySegment.copy(mr.segment(), off, seg, at + hdr, payload);
                    } catch (IllegalStateException freed) {
                        return State.ERR_RKEY_VIOLATION; // the MR's memory was freed meanwhile (the packets before it still go)
                    }
                }
                for (int p = 0; p < pad; p++) {
                    seg.set(ValueLayout.JAVA_BYTE, at + hdr + payload + p, (byte) 0);
                }
                train.commit(length);
                off += payload;
                remaining -= payload;
            }
        } finally {
            qp.flushTrain(train);
        }
        return State.CLEANUP;
    }

    /** Executes an atomic (8 bytes, host byte order as rxe), remembers its result, answers it. */
    private State atomicReply() {
        MemorySegment seg = atomicMr.segment();
        long orig;
        try {
            if (pkt.opcode == Opcode.RC_COMPARE_SWAP) {
                orig = (long) LONG_HANDLE.compareAndExchange(seg, atomicOffset, atomicEth.compareData(),
                        atomicEth.swapData());
            } else {
                orig = (long) LONG_HANDLE.getAndAdd(seg, atomicOffset, atomicEth.swapData());
            }
        } catch (IllegalStateException freed) {
            return State.ERR_RKEY_VIOLATION; // the MR's memory was freed meanwhile
        }
        executed(orig, false);
        sendAtomicAck(pkt.psn, orig);
        return State.CLEANUP;
    }

    /**
     * An atomic, ATOMIC WRITE or FLUSH was executed: the MSN counts it, ePSN moves past it and the
     * replay cache remembers its answer for a duplicate.
     */
    private void executed(long orig, boolean readResponse) {
        int psn = pkt.psn;
        msn = Psn.add(msn, 1);
        epsn = Psn.add(psn, 1);
        ackPsnNext = epsn;
        int slot = replayNext;
        replayNext = (replayNext + 1) % REPLAY_SLOTS;
        replayPsn[slot] = psn;
        replayValue[slot] = orig;
        replayValid[slot] = true;
        replayReadResponse[slot] = readResponse;
    }

    /**
     * Writes the ATOMIC WRITE's 8 payload bytes as they are (rxe: {@code smp_store_release} of the
     * payload's u64) after every earlier placement, so that a reader who sees them sees those too.
     */
    private State atomicWriteReply() {
        long value = pkt.seg.get(ValueLayout.JAVA_LONG_UNALIGNED, pkt.payloadOffset);
        try {
            LONG_HANDLE.setRelease(atomicMr.segment(), atomicOffset, value);
        } catch (IllegalStateException freed) {
            return State.ERR_RKEY_VIOLATION; // the MR's memory was freed meanwhile
        }
        executed(0, true);
        sendReadResponseAck(pkt.psn);
        return State.CLEANUP;
    }

    /**
     * FLUSH: every earlier placement is made globally visible (a full fence: this thread placed them)
     * and, for PERSISTENT, the range is written to its file ({@code MemorySegment.force()}, msync: a
     * system call in this thread, the one that received the packet). Then the RDMA READ response Only.
     */
    private State processFlush() {
        if ((feth.placementType() & Feth.PLT_PERSISTENT) != 0) {
            try {
                rethMr.segment().asSlice(rethOffset, rethLength).force();
            } catch (IllegalStateException | UnsupportedOperationException | java.io.UncheckedIOException e) {
                return State.ERR_RKEY_VIOLATION; // freed meanwhile, or not file-backed after all
            }
        }
        VarHandle.fullFence();
        executed(0, true);
        sendReadResponseAck(pkt.psn);
        return State.CLEANUP;
    }

    /** The answer to ATOMIC WRITE and FLUSH: an RDMA READ response Only with an ACK AETH and no payload (rxe {@code send_read_response_ack}). */
    private void sendReadResponseAck(int psn) {
        int rop = Opcode.RC_RDMA_READ_RESPONSE_ONLY;
        writeBth(rop, 0, psn);
        aeth.wrap(tx.seg, Opcode.offset(rop, Opcode.AETH)).syndrome(Aeth.ACK_UNLIMITED).msn(msn);
        qp.transmit(tx, Opcode.headerLength(rop));
    }

    private void sendAtomicAck(int psn, long orig) {
        int rop = Opcode.RC_ATOMIC_ACKNOWLEDGE;
        writeBth(rop, 0, psn);
        aeth.wrap(tx.seg, Opcode.offset(rop, Opcode.AETH)).syndrome(Aeth.ACK_UNLIMITED).msn(msn);
        atomicAck.wrap(tx.seg, Opcode.offset(rop, Opcode.ATOMIC_ACK_ETH)).origRemoteData(orig);
        qp.transmit(tx, Opcode.headerLength(rop));
    }

    /**
     * A request before the ePSN (IBTA Vol 1 §9.9.3.1.1, rxe {@code duplicate_request}): a READ is
     * executed again (its responses carry the duplicate's PSNs), an atomic answered from the replay
     * cache (or dropped when too old: the requester's retry ends it), a SEND or WRITE acknowledged
     * again with the last acknowledged PSN, never a later READ's last PSN (C9-105).
     */
    private State duplicateRequest() {
        qp.counters().increment(Counters.DUPLICATE_REQUEST);
        int op = pkt.opcode;
        switch (operation(op)) {
            case Opcode.OP_RDMA_READ -> {
                replay = true;
                return State.CHK_RKEY;
            }
            case Opcode.OP_ATOMIC, Opcode.OP_ATOMIC_WRITE, Opcode.OP_FLUSH -> {
                for (int i = 0; i < REPLAY_SLOTS; i++) {
                    if (replayValid[i] && replayPsn[i] == pkt.psn) {
                        flushAck();
                        if (replayReadResponse[i]) {
                            sendReadResponseAck(pkt.psn); // answered again, not executed again (rxe)
                        } else {
                            sendAtomicAck(pkt.psn, replayValue[i]);
                        }
                        break;
                    }
                }
                return State.CLEANUP;
            }
            default -> {
                ackPending = true;
                ackPsn = Psn.add(ackPsnNext, -1);
                qp.ackScheduled();
                return State.CLEANUP;
            }
        }
    }

    // ------------------------------------------------------------------ errors

    /**
     * Class A / C errors (IBTA Vol 1 §9.9.3.1.2): RC NAKs the request and moves the QP to ERR; UC
     * drops the message. A receive WQE that was being filled completes with {@link #recvError}.
     */
    private State classCError(int nakCode) {
        qp.counters().increment(Counters.RESP_NAK_ERR);
        if (recvError != null) {
            qp.completeRecvHeadError(recvError);
        }
        msgOp = 0;
        writeMr = null;
        if (debug) {
            LOG.debug("QP 0x{} resp: {} for PSN {} (ePSN {})", Integer.toHexString(qp.qpn()), Aeth.nakName(nakCode),
                    pkt.psn, epsn);
        }
        if (!reliable) {
            epsn = Psn.add(pkt.psn, 1);
            return State.CLEANUP;
        }
        flushAck();
        sendAck(pkt.psn, Aeth.nakSyndrome(nakCode));
        qp.responderError(nakCode, recvError != null);
        return State.ERROR;
    }

    /**
     * Class J, as rxe: the receive WQE completes with REM_INV_REQ_ERR, the request is acknowledged as
     * it asked (the data was placed; the requester's SEND completes), the responder moves to ERR and
     * refuses everything after. Nothing was invalidated.
     */
    private State invalidateError() {
        qp.completeRecvHeadError(WcStatus.REM_INV_REQ_ERR);
        msgOp = 0;
        if (debug) {
            LOG.debug("QP 0x{} resp: IETH key cannot be invalidated, PSN {}", Integer.toHexString(qp.qpn()), pkt.psn);
        }
        flushAck();
        if (pkt.ackReq) {
            sendAck(pkt.psn, Aeth.ACK_UNLIMITED);
        }
        return State.ERROR;
    }

    /** Class B: no receive WQE. RC: RNR NAK with the QP's min_rnr_timer; UC: the message is dropped. */
    private State rnr() {
        if (reliable) {
            qp.counters().increment(Counters.SEND_RNR_ERR);
            JrdmaEvents.rnrNak(qp.core().deviceName(), qp.qpNum(), pkt.psn, true, qp.minRnrTimer(),
                    RnrTimer.nanos(qp.minRnrTimer()), -1);
            flushAck();
            sendAck(pkt.psn, Aeth.rnrNakSyndrome(qp.minRnrTimer()));
        } else {
            qp.counters().increment(Counters.RCVD_DROP_NO_RECV_WQE);
            epsn = Psn.add(pkt.psn, 1);
            msgOp = 0;
        }
        return State.CLEANUP;
    }

    // ------------------------------------------------------------------ UD

    /**
     * A UD packet arrived (IBTA Vol 1 §9.8.3, §11.4.1.1): a SEND Only with a matching Q_Key consumes
     * a receive WQE; the first 40 bytes of its buffer get the GRH (the packet's network header), the
     * payload follows. Without a receive WQE, or with another Q_Key, the packet is dropped and
     * counted.
     */
    void onDatagram(PacketInfo p) {
        int op = p.opcode;
        if (!Opcode.has(op, Opcode.OP_SEND | Opcode.DETH)) {
            qp.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE);
            return;
        }
        deth.wrap(p.seg, Opcode.offset(op, Opcode.DETH));
        if (deth.qkey() != qp.qkey()) {
            qp.counters().increment(Counters.RCVD_DROP_BAD_QKEY);
            return;
        }
        if (!qp.takeRecvWqe()) {
            qp.counters().increment(Counters.RCVD_DROP_NO_RECV_WQE);
            return;
        }
        RecvWqe r = qp.recvWqe();
        if (qp.resolveRecv(r) != WcStatus.SUCCESS) {
            qp.completeRecvHeadError(WcStatus.LOC_PROT_ERR);
            return;
        }
        if (GRH_LENGTH + p.payloadLength > r.length) {
            qp.completeRecvHeadError(WcStatus.LOC_LEN_ERR);
            return;
        }
        qp.writeGrh(grh, p.from, p.length);
        qp.scatterToRecv(r, 0, grh, 0, GRH_LENGTH);
        qp.scatterToRecv(r, GRH_LENGTH, p.seg, p.payloadOffset, p.payloadLength);
        boolean imm = Opcode.has(op, Opcode.IMM_DT);
        int immValue = imm ? immDt.wrap(p.seg, Opcode.offset(op, Opcode.IMM_DT)).immDt() : 0;
        qp.completeDatagram(GRH_LENGTH + p.payloadLength, imm, immValue, deth.srcQpn(), p.se);
    }

    // ------------------------------------------------------------------ ACKs

    /** Sends the coalesced ACK, if one is due. */
    void flushAck() {
        if (ackPending) {
            ackPending = false;
            sendAck(ackPsn, Aeth.ACK_UNLIMITED);
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
