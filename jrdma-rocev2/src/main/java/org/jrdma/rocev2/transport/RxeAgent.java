package org.jrdma.rocev2.transport;

import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import org.jrdma.rocev2.DeviceOptions;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.soft.SoftResources;
import org.jrdma.verbs.Mtu;

/**
 * The transport side of one software RoCE v2 device: what its QPs and its context use, put
 * together from one class per job:
 * <ul>
 * <li>{@link RxeRecv}: receive dispatch (rxe's {@code rxe_recv.c}: length, ICRC with the IPv4
 *     Identification solving, TVer/opcode/pad, P_Key, QPN, then the QP);</li>
 * <li>{@link DeviceAgent}: the I/O loop as an Agrona agent (receive bursts, who receives: the I/O
 *     thread or polling application threads), run by an {@link AgentThread} under a
 *     {@link DeviceIdleStrategy} (spin, yield, block in poll(2));</li>
 * <li>{@link TimerWheel}: the retransmission and RNR timers, one timer per QP;</li>
 * <li>{@link AckCoalescer}: one ACK per QP per receive burst;</li>
 * <li>{@link GrhWriter}: the GRH area of UD receives.</li>
 * </ul>
 * Threads and locks: see the package documentation.
 */
public final class RxeAgent {
    private final PacketPort port;
    private final Counters counters;
    private final Mtu maxMtu;
    private final Mtu activeMtu;
    private final boolean ipv6;
    private final int ipv4;
    private final long ipv6Hi, ipv6Lo;
    /** Whether retry_cnt 7 retries without limit, as rdma_rxe ({@code jrdma.retryCnt7=unlimited}). */
    private final boolean retryCnt7Unlimited;

    private final RxeRecv recv;
    private final GrhWriter grh;
    private final TimerWheel wheel;
    private final DeviceAgent agent;
    private final AgentThread thread;
    /** QP1 (issue 11). */
    private final Gsi gsi;
    /** Each live QP's timer (put at creation, removed at destruction; read by {@link #timerChanged}). */
    private final ConcurrentHashMap<RxeQp, TimerWheel.Timer> timers = new ConcurrentHashMap<>();
    private boolean started;
    // issue 16: DCQCN
    private final boolean ecn;
    private final long cnpIntervalNanos;
    private final org.jrdma.congestion.DcqcnParameters dcqcn;
    private final long lineRateBps;
    /** The CNP a notification point sends (receiving thread only, under the receive lock). */
    private final PacketBuffer cnp = PacketBuffer.allocate(64);

    public RxeAgent(String name, InetAddress address, PacketPort port, SoftResources resources, Counters counters,
                    Mtu maxMtu, Mtu activeMtu, DeviceOptions options) {
        this.retryCnt7Unlimited = options.retryCnt7Unlimited();
        this.ecn = options.ecn();
        this.cnpIntervalNanos = options.cnpIntervalNanos();
        this.dcqcn = options.dcqcnEnabled() ? org.jrdma.congestion.DcqcnParameters.named(options.dcqcn()) : null;
        this.lineRateBps = options.lineRateBps();
        this.coalesceNanos = DeviceOptions.coalesceNanos(name, System.getProperties());
        this.activeMtu = activeMtu;
        this.port = port;
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
        this.recv = new RxeRecv(resources, counters, maxMtu.bytes(), ipv6, ipv4, ipv6Hi, ipv6Lo);
        this.grh = new GrhWriter(ipv6, ipv4, ipv6Hi, ipv6Lo);
        this.agent = new DeviceAgent(name, port, counters, recv, new AckCoalescer(counters), options.pollProgress(),
                options.deferAcks());
        this.wheel = agent.timers();
        agent.onFatal(() -> resources.raiseDeviceEvent(org.jrdma.verbs.AsyncEventType.DEVICE_FATAL, 0));
        this.gsi = new Gsi(this, counters, wheel);
        recv.gsi(gsi);
        this.thread = new AgentThread(agent, new DeviceIdleStrategy(agent, port, options.spinNanos()),
                agent::onLoopError, port::wakeup);
    }

    /** Starts the I/O thread ({@code jrdma-NAME-io}); once. */
    public synchronized void start() {
        if (!started) {
            started = true;
            thread.start();
        }
    }

    /** Stops the I/O thread and waits for it, then sends the ACKs polling threads still owe. */
    public void stop() {
        thread.close();
        agent.flushOwedAcks();
        gsi.close();
    }

    /** QP1 of the device ({@link Gsi}): its MAD agents, requests and answers. */
    public Gsi gsi() {
        return gsi;
    }

    Mtu maxMtu() {
        return maxMtu;
    }

    /** Whether retry_cnt 7 means "retry without limit" on this device (rdma_rxe) instead of 7 retries. */
    boolean retryCnt7Unlimited() {
        return retryCnt7Unlimited;
    }

    /** Issue 14: the longest a posting thread's small packets wait for its next post ({@link DeviceOptions#coalesceNanos}). */
    private final long coalesceNanos;

    long coalesceNanos() {
        return coalesceNanos;
    }

