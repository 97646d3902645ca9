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
 *
 * <p>Batches: {@link #sendTrain} sends several packets to one destination with one call (a train:
 * packets of one size back to back and a last one of at most that size, what UDP GSO,
 * {@code UDP_SEGMENT}, needs), and {@link #receiveBurst} receives what has arrived, up to a burst,
 * with one call where the socket allows ({@code recvmmsg(2)}). The single-packet calls stay: the
 * latency path of a polling thread takes one packet at a time.
 *
 * <p>Threads, for every implementation: the send side ({@link #sourcePort}, {@link #nextIpv4Id},
 * {@link #nextIpv4Ids}, {@link #send}, {@link #sendTrain}) may be called by any number of threads
 * at once (posting threads, the I/O agent, polling threads); the receive side ({@link #receive},
 * {@link #receiveBurst}, {@link #lastIpv4IdAndFlags}, {@link #awaitReadable}) by one thread at a
 * time (the holder of the device's receive lock, or the I/O agent thread for
 * {@link #awaitReadable}); {@link #wakeup} by any thread; {@link #close} once nothing else runs.
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
     * The first of {@code count} consecutive IPv4 Identifications for the packets of a train, none
     * of them 0 ({@code first + i} for packet {@code i}), or 0 when the kernel chooses them (an
     * ordinary UDP socket: with GSO it numbers the segments itself).
     *
     * @param count 1..{@link #MAX_TRAIN}
     */
    int nextIpv4Ids(int count);

    /** The most packets one {@link #sendTrain} takes. */
    int MAX_TRAIN = 64;

    /**
     * Sends a train of {@code count} packets to {@code dst} from UDP port {@code srcPort}: they lie
     * back to back in {@code buf} from offset 0, each {@code segmentSize} bytes (ICRC included)
     * except the last, which has {@code lastLength} bytes; packet {@code i} carries IPv4
     * Identification {@code firstIpv4Id + i} where the port writes that header (from
     * {@link #nextIpv4Ids}). Each packet leaves as its own datagram, as if sent with {@link #send}
     * one after the other.
     *
     * @param segmentSize 1..65507 bytes
     * @param count       1..{@link #MAX_TRAIN}
     * @param lastLength  1..{@code segmentSize}
     * @return the number of packets handed to the network, from the first (0..{@code count}); the
     *         others were dropped (the caller counts them)
     * @throws IllegalArgumentException when a size or the count is out of range
     */
    int sendTrain(PacketBuffer buf, int segmentSize, int count, int lastLength, SockAddr dst, int srcPort,
                  int firstIpv4Id);

    /**
     * Receives what is waiting, up to {@link PacketBurst#capacity()} datagrams, without blocking:
     * slot {@code i < n} of {@code burst} then holds a datagram's UDP payload from offset 0, its
     * length (negative for a datagram dropped: too large, or a pending ICMP error; the caller counts
     * it), its source and its IPv4 Identification and flags (as {@link #lastIpv4IdAndFlags()}).
     *
     * @return {@code n}, the number of slots filled; 0 when nothing is waiting
     */
    int receiveBurst(PacketBurst burst);

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

    /**
     * The IPv4 TOS / IPv6 Traffic Class byte of the datagram last {@link #receive received}
     * (0–255; ECN in the low 2 bits, 3 = CE), or -1 when this port does not see it (the default).
     */
    default int lastTrafficClass() {
        return -1;
    }

    /** Blocks until a datagram may be waiting, {@link #wakeup()} is called, or the time passes. */
    void awaitReadable(long timeoutNanos);

    /** Ends a concurrent {@link #awaitReadable(long)} early. */
    void wakeup();

    @Override
    void close();

    /**
     * Checks the shape of a train ({@link #sendTrain}) held in a buffer of {@code capacity} bytes.
     *
     * @return its bytes in all: {@code (count - 1) * segmentSize + lastLength}
     * @throws IllegalArgumentException when a size or the count is out of range
     */
    static int trainLength(int segmentSize, int count, int lastLength, int capacity) {
        if (segmentSize < 1 || segmentSize > 65_507 || count < 1 || count > MAX_TRAIN || lastLength < 1
                || lastLength > segmentSize) {
            throw new IllegalArgumentException("train of " + count + " x " + segmentSize + " bytes, last " + lastLength);
        }
        long len = (long) (count - 1) * segmentSize + lastLength;
        if (len > capacity) {
            throw new IllegalArgumentException("train of " + len + " bytes in a buffer of " + capacity);
        }
        return (int) len;
    }
}
