package org.jrdma.rocev2.transport;

import java.net.InetAddress;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.net.UdpSocket;
import org.jrdma.rocev2.wire.PacketBuffer;

/**
 * The plain UDP path: one non-blocking libc socket bound to the device's address and UDP port
 * 4791 receives ({@link UdpSocket}; on IPv6 it accepts rxe's zero UDP checksums); packets leave
 * from send-only sockets bound to the rxe-style source port of their flow ({@link SourcePort}), so
 * that ECMP spreads jrdma's flows as it spreads rxe's; one datagram per packet, or a train (below).
 *
 * <p>Shared by processes: the receive socket and the flow sockets are opened with SO_REUSEPORT, so
 * every process of the same effective UID binds them; {@link #steer} gives the receive socket's
 * reuseport group the program that sends each datagram to the process owning its destination QPN
 * ({@link UdpSocket#steerByQpnSlot}). The flow sockets receive nothing (they discard all), so two
 * processes' flow sockets on one port need no steering; where a flow port is held by a socket
 * without SO_REUSEPORT, the packets of that flow leave from 4791 and {@link #sourcePort} says so,
 * so the ICRC covers the port they really carry.
 *
 * <p>Trains ({@link #sendTrain}) go out with UDP GSO where the kernel has it ({@code UDP_SEGMENT}:
 * one {@code sendmmsg(2)} entry per up to 64 segments, the kernel cuts them), else as one
 * {@code sendmmsg(2)} of single datagrams. Over IPv4 the kernel chooses the Identification of each
 * segment: where it segments on the way out (software GSO towards a NIC) it numbers them one by
 * one from the first's (0 on an unconnected socket with DF), on loopback every segment keeps the
 * first's; so over IPv4 only jrdma peers, which solve for it, are sure to accept every packet of a
 * train (Linux rxe checks the ICRC with the Identification it sees). Over IPv6 the ICRC is exact.
 * Bursts ({@link #receiveBurst}) come with one {@code recvmmsg(2)}.
 *
 * <p>Threads: as {@link PacketPort}. Sends from several threads at once are safe (each sending
 * thread has its own train descriptors; flow sockets are opened and connected under this port's
 * lock, once); one thread at a time receives.
 */
public final class UdpPacketPort implements SharedPort {
    /** How long a send waits for room in a full socket buffer before the packet is dropped, ns. */
    private static final long SEND_WAIT_NANOS = 10_000_000;
    /** rxe's source ports are 0xC000..0xFFFF ({@link SourcePort}). */
    private static final int SPORT_BASE = 0xC000;
    private final UdpSocket socket;
    private final java.net.InetAddress address;
    private final boolean perFlowPorts;
    /** Send-only sockets bound to rxe-style source ports, by port - 0xC000; {@link #socket} where one could not be bound. */
    private final java.util.concurrent.atomic.AtomicReferenceArray<UdpSocket> flowSockets =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(0x4000);
    /**
     * The destination each flow socket is connected to (same index), {@link #UNCONNECTED} when it is
     * not, null before its first packet: a flow socket is connected to the destination of its first
     * packet when that is IPv6 or IPv4 loopback (see {@link #connectable}); written once.
     */
    private final java.util.concurrent.atomic.AtomicReferenceArray<SockAddr> flowPeers =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(0x4000);
    /** {@link #flowPeers} entry of a flow socket left unconnected (an unset address: matches no destination). */
    private static final SockAddr UNCONNECTED = new SockAddr();

    /** Per sending thread: the descriptors of a train (created at its first train). */
    private final ThreadLocal<org.jrdma.rocev2.net.UdpBatch> trainBatch =
            ThreadLocal.withInitial(() -> new org.jrdma.rocev2.net.UdpBatch(PacketPort.MAX_TRAIN));
    /** The receive descriptors, bound to the slots of {@link #rxBurst} (receiving thread only). */
    private org.jrdma.rocev2.net.UdpBatch rxBatch;
    private PacketBurst rxBurst;
    /** With UDP_GRO on: cuts the coalesced buffers back into packets (receiving thread only); else null. */
    private final GroReceiver gro;

