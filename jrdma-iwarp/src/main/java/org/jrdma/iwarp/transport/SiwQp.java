package org.jrdma.iwarp.transport;

import java.lang.foreign.MemorySegment;
import org.jrdma.iwarp.wire.DdpHeader;
import org.jrdma.iwarp.wire.Mpa;
import org.jrdma.iwarp.wire.RdmapOpcode;
import org.jrdma.iwarp.wire.ReadRequest;
import org.jrdma.iwarp.wire.Terminate;
import org.jrdma.iwarp.wire.TerminateCodes;
import org.jrdma.soft.KeyTable;
import org.jrdma.soft.QpTransport;
import org.jrdma.soft.RecvWqe;
import org.jrdma.soft.RemoteRange;
import org.jrdma.soft.SendQueue;
import org.jrdma.soft.SoftMr;
import org.jrdma.soft.SoftPd;
import org.jrdma.soft.SoftQp;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.jrdma.verbs.jfr.JrdmaEvents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The iWARP transport of one RC QP, after siw ({@code siw_qp_tx.c}, {@code siw_qp_rx.c},
 * {@code siw_qp.c}): transmit and receive apart, over the QP's {@link SiwConnection}.
 *
 * <p><b>Transmit</b> ({@link #pump()}): Terminate first, then inbound RDMA READs owed (the IRQ, as
 * Read Responses), then the send queue in order. SEND, SEND with SE, SEND with Invalidate (and
 * with SE) go on untagged queue 0 (MSN per message, MO per segment); RDMA WRITE and Read Responses
 * are tagged (STag = the rkey, TO = the address); a Read Request goes on queue 1 and waits in the
 * ORQ (at most ORD at once; the send queue stalls behind a full ORQ, and behind a READ in flight
 * for a WR with FENCE). Each FPDU carries at most {@code MSS - (header + CRC)} payload bytes, siw's
 * {@code tcp_seglen} rule with GSO off. A SEND or WRITE is done once all its FPDUs are handed to
 * TCP (TCP is the reliable layer), a READ when its last Read Response arrived; completions are
 * generated in send-queue order.
 *
 * <p><b>Receive</b> ({@link #receive}): one handler per RDMAP opcode in a table. Payload is placed
 * straight from the receive buffer into registered memory: tagged into the region or window the
 * STag names (access and bounds checked; a Read Response into the sink SGE of the oldest READ);
 * untagged SENDs into the receive WQE of their MSN at MO. Every violation (bad STag, bounds, MSN,
 * MO, no receive WQE, message too long, IRD exceeded, opcode out of place, bad version, CRC) sends
 * a Terminate with siw's layer / type / code, moves the QP to ERR and closes the connection; a
 * received Terminate moves the QP to ERR.
 *
 * <p>Threads and locks: everything runs under the QP's lock ({@link SoftQp#lock()}): the posting
 * thread transmits what it posted at once (its FPDUs go to the socket in its own thread); the
 * device's I/O thread, or a thread polling an empty CQ of the device ({@code SiwAgent.progress},
 * inside the connection's receive lock), receives; the I/O thread resumes transmission when the
 * socket takes bytes again; the CM thread moves the QP to RTS. The
 * connection's {@code txLock} is taken inside the QP's lock. Nothing is allocated per operation.
 */
public final class SiwQp implements QpTransport {
    private static final Logger LOG = LoggerFactory.getLogger(SiwQp.class);
    private static final int MAX_ORD_IRD = 128;

    @FunctionalInterface
    private interface RxHandler {
        /** One FPDU of opcode {@code op}; false: stop receiving on the connection. Under the QP lock. */
        boolean handle(MemorySegment s, long off, int payloadLen, int ctrl);
    }

    /** The {@code ctrl} bit handlers get: the DDP Last flag. */
    private static final int LAST = 1;
    /** Terminate control words in siw's x86 bit-field layout, which Linux siw reads and writes ({@link Terminate#SIW_X86}). */
    private static final int TERMINATE_LAYOUT = Terminate.SIW_X86;
    private static final java.lang.foreign.ValueLayout.OfShort BE16 =
            java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    private final DdpHeader rxDdp = new DdpHeader();
    private final ReadRequest rxRead = new ReadRequest();
    private final Terminate rxTerm = new Terminate().layout(TERMINATE_LAYOUT);
    private final DdpHeader txDdp = new DdpHeader();
    private final ReadRequest txRead = new ReadRequest();
    private final Terminate txTerm = new Terminate().layout(TERMINATE_LAYOUT);
    /** Flyweights over {@link #termInfo} for the Read Request a Terminate reconstructs (siw's in_tx case). */
    private final DdpHeader termDdp = new DdpHeader();
    private final ReadRequest termRead = new ReadRequest();
    /**
     * What follows the Terminate's control word (RFC 5040 §4.8, siw_send_terminate): the DDP Segment
     * Length of the failed segment, then its DDP header, then its RDMAP header (a Read Request's),
     * as many bytes as {@link #termInfoLength}; with the M, D and R flags.
     */
    private final MemorySegment termInfo = MemorySegment.ofArray(new byte[TERM_INFO_MAX]);
    private static final int TERM_INFO_MAX = Terminate.SEGMENT_LENGTH_LENGTH + DdpHeader.UNTAGGED_LENGTH + ReadRequest.LENGTH;
    private int termInfoLength;
    private boolean termM;
    private boolean termD;
    private boolean termR;
    /** The FPDU being received, while {@link #rx} runs (null otherwise): its header is copied into a Terminate. */
    private MemorySegment rxFpdu;
    private long rxFpduOffset;
    private int rxFpduLength;
    private final SoftQp core;
    private final SiwAgent agent;
    private final RxHandler[] handlers = new RxHandler[16];
    /** Set while the CM moves the QP to RTR and RTS (a user's modify to them is refused, as siw's without a socket). */
    private boolean cmDriving;
    private SiwConnection conn;
    private int ird;
    private int ord;

    // transmit
    private long txIndex;
    private final int[] txMsn = new int[3];
    private final long[] orq = new long[MAX_ORD_IRD];
    private int orqHead;
    private int orqCount;
    private final int[] irqSinkStag = new int[MAX_ORD_IRD];
    private final long[] irqSinkTo = new long[MAX_ORD_IRD];
    private final long[] irqLength = new long[MAX_ORD_IRD];
    private final RemoteRange[] irqSource = new RemoteRange[MAX_ORD_IRD];
    private final long[] irqSourceOffset = new long[MAX_ORD_IRD];
    private final long[] irqSent = new long[MAX_ORD_IRD];
    /** The Read Request of each IRQ entry as received (source STag, TO and MSN), for a Terminate on a failed Read Response. */
    private final int[] irqSourceStag = new int[MAX_ORD_IRD];
    private final long[] irqSourceTo = new long[MAX_ORD_IRD];
    private final int[] irqMsn = new int[MAX_ORD_IRD];
    private int irqHead;
    private int irqCount;
    private boolean termPending;
    private boolean terminated;
    private int termLayer;
    private int termType;
    private int termCode;

    // receive
    private final int[] rxMsn = new int[3];
    private boolean recvActive;
    private long recvOffset;

    public SiwQp(SoftPd pd, QpInitAttr attr, int qpn, SiwAgent agent) {
        this.agent = agent;
        this.core = new SoftQp(pd, attr, qpn, this, SiwWqe::new);
        for (int i = 0; i < handlers.length; i++) {
            handlers[i] = this::rxUnexpected;
        }
        handlers[RdmapOpcode.RDMA_WRITE] = this::rxWrite;
        handlers[RdmapOpcode.RDMA_READ_REQUEST] = this::rxReadRequest;
        handlers[RdmapOpcode.RDMA_READ_RESPONSE] = this::rxReadResponse;
        handlers[RdmapOpcode.SEND] = this::rxSend;
        handlers[RdmapOpcode.SEND_WITH_INVALIDATE] = this::rxSend;
        handlers[RdmapOpcode.SEND_WITH_SE] = this::rxSend;
        handlers[RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE] = this::rxSend;
        handlers[RdmapOpcode.TERMINATE] = this::rxTerminate;
    }

    /** The device's I/O agent. */
    SiwAgent agent() {
        return agent;
    }

    /** The QP of the core. */
    public SoftQp core() {
        return core;
    }

    /** The SiwQp of a QP of an iWARP device, or null. */
    public static SiwQp of(org.jrdma.verbs.QueuePair qp) {
        return qp instanceof SoftQp s && s.transport() instanceof SiwQp q ? q : null;
    }

    // ---------------------------------------------------------------- QpTransport (QP lock held)

    @Override
    public Mtu portMaxMtu() {
        return Mtu.MTU_4096;
    }

    /**
     * siw moves a QP to RTS only with the connection's socket ({@code siw_qp_nextstate_from_idle}:
     * EINVAL without the LLP handle, which only the CM has); jrdma's CM moves it through RTR to RTS.
     * A user's modify to RTR, RTS or SQD is refused with EINVAL.
     */
    @Override
    public void checkModify(QpAttr attr, int mask, QpState from, QpState to) {
        if (!cmDriving && from != to && (to == QpState.RTR || to == QpState.RTS || to == QpState.SQD)) {
            throw new VerbsException(Errno.EINVAL, "an iWARP QP reaches " + to
                    + " through the connection manager (rdma_connect/rdma_accept), not ibv_modify_qp (siw: no socket)");
        }
    }

    @Override
    public void checkAddressVector(AhAttr av) {
        if (!cmDriving) {
            throw new VerbsException(Errno.EINVAL, "iWARP QPs have no address vector (the CM's TCP connection is the path)");
        }
    }

    /** What RDMAP carries (siw_post_send): SEND, SEND_WITH_INV, RDMA_WRITE, RDMA_READ (one sink SGE), LOCAL_INV. */
    @Override
    public void checkSend(SendWr wr) {
        WrOpcode op = wr.opcode();
        switch (op) {
            case SEND, SEND_WITH_INV, RDMA_WRITE, LOCAL_INV -> {
            }
            case RDMA_READ -> {
                if (wr.numSge() != 1) {
                    throw new VerbsException(Errno.EINVAL, "an iWARP RDMA READ has exactly one sink SGE (num_sge "
                            + wr.numSge() + "; siw max_sge_rd 1)");
                }
            }
            default -> throw new VerbsException(Errno.EINVAL, "ib wr type " + op + " unsupported (iWARP: no immediate "
                    + "data, atomics, FLUSH, ATOMIC_WRITE or memory windows, as siw)");
        }
    }

    @Override
    public void transition(QpState from, QpState to, int mask) {
        if (to == QpState.RTS && from == QpState.RTR) {
            txIndex = core.sendQueue().head();
            for (int i = 0; i < 3; i++) {
                txMsn[i] = 1;
                rxMsn[i] = 1;
            }
            orqHead = orqCount = irqHead = irqCount = 0;
            recvActive = false;
            recvOffset = 0;
            termPending = terminated = false;
        } else if (to == QpState.ERR && from != QpState.ERR) {
            SiwConnection c = conn;
            if (c != null) {
                if (termPending) {
                    pump(); // the Terminate goes out before the FIN
                }
                c.disconnect();
            }
        } else if (to == QpState.RESET) {
            SiwConnection c = conn;
            conn = null;
            if (c != null) {
                c.close(false);
            }
        }
    }

    @Override
    public void sendPosted() {
        pump();
    }

    /** iWARP has no RNR: a SEND that finds no receive WQE is a Terminate, so a post changes nothing here. */
    @Override
    public void recvPosted() {
    }

    @Override
    public void flushed() {
        txIndex = core.sendQueue().tail();
        orqHead = orqCount = 0;
        for (int i = 0; i < MAX_ORD_IRD; i++) {
            irqSource[i] = null;
        }
        irqHead = irqCount = 0;
        recvActive = false;
    }

    @Override
    public void destroyed() {
        SiwConnection c = conn;
        conn = null;
        if (c != null) {
            c.close(false);
        }
    }

    // ---------------------------------------------------------------- the CM's calls (CM thread, no QP lock)

    /**
     * The MPA exchange succeeded: the QP moves to RTS over {@code c} with the negotiated IRD and ORD
     * (siw {@code siw_qp_mpa_rts}). Called on the CM thread under the CM lock; takes the QP's lock.
     */
    void establish(SiwConnection c, int ird, int ord, boolean crc) {
        synchronized (core.lock()) {
            this.conn = c;
            this.ird = Math.max(0, Math.min(MAX_ORD_IRD, ird));
            this.ord = Math.max(0, Math.min(MAX_ORD_IRD, ord));
            c.bind(this, crc);
            cmDriving = true;
            try {
                QpAttr a = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(0).rqPsn(0)
                        .maxDestRdAtomic(this.ird).minRnrTimer(0);
                a.ahAttr().portNum(1);
                core.modify(a, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
                        | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
                a = new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(0).retryCnt(0).rnrRetry(0).maxRdAtomic(this.ord);
                core.modify(a, QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT
                        | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
            } finally {
                cmDriving = false;
            }
            pump(); // WRs posted before RTS are refused by the core; nothing waits, but keep the rule in one place
        }
        core.raiseCqErrors();
    }

    /**
     * The MPA reply's IRD does not cover the ORD asked for: a Terminate (layer, type, code) goes out
     * on {@code c} before the connection closes; the QP stays where it is (CM thread).
     */
    void establishForTerminate(SiwConnection c, int layer, int type, int code) {
        synchronized (core.lock()) {
            termLayer = layer;
            termType = type;
            termCode = code;
            termInfoLength = 0;
            termM = termD = termR = false;
            txMsn[DdpHeader.QN_TERMINATE] = 1;
            synchronized (c.txLock) {
                writeTerminate(c);
                c.flushLocked();
            }
        }
    }

    /**
     * The initiator's RTR frame in MPA peer-to-peer mode (RFC 6581 §5, siw_qp_mpa_rts with the Write
     * RTR): a zero-length RDMA WRITE with STag 1 and TO 0 (siw: "some HW may treat STag 0 special"),
     * ahead of every WR. CM thread, right after {@link #establish}; takes the QP's lock.
     */
    void sendRtrWrite() {
        synchronized (core.lock()) {
            SiwConnection c = conn;
            if (c == null) {
                return;
            }
            synchronized (c.txLock) {
                MemorySegment t = c.txSeg;
                int p = c.txPosition();
                txDdp.wrap(t, p + Mpa.HEADER_LENGTH).control(RdmapOpcode.RDMA_WRITE, true).stag(1).taggedOffset(0);
                c.commitFpdu(Iw.TAGGED_HDR - Mpa.HEADER_LENGTH);
                c.flushLocked();
            }
        }
        agent.counters().increment(SiwCounters.SENT_RTR);
    }

    /** {@code rdma_disconnect}: the QP goes to ERR (its WRs flush) and the connection ends with a FIN (CM thread). */
    void disconnect() {
        QpState s = core.state();
        if (s != QpState.ERR && s != QpState.RESET) {
            core.modify(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE);
        }
    }

    /** The IRD and ORD in use ({@code max_dest_rd_atomic}, {@code max_rd_atomic}). Under the lock. */
    int ird() {
        return ird;
    }

    int ord() {
        return ord;
    }

    // ---------------------------------------------------------------- the connection's calls (I/O thread)

    /** One whole FPDU (its ULPDU of {@code ulpduLen} bytes at {@code off + 2}). The connection's receiver (I/O or polling thread, receive lock held); takes the QP's lock. */
    boolean receive(MemorySegment s, long off, int ulpduLen) {
        boolean goOn;
        synchronized (core.lock()) {
            rxFpdu = s;
            rxFpduOffset = off;
            rxFpduLength = ulpduLen;
            try {
                goOn = rx(s, off, ulpduLen);
            } finally {
                rxFpdu = null;
            }
            if (termPending || irqCount > 0 || orqCount < ord) {
                pump();
            }
        }
        core.raiseCqErrors();
        return goOn;
    }

    /** The socket takes bytes again (I/O thread). */
    void resumeTransmit() {
        synchronized (core.lock()) {
            pump();
        }
        core.raiseCqErrors();
    }

    /** The TCP connection ended ({@code errno} 0: the peer's FIN): the QP goes to ERR (siw {@code siw_qp_llp_close}). */
    void llpClosed(int errno) {
        synchronized (core.lock()) {
            QpState st = core.state();
            if (st != QpState.ERR && st != QpState.RESET) {
                if (errno != 0) {
                    core.raiseAsyncEvent(AsyncEventType.QP_FATAL);
                }
                terminated = true; // nothing more can be sent
                core.enterError();
            }
        }
        core.raiseCqErrors();
    }

    /** A stream error below DDP (a bad MPA CRC): Terminate (I/O thread). */
    void llpError(int layer, int type, int code) {
        synchronized (core.lock()) {
            terminate(layer, type, code);
        }
        core.raiseCqErrors();
    }

    // ---------------------------------------------------------------- receive (QP lock held)

    private boolean rx(MemorySegment s, long off, int ulpduLen) {
        QpState st = core.state();
        if (terminated || termPending || (st != QpState.RTS && st != QpState.SQD)) {
            return false;
        }
        if (ulpduLen < DdpHeader.TAGGED_LENGTH) {
            return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC, TerminateCodes.DDP_CATASTROPHIC);
        }
        DdpHeader h = rxDdp.wrap(s, off + Mpa.HEADER_LENGTH);
        int op = h.opcode();
        boolean tagged = h.tagged();
        if (h.ddpVersion() != DdpHeader.DDP_VERSION) {
            return terminate(TerminateCodes.LAYER_DDP, tagged ? TerminateCodes.DDP_ETYPE_TAGGED_BUF : TerminateCodes.DDP_ETYPE_UNTAGGED_BUF,
                    tagged ? TerminateCodes.DDP_T_VERSION : TerminateCodes.DDP_UT_VERSION);
        }
        if (h.rdmapVersion() != RdmapOpcode.RDMAP_VERSION) {
            return terminate(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION, TerminateCodes.RDMAP_VERSION);
        }
        if (!RdmapOpcode.isValid(op) || tagged != RdmapOpcode.isTagged(op)) {
            return terminate(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION, TerminateCodes.RDMAP_OPCODE);
        }
        int payload = ulpduLen - h.length();
        if (payload < 0) {
            return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC, TerminateCodes.DDP_CATASTROPHIC);
        }
        return handlers[op].handle(s, off, payload, h.last() ? LAST : 0);
    }

    /** RDMA WRITE (tagged): placed into the region or window of the STag at TO (siw_proc_write). */
    private boolean rxWrite(MemorySegment s, long off, int len, int ctrl) {
        if (len == 0) {
            return true; // siw_proc_write: a zero-length WRITE (an MPA RTR frame) is not checked
        }
        int stag = rxDdp.stag();
        long to = rxDdp.taggedOffset();
        if ((core.attributes().qpAccessFlags() & AccessFlags.REMOTE_WRITE) == 0) {
            return accessError(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION, TerminateCodes.RDMAP_ACCESS_RIGHTS);
        }
        RemoteRange r = remote(stag, AccessFlags.REMOTE_WRITE);
        if (r == null) {
            return accessError(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF, TerminateCodes.DDP_T_INVALID_STAG);
        }
        long o = r.offsetOf(to, len);
        if (o < 0) {
            return accessError(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF, TerminateCodes.DDP_T_BASE_BOUNDS);
        }
        MemorySegment.copy(s, off + Iw.TAGGED_HDR, r.segment(), o, len);
        return true;
    }

    /** RDMA Read Request (untagged queue 1): checked and queued in the IRQ; the transmitter answers (siw_proc_rreq). */
    private boolean rxReadRequest(MemorySegment s, long off, int len, int ctrl) {
        if (!untaggedOk(s, off, DdpHeader.QN_READ_REQUEST, 0)) {
            return false;
        }
        if (len != ReadRequest.LENGTH || (ctrl & LAST) == 0) {
            return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_MSG_TOOLONG);
        }
        rxMsn[DdpHeader.QN_READ_REQUEST]++;
        if (irqCount >= ird) { // siw_init_rresp: "irq exceeded"
            return terminate(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION, TerminateCodes.RDMAP_CATASTROPHIC_STREAM);
        }
        ReadRequest rr = rxRead.wrap(s, off + Iw.UNTAGGED_HDR);
        int sinkStag = rr.sinkStag();
        long sinkTo = rr.sinkTaggedOffset();
        long size = rr.readSize() & 0xFFFF_FFFFL;
        int srcStag = rr.sourceStag();
        long srcTo = rr.sourceTaggedOffset();
        RemoteRange r = null;
        long o = 0;
        if (size > 0) { // siw: a zero-length READ (an MPA RTR frame) names no memory and is not checked
            if ((core.attributes().qpAccessFlags() & AccessFlags.REMOTE_READ) == 0) {
                return accessError(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION, TerminateCodes.RDMAP_ACCESS_RIGHTS);
            }
            r = remote(srcStag, AccessFlags.REMOTE_READ);
            if (r == null) {
                return accessError(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION, TerminateCodes.RDMAP_INVALID_STAG);
            }
            o = r.offsetOf(srcTo, size);
            if (o < 0) {
                return accessError(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION, TerminateCodes.RDMAP_BASE_BOUNDS);
            }
        }
        int i = (irqHead + irqCount) % MAX_ORD_IRD;
        irqSinkStag[i] = sinkStag;
        irqSinkTo[i] = sinkTo;
        irqLength[i] = size;
        irqSource[i] = r;
        irqSourceOffset[i] = o;
        irqSourceStag[i] = srcStag;
        irqSourceTo[i] = srcTo;
        irqMsn[i] = rxDdp.msn();
        irqSent[i] = 0;
        irqCount++;
        return true;
    }

    /** RDMA Read Response (tagged): into the sink SGE of the oldest READ in the ORQ (siw_proc_rresp). */
    private boolean rxReadResponse(MemorySegment s, long off, int len, int ctrl) {
        if (orqCount == 0) {
            return terminate(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION, TerminateCodes.RDMAP_OPCODE);
        }
        SendQueue sq = core.sendQueue();
        SiwWqe w = (SiwWqe) sq.entry(orq[orqHead]);
        int stag = rxDdp.stag();
        long to = rxDdp.taggedOffset();
        if (w.numSge != 1 || stag != w.sgeLkey[0]) {
            return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF, TerminateCodes.DDP_T_INVALID_STAG);
        }
        long mo = to - w.sgeAddr[0];
        if (mo < 0 || mo + len > w.length) {
            return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF, TerminateCodes.DDP_T_BASE_BOUNDS);
        }
        if (len > 0 && !sq.scatter(w, mo, s, off + Iw.TAGGED_HDR, len)) {
            finish(w, WcStatus.LOC_PROT_ERR);
            completeDone();
            return false;
        }
        if ((ctrl & LAST) != 0) {
            orqHead = (orqHead + 1) % MAX_ORD_IRD;
            orqCount--;
            finish(w, WcStatus.SUCCESS);
            completeDone();
        }
        return true;
    }

    /** SEND, SEND with SE, with Invalidate (untagged queue 0): into the receive WQE of its MSN at MO (siw_proc_send). */
    private boolean rxSend(MemorySegment s, long off, int len, int ctrl) {
        if (!untaggedOk(s, off, DdpHeader.QN_SEND, recvActive ? recvOffset : 0)) {
            return false;
        }
        if (!recvActive) {
            if (!core.takeRecvWqe()) {
                return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_INVALID_MSN_NOBUF);
            }
            RecvWqe r = core.recvWqe();
            WcStatus st = core.resolveRecvWqe(r);
            if (st != WcStatus.SUCCESS) {
                core.completeRecvHead(st, WcOpcode.RECV, 0, 0, 0, 0, false);
                return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC, TerminateCodes.DDP_CATASTROPHIC);
            }
            recvActive = true;
            recvOffset = 0;
        }
        RecvWqe r = core.recvWqe();
        if (recvOffset + len > r.length) {
            recvActive = false;
            core.completeRecvHead(WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_MSG_TOOLONG);
        }
        if (len > 0 && !core.scatterRecv(r, recvOffset, s, off + Iw.UNTAGGED_HDR, len)) {
            recvActive = false;
            core.completeRecvHead(WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC, TerminateCodes.DDP_CATASTROPHIC);
        }
        recvOffset += len;
        if ((ctrl & LAST) == 0) {
            return true;
        }
        rxMsn[DdpHeader.QN_SEND]++;
        recvActive = false;
        int op = rxDdp.opcode();
        boolean solicited = op == RdmapOpcode.SEND_WITH_SE || op == RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE;
        int flags = 0;
        int inv = 0;
        if (op == RdmapOpcode.SEND_WITH_INVALIDATE || op == RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE) {
            inv = rxDdp.invalidateStag();
            if (!invalidateStag(inv, true)) {
                core.completeRecvHead(WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, 0, 0, 0, 0, solicited);
                return accessError(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION, TerminateCodes.RDMAP_CANNOT_INVALIDATE);
            }
            flags = WcFlags.WITH_INV;
        }
        core.completeRecvHead(WcStatus.SUCCESS, WcOpcode.RECV, (int) recvOffset, inv, 0, flags, solicited);
        recvOffset = 0;
        return true;
    }

    /** A Terminate from the peer (untagged queue 2): the QP goes to ERR (siw_proc_terminate); nothing is sent back. */
    private boolean rxTerminate(MemorySegment s, long off, int len, int ctrl) {
        if (len >= Terminate.CONTROL_LENGTH && LOG.isDebugEnabled()) {
            Terminate t = rxTerm.wrap(s, off + Iw.UNTAGGED_HDR);
            LOG.debug("QP 0x{}: got TERMINATE layer {} type {} code 0x{}", Integer.toHexString(core.qpNum()),
                    t.layer(), t.etype(), Integer.toHexString(t.errorCode()));
        }
        agent.counters().increment(SiwCounters.RCVD_TERMINATES);
        Terminate rt = len >= Terminate.CONTROL_LENGTH ? rxTerm.wrap(s, off + Iw.UNTAGGED_HDR) : null;
        JrdmaEvents.terminate(core.deviceName(), core.qpNum(), false, rt == null ? -1 : rt.layer(),
                rt == null ? -1 : rt.etype(), rt == null ? -1 : rt.errorCode());
        terminated = true;
        core.raiseAsyncEvent(AsyncEventType.QP_FATAL);
        core.enterError();
        return false;
    }

    private boolean rxUnexpected(MemorySegment s, long off, int len, int ctrl) {
        return terminate(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION, TerminateCodes.RDMAP_OPCODE);
    }

    /** Checks an untagged header's QN, MSN and MO against what this queue expects; Terminates otherwise. */
    private boolean untaggedOk(MemorySegment s, long off, int qn, long mo) {
        if (rxDdp.queueNumber() != qn) {
            return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_INVALID_QN);
        }
        if (rxDdp.msn() != rxMsn[qn]) {
            return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_INVALID_MSN_RANGE);
        }
        if ((rxDdp.messageOffset() & 0xFFFF_FFFFL) != mo) {
            return terminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, TerminateCodes.DDP_UT_INVALID_MO);
        }
        return true;
    }

    /** A protection error: IBV_EVENT_QP_ACCESS_ERR (siw_qp_event) and a Terminate. */
    private boolean accessError(int layer, int type, int code) {
        core.raiseAsyncEvent(AsyncEventType.QP_ACCESS_ERR);
        return terminate(layer, type, code);
    }

    /**
     * Sends a Terminate with these codes, then the QP goes to ERR and the connection ends with a FIN
     * (siw_init_terminate, siw_send_terminate, siw_qp_cm_drop). Always false: stop receiving.
     */
    private boolean terminate(int layer, int type, int code) {
        return terminate(layer, type, code, -1);
    }

    /** {@link #terminate(int, int, int)}; {@code irq} ≥ 0: found while sending the Read Response of that IRQ entry. */
    private boolean terminate(int layer, int type, int code, int irq) {
        if (termPending || terminated) {
            return false;
        }
        LOG.debug("QP 0x{}: TERMINATE layer {} type {} code 0x{}", Integer.toHexString(core.qpNum()), layer, type,
                Integer.toHexString(code));
        termPending = true;
        termLayer = layer;
        termType = type;
        termCode = code;
        if (irq >= 0) {
            captureReadRequest(irq);
        } else {
            captureTermInfo();
        }
        pump();
        core.enterError();
        return false;
    }

    /**
     * What the Terminate reports of the FPDU in error, as siw_send_terminate: for a DDP error (but a
     * version error, whose layout is unknown) M and D with the segment's DDP header; for an RDMAP
     * remote protection error M, D and R with its DDP and RDMAP header (a Read Request's 46 bytes,
     * else 18: siw copies an untagged header's length even of a tagged segment); for another RDMAP
     * remote operation error (but version and opcode) M and D with the DDP header; nothing for
     * catastrophic RDMAP and LLP errors, nor when no FPDU is being received (an error found while
     * transmitting, see {@link #captureReadRequest}). The DDP Segment Length is the segment's ULPDU
     * length minus its DDP/RDMAP header (its payload, 16 bits). Under the QP lock.
     */
    private void captureTermInfo() {
        termInfoLength = 0;
        termM = termD = termR = false;
        if (rxFpdu == null) {
            return;
        }
        int copy;
        if (termLayer == TerminateCodes.LAYER_DDP) {
            if ((termType == TerminateCodes.DDP_ETYPE_TAGGED_BUF && termCode == TerminateCodes.DDP_T_VERSION)
                    || (termType == TerminateCodes.DDP_ETYPE_UNTAGGED_BUF && termCode == TerminateCodes.DDP_UT_VERSION)) {
                return;
            }
            copy = rxDdp.length();
        } else if (termLayer == TerminateCodes.LAYER_RDMAP && termType == TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION) {
            copy = rxDdp.opcode() == RdmapOpcode.RDMA_READ_REQUEST ? DdpHeader.UNTAGGED_LENGTH + ReadRequest.LENGTH
                    : DdpHeader.UNTAGGED_LENGTH;
            termR = true;
        } else if (termLayer == TerminateCodes.LAYER_RDMAP && termType != TerminateCodes.RDMAP_ETYPE_CATASTROPHIC
                && termCode != TerminateCodes.RDMAP_VERSION && termCode != TerminateCodes.RDMAP_OPCODE) {
            copy = rxDdp.length();
        } else {
            return;
        }
        termM = termD = true;
        int hdr = RdmapOpcode.headerLength(rxDdp.opcode());
        termInfo.set(BE16, 0, (short) (rxFpduLength - Math.max(hdr, 0)));
        int have = (int) Math.min(copy, rxFpduLength);
        termInfo.asSlice(Terminate.SEGMENT_LENGTH_LENGTH, copy).fill((byte) 0);
        MemorySegment.copy(rxFpdu, rxFpduOffset + Mpa.HEADER_LENGTH, termInfo, Terminate.SEGMENT_LENGTH_LENGTH, have);
        termInfoLength = Terminate.SEGMENT_LENGTH_LENGTH + copy;
    }

    /**
     * A Read Response could not be generated for IRQ entry {@code i} (its source went away): the
     * Terminate carries the peer's Read Request rebuilt from the IRQ entry (M, D, R; siw's in_tx
     * case: MSN as received, MO = bytes already sent, DDP Segment Length 0). Under the QP lock.
     */
    private void captureReadRequest(int i) {
        termM = termD = termR = true;
        termInfo.set(BE16, 0, (short) 0);
        termDdp.wrap(termInfo, Terminate.SEGMENT_LENGTH_LENGTH).control(RdmapOpcode.RDMA_READ_REQUEST, true).rsvdUlp(0)
                .queueNumber(DdpHeader.QN_READ_REQUEST).msn(irqMsn[i]).messageOffset((int) irqSent[i]);
        termRead.wrap(termInfo, Terminate.SEGMENT_LENGTH_LENGTH + DdpHeader.UNTAGGED_LENGTH).sinkStag(irqSinkStag[i])
                .sinkTaggedOffset(irqSinkTo[i]).readSize((int) irqLength[i]).sourceStag(irqSourceStag[i])
                .sourceTaggedOffset(irqSourceTo[i]);
        termInfoLength = TERM_INFO_MAX;
    }

    // ---------------------------------------------------------------- STags (QP lock held)

    /**
     * siw's {@code siw_invalidate_stag}: a remote (SEND with Invalidate) or local (LOCAL_INV)
     * invalidation of an STag of the QP's PD. siw invalidates any region's STag (it has no memory
     * windows); the soft core invalidates only bound type 2 windows, so a region's key is recorded as
     * invalid in the device's table ({@link SiwAgent#invalidatedMrs()}) and refused by
     * {@link #remote} from then on. Already invalid is fine (verbs: no state check).
     */
    private boolean invalidateStag(int stag, boolean remoteInv) {
        if (agent.resources().invalidate(core, stag, remoteInv)) {
            return true;
        }
        SoftMr mr = agent.resources().mrs.get(stag);
        if (mr == null || mr.softPd() != core.softPd() || !mr.isValid()) {
            return false;
        }
        KeyTable<SoftMr> t = agent.invalidatedMrs();
        SoftMr old = t.get(stag);
        if (old != mr) {
            if (old != null) {
                t.remove(stag);
            }
            t.putIfAbsent(stag, mr);
        }
        return true;
    }

    /** The memory a remote STag grants with {@code access} ({@link SoftQp#remoteRange}), unless it was invalidated. */
    private RemoteRange remote(int stag, int access) {
        RemoteRange r = core.remoteRange(stag, access);
        if (r instanceof SoftMr.Translation t && agent.invalidatedMrs().get(stag) == t.region()) {
            return null;
        }
        return r;
    }

    // ---------------------------------------------------------------- transmit (QP lock held)

    /** Writes what is owed and what the send queue holds while the socket takes it (siw_qp_sq_process). */
    private void pump() {
        SiwConnection c = conn;
        if (c == null || c.phase() != SiwConnection.Phase.RDMA) {
            return;
        }
        int room = Math.min(agent.mss(), 0xFFFF) + Iw.UNTAGGED_HDR + ReadRequest.LENGTH + 8;
        synchronized (c.txLock) {
            for (;;) {
                if (c.txRoom() < room) {
                    c.flushLocked();
                    if (c.txRoom() < room) {
                        break; // OP_WRITE resumes
                    }
                }
                if (termPending) {
                    writeTerminate(c);
                    termPending = false;
                    terminated = true;
                    c.finAfterFlush();
                    break;
                }
                if (terminated) {
                    break;
                }
                if (irqCount > 0) {
                    writeReadResponse(c);
                    continue;
                }
                if (!sqStep(c)) {
                    break;
                }
            }
            c.flushLocked();
        }
        completeDone();
    }

    /** One step of the send queue; false when nothing can go now. */
    private boolean sqStep(SiwConnection c) {
        SendQueue sq = core.sendQueue();
        if (txIndex == sq.tail() || core.state() != QpState.RTS) {
            return false;
        }
        SiwWqe w = (SiwWqe) sq.entry(txIndex);
        if (!w.started) {
            if ((w.sendFlags & SendFlags.FENCE) != 0 && orqCount > 0) {
                return false; // siw's read fence: wait for the READs in flight
            }
            if (w.opcode == WrOpcode.LOCAL_INV) {
                finish(w, invalidateStag(w.invalidateRkey, false) ? WcStatus.SUCCESS : WcStatus.LOC_QP_OP_ERR);
                txIndex++;
                return true;
            }
            if (w.opcode == WrOpcode.BIND_MW) {
                finish(w, core.executeLocalOperation(w));
                txIndex++;
                return true;
            }
            WcStatus st = sq.resolve(w, w.opcode == WrOpcode.RDMA_READ);
            if (st != WcStatus.SUCCESS) {
                finish(w, st);
                txIndex++;
                return false;
            }
            w.started = true;
        }
        switch (w.opcode) {
            case SEND, SEND_WITH_INV -> writeSend(c, sq, w);
            case RDMA_WRITE -> writeWrite(c, sq, w);
            case RDMA_READ -> {
                if (orqCount >= ord) {
                    return false; // ORQ full: siw's orq_fence
                }
                writeReadRequest(c, w);
                orq[(orqHead + orqCount) % MAX_ORD_IRD] = txIndex;
                orqCount++;
                txIndex++;
            }
            default -> {
                finish(w, WcStatus.LOC_QP_OP_ERR);
                txIndex++;
            }
        }
        return true;
    }

    /** Payload bytes of one FPDU behind {@code hdr} bytes of MPA length and DDP/RDMAP headers, in one TCP segment of the MSS (siw, {@link Mpa#maxPayload}). */
    private int segment(int hdr, long remaining) {
        return (int) Math.min(remaining, Mpa.maxPayload(agent.mss(), hdr - Mpa.HEADER_LENGTH));
    }

    private void writeSend(SiwConnection c, SendQueue sq, SiwWqe w) {
        int len = segment(Iw.UNTAGGED_HDR, w.length - w.sent);
        boolean last = w.sent + len == w.length;
        boolean se = (w.sendFlags & SendFlags.SOLICITED) != 0;
        boolean inv = w.opcode == WrOpcode.SEND_WITH_INV;
        int op = inv ? (se ? RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE : RdmapOpcode.SEND_WITH_INVALIDATE) : (se ? RdmapOpcode.SEND_WITH_SE : RdmapOpcode.SEND);
        MemorySegment t = c.txSeg;
        int p = c.txPosition();
        txDdp.wrap(t, p + Mpa.HEADER_LENGTH).control(op, last).rsvdUlp(inv ? w.invalidateRkey : 0)
                .queueNumber(DdpHeader.QN_SEND).msn(txMsn[DdpHeader.QN_SEND]).messageOffset((int) w.sent);
        if (len > 0 && !sq.gather(w, w.sent, t, p + Iw.UNTAGGED_HDR, len)) {
            finish(w, WcStatus.LOC_PROT_ERR);
            txIndex++;
            return;
        }
        c.commitFpdu(Iw.UNTAGGED_HDR - Mpa.HEADER_LENGTH + len);
        w.sent += len;
        if (last) {
            txMsn[DdpHeader.QN_SEND]++;
            finish(w, WcStatus.SUCCESS);
            txIndex++;
        }
    }

    private void writeWrite(SiwConnection c, SendQueue sq, SiwWqe w) {
        int len = segment(Iw.TAGGED_HDR, w.length - w.sent);
        boolean last = w.sent + len == w.length;
        MemorySegment t = c.txSeg;
        int p = c.txPosition();
        txDdp.wrap(t, p + Mpa.HEADER_LENGTH).control(RdmapOpcode.RDMA_WRITE, last).stag(w.rkey)
                .taggedOffset(w.remoteAddr + w.sent);
        if (len > 0 && !sq.gather(w, w.sent, t, p + Iw.TAGGED_HDR, len)) {
            finish(w, WcStatus.LOC_PROT_ERR);
            txIndex++;
            return;
        }
        c.commitFpdu(Iw.TAGGED_HDR - Mpa.HEADER_LENGTH + len);
        w.sent += len;
        if (last) {
            finish(w, WcStatus.SUCCESS);
            txIndex++;
        }
    }

    private void writeReadRequest(SiwConnection c, SiwWqe w) {
        MemorySegment t = c.txSeg;
        int p = c.txPosition();
        txDdp.wrap(t, p + Mpa.HEADER_LENGTH).control(RdmapOpcode.RDMA_READ_REQUEST, true).rsvdUlp(0)
                .queueNumber(DdpHeader.QN_READ_REQUEST).msn(txMsn[DdpHeader.QN_READ_REQUEST]++).messageOffset(0);
        txRead.wrap(t, p + Iw.UNTAGGED_HDR).sinkStag(w.sgeLkey[0]).sinkTaggedOffset(w.sgeAddr[0])
                .readSize((int) w.length).sourceStag(w.rkey).sourceTaggedOffset(w.remoteAddr);
        c.commitFpdu(Iw.UNTAGGED_HDR - Mpa.HEADER_LENGTH + ReadRequest.LENGTH);
    }

    private void writeReadResponse(SiwConnection c) {
        int i = irqHead;
        RemoteRange r = irqSource[i];
        long remaining = irqLength[i] - irqSent[i];
        if (r != null && !r.isAccessible()) {
            irqCount = 0;
            terminate(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION, TerminateCodes.RDMAP_INVALID_STAG, i);
            return;
        }
        int len = segment(Iw.TAGGED_HDR, remaining);
        boolean last = len == remaining;
        MemorySegment t = c.txSeg;
        int p = c.txPosition();
        txDdp.wrap(t, p + Mpa.HEADER_LENGTH).control(RdmapOpcode.RDMA_READ_RESPONSE, last).stag(irqSinkStag[i])
                .taggedOffset(irqSinkTo[i] + irqSent[i]);
        if (len > 0) {
            MemorySegment.copy(r.segment(), irqSourceOffset[i] + irqSent[i], t, p + Iw.TAGGED_HDR, len);
        }
        c.commitFpdu(Iw.TAGGED_HDR - Mpa.HEADER_LENGTH + len);
        irqSent[i] += len;
        if (last) {
            irqSource[i] = null;
            irqHead = (irqHead + 1) % MAX_ORD_IRD;
            irqCount--;
        }
    }

    private void writeTerminate(SiwConnection c) {
        MemorySegment t = c.txSeg;
        int p = c.txPosition();
        txDdp.wrap(t, p + Mpa.HEADER_LENGTH).control(RdmapOpcode.TERMINATE, true).rsvdUlp(0)
                .queueNumber(DdpHeader.QN_TERMINATE).msn(txMsn[DdpHeader.QN_TERMINATE]++).messageOffset(0);
        txTerm.wrap(t, p + Iw.UNTAGGED_HDR).controlWord(0).layer(termLayer).etype(termType).errorCode(termCode)
                .segmentLengthValid(termM).ddpHeaderIncluded(termD).rdmaHeaderIncluded(termR);
        if (termInfoLength > 0) {
            MemorySegment.copy(termInfo, 0, t, p + Iw.UNTAGGED_HDR + Terminate.CONTROL_LENGTH, termInfoLength);
        }
        c.commitFpdu(Iw.UNTAGGED_HDR - Mpa.HEADER_LENGTH + Terminate.CONTROL_LENGTH + termInfoLength);
        agent.counters().terminateSent(termLayer, termType, termCode);
        JrdmaEvents.terminate(core.deviceName(), core.qpNum(), true, termLayer, termType, termCode);
    }

    private static void finish(SiwWqe w, WcStatus status) {
        w.done = true;
        w.status = status;
    }

    /** Completes the done WQEs at the head of the send queue, in order; an error moves the QP to ERR. */
    private void completeDone() {
        SendQueue sq = core.sendQueue();
        while (!sq.isEmpty()) {
            SiwWqe w = (SiwWqe) sq.entry(sq.head());
            if (!w.done) {
                return;
            }
            WcStatus st = w.status;
            core.completeSendHead(st, (int) w.length, 0);
            if (st != WcStatus.SUCCESS) {
                core.enterError();
                return;
            }
        }
    }
}
