package org.jrdma.rocev2.transport;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.rocev2.RxeCounters;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.Bth;
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
 * <p>Duty cycle: while packets arrive it busy-polls the socket; after {@link #SPIN_NANOS} without a
 * packet it yields, then blocks in poll(2) for at most {@link #TIMER_TICK_NANOS} (so that timers
 * still fire). A malformed or unexpected packet is dropped and counted in {@link RxeCounters}; no
 * exception leaves the loop.
 *
 * <p>ICRC over IPv4: a UDP socket does not show the IP Identification, which the ICRC covers (IBTA
 * Annex A17.3.3). The agent therefore solves for the one 16-bit Identification that makes the ICRC
 * match (with DF set, then clear); a packet for which none does is dropped. This keeps 16 of the
 * ICRC's 32 bits of protection: a corrupted packet passes with probability about 2^-16 (the UDP
 * checksum, which Linux verifies when it is not 0, covers the rest). Over IPv6 the ICRC is checked
 * exactly.
 */
public final class RxeAgent implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(RxeAgent.class);
    /** How long the agent busy-polls after the last packet before it starts to block, ns. */
    static final long SPIN_NANOS = Long.getLong("jrdma.spinMicros", 200) * 1000L;
    /** The longest the agent blocks before it scans its timers, ns. */
    static final long TIMER_TICK_NANOS = 1_000_000;
    private static final int BURST = 64;
    private static final int RX_CAPACITY = 65536;

    private final String name;
    private final PacketPort port;
    private final SoftResources resources;
    private final RxeCounters counters;
    private final Mtu maxMtu;
    private final boolean ipv6;
    private final int ipv4;
    private final long ipv6Hi, ipv6Lo;
    private final int localPort;

    private final PacketBuffer rx = PacketBuffer.allocate(RX_CAPACITY);
    private final SockAddr from = new SockAddr();
    private final Bth bth = new Bth();
    private final Icrc icrc = new Icrc();

    private volatile RxeQp[] qps = new RxeQp[0];
    private RxeQp[] ackList = new RxeQp[16];
    private int ackCount;
    private volatile boolean running;
    private Thread thread;

    public RxeAgent(String name, InetAddress address, PacketPort port, SoftResources resources, RxeCounters counters,
                    Mtu maxMtu) {
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
        this.localPort = port.localPort();
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
    }

    Mtu maxMtu() {
        return maxMtu;
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

    int localPort() {
        return localPort;
    }

    /** The device's counters. */
    public RxeCounters counters() {
        return counters;
    }

    /** Registers a new QP for timers. */
    public synchronized void qpCreated(RxeQp qp) {
        RxeQp[] a = Arrays.copyOf(qps, qps.length + 1);
        a[a.length - 1] = qp;
        qps = a;
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
    void send(PacketBuffer buf, int len, SockAddr dst) {
        if (port.send(buf, len, dst)) {
            counters.inc(RxeCounters.SENT_PKTS);
        } else {
            counters.inc(RxeCounters.SEND_ERR);
        }
    }

    /** Called by a responder (I/O thread) with an ACK to send at the end of the burst. */
    void scheduleAck(RxeQp qp) {
        if (ackCount == ackList.length) {
            ackList = Arrays.copyOf(ackList, ackList.length * 2);
        }
        ackList[ackCount++] = qp;
    }

    @Override
    public void run() {
        long lastPacket = System.nanoTime();
        long nextTimerScan = lastPacket + TIMER_TICK_NANOS;
        while (running) {
            int got = 0;
            try {
                for (; got < BURST; got++) {
                    int n = port.receive(rx, from);
                    if (n == 0) {
                        break;
                    }
                    if (n < 0) {
                        counters.inc(RxeCounters.DROP_MALFORMED);
                        continue;
                    }
                    onPacket(n);
                }
                flushAcks();
                long now = System.nanoTime();
                if (now - nextTimerScan >= 0) {
                    scanTimers(now);
                    nextTimerScan = now + TIMER_TICK_NANOS;
                }
                if (got > 0) {
                    lastPacket = now;
                } else if (now - lastPacket < SPIN_NANOS) {
                    Thread.onSpinWait();
                } else {
                    port.awaitReadable(Math.max(1, nextTimerScan - now));
                }
            } catch (Throwable t) {
                counters.inc(RxeCounters.DROP_INTERNAL);
                ackCount = 0;
                LOG.debug("{}: error in the I/O loop (packet dropped)", name, t);
                if (t instanceof Error && !(t instanceof AssertionError) && !(t instanceof StackOverflowError)) {
                    LOG.error("{}: fatal error in the I/O loop", name, t);
                    LockSupport.parkNanos(1_000_000);
                }
            }
        }
    }

    private void flushAcks() {
        for (int i = 0; i < ackCount; i++) {
            RxeQp qp = ackList[i];
            ackList[i] = null;
            qp.flushAck();
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
            counters.inc(RxeCounters.DROP_MALFORMED);
            return;
        }
        bth.wrap(rx.seg, 0);
        int op = bth.opcode();
        if (!Opcode.isValid(op) || bth.tver() != 0) {
            counters.inc(RxeCounters.DROP_MALFORMED);
            return;
        }
        int hdr = Opcode.headerLength(op);
        int pad = bth.padCount();
        int payloadLen = n - hdr - pad - Icrc.LENGTH;
        if (payloadLen < 0 || payloadLen > maxMtu.bytes() || (!Opcode.hasPayload(op) && payloadLen + pad != 0)) {
            counters.inc(RxeCounters.DROP_MALFORMED);
            return;
        }
        int received = Icrc.read(rx, n - Icrc.LENGTH);
        if (!icrcOk(n - Icrc.LENGTH, received)) {
            counters.inc(RxeCounters.DROP_ICRC);
            return;
        }
        counters.inc(RxeCounters.RCVD_PKTS);
        int qpn = bth.destQpn();
        org.jrdma.soft.SoftQp q = resources.qps.get(qpn);
        if (!(q instanceof RxeQp qp)) {
            counters.inc(RxeCounters.DROP_UNKNOWN_QPN);
            return;
        }
        qp.receive(op, bth.psn(), bth.se(), bth.ackReq(), rx.seg, hdr, payloadLen, from);
    }

    private boolean icrcOk(int len, int received) {
        int srcPort = from.port();
        if (ipv6) {
            if (!from.isIpv6()) {
                return false;
            }
            return icrc.ipv6(from.ipv6Hi(), from.ipv6Lo(), ipv6Hi, ipv6Lo, srcPort, localPort, rx, 0, len) == received;
        }
        if (!from.isIpv4()) {
            return false;
        }
        return icrc.solveIpv4Id(from.ipv4(), ipv4, 0x4000, srcPort, localPort, rx, 0, len, received) >= 0
                || icrc.solveIpv4Id(from.ipv4(), ipv4, 0, srcPort, localPort, rx, 0, len, received) >= 0;
    }

    @Override
    public String toString() {
        return "RxeAgent[" + name + "]";
    }
}