    /**
     * Whether the receive socket asks for UDP_GRO ({@code -Djrdma.gro=false} turns it off, to
     * measure against one datagram per receive).
     */
    static final boolean GRO = Boolean.parseBoolean(System.getProperty("jrdma.gro", "true"));

    /** The IPv4 TOS / IPv6 Traffic Class of sent packets (IP_TOS / IPV6_TCLASS), or -1 to leave the kernel's 0. */
    private final int trafficClass;
    /** The traffic class of the datagram last received by {@link #receive} (-1 when not seen). */
    private int lastTrafficClass = -1;

    private UdpPacketPort(UdpSocket socket, java.net.InetAddress address, boolean perFlowPorts, int trafficClass) {
        this.socket = socket;
        this.address = address;
        this.perFlowPorts = perFlowPorts;
        this.trafficClass = trafficClass;
        this.gro = socket.groEnabled() ? new GroReceiver() : null;
    }

    /**
     * Binds {@code address}:{@code port}; packets leave with the kernel's traffic class (0) and the
     * received ones' traffic class is not looked at.
     *
     * @throws org.jrdma.rocev2.net.NetException when the address cannot be bound (in use, not local)
     */
    public static UdpPacketPort open(InetAddress address, int port, boolean perFlow) {
        return open(address, port, perFlow, -1, false);
    }

    /**
     * Binds {@code address}:{@code port}.
     *
     * @param trafficClass        the IPv4 TOS / IPv6 Traffic Class byte of every packet sent (0–255,
     *                            e.g. 0x02 for ECT(0), RFC 3168), or -1 to leave the kernel's (0)
     * @param receiveTrafficClass whether received datagrams' traffic class is read
     *                            (IP_RECVTOS / IPV6_RECVTCLASS: {@link PacketBurst#trafficClass},
     *                            {@link #lastTrafficClass()}), for ECN-CE
     * @throws org.jrdma.rocev2.net.NetException when the address cannot be bound (in use, not local)
     */
    public static UdpPacketPort open(InetAddress address, int port, boolean perFlow, int trafficClass,
                                     boolean receiveTrafficClass) {
        UdpSocket s = UdpSocket.open(address, port, UdpSocket.Options.defaults().nonBlocking(true)
                .receiveBufferBytes(8 << 20).sendBufferBytes(8 << 20).reusePort(true).gro(GRO)
                .trafficClass(trafficClass).receiveTrafficClass(receiveTrafficClass));
        return new UdpPacketPort(s, address, perFlow, trafficClass);
    }

    @Override
    public void steer(int shift, int[] slotOfIndex, int ownSlot) {
        socket.steerByQpnSlot(shift, slotOfIndex);
    }

    /**
     * The requested rxe-style source port when a send socket could be bound to it (one per port,
     * opened on first use, discarding whatever it receives), else the bound port 4791. With
     * per-flow ports off ({@code -Djrdma.sourcePorts=bound}) every packet leaves from 4791.
     */
    @Override
    public int sourcePort(int requested) {
        UdpSocket s = flowSocket(requested);
        return s == socket ? socket.localPort() : requested;
    }

    private UdpSocket flowSocket(int port) {
        if (!perFlowPorts || port < SPORT_BASE || port > 0xFFFF) {
            return socket;
        }
        UdpSocket s = flowSockets.get(port - SPORT_BASE);
        return s != null ? s : openFlowSocket(port);
    }

    private synchronized UdpSocket openFlowSocket(int port) {
        UdpSocket s = flowSockets.get(port - SPORT_BASE);
        if (s == null) {
            try {
                s = UdpSocket.open(address, port, UdpSocket.Options.defaults().nonBlocking(true)
                        .sendBufferBytes(4 << 20).receiveBufferBytes(64 << 10).reusePort(true)
                        .trafficClass(trafficClass));
                s.discardAll();
            } catch (RuntimeException e) {
                s = socket; // taken by a socket without SO_REUSEPORT (another program): send from 4791
            }
            flowSockets.set(port - SPORT_BASE, s);
        }
        return s;
    }

