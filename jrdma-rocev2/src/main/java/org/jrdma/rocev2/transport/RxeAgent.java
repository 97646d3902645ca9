package org.jrdma.rocev2.transport;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.DropReason;
import org.jrdma.rocev2.wire.PacketValidator;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.RoceV2;
import org.jrdma.soft.SoftResources;
import org.jrdma.verbs.Mtu;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O agent of one software RoCE v2 device: a thread that receives every packet arriving at
 * the device's UDP port 4791, checks it (length, opcode, TVer, pad, ICRC), finds the QP by
 * destination QPN and hands it to that QP's responder or completer (rxe: {@code rxe_recv.c}); it
 * also sends the coalesced ACKs at the end of each receive burst and runs the retransmission and
 * RNR timers.
 *
 * <p>Application threads that poll an empty CQ receive in their own thread ({@link #progress()});
 * while they do, the I/O thread only runs the timers, so a busy-polling application does not share
 * its core with the device's thread.
 *
 * <p>Duty cycle: while packets arrive it busy-polls the socket; from {@link #PURE_SPIN_NANOS} after
 * the last packet on it yields the core between empty polls (Thread.yield, so that an application
 * thread spinning on the same core gets it at once); after
 * {@code jrdma.spinMicros} without a packet ({@code -Djrdma.spinMicros}, default 200) it blocks in
 * poll(2) for at most {@link #TIMER_TICK_NANOS} (so that timers still fire). A malformed or unexpected packet is dropped and counted in {@link Counters}; no
 * exception leaves the loop.
 *
 * <p>What the ICRC check covers: over IPv6, and over IPv4 with the raw port (which sees the real IP
 * header), the whole ICRC is checked exactly. Over IPv4 through an ordinary UDP socket the IP
 * Identification, which the ICRC covers (IBTA Annex A17.3.3), is invisible; the agent solves for the
 * one 16-bit Identification that makes the ICRC match (with DF set, then clear) and drops the
 * packet when none does. That keeps 16 of the ICRC's 32 bits: a corrupted packet passes with
 * probability about 2^-15 (the UDP checksum, which the kernel verifies when it is not 0, protects
 * the payload on a real link).
 */
public final class RxeAgent implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(RxeAgent.class);
    /** How long the agent busy-polls after the last packet before it starts to block, ns ({@code jrdma.spinMicros}). */
    private final long spinNanos;
    /** How long after the last packet the agent spins without yielding its core, ns. */
    static final long PURE_SPIN_NANOS = 50_000;
    /** The longest the agent blocks before it scans its timers, ns. */
    static final long TIMER_TICK_NANOS = 1_000_000;
    private static final int BURST = 64;
    private static final int RX_CAPACITY = 65536;

    private final String name;
    private final PacketPort port;
    private final SoftResources resources;
    private final Counters counters;
    private final Mtu maxMtu;
    private final Mtu activeMtu;
    private final boolean ipv6;
    private final int ipv4;
    private final long ipv6Hi, ipv6Lo;

    private final PacketBuffer rx = PacketBuffer.allocate(RX_CAPACITY);
    private final SockAddr from = new SockAddr();
    private final Bth bth = new Bth();
    private final Icrc icrc = new Icrc();

    private volatile RxeQp[] qps = new RxeQp[0];
    private RxeQp[] ackList = new RxeQp[16];
    /** ACKs waiting to be sent (written under rxLock; read without it as a hint). */
    private volatile int ackCount;
    private volatile boolean running;
    /** Held by whichever thread receives: the I/O thread, or an application thread in {@link #progress()}. */
    private final java.util.concurrent.locks.ReentrantLock rxLock = new java.util.concurrent.locks.ReentrantLock();
    /**
     * Receive attempts made by application threads in {@link #progress()}, successful or not (racy
     * increments by several threads lose counts, never the change), published with opaque accesses
     * (no fence, no clock read on the polling path); the I/O thread compares it between its naps to
     * tell whether an application thread is polling.
     */
    private long externalRounds;
    /** Times an application thread was about to block for a CQ event ({@link #applicationBlocking()}). */
    private final java.util.concurrent.atomic.AtomicLong blockingWaits = new java.util.concurrent.atomic.AtomicLong();
    private static final java.lang.invoke.VarHandle EXTERNAL_ROUNDS;

    static {
        try {
            EXTERNAL_ROUNDS = java.lang.invoke.MethodHandles.lookup()
                    .findVarHandle(RxeAgent.class, "externalRounds", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** Whether polling threads receive ({@code jrdma.pollProgress=false} leaves it all to the I/O thread). */
    private final boolean pollProgress;
    /** Whether a polling thread defers its ACKs until after its next post ({@code jrdma.deferAcks}). */
    private final boolean deferAcks;
    /** Whether retry_cnt 7 retries without limit, as rdma_rxe ({@code jrdma.retryCnt7=unlimited}). */
    private final boolean retryCnt7Unlimited;
    /** The packet being dispatched (filled by {@link #onPacket}, read by the QP it goes to). */
    private final PacketInfo pkt = new PacketInfo();
    /**
     * While application threads polled within about this time, the I/O thread leaves receiving to
     * them and naps this long between its looks (timers included: {@link #TIMER_TICK_NANOS}).
     */
    static final long EXTERNAL_PROGRESS_NANOS = 1_000_000;
    private volatile Thread thread;

    public RxeAgent(String name, InetAddress address, PacketPort port, SoftResources resources, Counters counters,
                    Mtu maxMtu, Mtu activeMtu, org.jrdma.rocev2.DeviceOptions options) {
        this.spinNanos = options.spinNanos();
        this.pollProgress = options.pollProgress();
        this.deferAcks = options.deferAcks();
        this.retryCnt7Unlimited = options.retryCnt7Unlimited();
        this.activeMtu = activeMtu;
        this.name = name;
        this.port = port;
        this.resources = resources;
        this.counters = counters;
        this.maxMtu = maxMtu;
        byte[] a = address.getAddress();
        this.ipv6 = address instanceof Inet6Address;
        if (ipv6) {
            ByteBuffer b = ByteBuffer.wrap(a);
            this.ipv6Hi = b.getLong();
            this.ipv6Lo = b.getLong();
            this.ipv4 = 0;
        } else {
            this.ipv4 = ByteBuffer.wrap(a).getInt();
            this.ipv6Hi = 0;
            this.ipv6Lo = 0;
        }
    }

    /** Starts the I/O thread. */
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = Thread.ofPlatform().name("jrdma-" + name + "-io").daemon(true).start(this);
    }

    /** Stops the I/O thread and waits for it. */
    public void stop() {
        Thread t;
        synchronized (this) {
            running = false;
            t = thread;
        }
        if (t != null) {
            port.wakeup();
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        flushOwedAcks();
    }

    Mtu maxMtu() {
        return maxMtu;
    }

    /** Whether retry_cnt 7 means "retry without limit" on this device (rdma_rxe) instead of 7 retries. */
    boolean retryCnt7Unlimited() {
        return retryCnt7Unlimited;
    }

    /**
     * A QP's timer deadlines changed ({@link RxeQp#nextDeadline()}). Called under the QP's lock from
     * whichever thread changed them. The agent scans every QP's timers each tick today, so this does
     * nothing yet; it is the seam a timer wheel plugs into.
     */
    void timerChanged(RxeQp qp) {
    }

    /** The port's active MTU: the payload of a UD message at most. */
    Mtu activeMtu() {
        return activeMtu;
    }

    boolean isIpv6() {
        return ipv6;
    }

    int ipv4() {
        return ipv4;
    }

    long ipv6Hi() {
        return ipv6Hi;
    }

    long ipv6Lo() {
        return ipv6Lo;
    }

    PacketPort port() {
        return port;
    }

    /**
     * Writes the 40-byte GRH area of a UD receive (IBTA Vol 1 §11.4.1.1; on RoCE v2 the network
     * header, as rxe writes it: IPv6, the 40-byte IPv6 header; IPv4, 20 zero bytes and then the
     * 20-byte IPv4 header) for a packet of {@code udpPayload} bytes from {@code from}.
     */
    void writeGrh(java.lang.foreign.MemorySegment dst, long off, SockAddr from, int udpPayload) {
        java.nio.ByteOrder be = java.nio.ByteOrder.BIG_ENDIAN;
        var i16 = java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(be);
        var i32 = java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(be);
        var i64 = java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(be);
        if (ipv6) {
            dst.set(i32, off, 0x60000000);
            dst.set(i16, off + 4, (short) (udpPayload + 8));
            dst.set(java.lang.foreign.ValueLayout.JAVA_BYTE, off + 6, (byte) 17);
            dst.set(java.lang.foreign.ValueLayout.JAVA_BYTE, off + 7, (byte) 64);
            dst.set(i64, off + 8, from.ipv6Hi());
            dst.set(i64, off + 16, from.ipv6Lo());
            dst.set(i64, off + 24, ipv6Hi);
            dst.set(i64, off + 32, ipv6Lo);
            return;
        }
        for (int k = 0; k < 20; k += 4) {
            dst.set(i32, off + k, 0);
        }
        long idFlags = port.lastIpv4IdAndFlags();
        org.jrdma.rocev2.net.Ipv4Header.write(dst, off + 20, 0, 20 + 8 + udpPayload,
                idFlags >= 0 ? (int) (idFlags >>> 16) : 0, true, 64, 17, from.ipv4(), ipv4);
    }

    /** The device's counters. */
    public Counters counters() {
        return counters;
    }

    /** Registers a new QP for timers. */
    public synchronized void qpCreated(RxeQp qp) {
        RxeQp[] a = Arrays.copyOf(qps, qps.length + 1);
        a[a.length - 1] = qp;
        qps = a;
    }

    /**
     * Sends the ACKs that polling threads deferred, whoever is receiving: before a QP goes away and
     * before the device stops, so that a peer is not left retrying a request that was executed
     * (a tool that gets its last completion and exits must still ACK the peer's last WRITE).
     */
    public void flushOwedAcks() {
        rxLock.lock();
        try {
            flushAcks();
        } finally {
            rxLock.unlock();
        }
    }

    synchronized void qpClosed(RxeQp qp) {
        RxeQp[] a = qps;
        for (int i = 0; i < a.length; i++) {
            if (a[i] == qp) {
                RxeQp[] b = new RxeQp[a.length - 1];
                System.arraycopy(a, 0, b, 0, i);
                System.arraycopy(a, i + 1, b, i, a.length - i - 1);
                qps = b;
                return;
            }
        }
    }

    /** Sends a finished packet (ICRC included); counts it. */
    void send(PacketBuffer buf, int len, SockAddr dst, int srcPort, int ipv4Id) {
        if (port.send(buf, len, dst, srcPort, ipv4Id)) {
            counters.incrementAtomic(Counters.SENT_PKTS);
        } else {
            counters.incrementAtomic(Counters.SEND_ERR);
        }
    }

    /** Called by a responder (receiving thread, under rxLock) with an ACK to send at the end of the burst. */
    void scheduleAck(RxeQp qp) {
        if (ackCount == ackList.length) {
            ackList = Arrays.copyOf(ackList, ackList.length * 2);
        }
        ackList[ackCount++] = qp;
    }

    /**
     * Receives and processes one burst in the calling thread, if no other thread is receiving
     * (lock-free try). Called by application threads that poll an empty CQ: while they do, they are
     * the device's receive path and the I/O thread steps back (it only runs timers), so that a
     * busy-polling application and its device do not compete for a core.
     */
    public void progress() {
        if (!pollProgress) {
            return;
        }
        // counted before the lock is tried: while the I/O thread receives, every try of a poller fails,
        // and counting only successes would let the I/O thread keep the socket (and the core) from it
        EXTERNAL_ROUNDS.setOpaque(this, (long) EXTERNAL_ROUNDS.getOpaque(this) + 1);
        if (rxLock.tryLock()) {
            try {
                flushAcks(); // what an earlier call deferred
                // one packet per call: the poller sees its completion (or data) without the system
                // call that would find the socket empty; it polls again anyway
                receiveBurst(!deferAcks, 1);
            } catch (Throwable t) {
                onLoopError(t);
            } finally {
                rxLock.unlock();
            }
        }
    }

    /**
     * An application thread is about to block until a CQ event: it receives no more, so the I/O
     * thread must, now (it may be napping because that thread received in {@link #progress()}).
     */
    public void applicationBlocking() {
        blockingWaits.incrementAndGet();
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * Sends the ACKs a polling thread deferred, if no thread is receiving right now (then that one
     * sends them). Called after a post: the application's reply (typically a WRITE or SEND that the
     * received message asked for) leaves before the ACK of the received message, which takes a
     * system call off the request-to-reply path.
     */
    public void flushDeferredAcks() {
        if (ackCount != 0 && rxLock.tryLock()) {
            try {
                flushAcks();
            } finally {
                rxLock.unlock();
            }
        }
    }

    /**
     * Receives up to a burst of packets and handles them, then sends the coalesced ACKs, or leaves
     * them (when {@code flush} is false) for {@link #flushDeferredAcks()}, the next poll or, when the
     * application thread stops polling, the I/O thread (after one nap, about
     * {@link #EXTERNAL_PROGRESS_NANOS}). Holds rxLock.
     */
    private int receiveBurst(boolean flush, int max) {
        int got = 0;
        try {
            for (; got < max; got++) {
                int n = port.receive(rx, from);
                if (n == 0) {
                    break;
                }
                if (n < 0) {
                    counters.drop(DropReason.BAD_LENGTH);
                    continue;
                }
                onPacket(n);
            }
        } finally {
            if (flush || got == BURST) { // a full burst: more is coming, do not hold ACKs back
                flushAcks();
            }
        }
        return got;
    }

    @Override
    public void run() {
        long lastPacket = System.nanoTime();
        long nextTimerScan = lastPacket + TIMER_TICK_NANOS;
        long roundsSeen = (long) EXTERNAL_ROUNDS.getOpaque(this);
        long waitsSeen = blockingWaits.get();
        while (running) {
            try {
                long rounds = (long) EXTERNAL_ROUNDS.getOpaque(this);
                long waits = blockingWaits.get();
                if (waits != waitsSeen) {
                    // an application thread blocks for an event: receive (and send its deferred ACKs) now
                    waitsSeen = waits;
                    roundsSeen = rounds;
                } else if (rounds != roundsSeen) {
                    // an application thread polled since the last look: leave receiving (and the ACKs
                    // it deferred, which it sends on its next poll or post) to it, keep the timers going,
                    // and nap, so that a busy-polling application keeps its core to itself
                    roundsSeen = rounds;
                    long now = System.nanoTime();
                    if (now - nextTimerScan >= 0) {
                        scanTimers(now);
                        nextTimerScan = now + TIMER_TICK_NANOS;
                    }
                    LockSupport.parkNanos(EXTERNAL_PROGRESS_NANOS);
                    continue;
                }
                long now = System.nanoTime();
                int got;
                rxLock.lock();
                try {
                    got = receiveBurst(true, BURST);
                } finally {
                    rxLock.unlock();
                }
                now = System.nanoTime();
                if (now - nextTimerScan >= 0) {
                    scanTimers(now);
                    nextTimerScan = now + TIMER_TICK_NANOS;
                }
                if (got > 0) {
                    lastPacket = now;
                } else if (now - lastPacket < PURE_SPIN_NANOS) {
                    // the next request of a ping-pong is due within microseconds: keep the core. A
                    // thread that yields here stays "cache hot" for the scheduler, and one woken by a
                    // loopback packet onto the sender's core (a sync wakeup) then shares that core
                    // with the spinning sender for tenths of a second while the other idles
                    // (ib_read_lat -n 5000 on two cores: 21-25 us typical against 7.1-7.6)
                    Thread.onSpinWait();
                } else if (now - lastPacket < spinNanos) {
                    // busy-poll, but give the core away at once when another thread wants it: on a
                    // machine with fewer cores than spinning threads (an application polling a CQ or
                    // memory, the peer process) pure spinning costs a scheduler slice per hop
                    Thread.yield();
                } else {
                    port.awaitReadable(Math.max(1, nextTimerScan - now));
                }
            } catch (Throwable t) {
                onLoopError(t);
            }
        }
    }

    private void onLoopError(Throwable t) {
        counters.increment(Counters.RCVD_DROP_INTERNAL);
        LOG.debug("{}: error in the I/O loop (packet dropped)", name, t);
        if (t instanceof Error && !(t instanceof AssertionError) && !(t instanceof StackOverflowError)) {
            LOG.error("{}: fatal error in the I/O loop", name, t);
            LockSupport.parkNanos(1_000_000);
        }
    }

    private void flushAcks() {
        for (int i = 0; i < ackCount; i++) {
            RxeQp qp = ackList[i];
            ackList[i] = null;
            try {
                qp.flushAck();
            } catch (RuntimeException e) {
                onLoopError(e);
            }
        }
        ackCount = 0;
    }

    private void scanTimers(long now) {
        RxeQp[] a = qps;
        for (RxeQp qp : a) {
            if (qp.hasTimer()) {
                qp.onTimer(now);
            }
        }
    }

    /** Checks one received datagram and hands it to its QP. */
    private void onPacket(int n) {
        if (n < Bth.LENGTH + Icrc.LENGTH) {
            counters.drop(DropReason.TOO_SHORT);
            return;
        }
        boolean icrcGood = icrcOk(n - Icrc.LENGTH, Icrc.read(rx, n - Icrc.LENGTH));
        int reason = PacketValidator.validate(rx, 0, n, maxMtu.bytes(), icrcGood);
        if (reason != DropReason.OK) {
            counters.drop(reason);
            return;
        }
        bth.wrap(rx.seg, 0);
        int op = bth.opcode();
        // P_Key table of one entry, the default 0xFFFF: the low 15 bits must match (IBTA Vol 1 §10.9.3)
        if ((bth.pkey() & 0x7FFF) != 0x7FFF) {
            counters.increment(Counters.RCVD_DROP_BAD_PKEY);
            return;
        }
        counters.increment(Counters.RCVD_PKTS);
        int payloadLen = PacketValidator.payloadLength(rx, 0, n);
        org.jrdma.soft.SoftQp q = resources.qps.get(bth.destQpn());
        if (q == null || !(q.transport() instanceof RxeQp qp)) {
            counters.increment(Counters.RCVD_DROP_UNKNOWN_QPN);
            return;
        }
        pkt.set(rx.seg, n, op, bth.psn(), bth.destQpn(), bth.se(), bth.ackReq(), Opcode.headerLength(op), payloadLen, from);
        qp.receive(pkt);
    }

    private boolean icrcOk(int len, int received) {
        int srcPort = from.port();
        int dstPort = RoceV2.UDP_PORT;
        if (ipv6) {
            return from.isIpv6()
                    && icrc.ipv6(from.ipv6Hi(), from.ipv6Lo(), ipv6Hi, ipv6Lo, srcPort, dstPort, rx, 0, len) == received;
        }
        if (!from.isIpv4()) {
            return false;
        }
        long idFlags = port.lastIpv4IdAndFlags();
        if (idFlags >= 0) { // the real IP header was seen: exact
            int flags = (int) (idFlags & 0xFFFF);
            return icrc.ipv4(from.ipv4(), ipv4, (int) (idFlags >>> 16), flags, srcPort, dstPort, rx, 0, len) == received
                    // or a jrdma peer on loopback in UDP mode: its connected flow socket lets the kernel number
                    // datagrams whose ICRC assumed Identification 0 (still an exact 32-bit check, of a second value)
                    || (from.isIpv4Loopback()
                        && icrc.ipv4(from.ipv4(), ipv4, 0, flags, srcPort, dstPort, rx, 0, len) == received);
        }
        return icrc.solveIpv4Id(from.ipv4(), ipv4, 0x4000, srcPort, dstPort, rx, 0, len, received) >= 0
                || icrc.solveIpv4Id(from.ipv4(), ipv4, 0, srcPort, dstPort, rx, 0, len, received) >= 0;
    }

    @Override
    public String toString() {
        return "RxeAgent[" + name + "]";
    }
}
