package org.jrdma.rocev2.transport;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.rocev2.net.Ipv4Header;
import org.jrdma.rocev2.net.RawIpv4Socket;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.net.UdpHeader;
import org.jrdma.rocev2.net.UdpSocket;
import org.jrdma.rocev2.wire.PacketBuffer;

/**
 * IPv4 with jrdma's own IP and UDP headers, so that the ICRC is exact both ways and Linux rdma_rxe
 * accepts jrdma's packets (the ICRC covers the IPv4 Identification, which an ordinary UDP socket
 * cannot choose; IBTA Annex A17.3.3). Sends through a raw socket ({@code IPPROTO_RAW}, so
 * IP_HDRINCL) with an Identification from a counter (never 0, which the kernel would replace), DF
 * set, TTL 64, UDP checksum 0 (as rxe); receives whole datagrams from a raw UDP socket filtered to
 * port 4791, and so sees each packet's real Identification. A UDP socket stays bound to the address
 * and port and discards what it gets, so the kernel sends no ICMP port unreachable. Needs
 * CAP_NET_RAW ({@link RawIpv4Socket#permitted()}).
 *
 * <p>Shared by processes: the placeholder UDP socket is opened with SO_REUSEPORT (every process
 * binds one; all discard), and since a raw socket sees every datagram, {@link #steer} gives each
 * process's raw receiver a filter keeping the datagrams of its own QPN slot, and, in the member with
 * the lowest slot, also those of slots nobody owns (counted there as unknown QPNs).
 */
public final class RawIpv4PacketPort implements SharedPort {
    private static final int HEADERS = Ipv4Header.LENGTH + UdpHeader.LENGTH;
    private static final int TTL = 64;

    private final RawIpv4Socket sender;
    private final RawIpv4Socket receiver;
    private final UdpSocket placeholder;
    private final int localAddress;
    private final int udpPort;
    private final AtomicInteger ipId;
    private final ThreadLocal<PacketBuffer> txScratch = ThreadLocal.withInitial(() -> PacketBuffer.allocate(65536));
    private final PacketBuffer rxScratch = PacketBuffer.allocate(65536 + HEADERS);
    private final SockAddr rawFrom = new SockAddr();
    private long lastIdFlags = -1;

    private RawIpv4PacketPort(RawIpv4Socket sender, RawIpv4Socket receiver, UdpSocket placeholder, int localAddress,
                              int udpPort) {
        this.sender = sender;
        this.receiver = receiver;
        this.placeholder = placeholder;
        this.localAddress = localAddress;
        this.udpPort = udpPort;
        this.ipId = new AtomicInteger(new java.security.SecureRandom().nextInt(0xFFFF) + 1);
    }

    /**
     * Opens the raw sockets and binds the placeholder UDP socket on {@code address}:{@code udpPort}.
     *
     * @throws org.jrdma.rocev2.net.NetException without CAP_NET_RAW ({@link RawIpv4Socket#NOT_PERMITTED_MESSAGE})
     *                                           or when the address cannot be bound
     */
    public static RawIpv4PacketPort open(Inet4Address address, int udpPort) {
        UdpSocket placeholder = UdpSocket.open(address, udpPort, UdpSocket.Options.defaults().nonBlocking(true)
                .reusePort(true));
        RawIpv4Socket tx = null;
        try {
            placeholder.discardAll();
            tx = RawIpv4Socket.openSender();
            RawIpv4Socket rx = RawIpv4Socket.open(address, udpPort);
            return new RawIpv4PacketPort(tx, rx, placeholder, ByteBuffer.wrap(address.getAddress()).getInt(), udpPort);
        } catch (RuntimeException e) {
            if (tx != null) {
                tx.close();
            }
            placeholder.close();
            throw e;
        }
    }

    @Override
    public int sourcePort(int requested) {
        return requested;
    }

    @Override
    public void steer(int shift, int[] slotOfIndex, int ownSlot) {
        int lowest = ownSlot;
        for (int s : slotOfIndex) {
            lowest = Math.min(lowest, s);
        }
        int[] others = null;
        if (lowest == ownSlot) { // this member answers for the QPNs nobody owns
            others = java.util.Arrays.stream(slotOfIndex).filter(s -> s != ownSlot).toArray();
        }
        receiver.filterQpnSlot(shift, ownSlot, others);
    }

    @Override
    public int nextIpv4Id() {
        for (;;) {
            int id = ipId.getAndIncrement() & 0xFFFF;
            if (id != 0) {
                return id;
            }
        }
    }

    @Override
    public boolean writesIpHeader() {
        return true;
    }

    @Override
    public boolean send(PacketBuffer buf, int len, SockAddr dst, int srcPort, int ipv4Id) {
        PacketBuffer out = txScratch.get();
        MemorySegment s = out.seg;
        Ipv4Header.write(s, 0, 0, HEADERS + len, ipv4Id, true, TTL, Ipv4Header.PROTOCOL_UDP, localAddress, dst.ipv4());
        UdpHeader.write(s, Ipv4Header.LENGTH, srcPort, dst.port(), UdpHeader.LENGTH + len, 0);
        MemorySegment.copy(buf.seg, 0, s, HEADERS, len);
        long deadline = 0;
        for (;;) {
            int r = sender.send(s, 0, HEADERS + len, dst);
            if (r > 0) {
                return true;
            }
            if (r < 0) {
                return false;
            }
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + 10_000_000;
            } else if (now - deadline > 0) {
                return false;
            }
            Thread.yield();
        }
    }

    @Override
    public int receive(PacketBuffer buf, SockAddr from) {
        for (;;) {
            int n = receiver.receive(rxScratch.seg, 0, rxScratch.capacity(), rawFrom);
            if (n <= 0) {
                return n;
            }
            MemorySegment s = rxScratch.seg;
            int ihl = Ipv4Header.headerLength(s, 0);
            if (n < ihl + UdpHeader.LENGTH || Ipv4Header.destination(s, 0) != localAddress
                    || UdpHeader.destinationPort(s, ihl) != udpPort) {
                continue; // another address's traffic on the same host
            }
            int udpLen = UdpHeader.length(s, ihl);
            int payload = Math.min(udpLen, n - ihl) - UdpHeader.LENGTH;
            if (payload < 0 || payload > buf.capacity()) {
                return -1;
            }
            MemorySegment.copy(s, ihl + UdpHeader.LENGTH, buf.seg, 0, payload);
            from.setIpv4(Ipv4Header.source(s, 0), UdpHeader.sourcePort(s, ihl));
            lastIdFlags = ((long) Ipv4Header.identification(s, 0) << 16)
                    | (Short.toUnsignedInt(s.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(
                            java.nio.ByteOrder.BIG_ENDIAN), 6)));
            return payload;
        }
    }

    @Override
    public long lastIpv4IdAndFlags() {
        return lastIdFlags;
    }

    @Override
    public void awaitReadable(long timeoutNanos) {
        receiver.awaitReadable(timeoutNanos);
    }

    @Override
    public void wakeup() {
        receiver.wakeup();
    }

    @Override
    public void close() {
        receiver.close();
        sender.close();
        placeholder.close();
    }
}
