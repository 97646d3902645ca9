package org.jrdma.rocev2.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.RoceV2;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.soft.RecvWqe;
import org.jrdma.soft.SendWqe;
import org.jrdma.soft.SoftMr;
import org.jrdma.soft.SoftPd;
import org.jrdma.soft.SoftQp;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;

/**
 * An RC or UC queue pair of a software RoCE v2 device: the soft core's queues and state machine
 * plus the requester, responder and completer of IBTA Vol 1 chapter 9.
 *
 * <p>Threads: posting threads run the requester directly (a post sends what the window allows at
 * once); the device's I/O thread runs the responder and the completer as packets arrive, and the
 * timers. All of them hold {@link #lock}.
 */
public final class RxeQp extends SoftQp {
    /** The default P_Key (the only entry of the P_Key table). */
    static final int DEFAULT_PKEY = 0xFFFF;
    /** Largest RoCE packet jrdma builds: headers (BTH 12 + RETH 16 + ImmDt 4 ...) + 4096 payload + pad + ICRC. */
    static final int MAX_PACKET = 4096 + 128;
    static final long MAX_MSG_SIZE = 1L << 31;

    private final RxeAgent agent;
    final Requester requester;
    final Responder responder;
    final Completer completer;
    private final Icrc icrc = new Icrc();
    private final SockAddr peer = new SockAddr();
    private final SockAddr udPeer = new SockAddr();
    private boolean requesterPaused;
    /** The UDP source port this QP's packets carry (rxe's rule, {@link SourcePort}). */
    private int srcPort;
    /** Set while the QP is on the agent's list of QPs with an ACK to send. */
    boolean ackListed;

    public RxeQp(SoftPd pd, QpInitAttr attr, int qpn, RxeAgent agent) {
        super(pd, attr, qpn, agent.maxMtu());
        this.agent = agent;
        this.requester = new Requester(this);
        this.responder = new Responder(this);
        this.completer = new Completer(this);
    }

    @Override
    protected SendWqe newSendWqe(int maxSge, int maxInlineData) {
        return new RxeSendWqe(maxSge, maxInlineData);
    }

    @Override
    protected Mtu portMaxMtu() {
        return agent.maxMtu();
    }

    @Override
    protected void validateAv(AhAttr ah) {
        if (type == QpType.UD) {
            return;
        }
        if (ah.grh().sgidIndex() != 0) {
            throw new VerbsException(Errno.EINVAL, "sgid_index " + ah.grh().sgidIndex() + " outside the GID table (1 entry)");
        }
        Gid dgid = ah.grh().dgid();
        if (dgid.isIpv4Mapped() == agent.isIpv6()) {
            throw new VerbsException(Errno.EINVAL, "destination GID " + dgid + " is not of the device's IP version ("
                    + (agent.isIpv6() ? "IPv6" : "IPv4") + ")");
        }
    }

    // ------------------------------------------------------------------ state changes

    @Override
    protected void onModify(QpState from, QpState to, int mask) {
        if (to == QpState.RTR && from == QpState.INIT) {
            if (type != QpType.UD) {
                setPeer();
            }
            responder.reset(rqPsn);
        }
        if (type == QpType.UD && to == QpState.RTR && from == QpState.INIT) {
            responder.reset(0);
        }
        if (to == QpState.RTS && from == QpState.RTR) {
            requester.reset(sqPsn, sqHead);
            completer.reset(sqPsn);
            requesterPaused = false;
        }
        if (to == QpState.ERR) {
            completer.stopTimers();
        }
    }

    private void setPeer() {
        setAddress(peer, av.grh().dgid());
        srcPort = SourcePort.connected(qpn, destQpn, av.grh().flowLabel());
    }

    /** Sets {@code dst} to the IP address of a GID (IPv4-mapped as IPv4), UDP port 4791; allocation-free. */
    private static void setAddress(SockAddr dst, Gid g) {
        if (g.isIpv4Mapped()) {
            dst.setIpv4((g.byteAt(12) << 24) | (g.byteAt(13) << 16) | (g.byteAt(14) << 8) | g.byteAt(15),
                    RoceV2.UDP_PORT);
            return;
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = (hi << 8) | g.byteAt(i);
            lo = (lo << 8) | g.byteAt(8 + i);
        }
        dst.setIpv6(hi, lo, RoceV2.UDP_PORT);
    }

    @Override
    protected void onReset() {
        requesterPaused = false;
        completer.stopTimers();
    }

    @Override
    protected void onFlushed() {
        requester.flushed(sqTail);
    }

    @Override
    protected void onSendPosted() {
        requester.run();
        completer.sendPosted();
    }

    /** A thread that received in poll deferred its ACKs so that its reply could go first: send them now. */
    @Override
    protected void afterSendPosted() {
        agent.flushDeferredAcks();
    }

    @Override
    protected void onRecvPosted() {
    }

