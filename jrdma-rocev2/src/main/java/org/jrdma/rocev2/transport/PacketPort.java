package org.jrdma.rocev2.transport;

import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.PacketBuffer;

/**
 * Where a device's RoCE v2 packets leave and arrive: UDP port 4791 of its address, through an
 * ordinary UDP socket ({@link UdpPacketPort}) or a raw IPv4 socket that writes its own IP header
 * ({@link RawIpv4PacketPort}), possibly with a fault shim or a capture tap wrapped around it. The
 * transport builds complete packets, BTH to ICRC; since the ICRC covers the IP and UDP headers, it
 * first asks the port which source port and IPv4 Identification the packet will carry.
 * Implementations must not allocate per packet.
 */
public interface PacketPort extends AutoCloseable {
    /**
     * The UDP source port a packet sent with {@code requested} will actually carry: the requested
     * one where the port writes its own UDP header, else the socket's bound port.
     */
    int sourcePort(int requested);

    /**
     * The IPv4 Identification for the next packet: one the port will write (never 0), or 0 when the
     * kernel chooses it and nobody can know it (an ordinary UDP socket).
     */
    int nextIpv4Id();

    /** True when the IPv4 Identification of sent packets is the one {@link #nextIpv4Id()} gave. */
    boolean writesIpHeader();

    /**
     * Sends {@code len} bytes of {@code buf} (from offset 0, ICRC included) as one UDP datagram to
     * {@code dst}, from UDP port {@code srcPort} with IPv4 Identification {@code ipv4Id} where the
     * port writes those headers.
     *
     * @return true when handed to the network, false when dropped (counted by the caller)
     */
    boolean send(PacketBuffer buf, int len, SockAddr dst, int srcPort, int ipv4Id);

    /**
     * Receives one datagram's UDP payload into {@code buf} from offset 0, without blocking, and its
     * source address and UDP port into {@code from}.
     *
     * @return its length; 0 when none is waiting; negative when a datagram was dropped (too large,
     *         or a pending ICMP error): the caller counts it and goes on
     */
    int receive(PacketBuffer buf, SockAddr from);

    /**
     * The IPv4 Identification and flags/fragment-offset field of the datagram last received, as
     * {@code (id << 16) | flags} (0 to 2^32-1), or -1 when this port cannot see the IP header (then the receiver
     * recovers the Identification from the ICRC).
     */
    long lastIpv4IdAndFlags();

    /** Blocks until a datagram may be waiting, {@link #wakeup()} is called, or the time passes. */
    void awaitReadable(long timeoutNanos);

    /** Ends a concurrent {@link #awaitReadable(long)} early. */
    void wakeup();

    @Override
    void close();
}
