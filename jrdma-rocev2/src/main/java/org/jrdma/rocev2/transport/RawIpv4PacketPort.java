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
 *
 * <p>Trains ({@link #sendTrain}) go out with one {@code sendmmsg(2)}, each packet with its own IP
 * and UDP headers and its own Identification ({@link #nextIpv4Ids}); bursts ({@link #receiveBurst})
 * come with one {@code recvmmsg(2)}, each datagram's real Identification kept.
 *
 * <p>Threads: as {@link PacketPort}. Sends from several threads at once are safe (each sending
 * thread builds its headers in its own scratch memory; the Identification counter is atomic); one
 * thread at a time receives.
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
    /** The TOS byte of every IP header this port writes (DSCP | ECN; 0x02 = ECT(0)). */
    private final int tos;
    /** TOS of the datagram {@link #parse} read last, and of the one {@link #receive} returned last (-1: none). */
    private int parsedTos = -1;
    private int lastTos = -1;
    private final ThreadLocal<PacketBuffer> txScratch = ThreadLocal.withInitial(() -> PacketBuffer.allocate(65536));
    private final PacketBuffer rxScratch = PacketBuffer.allocate(65536 + HEADERS);
    /** Per sending thread: headers + packets of a train, and their descriptors (created at its first train). */
    private final ThreadLocal<TrainScratch> trainScratch = ThreadLocal.withInitial(() -> new TrainScratch(RxeQp.MAX_PACKET));
    /**
     * Whole datagrams of a burst and their descriptors, cut into packets (receiving thread only;
     * created at the first receive): a UDP-mode jrdma peer's GSO train arrives whole on loopback
     * ({@link GroReceiver#trainSegmentSize}).
     */
    private GroReceiver rxTrains;
    private long parsedIdFlags;

    private static final class TrainScratch {
        /** Bytes per packet: IP and UDP headers and a segment. */
        final int slotBytes;
        final PacketBuffer buf;
        final org.jrdma.rocev2.net.UdpBatch batch = new org.jrdma.rocev2.net.UdpBatch(PacketPort.MAX_TRAIN);

        TrainScratch(int segmentBytes) {
            slotBytes = HEADERS + segmentBytes;
            buf = PacketBuffer.allocate(PacketPort.MAX_TRAIN * slotBytes);
        }
    }
    private final SockAddr rawFrom = new SockAddr();
    private long lastIdFlags = -1;

    private RawIpv4PacketPort(RawIpv4Socket sender, RawIpv4Socket receiver, UdpSocket placeholder, int localAddress,
                              int udpPort, int tos) {
        this.tos = tos;
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
        return open(address, udpPort, 0);
    }

    /**
     * Opens the raw sockets and binds the placeholder UDP socket on {@code address}:{@code udpPort};
     * every IP header sent carries {@code tos} (0–255: DSCP in the upper 6 bits, ECN in the lower 2,
     * e.g. 0x02 = ECT(0), RFC 3168). Received datagrams' TOS is always seen (the header is there).
     *
     * @throws org.jrdma.rocev2.net.NetException without CAP_NET_RAW ({@link RawIpv4Socket#NOT_PERMITTED_MESSAGE})
     *                                           or when the address cannot be bound
     */
    public static RawIpv4PacketPort open(Inet4Address address, int udpPort, int tos) {
        if (tos < 0 || tos > 255) {
            throw new IllegalArgumentException("TOS " + tos + " is not in 0..255");
        }
        UdpSocket placeholder = UdpSocket.open(address, udpPort, UdpSocket.Options.defaults().nonBlocking(true)
                .reusePort(true));
        RawIpv4Socket tx = null;
        try {
            placeholder.discardAll();
            tx = RawIpv4Socket.openSender();
            RawIpv4Socket rx = RawIpv4Socket.open(address, udpPort);
            return new RawIpv4PacketPort(tx, rx, placeholder, ByteBuffer.wrap(address.getAddress()).getInt(), udpPort,
                    tos);
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
    public int nextIpv4Ids(int count) {
        if (count < 1 || count > MAX_TRAIN) {
            throw new IllegalArgumentException("count " + count);
        }
        for (;;) {
            int first = ipId.getAndAdd(count) & 0xFFFF;
            if (first != 0 && first + count - 1 <= 0xFFFF) {
                return first;
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
        Ipv4Header.write(s, 0, tos, HEADERS + len, ipv4Id, true, TTL, Ipv4Header.PROTOCOL_UDP, localAddress, dst.ipv4());
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

    /** Builds each packet's IP and UDP headers in front of a copy of it and sends them all with one sendmmsg. */
    @Override
    public int sendTrain(PacketBuffer buf, int segmentSize, int count, int lastLength, SockAddr dst, int srcPort,
                         int firstIpv4Id) {
        PacketPort.trainLength(segmentSize, count, lastLength, buf.capacity());
        TrainScratch t = trainScratch.get();
        if (t.slotBytes < HEADERS + segmentSize) { // larger than a RoCE packet: not on the data path
            t = new TrainScratch(segmentSize);
            trainScratch.set(t);
        }
        MemorySegment s = t.buf.seg;
        for (int i = 0; i < count; i++) {
            int len = i == count - 1 ? lastLength : segmentSize;
            long at = (long) i * t.slotBytes;
            Ipv4Header.write(s, at, tos, HEADERS + len, (firstIpv4Id + i) & 0xFFFF, true, TTL, Ipv4Header.PROTOCOL_UDP,
                    localAddress, dst.ipv4());
            UdpHeader.write(s, at + Ipv4Header.LENGTH, srcPort, dst.port(), UdpHeader.LENGTH + len, 0);
            MemorySegment.copy(buf.seg, (long) i * segmentSize, s, at + HEADERS, len);
            t.batch.setSend(i, s, at, HEADERS + len, dst);
        }
        int done = 0;
        long deadline = 0;
        while (done < count) {
            int r = sender.sendBatch(t.batch, done, count - done);
            if (r > 0) {
                done += r;
                continue;
            }
            if (r < 0) {
                break;
            }
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + 10_000_000;
            } else if (now - deadline > 0) {
                break;
            }
            Thread.yield();
        }
        return done;
    }

    @Override
    public int receive(PacketBuffer buf, SockAddr from) {
        GroReceiver t = trains();
        if (t.pending()) {
            int n = t.next(buf, from);
            if (n != 0) {
                lastIdFlags = t.lastIpv4IdAndFlags();
                lastTos = t.lastTrafficClass();
                return n;
            }
        }
        for (;;) {
            int n = receiver.receive(rxScratch.seg, 0, rxScratch.capacity(), rawFrom);
            if (n <= 0) {
                return n;
            }
            int payload = parse(rxScratch.seg, n, buf, from);
            if (payload == OTHER) {
                continue; // another address's traffic on the same host
            }
            if (payload >= 0) {
                lastIdFlags = parsedIdFlags;
                lastTos = parsedTos;
                int seg = fromThisHost(from.ipv4()) ? GroReceiver.trainSegmentSize(buf.seg, 0, payload) : payload;
                if (seg < payload) { // a GSO train on loopback: the first packet now, the others next
                    t.keepRest(buf, payload, seg, from, parsedIdFlags, parsedTos);
                    return seg;
                }
            }
            return payload;
        }
    }

    private GroReceiver trains() {
        GroReceiver t = rxTrains;
        if (t == null) {
            t = new GroReceiver();
            rxTrains = t;
        }
        return t;
    }

    /**
     * One {@code recvmmsg(2)} of whole datagrams (up to {@link GroReceiver#SLOTS}), each one's UDP
     * payload (each packet of a train that arrived whole) copied into a slot; what does not fit
     * comes with the next call.
     */
    @Override
    public int receiveBurst(PacketBurst burst) {
        GroReceiver t = trains();
        if (!t.pending()) {
            org.jrdma.rocev2.net.UdpBatch b = t.batch();
            int n = receiver.receiveBatch(b, GroReceiver.SLOTS);
            if (n < 0) {
                burst.set(0, n, -1);
                return 1;
            }
            for (int i = 0; i < n; i++) {
                MemorySegment s = t.buffer(i).seg;
                int len = b.truncated(i) ? -1 : b.length(i);
                int ihl = len < 0 ? 0 : Ipv4Header.headerLength(s, 0);
                if (len < 0) {
                    t.set(i, 0, -1, -1, -1, rawFrom);
                } else if (len < ihl + UdpHeader.LENGTH || Ipv4Header.destination(s, 0) != localAddress
                        || UdpHeader.destinationPort(s, ihl) != udpPort) {
                    t.set(i, 0, GroReceiver.SKIP, 0, -1, rawFrom); // another address's traffic on the same host: skipped
                } else {
                    int payload = Math.min(UdpHeader.length(s, ihl), len - ihl) - UdpHeader.LENGTH;
                    rawFrom.setIpv4(Ipv4Header.source(s, 0), UdpHeader.sourcePort(s, ihl));
                    int at = ihl + UdpHeader.LENGTH;
                    int seg = payload <= 0 || !fromThisHost(rawFrom.ipv4()) ? payload
                            : GroReceiver.trainSegmentSize(s, at, payload);
                    t.set(i, at, payload < 0 ? -1 : payload, seg, idFlags(s), rawFrom);
                    t.trafficClass(i, Ipv4Header.tos(s, 0));
                }
            }
            t.filled(n);
        }
        return t.drainInto(burst, 0);
    }

    /**
     * Whether a datagram from {@code source} may be a GSO train that arrived whole: only one sent on
     * this host (a loopback address, or this port's own) reaches a raw socket before the kernel
     * cuts it ({@link GroReceiver#trainSegmentSize}).
     */
    private boolean fromThisHost(int source) {
        return (source >>> 24) == 127 || source == localAddress;
    }

    private static long idFlags(MemorySegment s) {
        return ((long) Ipv4Header.identification(s, 0) << 16)
                | (Short.toUnsignedInt(s.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(
                        java.nio.ByteOrder.BIG_ENDIAN), 6)));
    }

    /** {@link #parse}'s answer for a datagram to another address or port of this host. */
    private static final int OTHER = Integer.MIN_VALUE;

    /**
     * Copies the UDP payload of the whole datagram {@code s[0, n)} into {@code buf} and its source
     * into {@code from}, and sets {@link #parsedIdFlags}.
     *
     * @return the payload's length; -1 when it does not fit; {@link #OTHER} when not for this port
     */
    private int parse(MemorySegment s, int n, PacketBuffer buf, SockAddr from) {
        int ihl = Ipv4Header.headerLength(s, 0);
        if (n < ihl + UdpHeader.LENGTH || Ipv4Header.destination(s, 0) != localAddress
                || UdpHeader.destinationPort(s, ihl) != udpPort) {
            return OTHER;
        }
        int udpLen = UdpHeader.length(s, ihl);
        int payload = Math.min(udpLen, n - ihl) - UdpHeader.LENGTH;
        if (payload < 0 || payload > buf.capacity()) {
            return -1;
        }
        MemorySegment.copy(s, ihl + UdpHeader.LENGTH, buf.seg, 0, payload);
        from.setIpv4(Ipv4Header.source(s, 0), UdpHeader.sourcePort(s, ihl));
        parsedTos = Ipv4Header.tos(s, 0);
        parsedIdFlags = ((long) Ipv4Header.identification(s, 0) << 16)
                | (Short.toUnsignedInt(s.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(
                        java.nio.ByteOrder.BIG_ENDIAN), 6)));
        return payload;
    }

    @Override
    public long lastIpv4IdAndFlags() {
        return lastIdFlags;
    }

    @Override
    public int lastTrafficClass() {
        return lastTos;
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
