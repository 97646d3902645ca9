package org.jrdma.rocev2.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.RoceV2;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.soft.QpAttributes;
import org.jrdma.soft.QpTransport;
import org.jrdma.soft.RecvWqe;
import org.jrdma.soft.RemoteRange;
import org.jrdma.soft.SendQueue;
import org.jrdma.soft.SoftMr;
import org.jrdma.soft.SoftPd;
import org.jrdma.soft.SoftQp;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;

/**
 * The RoCE v2 transport of a software QP (RC, UC or UD): the requester, responder and completer
 * of IBTA Vol 1 chapter 9 over the soft core's {@link SoftQp} (its queues, attributes and state
 * machine), which calls this class through {@link QpTransport}. Keeps what only RoCE needs: the
 * checks of the IB transport attributes and of the address vector (a GRH), the peer's address,
 * the UDP source port, the ICRC.
 *
 * <p>Threads: posting threads run the requester directly (a post sends what the window allows at
 * once); the device's I/O thread (or an application thread receiving in {@code poll}) runs the
 * responder and the completer as packets arrive, and the timers. All of them hold the core QP's
 * lock ({@link SoftQp#lock()}); the roles are only called with it held.
 */
public final class RxeQp implements QpTransport {
    /** The default P_Key (the only entry of the P_Key table). */
    static final int DEFAULT_PKEY = 0xFFFF;
    /** Largest RoCE packet jrdma builds: headers (BTH 12 + RETH 16 + ImmDt 4 ...) + 4096 payload + pad + ICRC. */
    static final int MAX_PACKET = 4096 + 128;
    static final long MAX_MSG_SIZE = 1L << 31;