    /**
     * The destination flow socket {@code s} (of source port {@code port}) is connected to, or
     * {@link #UNCONNECTED}; decided at the flow's first packet, to {@code dst}.
     */
    private SockAddr flowPeer(UdpSocket s, int port, SockAddr dst) {
        SockAddr peer = flowPeers.get(port - SPORT_BASE);
        return peer != null ? peer : connectFlow(s, port, dst);
    }

    private synchronized SockAddr connectFlow(UdpSocket s, int port, SockAddr dst) {
        SockAddr peer = flowPeers.get(port - SPORT_BASE);
        if (peer == null) {
            peer = UNCONNECTED;
            if (connectable(dst)) {
                try {
                    s.connect(dst);
                    peer = new SockAddr().copyFrom(dst);
                } catch (RuntimeException e) {
                    // no route now: stay unconnected, sendto reports what happens
                }
            }
            flowPeers.set(port - SPORT_BASE, peer);
        }
        return peer;
    }

    /**
     * Whether a flow socket may be connected to {@code dst}: always over IPv6 (no Identification in
     * the header, so the ICRC does not change), over IPv4 only to a loopback address. Elsewhere the
     * socket stays unconnected, so that the kernel writes Identification 0 (DF set, unconnected
     * socket: Linux's {@code ip_select_ident_segs}), the value the ICRC was computed with: a
     * receiver that cannot solve for the Identification (Linux rxe) then accepts the packet. On
     * loopback the peer is another jrdma process, which solves for it.
     */
    private static boolean connectable(SockAddr dst) {
        return dst.isIpv6() || dst.isIpv4Loopback();
    }

    @Override
    public int nextIpv4Id() {
        return 0;
    }

    @Override
    public boolean writesIpHeader() {
        return false;
    }

    @Override
    public long lastIpv4IdAndFlags() {
        return -1;
    }

    @Override
    public boolean send(PacketBuffer buf, int len, SockAddr dst, int srcPort, int ipv4Id) {
        UdpSocket socket = flowSocket(srcPort);
        boolean connected = socket != this.socket && flowPeer(socket, srcPort, dst).sameAs(dst);
        int r = connected ? socket.send(buf.seg, 0, len) : socket.sendTo(buf.seg, 0, len, dst);
        if (r > 0) {
            return true;
        }
        if (r < 0) {
            return false;
        }
        long deadline = System.nanoTime() + SEND_WAIT_NANOS;
        do {
            Thread.yield();
            r = connected ? socket.send(buf.seg, 0, len) : socket.sendTo(buf.seg, 0, len, dst);
        } while (r == 0 && System.nanoTime() - deadline < 0);
        return r > 0;
    }

    @Override
    public int nextIpv4Ids(int count) {
        return 0;
    }