    /** ACKs that a polling thread deferred go out before the QP does (the peer would retry for ever). */
    @Override
    protected void beforeClose() {
        agent.flushOwedAcks();
    }

    @Override
    protected void onClose() {
        agent.qpClosed(this);
    }

    // ------------------------------------------------------------------ receive (I/O thread)

    /**
     * A validated packet for this QP arrived (receive dispatch filled {@code p}). Drops (counted)
     * what the QP must not accept: a wrong state, or a source other than the connected peer.
     */
    void receive(PacketInfo p) {
        synchronized (lock) {
            QpState s = state;
            int op = p.opcode;
            if (s != QpState.RTR && s != QpState.RTS && s != QpState.SQD) {
                agent.counters().increment(Counters.RCVD_DROP_QP_STATE);
                return;
            }
            if (Opcode.transport(op) != transportOf(type)) {
                agent.counters().increment(Counters.RCVD_DROP_WRONG_TRANSPORT);
                return;
            }
            if (type == QpType.UD) {
                responder.onDatagram(p);
                return;
            }
            if (!fromPeer(p.from)) {
                agent.counters().increment(Counters.RCVD_DROP_WRONG_PEER);
                return;
            }
            boolean isResponse = Opcode.isResponse(op);
            if (isResponse) {
                if (type != QpType.RC || s == QpState.RTR) {
                    agent.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE);
                    return;
                }
                completer.onResponse(p);
            } else {
                responder.onRequest(p);
            }
        }
    }

    private static int transportOf(QpType t) {
        return switch (t) {
            case RC -> Opcode.TRANSPORT_RC;
            case UC -> Opcode.TRANSPORT_UC;
            case UD -> Opcode.TRANSPORT_UD;
        };
    }

    private boolean fromPeer(SockAddr from) {
        if (peer.isIpv6()) {
            return from.ipv6Hi() == peer.ipv6Hi() && from.ipv6Lo() == peer.ipv6Lo();
        }
        return from.ipv4() == peer.ipv4();
    }

    /** Timers, from the I/O thread. */
    void onTimer(long now) {
        synchronized (lock) {
            if (state == QpState.RTS || state == QpState.SQD) {
                completer.onTimer(now);
            }
        }
    }

    boolean hasTimer() {
        return completer.hasTimer();
    }

    /**
     * The earliest of the QP's timer deadlines (retransmission, RNR wait), System.nanoTime ns, or 0
     * when no timer runs. Under the QP's lock.
     */
    long nextDeadline() {
        return completer.nextDeadline();
    }

    /** The roles call this (under the lock) whenever they set or clear a deadline. */
    void timerChanged() {
        agent.timerChanged(this);
    }

    /** Whether retry_cnt 7 retries without limit on this QP's device (rdma_rxe's reading). */
    boolean retryCnt7Unlimited() {
        return agent.retryCnt7Unlimited();
    }

    void flushAck() {
        synchronized (lock) {
            ackListed = false;
            responder.flushAck();
        }
    }

    // ------------------------------------------------------------------ services for the roles

    /**
     * Adds the ICRC and sends a packet of {@code len} bytes (BTH to pad) to the peer. The ICRC is
     * computed over the IP and UDP headers the packet will carry: its source port and, over IPv4,
     * the Identification the port will write (or a guess of 0 with DF, which a jrdma receiver
     * recovers but Linux does not accept: IPv4 towards Linux needs the raw port).
     */
    void transmit(PacketBuffer buf, int len) {
        transmitTo(buf, len, peer, srcPort);
    }

    /** Sends a UD packet (ICRC added) to the address of a WQE's address handle. */
    void transmitDatagram(PacketBuffer buf, int len, RxeSendWqe w) {
        setAddress(udPeer, w.udAv.grh().dgid());
        transmitTo(buf, len, udPeer, SourcePort.datagram(qpn));
    }

    private void transmitTo(PacketBuffer buf, int len, SockAddr dst, int requestedSport) {
        int sport = agent.port().sourcePort(requestedSport);
        int id = 0;
        int ic;
        if (dst.isIpv6()) {
            ic = icrc.ipv6(agent.ipv6Hi(), agent.ipv6Lo(), dst.ipv6Hi(), dst.ipv6Lo(), sport, RoceV2.UDP_PORT, buf, 0, len);
        } else {
            id = agent.port().nextIpv4Id();
            ic = icrc.ipv4(agent.ipv4(), dst.ipv4(), id, 0x4000, sport, RoceV2.UDP_PORT, buf, 0, len);
        }
        Icrc.write(buf, len, ic);
        agent.send(buf, len + 4, dst, sport, id);
    }

    /** True when a UD destination GID is of the device's IP version. */
    boolean sameFamily(org.jrdma.verbs.Gid g) {
        return g.isIpv4Mapped() != agent.isIpv6();
    }

    /** The largest UD message, bytes: the port's active MTU. */
    int udMtuBytes() {
        return agent.activeMtu().bytes();
    }

    int qkey() {
        return qkey;
    }

    int qpn() {
        return qpn;
    }

    /** Writes the 40-byte GRH area into {@code grh} (then scattered to the receive buffer). */
    void writeGrh(MemorySegment grh, SockAddr from, int udpPayload) {
        agent.writeGrh(grh, 0, from, udpPayload);
    }

    void completeDatagram(int byteLen, boolean imm, int immValue, int srcQp, boolean solicited) {
        RecvWqe r = rq[(int) (rqHead & rqMask)];
        recvCq.push(r.wrId, WcStatus.SUCCESS, WcOpcode.RECV, byteLen, immValue, qpn, srcQp,
                WcFlags.GRH | (imm ? WcFlags.WITH_IMM : 0), 0, solicited);
        rqHead++;
    }

    Counters counters() {
        return agent.counters();
    }

    int mtuBytes() {
        return pathMtu.bytes();
    }

    QpType type() {
        return type;
    }

    int destQpn() {
        return destQpn;
    }

    int maxRdAtomic() {
        return maxRdAtomic;
    }

    int retryCnt() {
        return retryCnt;
    }

    int rnrRetry() {
        return rnrRetry;
    }

    int minRnrTimer() {
        return minRnrTimer;
    }

    /** The local ACK timeout, 4.096 µs × 2^timeout, in ns; 0 = none (IBTA Vol 1 §9.7.6.1.3). */
    long timeoutNanos() {
        return timeout == 0 ? 0 : 4096L << timeout;
    }

    boolean canSend() {
        return !requesterPaused && (state == QpState.RTS);
    }

    void pauseRequester(boolean paused) {
        requesterPaused = paused;
    }

    long sqHead() {
        return sqHead;
    }

    long sqTail() {
        return sqTail;
    }

    RxeSendWqe sqEntry(long index) {
        return (RxeSendWqe) sq[(int) (index & sqMask)];
    }

    long rqHead() {
        return rqHead;
    }

    long rqTail() {
        return rqTail;
    }

    RecvWqe rqEntry(long index) {
        return rq[(int) (index & rqMask)];
    }

    WcStatus resolveWqe(RxeSendWqe w, boolean localWrite) {
        return resolve(w, localWrite);
    }

    WcStatus resolveRecv(RecvWqe r) {
        return resolve(r);
    }

    void gatherPayload(RxeSendWqe w, long msgOff, MemorySegment dst, long dstOff, int len) {
        gather(w, msgOff, dst, dstOff, len);
    }

    void scatterToWqe(RxeSendWqe w, long msgOff, MemorySegment src, long srcOff, int len) {
        scatter(w, msgOff, src, srcOff, len);
    }

    void scatterToRecv(RecvWqe r, long msgOff, MemorySegment src, long srcOff, int len) {
        scatter(r, msgOff, src, srcOff, len);
    }

    /** Stores an atomic's original remote value, in host byte order, into the WQE's 8-byte SGE. */
    void writeAtomicResult(RxeSendWqe w, long orig) {
        SoftMr mr = w.sgeMr[0];
        mr.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, w.sgeAddr[0] - mr.addr(), orig);
    }

    /** True when the QP's access flags enable the remote operation {@code access} (REMOTE_WRITE / READ / ATOMIC). */
    boolean qpAllows(int access) {
        return (qpAccessFlags & access) == access;
    }

    /**
     * The region named by a remote key, if it is valid, belongs to this QP's PD, grants
     * {@code access} and its memory is still allocated (its segment's scope alive: an Arena closed
     * under a live MR frees it); null otherwise (the responder then NAKs with remote access error).
     */
    SoftMr remoteMr(int rkey, int access) {
        SoftMr mr = pd.softContext().resources().mrs.get(rkey);
        if (mr == null || mr.softPd() != pd || !mr.isValid() || !mr.allows(access)
                || !mr.segment().scope().isAlive()) {
            return null;
        }
        return mr;
    }

    void retireSendHead(WcStatus status, int byteLen, int vendorErr) {
        completeSendHead(status, byteLen, vendorErr);
    }

    void completeRecvHead(WcOpcode opcode, int byteLen, boolean imm, int immValue, boolean solicited) {
        RecvWqe r = rq[(int) (rqHead & rqMask)];
        recvCq.push(r.wrId, WcStatus.SUCCESS, opcode, byteLen, immValue, qpn, destQpn, imm ? WcFlags.WITH_IMM : 0, 0,
                solicited);
        rqHead++;
    }

    void completeRecvHeadError(WcStatus status) {
        RecvWqe r = rq[(int) (rqHead & rqMask)];
        recvCq.push(r.wrId, status, WcOpcode.RECV, 0, 0, qpn, destQpn, 0, 0, false);
        rqHead++;
    }

    void enterErrorState() {
        enterError();
    }

    void ackScheduled() {
        if (!ackListed) {
            ackListed = true;
            agent.scheduleAck(this);
        }
    }
}