    /**
     * A QP's timer deadlines changed ({@link RxeQp#nextDeadline()}). Called under the QP's lock
     * from whichever thread changed them; only records the deadline in the QP's timer and, when
     * the wheel must move it earlier, queues it for the I/O thread, which owns the wheel
     * ({@link TimerWheel#set}). Allocation-free.
     */
    void timerChanged(RxeQp qp) {
        TimerWheel.Timer t = timers.get(qp);
        if (t != null) {
            wheel.set(t, qp.nextDeadline());
        }
    }

    /** Whether ECN runs: packets leave ECT(0), CE-marked ones are answered with CNPs ({@code jrdma.ecn}). */
    boolean ecn() {
        return ecn;
    }

    /** The notification point's least time between two CNPs of a QP, ns ({@code jrdma.cnpMicros}). */
    long cnpIntervalNanos() {
        return cnpIntervalNanos;
    }

    /** The reaction point's parameter set ({@code jrdma.dcqcn}), or null when DCQCN is off. */
    org.jrdma.congestion.DcqcnParameters dcqcn() {
        return dcqcn;
    }

    /** The reaction point's line rate, bit/s ({@code jrdma.lineGbps}). */
    long lineRateBps() {
        return lineRateBps;
    }

    /** The buffer a notification point writes its CNP into (receiving thread, under the receive lock). */
    PacketBuffer cnpBuffer() {
        return cnp;
    }

    /** A QP's requester waits for its DCQCN rate until {@code qp.paceDeadline} ({@link Pacer}); under its lock. */
    void pace(RxeQp qp) {
        agent.pace(qp);
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
     * Writes the 40-byte GRH area of a UD receive for the packet being dispatched, of
     * {@code udpPayload} bytes from {@code from} ({@link GrhWriter}); by the receiving thread.
     */
    void writeGrh(MemorySegment dst, long off, SockAddr from, int udpPayload) {
        grh.write(dst, off, from, udpPayload, recv.ipv4IdAndFlags());
    }

    /** The device's counters. */
    public Counters counters() {
        return counters;
    }

    /** Registers a new QP: gives it its timer. Control path (allocates). */
    public void qpCreated(RxeQp qp) {
        timers.put(qp, wheel.register(qp::onTimer));
    }

    /** A QP is destroyed: its timer leaves the wheel at the I/O thread's next round. */
    void qpClosed(RxeQp qp) {
        TimerWheel.Timer t = timers.remove(qp);
        if (t != null) {
            wheel.cancel(t);
        }
    }

    /**
     * Sends the ACKs that polling threads deferred, whoever is receiving: before a QP goes away and
     * before the device stops, so that a peer is not left retrying a request that was executed
     * (a tool that gets its last completion and exits must still ACK the peer's last WRITE).
     */
    public void flushOwedAcks() {
        agent.flushOwedAcks();
    }

    /** Sends a finished packet (ICRC included); counts it. Any thread. */
    void send(PacketBuffer buf, int len, SockAddr dst, int srcPort, int ipv4Id) {
        if (port.send(buf, len, dst, srcPort, ipv4Id)) {
            counters.incrementAtomic(Counters.SENT_PKTS);
        } else {
            counters.incrementAtomic(Counters.SEND_ERR);
        }
    }

    /**
     * Sends a train of finished packets ({@link PacketPort#sendTrain}: {@code count} packets of
     * {@code segmentSize} bytes back to back, the last of {@code lastLength}); counts each packet
     * as sent or as a send error. Any thread.
     *
     * @return the packets handed to the network
     */
    int sendTrain(PacketBuffer buf, int segmentSize, int count, int lastLength, SockAddr dst, int srcPort,
                  int firstIpv4Id) {
        int n = port.sendTrain(buf, segmentSize, count, lastLength, dst, srcPort, firstIpv4Id);
        counters.addAtomic(Counters.SENT_PKTS, n);
        if (n < count) {
            counters.addAtomic(Counters.SEND_ERR, count - n);
        }
        return n;
    }

    /** Called by a responder (receiving thread, under the receive lock) with an ACK to send at the end of the burst. */
    void scheduleAck(RxeQp qp) {
        agent.scheduleAck(qp);
    }

    /**
     * Receives and processes one packet in the calling thread, if no other thread is receiving.
     * Called by application threads that poll an empty CQ ({@link DeviceAgent#progress()}).
     */
    public void progress() {
        PacketTrain.flushDeferred(); // issue 14: the thread polls an empty CQ, so it posts nothing more for now
        agent.progress();
    }

    /** An application thread is about to block until a CQ event ({@link DeviceAgent#applicationBlocking()}). */
    public void applicationBlocking() {
        PacketTrain.flushDeferred();
        agent.applicationBlocking();
    }

    /** After a post: sends the ACKs a polling thread deferred ({@link DeviceAgent#flushDeferredAcks()}). */
    public void flushDeferredAcks() {
        agent.flushDeferredAcks();
    }

    /** The I/O agent (for tests in this package). */
    DeviceAgent agent() {
        return agent;
    }

    @Override
    public String toString() {
        return "RxeAgent[" + agent.roleName() + "]";
    }
}