    @Override
    public int sendTrain(PacketBuffer buf, int segmentSize, int count, int lastLength, SockAddr dst, int srcPort,
                         int firstIpv4Id) {
        PacketPort.trainLength(segmentSize, count, lastLength, buf.capacity());
        if (count == 1) {
            return send(buf, lastLength, dst, srcPort, firstIpv4Id) ? 1 : 0;
        }
        UdpSocket s = flowSocket(srcPort);
        org.jrdma.rocev2.net.UdpBatch b = trainBatch.get();
        int slots = 0;
        int perSlot = 1;
        if (s.supportsGso()) {
            int max = dst.isIpv6() ? UdpSocket.MAX_IPV6_PAYLOAD : UdpSocket.MAX_IPV4_PAYLOAD;
            perSlot = Math.max(1, Math.min(UdpSocket.MAX_GSO_SEGMENTS, max / segmentSize));
        }
        for (int first = 0; first < count; first += perSlot) {
            int k = Math.min(perSlot, count - first);
            int len = (k - 1) * segmentSize + (first + k == count ? lastLength : segmentSize);
            b.setSendGso(slots++, buf.seg, (long) first * segmentSize, len, k > 1 ? segmentSize : 0, dst);
        }
        int done = 0;
        long deadline = 0;
        while (done < slots) {
            int r = s.sendBatch(b, done, slots - done);
            if (r > 0) {
                done += r;
                continue;
            }
            if (r < 0) {
                break; // the next slot's packets are dropped (the caller counts them)
            }
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + SEND_WAIT_NANOS;
            } else if (now - deadline > 0) {
                break;
            }
            Thread.yield();
        }
        return Math.min(count, done * perSlot);
    }

    /** Whether trains from the bound port go out with UDP GSO (the kernel has {@code UDP_SEGMENT}). */
    boolean trainsUseGso() {
        return socket.supportsGso();
    }

    /**
     * One {@code recvmmsg(2)}; the source addresses are copied into the burst's slots. With GRO,
     * the packets of the coalesced buffers of one {@code recvmmsg(2)}, cut apart ({@link GroReceiver}),
     * as many as the burst holds; the rest come with the next call.
     */
    @Override
    public int receiveBurst(PacketBurst burst) {
        if (gro != null) {
            if (!gro.pending()) {
                int r = gro.receive(socket);
                if (r < 0) { // a pending ICMP error: report it as one dropped datagram
                    burst.set(0, r, -1);
                    return 1;
                }
            }
            return gro.drainInto(burst, 0);
        }
        org.jrdma.rocev2.net.UdpBatch b = rxBatch;
        if (rxBurst != burst) { // the first burst (a device has one): bind the descriptors to its slots
            b = new org.jrdma.rocev2.net.UdpBatch(burst.capacity());
            for (int i = 0; i < burst.capacity(); i++) {
                b.setReceive(i, burst.buffer(i).seg, 0, burst.slotBytes());
            }
            rxBatch = b;
            rxBurst = burst;
        }
        int n = socket.receiveBatch(b, burst.capacity());
        if (n < 0) { // a pending ICMP error: report it as one dropped datagram
            burst.set(0, n, -1);
            return 1;
        }
        for (int i = 0; i < n; i++) {
            burst.from(i).copyFrom(b.address(i));
            burst.set(i, b.truncated(i) ? -1 : b.length(i), -1, b.trafficClass(i));
        }
        return n;
    }

    /**
     * One datagram; with GRO, the next packet of a coalesced buffer: the first arrives in
     * {@code buf}, the others wait in the {@link GroReceiver} for the next calls.
     */
    @Override
    public int receive(PacketBuffer buf, SockAddr from) {
        if (gro == null) {
            int n = socket.receive(buf.seg, 0, buf.capacity(), from);
            lastTrafficClass = socket.receivedTrafficClass();
            return n;
        }
        if (gro.pending()) {
            int n = gro.next(buf, from);
            lastTrafficClass = gro.lastTrafficClass();
            return n;
        }
        int n = socket.receive(buf.seg, 0, buf.capacity(), from);
        int seg = socket.receivedSegmentSize();
        lastTrafficClass = socket.receivedTrafficClass();
        if (n > 0 && seg > 0 && seg < n) {
            gro.keepRest(buf, n, seg, from, -1, lastTrafficClass);
            return seg;
        }
        return n;
    }

    @Override
    public int lastTrafficClass() {
        return lastTrafficClass;
    }

    @Override
    public void awaitReadable(long timeoutNanos) {
        socket.awaitReadable(timeoutNanos);
    }

    @Override
    public void wakeup() {
        socket.wakeup();
    }

    @Override
    public synchronized void close() {
        for (int i = 0; i < flowSockets.length(); i++) {
            UdpSocket s = flowSockets.get(i);
            if (s != null && s != socket) {
                s.close();
            }
        }
        socket.close();
    }
}
