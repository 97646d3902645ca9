package org.jrdma.rocev2.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
import org.jrdma.mad.Cm;
import org.jrdma.mad.MadHeader;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Deth;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.RoceV2;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.ManagementDatagrams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * QP1, the General Services Interface of one software RoCE v2 device (IBTA Vol 1 §13.5), with the
 * MAD layer Linux's {@code ib_mad} puts on it: a UD QP of QPN 1, Q_Key {@value ManagementDatagrams#GSI_QKEY},
 * P_Key 0xFFFF, sending from the UDP source port rxe derives for QPN 1 ({@link SourcePort#datagram}:
 * 55410); agents registered by class, class version and method; requests with a time per try and
 * retries (same TID, same bytes), cancelled, modified or answered by a response with their TID; and
 * Linux's answer to a Get or Set no agent serves (a GetResp of status 0x000C, the MAD otherwise
 * unchanged, as in the lab's {@code host-mad-ping.pcap}). Everything else that arrives for QPN 1 and
 * is not a well-formed MAD is dropped and counted ({@code gsi_*} in {@link Counters}).
 *
 * <p>Only the process holding slot 0 of the device ({@code DeviceShare}) owns QP1; the kernel steers
 * datagrams for QPN 1 to it. In another process {@link #register} fails with EBUSY naming the owner.
 *
 * <p>Threads and locks: {@link #receive} runs on the thread that receives for the device (the I/O
 * thread or a polling application thread) under the device's receive lock, and calls
 * {@link MadHandler#received} there, holding no other lock; {@link #onTimer} runs on the I/O thread
 * (the device's timer wheel, one timer for all of QP1's requests) and calls
 * {@link MadHandler#sendFailed} holding no lock; {@link #register} and the {@link MadAgent} methods
 * run on any thread. This object's monitor guards the agents, the outstanding requests, the send
 * buffer and the PSN; it is taken after the receive lock, never the other way, and never with a QP's
 * lock held; inside it only the port's own monitors are taken (sending). Handlers are never called
 * with it held, so a handler may send. Receiving a MAD allocates (the handler's address and slice):
 * this is the control path.
 */
public final class Gsi implements ManagementDatagrams {
    private static final Logger LOG = LoggerFactory.getLogger(Gsi.class);
    /** QP1's QPN. */
    public static final int QPN = 1;
    /** Offset of the MAD in a QP1 packet: BTH + DETH. */
    static final int MAD_OFFSET = Bth.LENGTH + Deth.LENGTH;
    private static final int PKEY = 0xFFFF;
    private static final int HOP_LIMIT = 64;

    private final RxeAgent agent;
    private final Counters counters;
    private final TimerWheel wheel;
    private final TimerWheel.Timer timer;

    /** The registered agents (copy on write under the monitor; read lock-free by {@link #receive}). */
    private volatile GsiAgent[] agents = new GsiAgent[0];
    /** Null while this process owns QP1; else says who does. */
    private volatile Supplier<String> notOwner;
    private volatile boolean closed;

    // under the monitor
    private final List<MadRequest> requests = new ArrayList<>();
    private final PacketBuffer tx = PacketBuffer.allocate(MAD_OFFSET + MAD_SIZE + Icrc.LENGTH);
    private final Bth txBth = new Bth();
    private final Deth txDeth = new Deth();
    private final MadHeader txMad = new MadHeader();
    private final Icrc icrc = new Icrc();
    private final SockAddr dst = new SockAddr();
    private int psn;

    // receiving thread (under the receive lock)
    private final Deth rxDeth = new Deth();
    private final MadHeader rxMad = new MadHeader();

    Gsi(RxeAgent agent, Counters counters, TimerWheel wheel) {
        this.agent = agent;
        this.counters = counters;
        this.wheel = wheel;
        this.timer = wheel.register(this::onTimer);
    }

    /**
     * Says whether this process owns QP1 of the device: {@code null} if it does (it holds slot 0),
     * else a supplier of the sentence naming the owner, for the EBUSY of {@link #register}. Set by the
     * opening thread before the device is used.
     */
    public void notOwner(Supplier<String> whoOwnsIt) {
        this.notOwner = whoOwnsIt;
    }

    // ------------------------------------------------------------------ registration (any thread)

    @Override
    public MadAgent register(int portNum, int mgmtClass, int classVersion, MadHandler handler, int... methods) {
        if (portNum != 1) {
            throw new VerbsException(Errno.EINVAL, "port " + portNum + " does not exist (only port 1)");
        }
        if (mgmtClass <= MadHeader.MGMT_CLASS_SUBN_LID_ROUTED || mgmtClass > 0xFF
                || mgmtClass == MadHeader.MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
            throw new VerbsException(Errno.EINVAL, "mgmtClass 0x" + Integer.toHexString(mgmtClass)
                    + " cannot be served on QP1 (0x02..0xFF except 0x81; 0x01 and 0x81 are QP0's)");
        }
        if (classVersion < 0 || classVersion > 0xFF) {
            throw new VerbsException(Errno.EINVAL, "classVersion " + classVersion + " outside 0..255");
        }
        if (handler == null) {
            throw new VerbsException(Errno.EINVAL, "handler is null");
        }
        long lo = 0;
        long hi = 0;
        if (methods == null || methods.length == 0) {
            lo = -1L;
            hi = -1L;
        }
        for (int m : methods == null ? new int[0] : methods) {
            if (m < 0 || m > 0x7F) {
                throw new VerbsException(Errno.EINVAL, "method 0x" + Integer.toHexString(m)
                        + " is not a request method (0x00..0x7F; responses go to the agent that sent the request)");
            }
            if (m < 64) {
                lo |= 1L << m;
            } else {
                hi |= 1L << (m - 64);
            }
        }
        Supplier<String> owner = notOwner;
        if (owner != null) {
            throw new VerbsException(Errno.EBUSY, owner.get());
        }
        GsiAgent a = new GsiAgent(this, mgmtClass, classVersion, lo, hi, handler);
        synchronized (this) {
            if (closed) {
                throw new VerbsException(Errno.EIO, "the device is closed");
            }
            for (GsiAgent o : agents) {
                if (o.overlaps(a)) {
                    throw new VerbsException(Errno.EBUSY, "class 0x" + Integer.toHexString(mgmtClass) + " version "
                            + classVersion + " is already served (for one of these methods) by " + o
                            + " of this process");
                }
            }
            GsiAgent[] n = Arrays.copyOf(agents, agents.length + 1);
            n[n.length - 1] = a;
            agents = n;
        }
        return a;
    }

    /** Closes an agent: out of the table, its requests cancelled (no {@code sendFailed}). */
    synchronized void unregister(GsiAgent a) {
        a.closed = true;
        GsiAgent[] cur = agents;
        agents = Arrays.stream(cur).filter(x -> x != a).toArray(GsiAgent[]::new);
        requests.removeIf(r -> r.agent == a);
        rearm();
    }

    /** The device stops: every request is dropped (no {@code sendFailed}), sends fail with EIO. */
    synchronized void close() {
        closed = true;
        requests.clear();
        wheel.cancel(timer);
    }

    // ------------------------------------------------------------------ sending (any thread)

    void send(GsiAgent a, MadAddress to, MemorySegment mad, int timeoutMs, int retries) {
        if (a.closed) {
            throw new VerbsException(Errno.EINVAL, a + " is closed");
        }
        if (to == null || to.gid() == null) {
            throw new VerbsException(Errno.EINVAL, "to: no address");
        }
        if (mad == null || mad.byteSize() < MAD_SIZE) {
            throw new VerbsException(Errno.EINVAL, "mad: " + (mad == null ? "null" : mad.byteSize() + " bytes")
                    + ", a MAD is " + MAD_SIZE);
        }
        if (timeoutMs < 0 || retries < 0) {
            throw new VerbsException(Errno.EINVAL, "timeoutMs " + timeoutMs + " / retries " + retries + " negative");
        }
        if ((to.remoteQpn() & ~0xFFFFFF) != 0) {
            throw new VerbsException(Errno.EINVAL, "remoteQpn " + to.remoteQpn() + " is not a 24-bit QPN");
        }
        if (to.gid().isIpv4Mapped() == agent.isIpv6()) {
            throw new VerbsException(Errno.EINVAL, "GID " + to.gid() + " is not of the device's IP version ("
                    + (agent.isIpv6() ? "IPv6" : "IPv4") + ")");
        }
        byte[] copy = mad.asSlice(0, MAD_SIZE).toArray(ValueLayout.JAVA_BYTE);
        synchronized (this) {
            if (closed) {
                throw new VerbsException(Errno.EIO, "the device is closed");
            }
            if (timeoutMs > 0) {
                long t = timeoutMs * 1_000_000L;
                long tid = MemorySegment.ofArray(copy).get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(
                        java.nio.ByteOrder.BIG_ENDIAN), 8);
                requests.add(new MadRequest(a, tid, copy[1] & 0xFF, to, copy, t, retries, System.nanoTime() + t));
                rearm();
            }
            MemorySegment.copy(copy, 0, tx.seg, ValueLayout.JAVA_BYTE, MAD_OFFSET, MAD_SIZE);
            transmit(to.gid(), to.remoteQpn(), to.remoteQkey());
        }
    }

    /** Cancels ({@code timeoutMs} 0) or gives a new time per try to {@code a}'s requests with this TID. */
    synchronized void modify(GsiAgent a, long tid, int timeoutMs) {
        if (timeoutMs < 0) {
            throw new VerbsException(Errno.EINVAL, "timeoutMs " + timeoutMs + " negative");
        }
        long now = System.nanoTime();
        for (Iterator<MadRequest> it = requests.iterator(); it.hasNext();) {
            MadRequest r = it.next();
            if (r.agent == a && r.tid == tid) {
                if (timeoutMs == 0) {
                    it.remove();
                } else {
                    r.timeoutNanos = timeoutMs * 1_000_000L;
                    r.deadline = now + r.timeoutNanos;
                }
            }
        }
        rearm();
    }

    /** Sets the wheel's timer to the earliest deadline (or none). Under the monitor. */
    private void rearm() {
        if (closed) {
            return;
        }
        long d = 0;
        for (MadRequest r : requests) {
            if (d == 0 || r.deadline - d < 0) {
                d = r.deadline == 0 ? 1 : r.deadline;
            }
        }
        wheel.set(timer, d);
    }

    /**
     * Sends the MAD in {@code tx} at {@link #MAD_OFFSET} as a UD SEND Only from QP1 to {@code gid}'s QPN
     * {@code qpn}: BTH (P_Key 0xFFFF, AckReq set as rxe's QP1 sends, the next PSN), DETH (the Q_Key,
     * source QP 1), ICRC over the headers the port will write. Under the monitor.
     */
    private void transmit(Gid gid, int qpn, int qkey) {
        tx.seg.asSlice(0, MAD_OFFSET).fill((byte) 0);
        txBth.wrap(tx.seg, 0).opcode(Opcode.UD_SEND_ONLY).pkey(PKEY).destQpn(qpn).ackReq(true).psn(psn);
        psn = (psn + 1) & 0xFFFFFF;
        txDeth.wrap(tx.seg, Bth.LENGTH).qkey(qkey).srcQpn(QPN);
        if (gid.isIpv4Mapped()) {
            dst.setIpv4((gid.byteAt(12) << 24) | (gid.byteAt(13) << 16) | (gid.byteAt(14) << 8) | gid.byteAt(15),
                    RoceV2.UDP_PORT);
        } else {
            long h = 0;
            long l = 0;
            for (int i = 0; i < 8; i++) {
                h = (h << 8) | gid.byteAt(i);
                l = (l << 8) | gid.byteAt(8 + i);
            }
            dst.setIpv6(h, l, RoceV2.UDP_PORT);
        }
        int len = MAD_OFFSET + MAD_SIZE;
        int sport = agent.port().sourcePort(SourcePort.datagram(QPN));
        int id = 0;
        int ic;
        if (dst.isIpv6()) {
            ic = icrc.ipv6(agent.ipv6Hi(), agent.ipv6Lo(), dst.ipv6Hi(), dst.ipv6Lo(), sport, RoceV2.UDP_PORT, tx, 0, len);
        } else {
            id = agent.port().nextIpv4Id();
            ic = icrc.ipv4(agent.ipv4(), dst.ipv4(), id, 0x4000, sport, RoceV2.UDP_PORT, tx, 0, len);
        }
        Icrc.write(tx, len, ic);
        counters.incrementAtomic(Counters.GSI_SENT_MADS); // before the send: the answer may be back first
        agent.send(tx, len + Icrc.LENGTH, dst, sport, id);
    }

    // ------------------------------------------------------------------ timers (I/O thread)

    /** Resends the requests whose try timed out, fails those out of retries. No lock held on entry. */
    private void onTimer(long now) {
        List<MadRequest> failed = null;
        synchronized (this) {
            for (Iterator<MadRequest> it = requests.iterator(); it.hasNext();) {
                MadRequest r = it.next();
                if (r.deadline - now > 0) {
                    continue;
                }
                if (r.retriesLeft > 0) {
                    r.retriesLeft--;
                    r.deadline = now + r.timeoutNanos;
                    MemorySegment.copy(r.mad, 0, tx.seg, ValueLayout.JAVA_BYTE, MAD_OFFSET, MAD_SIZE);
                    counters.incrementAtomic(Counters.GSI_RESENT_MADS);
                    transmit(r.to.gid(), r.to.remoteQpn(), r.to.remoteQkey());
                } else {
                    it.remove();
                    if (failed == null) {
                        failed = new ArrayList<>();
                    }
                    failed.add(r);
                }
            }
            rearm();
        }
        if (failed != null) {
            for (MadRequest r : failed) {
                counters.incrementAtomic(Counters.GSI_SEND_TIMEOUTS);
                if (!r.agent.closed) {
                    try {
                        r.agent.handler.sendFailed(r.tid);
                    } catch (RuntimeException e) {
                        counters.incrementAtomic(Counters.GSI_DROP_HANDLER_ERROR);
                        LOG.debug("{}: sendFailed of TID 0x{} threw", r.agent, Long.toHexString(r.tid), e);
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ receiving (receive lock held)

    /**
     * A packet for QPN 1 passed receive dispatch's checks (length, ICRC, TVer, opcode, P_Key): checks it
     * as a MAD and routes it ({@code ib_mad_recv_done}: {@code validate_mad}, {@code find_mad_agent},
     * the unmatched answer). Never throws.
     */
    void receive(MemorySegment seg, int opcode, int payloadOffset, int payloadLength, SockAddr from) {
        if (notOwner != null) {
            counters.increment(Counters.GSI_DROP_NOT_OWNER);
            return;
        }
        if (opcode != Opcode.UD_SEND_ONLY) {
            counters.increment(Counters.GSI_DROP_BAD_OPCODE);
            return;
        }
        if (payloadLength != MAD_SIZE) {
            counters.increment(Counters.GSI_DROP_BAD_LENGTH);
            return;
        }
        rxDeth.wrap(seg, Bth.LENGTH);
        if (rxDeth.qkey() != GSI_QKEY) {
            counters.increment(Counters.GSI_DROP_BAD_QKEY);
            return;
        }
        int srcQp = rxDeth.srcQpn();
        MadHeader h = rxMad.wrap(seg, payloadOffset);
        if (h.baseVersion() != MadHeader.BASE_VERSION) {
            counters.increment(Counters.GSI_DROP_BAD_BASE_VERSION);
            return;
        }
        int cls = h.mgmtClass();
        if (cls == MadHeader.MGMT_CLASS_SUBN_LID_ROUTED || cls == MadHeader.MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
            counters.increment(Counters.GSI_DROP_SMI_CLASS);
            return;
        }
        int method = h.method();
        if (cls == MadHeader.MGMT_CLASS_CM && h.attributeId() != Cm.ATTR_CLASS_PORT_INFO
                && method != MadHeader.METHOD_SEND) {
            counters.increment(Counters.GSI_DROP_BAD_CM_METHOD);
            return;
        }
        Gid fromGid = gidOf(from);
        if (h.isResponse()) {
            GsiAgent a = answered(h.transactionId(), cls, fromGid);
            if (a == null) {
                counters.increment(Counters.GSI_DROP_UNSOLICITED);
                return;
            }
            deliver(a, fromGid, srcQp, seg, payloadOffset);
            return;
        }
        int version = h.classVersion();
        for (GsiAgent a : agents) {
            if (a.mgmtClass == cls && a.classVersion == version && a.serves(method)) {
                deliver(a, fromGid, srcQp, seg, payloadOffset);
                return;
            }
        }
        if (method == MadHeader.METHOD_GET || method == MadHeader.METHOD_SET) {
            answerUnsupported(seg, payloadOffset, fromGid, srcQp);
        } else {
            counters.increment(Counters.GSI_DROP_NO_AGENT);
        }
    }

    /** Ends the first outstanding request with this TID and class sent to {@code from}; its agent, or null. */
    private synchronized GsiAgent answered(long tid, int cls, Gid from) {
        for (Iterator<MadRequest> it = requests.iterator(); it.hasNext();) {
            MadRequest r = it.next();
            if (r.tid == tid && r.mgmtClass == cls && r.to.gid().equals(from)) {
                it.remove();
                rearm();
                return r.agent;
            }
        }
        return null;
    }

    private void deliver(GsiAgent a, Gid from, int srcQp, MemorySegment seg, int off) {
        if (a.closed) {
            counters.increment(Counters.GSI_DROP_NO_AGENT);
            return;
        }
        counters.increment(Counters.GSI_RCVD_MADS);
        try {
            a.handler.received(new MadAddress(from, srcQp, GSI_QKEY, 0, 0, 0, HOP_LIMIT), seg.asSlice(off, MAD_SIZE));
        } catch (RuntimeException e) {
            counters.incrementAtomic(Counters.GSI_DROP_HANDLER_ERROR);
            LOG.debug("{}: handler threw on a MAD from {}", a, from, e);
        }
    }

    /** Linux's {@code generate_unmatched_resp}: the MAD back as a GetResp, status 0x000C, to its sender. */
    private void answerUnsupported(MemorySegment seg, int off, Gid from, int srcQp) {
        counters.incrementAtomic(Counters.GSI_UNSUPPORTED_ANSWERS);
        synchronized (this) {
            MemorySegment.copy(seg, off, tx.seg, MAD_OFFSET, MAD_SIZE);
            txMad.wrap(tx.seg, MAD_OFFSET).method(MadHeader.METHOD_GET_RESP)
                    .status(MadHeader.STATUS_UNSUPPORTED_METHOD_ATTRIB);
            transmit(from, srcQp, GSI_QKEY);
        }
    }

    private static Gid gidOf(SockAddr a) {
        byte[] g = new byte[16];
        if (a.isIpv4()) {
            int v = a.ipv4();
            g[10] = (byte) 0xFF;
            g[11] = (byte) 0xFF;
            g[12] = (byte) (v >>> 24);
            g[13] = (byte) (v >>> 16);
            g[14] = (byte) (v >>> 8);
            g[15] = (byte) v;
        } else {
            long h = a.ipv6Hi();
            long l = a.ipv6Lo();
            for (int i = 0; i < 8; i++) {
                g[i] = (byte) (h >>> (56 - 8 * i));
                g[8 + i] = (byte) (l >>> (56 - 8 * i));
            }
        }
        return Gid.of(g);
    }

    @Override
    public String toString() {
        return "Gsi[" + agent + ", " + agents.length + " agents]";
    }
}