    /**
     * Unwinds a role when the memory of a local region was freed during a copy (its Arena closed
     * under a live MR); the entry point that ran the role completes the WQE with LOC_PROT_ERR.
     */
    private static final class MemoryFreed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MemoryFreed() {
            super("memory of a local MR freed during a copy", null, false, false);
        }
    }

    private static final MemoryFreed MEMORY_FREED = new MemoryFreed();

    private final SoftQp core;
    private final Object lock;
    private final SendQueue sq;
    private final QpAttributes attrs;
    private final QpType type;
    private final int qpn;
    private final SoftPd pd;
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
    /** The send WQE whose memory was freed during a copy (see {@link MemoryFreed}), or null. */
    private RxeSendWqe freedSend;
    /** The head receive WQE's memory was freed during a copy. */
    private boolean freedRecv;

    // ------------------------------------------------------------------ issue 16: DCQCN
    /** How far ahead of its rate a paced QP may send (a short train), ns. */
    static final long PACE_BURST_NANOS = 25_000;
    /**
     * The longest a paced requester waits before the rate is looked at again, ns: the rate recovers
     * on its timers meanwhile, and a wait computed at a cut rate must not outlast the cut.
     */
    static final long PACE_MAX_WAIT_NANOS = 500_000;
    /** The notification point (CE-marked packets in, CNPs out), null for UD or with ECN off; receiving thread. */
    private final org.jrdma.congestion.DcqcnNotificationPoint np;
    /** The reaction point (CNPs in, rate out), null for UD or with DCQCN off; under the lock. */
    private final org.jrdma.congestion.DcqcnReactionPoint rp;
    /** The reaction point's line rate, bit/s. */
    private final double lineRateBps;
    /** A CNP was taken: the byte counter and the rate must be kept (one branch per packet before that). */
    boolean ccActive;
    /** The rate is below line rate: packets leave no faster than it (under the lock). */
    private boolean paced;
    /**
     * The paced requester's credit, bytes (a token bucket filled at the current rate, at most
     * {@link #PACE_BURST_NANOS} of it; a packet may go while it is not negative), and when it was
     * last filled (System.nanoTime ns). Under the lock.
     */
    private double creditBytes;
    private long creditAt;
    /** The last time handed to the reaction point (its clock must not go backwards). */
    private long ccLastNanos = Long.MIN_VALUE;
    /** The current rate for readers on other threads ({@code jrdma stat}), bit/s. */
    private volatile double publishedRateBps;
    /** When the pacer is to run the requester again (System.nanoTime ns), read by the I/O thread. */
    volatile long paceDeadline;
    /** 1 while on the device's {@link Pacer} (CAS by the pacer). */
    volatile int paceQueued;
    /** The next QP on the pacer's stack of added QPs. */
    RxeQp paceNext;

    /** Creates the transport and its core QP (in RESET). */
    public RxeQp(SoftPd pd, QpInitAttr attr, int qpn, RxeAgent agent) {
        this.agent = agent;
        this.pd = pd;
        this.type = attr.qpType();
        this.qpn = qpn;
        this.core = new SoftQp(pd, attr, qpn, this, RxeSendWqe::new);
        this.lock = core.lock();
        this.sq = core.sendQueue();
        this.attrs = core.attributes();
        this.requester = new Requester(this);
        this.responder = new Responder(this);
        this.completer = new Completer(this);
        boolean connected = type != QpType.UD;
        this.np = connected && agent.ecn() ? new org.jrdma.congestion.DcqcnNotificationPoint(agent.cnpIntervalNanos())
                : null;
        this.rp = connected && agent.dcqcn() != null
                ? new org.jrdma.congestion.DcqcnReactionPoint(agent.dcqcn(), agent.lineRateBps()) : null;
        this.lineRateBps = agent.lineRateBps();
        this.publishedRateBps = lineRateBps;
    }

    /** The core QP (what the application holds as its {@code QueuePair}). */
    public SoftQp core() {
        return core;
    }

    // ------------------------------------------------------------------ QpTransport (under the lock)

    @Override
    public Mtu portMaxMtu() {
        return agent.maxMtu();
    }

    /** The IB transport attributes' ranges (IBTA Vol 1 §11.2.5; ibv_modify_qp(3)). */
    @Override
    public void checkModify(QpAttr a, int mask, QpState from, QpState to) {
        if ((mask & QpAttrMask.TIMEOUT) != 0) {
            QpAttributes.require(a.timeout() >= 0 && a.timeout() <= 31, "timeout " + a.timeout() + " not in 0..31");
        }
        if ((mask & QpAttrMask.RETRY_CNT) != 0) {
            QpAttributes.require(a.retryCnt() >= 0 && a.retryCnt() <= 7, "retry_cnt " + a.retryCnt() + " not in 0..7");
        }
        if ((mask & QpAttrMask.RNR_RETRY) != 0) {
            QpAttributes.require(a.rnrRetry() >= 0 && a.rnrRetry() <= 7, "rnr_retry " + a.rnrRetry() + " not in 0..7");
        }
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0) {
            QpAttributes.require(a.minRnrTimer() >= 0 && a.minRnrTimer() <= 31, "min_rnr_timer " + a.minRnrTimer() + " not in 0..31");
        }
    }

    /** RoCE routes by GID: the address vector needs a GRH with a destination GID of the device's IP version. */
    @Override
    public void checkAddressVector(AhAttr ah) {
        QpAttributes.require(ah.isGlobal() && !ah.grh().dgid().isZero(),
                "RoCE needs a GRH with a destination GID in the address vector");
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

    @Override
    public void transition(QpState from, QpState to, int mask) {
        // PSNs are 24 bits (BTH); rxe keeps attr.rq_psn / sq_psn masked too
        if ((mask & QpAttrMask.RQ_PSN) != 0) {
            attrs.rqPsn(attrs.rqPsn() & 0xFFFFFF);
        }
        if ((mask & QpAttrMask.SQ_PSN) != 0) {
            attrs.sqPsn(attrs.sqPsn() & 0xFFFFFF);
        }
        if (to == QpState.RTR && from == QpState.INIT) {
            if (type != QpType.UD) {
                setPeer();
            }
            responder.reset(type == QpType.UD ? 0 : attrs.rqPsn());
            commEstRaised = false;
        }
        if (to == QpState.SQD && from == QpState.RTS) {
            sqDrainedRaised = false;
            checkSqDrained();
        }
        if (to == QpState.RTS && from == QpState.RTR) {
            requester.reset(attrs.sqPsn(), sq.head());
            completer.reset(attrs.sqPsn());
            requesterPaused = false;
        }
        if (to == QpState.ERR) {
            dropDeferred();
            completer.stopTimers();
        }
        if (to == QpState.RESET && from != QpState.RESET) {
            dropDeferred();
            requesterPaused = false;
            completer.stopTimers();
        }
    }

    private void setPeer() {
        setAddress(peer, attrs.av().grh().dgid());
        srcPort = SourcePort.connected(qpn, attrs.destQpn(), attrs.av().grh().flowLabel());
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
    public void flushed() {
        requester.flushed(sq.tail());
    }

    @Override
    public void sendPosted() {
        try {
            requester.run(true);
            completer.sendPosted();
        } catch (MemoryFreed e) {
            memoryFreed();
        }
    }

    /** A thread that received in poll deferred its ACKs so that its reply could go first: send them now. */
    @Override
    public void afterSendPosted() {
        agent.flushDeferredAcks();
    }

    @Override
    public void recvPosted() {
    }

    /** ACKs that a polling thread deferred go out before the QP does (the peer would retry for ever). */
    @Override
    public void beforeDestroy() {
        agent.flushOwedAcks();
        synchronized (lock) {
            flushDeferred(); // what was posted leaves, as it would have without coalescing
        }
    }

    @Override
    public void destroyed() {
        agent.qpClosed(this);
    }

    /**
     * A role's copy found the memory of a local region freed: the WQE completes with LOC_PROT_ERR
     * (in order: a send WQE behind unfinished ones is marked and completed by the completer when it
     * reaches the head) and the QP moves to ERR; a UD receive fails alone, as a UD QP does on
     * LOC_PROT_ERR.
     */
    private void memoryFreed() {
        if (freedRecv) {
            freedRecv = false;
            completeRecvHeadError(WcStatus.LOC_PROT_ERR);
            if (type != QpType.UD) {
                enterErrorState();
            }
        }
        RxeSendWqe w = freedSend;
        if (w != null) {
            freedSend = null;
            if (!sq.isEmpty() && sqEntry(sq.head()) == w) {
                retireSendHead(WcStatus.LOC_PROT_ERR, 0, 0);
                enterErrorState();
            } else {
                w.wqeState = RxeSendWqe.LOCAL_ERROR;
                w.localStatus = WcStatus.LOC_PROT_ERR;
            }
        }
    }

    // ------------------------------------------------------------------ receive (I/O thread)

    /**
     * A validated packet for this QP arrived (receive dispatch filled {@code p}). Drops (counted)
     * what the QP must not accept: a wrong state, or a source other than the connected peer.
     */
    void receive(PacketInfo p) {
        synchronized (lock) {
            try {
                dispatch(p);
            } catch (MemoryFreed e) {
                memoryFreed();
            }
        }
        core.raiseCqErrors();
    }

    private void dispatch(PacketInfo p) {
        QpState s = core.state();
        int op = p.opcode;
        if (op == Opcode.CNP) {
            onCnp(p, s);
            return;
        }
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
        if (p.ce && np != null) {
            congestionExperienced();
        }
        boolean isResponse = Opcode.isResponse(op);
        if (s == QpState.RTR && !isResponse && !commEstRaised) {
            commEstRaised = true; // IBTA Vol 1 §11.6.3.1: the first packet on a QP in RTR
            core.raiseAsyncEvent(AsyncEventType.COMM_EST);
        }
        if (isResponse) {
            if (type != QpType.RC || s == QpState.RTR) {
                agent.counters().increment(Counters.RCVD_DROP_UNEXPECTED_RESPONSE);
                return;
            }
            flushDeferred(); // a response: the packets waiting for one go now, before what it makes the requester send
            completer.onResponse(p);
        } else {
            responder.onRequest(p);
        }
    }

    // ------------------------------------------------------------------ issue 16: DCQCN (under the lock)

    /**
     * The notification point: a packet from the peer arrived marked CE; unless this QP sent a CNP
     * within the interval, a CNP goes to the peer's QP now (receiving thread, under the receive lock).
     */
    private void congestionExperienced() {
        if (np.onCongestionExperienced(System.nanoTime())) {
            PacketBuffer b = agent.cnpBuffer();
            org.jrdma.rocev2.wire.Cnp.write(b.seg, 0, attrs.destQpn(), DEFAULT_PKEY);
            transmit(b, org.jrdma.rocev2.wire.Cnp.LENGTH);
            agent.counters().increment(Counters.NP_CNP_SENT);
        }
    }

    /**
     * The reaction point: a CNP for this QP arrived. Taken when DCQCN runs on the device, the QP is
     * connected, sends (RTS, SQD) and the CNP comes from its peer; else ignored ({@code rp_cnp_ignored}).
     */
    private void onCnp(PacketInfo p, QpState s) {
        if (rp == null || (s != QpState.RTS && s != QpState.SQD) || !fromPeer(p.from)) {
            agent.counters().increment(Counters.RP_CNP_IGNORED);
            return;
        }
        long now = ccNow();
        rp.onCnp(now);
        agent.counters().increment(Counters.RP_CNP_HANDLED);
        ccActive = true;
        rateChanged(rp.currentRateBps(), now);
    }

    /** System.nanoTime, never before the last time given to the reaction point. */
    private long ccNow() {
        long t = System.nanoTime();
        if (t - ccLastNanos < 0 && ccLastNanos != Long.MIN_VALUE) {
            t = ccLastNanos;
        }
        ccLastNanos = t;
        return t;
    }

    private void rateChanged(double rate, long now) {
        publishedRateBps = rate;
        boolean below = rate < lineRateBps;
        if (below && !paced) {
            creditBytes = 0;
            creditAt = now;
        }
        paced = below;
    }

    /** Fills the credit at {@code rate} for the time since it was last filled, up to the burst. */
    private void accrue(double rate, long now) {
        creditBytes = Math.min(creditBytes + (now - creditAt) * rate / 8e9, rate * PACE_BURST_NANOS / 8e9);
        creditAt = now;
    }

    /**
     * Whether the requester may send the next packet now (before each packet). One branch while the
     * QP runs at line rate; when paced, the rate's timers run and the packet may go if it is due
     * by its credit (a token bucket at the rate, {@link #PACE_BURST_NANOS} deep); if not, the device's
     * pacer runs the requester again when it is, or after {@link #PACE_MAX_WAIT_NANOS} at most, when
     * the rate (which recovers on its timers) is looked at again ({@link Pacer}).
     */
    boolean mayTransmit() {
        if (!paced) {
            return true;
        }
        long now = ccNow();
        double rate = rp.rateBps(now);
        rateChanged(rate, now);
        if (!paced) {
            return true;
        }
        accrue(rate, now);
        if (creditBytes >= 0) {
            return true;
        }
        long wait = (long) (-creditBytes * 8e9 / rate);
        paceDeadline = now + Math.max(1_000, Math.min(wait, PACE_MAX_WAIT_NANOS));
        agent.pace(this);
        return false;
    }

    /** The requester laid a packet of {@code bytes} (UDP payload) in its train: the byte counter and the rate's clock. */
    void packetSent(int bytes) {
        if (!ccActive) {
            return;
        }
        long now = ccNow();
        rp.onSent(now, bytes);
        double rate = rp.currentRateBps();
        rateChanged(rate, now);
        if (paced) {
            accrue(rate, now);
            creditBytes -= bytes + 48; // the packet with its IP and UDP headers
        }
    }

    /** The pacer's call (I/O thread, no lock held): the requester's next packet is due. */
    void resumePaced() {
        synchronized (lock) {
            try {
                requester.run();
            } catch (MemoryFreed e) {
                memoryFreed();
            }
        }
        core.raiseCqErrors();
    }

    /** The current DCQCN rate in bit/s (line rate before any CNP or with DCQCN off); any thread. */
    public double dcqcnRateBps() {
        return publishedRateBps;
    }

    /** The reaction point (RC/UC with DCQCN on), or null; read it under the QP's lock or in tests. */
    org.jrdma.congestion.DcqcnReactionPoint reactionPoint() {
        return rp;
    }

    /**
     * The reaction point's state now (its timers run up to now), or null without one; control path
     * (takes the QP's lock, allocates).
     */
    public org.jrdma.verbs.ext.CongestionControl.QpRate dcqcnState() {
        if (rp == null) {
            return null;
        }
        synchronized (lock) {
            if (ccActive) {
                long now = ccNow();
                rateChanged(rp.rateBps(now), now);
            }
            return new org.jrdma.verbs.ext.CongestionControl.QpRate(qpn, rp.parameters().name(), rp.currentRateBps(),
                    rp.targetRateBps(), rp.alpha(), rp.cnpHandled(), lineRateBps);
        }
    }

    /** Whether this QP has a reaction point (RC/UC with DCQCN on). */
    public boolean hasReactionPoint() {
        return rp != null;
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
            QpState s = core.state();
            if (deferred != null) { // its deadline, or a retransmission or probe timer: the waiting packets go first
                flushDeferred();
                timerChanged();
            }
            if (s == QpState.RTS || s == QpState.SQD) {
                try {
                    completer.onTimer(now);
                } catch (MemoryFreed e) {
                    memoryFreed();
                }
            }
        }
        core.raiseCqErrors();
    }

    /**
     * The earliest of the QP's timer deadlines (retransmission, RNR wait), System.nanoTime ns, or 0
     * when no timer runs. Under the QP's lock.
     */
    long nextDeadline() {
        long c = completer.nextDeadline();
        if (deferred == null || (c != 0 && c - deferredDeadline <= 0)) {
            return c;
        }
        return deferredDeadline;
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
        core.raiseCqErrors();
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

    /**
     * Sends the requester's train to the peer (issue 14): computes each packet's ICRC over the IP
     * and UDP headers it will carry (its source port and, over IPv4, the Identification the port
     * will write for it, or 0 where the kernel chooses: {@link PacketPort#nextIpv4Ids}) and hands
     * the whole train to the port at once ({@link PacketPort#sendTrain}: one UDP GSO call, or one
     * {@code sendmmsg(2)} on the raw port); then empties it. Under the QP's lock.
     */
    void flushTrain(PacketTrain train) {
        int n = train.count();
        if (n == 0) {
            return;
        }
        PacketBuffer buf = train.buffer();
        int seg = train.segmentSize();
        int sport = agent.port().sourcePort(srcPort);
        int firstId = 0;
        if (peer.isIpv6()) {
            for (int i = 0, at = 0; i < n; i++, at += seg) {
                int len = train.length(i) - Icrc.LENGTH;
                Icrc.write(buf, at + len, icrc.ipv6(agent.ipv6Hi(), agent.ipv6Lo(), peer.ipv6Hi(), peer.ipv6Lo(), sport,
                        RoceV2.UDP_PORT, buf, at, len));
            }
        } else {
            firstId = agent.port().nextIpv4Ids(n);
            for (int i = 0, at = 0; i < n; i++, at += seg) {
                int len = train.length(i) - Icrc.LENGTH;
                int id = firstId == 0 ? 0 : (firstId + i) & 0xFFFF;
                Icrc.write(buf, at + len, icrc.ipv4(agent.ipv4(), peer.ipv4(), id, 0x4000, sport, RoceV2.UDP_PORT,
                        buf, at, len));
            }
        }
        try {
            agent.sendTrain(buf, seg, n, train.lastLength(), peer, sport, firstId);
        } finally {
            train.clear();
            if (deferred == train) {
                deferred = null;
                deferredDeadline = 0;
                train.owner = null; // last: the owning thread may take the train for another QP again
            }
        }
    }

    // ------------------------------------------------------------------ issue 14: small packets coalesced across posts

    /**
     * The train that holds this QP's packets between posts (a posting thread's, see
     * {@link Requester#run(boolean)}), or null. Under the QP's lock.
     */
    private PacketTrain deferred;
    /** When the I/O thread sends a deferred train at the latest (System.nanoTime ns), 0 when none. */
    private long deferredDeadline;

    /**
     * Leaves {@code train} (the posting thread's, holding this QP's newest packets) unsent, for the
     * next post to this QP to add to (issue 14, TCP's Nagle rule in RDMA terms: small packets wait
     * only while earlier ones are unacknowledged). It leaves at the first of: full or another size
     * ({@link Requester}), a response ({@link #receive}), a run of the requester in another thread,
     * the posting thread polling an empty CQ or blocking for an event ({@link PacketTrain#flushDeferred}),
     * any timer of the QP (after {@code jrdma.coalesceMicros} at the latest, default 1 ms: {@link org.jrdma.rocev2.DeviceOptions#coalesceNanos}), a rewind, the QP being destroyed;
     * it is dropped when the QP leaves RTS for ERR or RESET. Under the QP's lock.
     */
    void deferTrain(PacketTrain train) {
        if (deferred == train) {
            return;
        }
        deferred = train;
        train.owner = this;
        deferredDeadline = System.nanoTime() + agent.coalesceNanos();
        timerChanged();
    }

    /** Sends the deferred train, if any (before anything else this QP sends). Under the QP's lock. */
    void flushDeferred() {
        PacketTrain t = deferred;
        if (t != null) {
            flushTrain(t);
        }
    }

    /** A thread sends its own deferred train {@code t} of this QP (it holds no QP lock). */
    void flushDeferred(PacketTrain t) {
        synchronized (lock) {
            if (deferred == t) {
                flushTrain(t);
            }
        }
    }

    /** The deferred train is dropped: the QP went to ERR or RESET (its WQEs are flushed). Under the QP's lock. */
    void dropDeferred() {
        PacketTrain t = deferred;
        if (t != null) {
            t.clear();
            deferred = null;
            deferredDeadline = 0;
            t.owner = null;
        }
    }

    /** The train this QP's packets wait in, or null (what {@link Requester#run(boolean)} continues). */
    PacketTrain deferredTrain() {
        return deferred;
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
        return attrs.qkey();
    }

    int qpn() {
        return qpn;
    }

    /** The QPN (as {@code QueuePair.qpNum()}). */
    int qpNum() {
        return qpn;
    }

    /** Writes the 40-byte GRH area into {@code grh} (then scattered to the receive buffer). */
    void writeGrh(MemorySegment grh, SockAddr from, int udpPayload) {
        agent.writeGrh(grh, 0, from, udpPayload);
    }

    void completeDatagram(int byteLen, boolean imm, int immValue, int srcQp, boolean solicited) {
        core.completeRecvHead(WcStatus.SUCCESS, WcOpcode.RECV, byteLen, immValue, srcQp,
                WcFlags.GRH | (imm ? WcFlags.WITH_IMM : 0), solicited);
    }

    Counters counters() {
        return agent.counters();
    }

    int mtuBytes() {
        return attrs.pathMtu().bytes();
    }

    QpType type() {
        return type;
    }

    int destQpn() {
        return attrs.destQpn();
    }

    int maxRdAtomic() {
        return attrs.maxRdAtomic();
    }

    int retryCnt() {
        return attrs.retryCnt();
    }

    int rnrRetry() {
        return attrs.rnrRetry();
    }

    int minRnrTimer() {
        return attrs.minRnrTimer();
    }

    /** The local ACK timeout, 4.096 µs × 2^timeout, in ns; 0 = none (IBTA Vol 1 §9.7.6.1.3). */
    long timeoutNanos() {
        int timeout = attrs.timeout();
        return timeout == 0 ? 0 : 4096L << timeout;
    }

    boolean canSend() {
        return !requesterPaused && core.state() == QpState.RTS;
    }

    void pauseRequester(boolean paused) {
        requesterPaused = paused;
    }

    long sqHead() {
        return sq.head();
    }

    long sqTail() {
        return sq.tail();
    }

    RxeSendWqe sqEntry(long index) {
        return (RxeSendWqe) sq.entry(index);
    }

    /** A message needing a receive WQE starts: true when there is one (taken from the SRQ on one); see {@link SoftQp#takeRecvWqe()}. */
    boolean takeRecvWqe() {
        return core.takeRecvWqe();
    }

    /** The receive WQE the arriving message fills (the RQ's head, or the one taken from the SRQ). */
    RecvWqe recvWqe() {
        return core.recvWqe();
    }

    WcStatus resolveWqe(RxeSendWqe w, boolean localWrite) {
        return sq.resolve(w, localWrite);
    }

    WcStatus resolveRecv(RecvWqe r) {
        return core.resolveRecvWqe(r);
    }

    /** Gathers payload; when the memory was freed meanwhile, unwinds the role (the WQE then fails with LOC_PROT_ERR). */
    void gatherPayload(RxeSendWqe w, long msgOff, MemorySegment dst, long dstOff, int len) {
        if (!sq.gather(w, msgOff, dst, dstOff, len)) {
            freedSend = w;
            throw MEMORY_FREED;
        }
    }

    /** Places READ response data; when the memory was freed meanwhile, unwinds the role (LOC_PROT_ERR). */
    void scatterToWqe(RxeSendWqe w, long msgOff, MemorySegment src, long srcOff, int len) {
        if (!sq.scatter(w, msgOff, src, srcOff, len)) {
            freedSend = w;
            throw MEMORY_FREED;
        }
    }

    /** Places received data; when the memory was freed meanwhile, unwinds the role (LOC_PROT_ERR). */
    void scatterToRecv(RecvWqe r, long msgOff, MemorySegment src, long srcOff, int len) {
        if (!core.scatterRecv(r, msgOff, src, srcOff, len)) {
            freedRecv = true;
            throw MEMORY_FREED;
        }
    }

    /** Stores an atomic's original remote value, in host byte order, into the WQE's 8-byte SGE. */
    void writeAtomicResult(RxeSendWqe w, long orig) {
        SoftMr.Translation t = w.sgeMr[0].translation(); // one translation for bounds and store (rereg)
        long off = t.offsetOf(w.sgeAddr[0], 8);
        try {
            if (off < 0) {
                throw new IllegalStateException("region reregistered");
            }
            t.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, off, orig);
        } catch (IllegalStateException freed) {
            freedSend = w;
            throw MEMORY_FREED;
        }
    }

    /** True when the QP's access flags enable the remote operation {@code access} (REMOTE_WRITE / READ / ATOMIC). */
    boolean qpAllows(int access) {
        return (attrs.qpAccessFlags() & access) == access;
    }

    /**
     * The memory a remote key grants (a region's translation or a window's binding, see
     * {@link SoftQp#remoteRange}): valid, of this QP's PD (a type 2 window: bound through this QP),
     * granting {@code access}, its memory still there; null otherwise (the responder then NAKs with
     * remote access error).
     */
    RemoteRange remoteMr(int rkey, int access) {
        return core.remoteRange(rkey, access);
    }

    /** Executes a BIND_MW or LOCAL_INV WQE ({@link SoftQp#executeLocalOperation}). */
    WcStatus executeLocalOperation(RxeSendWqe w) {
        return core.executeLocalOperation(w);
    }

    /** A SEND_WITH_INV's IETH: invalidates {@code rkey} for this QP; false when it cannot be. */
    boolean invalidateRemote(int rkey) {
        return core.invalidateRemote(rkey);
    }

    /** The receive CQE of a SEND with Invalidate: WITH_INV and the invalidated rkey in the imm_data field. */
    void completeRecvHeadInvalidated(int byteLen, int rkey, boolean solicited) {
        core.completeRecvHead(WcStatus.SUCCESS, WcOpcode.RECV, byteLen, rkey, attrs.destQpn(), WcFlags.WITH_INV, solicited);
    }

    void retireSendHead(WcStatus status, int byteLen, int vendorErr) {
        core.completeSendHead(status, byteLen, vendorErr);
        if (!sqDrainedRaised && core.state() == QpState.SQD) {
            checkSqDrained();
        }
    }

    void completeRecvHead(WcOpcode opcode, int byteLen, boolean imm, int immValue, boolean solicited) {
        core.completeRecvHead(WcStatus.SUCCESS, opcode, byteLen, immValue, attrs.destQpn(), imm ? WcFlags.WITH_IMM : 0,
                solicited);
    }

    void completeRecvHeadError(WcStatus status) {
        core.completeRecvHead(status, WcOpcode.RECV, 0, 0, attrs.destQpn(), 0, false);
    }

    void enterErrorState() {
        core.enterError();
    }

    void ackScheduled() {
        if (!ackListed) {
            ackListed = true;
            agent.scheduleAck(this);
        }
    }

    // ------------------------------------------------------------------ issue 10 (srq): asynchronous events

    /** COMM_EST was raised since the QP entered RTR (once per RTR). */
    private boolean commEstRaised;
    /** SQ_DRAINED was raised since the QP entered SQD (once per SQD). */
    private boolean sqDrainedRaised;

    /**
     * In SQD: raises IBV_EVENT_SQ_DRAINED once no send WQE is in flight (every WQE the requester
     * started is completed), as rxe does on entering SQD and on each completion in SQD (rxe raises it
     * whether or not {@code IBV_QP_EN_SQD_ASYNC_NOTIFY} was given; so does jrdma). Under the lock.
     */
    private void checkSqDrained() {
        long head = sq.head();
        if (requester.nextWqe() == head && (head == sq.tail() || sqEntry(head).wqeState == RxeSendWqe.POSTED)) {
            sqDrainedRaised = true;
            core.raiseAsyncEvent(AsyncEventType.SQ_DRAINED);
        }
    }

    /**
     * The responder NAKs a class C error of an RC request and moves the QP to ERR (IBTA Vol 1
     * §9.9.3.1.2, §11.6.3.2): when no receive completion reports it, the QP raises an affiliated
     * asynchronous error, QP_REQ_ERR for an invalid request, QP_ACCESS_ERR for a remote access
     * violation, QP_FATAL otherwise. Under the lock.
     */
    void responderError(int nakCode, boolean reportedByCompletion) {
        if (reportedByCompletion) {
            return;
        }
        core.raiseAsyncEvent(switch (nakCode) {
            case org.jrdma.rocev2.wire.Aeth.NAK_INVALID_REQUEST -> AsyncEventType.QP_REQ_ERR;
            case org.jrdma.rocev2.wire.Aeth.NAK_REMOTE_ACCESS_ERROR -> AsyncEventType.QP_ACCESS_ERR;
            default -> AsyncEventType.QP_FATAL;
        });
    }

    @Override
    public String toString() {
        return "RxeQp[" + core + "]";
    }
}
