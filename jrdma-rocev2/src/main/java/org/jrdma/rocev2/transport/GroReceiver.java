package org.jrdma.rocev2.transport;

import java.lang.foreign.MemorySegment;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.net.UdpBatch;
import org.jrdma.rocev2.net.UdpSocket;
import org.jrdma.rocev2.wire.PacketBuffer;

/**
 * The receive side of a UDP socket with {@code UDP_GRO} on ({@code udp(7)}; issue 14): the kernel
 * hands over a train of equal-size datagrams from one sender (a GSO train, or datagrams it
 * coalesced) as one buffer of up to 64 KiB with the segment size in a control message; this class
 * receives such buffers ({@code recvmmsg(2)}, {@link #SLOTS} at a time) and cuts each back into
 * its datagrams, every one a RoCE v2 packet with its own ICRC, copied one by one into the slots of
 * a {@link PacketBurst} or into a single-packet buffer. What is not handed out yet waits here for
 * the next call. A datagram that is bad (truncated, corrupt) is only that datagram: the checks of
 * each packet ({@link RxeRecv}) drop and count it alone; a segment larger than a burst slot is
 * reported as dropped (a negative length).
 *
 * <p>Threads: the receiving thread only (the holder of the device's receive lock). Allocates
 * nothing after construction ({@link #SLOTS} × 64 KiB of native memory).
 */
final class GroReceiver {
    /** A {@link #set} length: the buffer holds nothing for this port (it is skipped). */
    static final int SKIP = Integer.MIN_VALUE;
    /** Coalesced buffers per {@code recvmmsg(2)}. */
    static final int SLOTS = 16;
    /** Bytes per buffer: the largest UDP payload the kernel coalesces (64 KiB). */
    static final int SLOT_BYTES = 65536;

    private final UdpBatch batch = new UdpBatch(SLOTS);
    private final PacketBuffer[] buffers = new PacketBuffer[SLOTS];
    private final int[] start = new int[SLOTS];
    private final int[] length = new int[SLOTS];
    private final int[] segment = new int[SLOTS];
    private final long[] idFlags = new long[SLOTS];
    private final int[] tos = new int[SLOTS];
    private final SockAddr[] from = new SockAddr[SLOTS];
    /** Buffers filled by the last receive. */
    private int filled;
    /** The buffer being cut, and the offset of its next datagram. */
    private int slot;
    private int offset;

    GroReceiver() {
        for (int i = 0; i < SLOTS; i++) {
            buffers[i] = PacketBuffer.allocate(SLOT_BYTES);
            batch.setReceive(i, buffers[i].seg, 0, SLOT_BYTES);
            from[i] = new SockAddr();
        }
    }

    /** True when datagrams of an earlier receive wait to be handed out. */
    boolean pending() {
        return slot < filled;
    }

    /**
     * The segment size of a GSO train that arrived whole, {@code len} bytes of UDP payload at
     * {@code s[at]}: what a raw IPv4 socket on loopback sees of a UDP-mode peer's train (the kernel
     * segments a GSO packet only on its way to a device or into a UDP socket, and a raw socket gets
     * its copy before; the segment size is not in the headers). The packets of a requester's train
     * go to one QP with consecutive PSNs, all but the last of one size: the answer is the smallest
     * size {@code S} (a multiple of 4, at most {@link RxeQp#MAX_PACKET}) at which every BTH at
     * {@code k * S} has the first's destination QPN and its PSN + k, or {@code len} when there is
     * none (one packet; its checks decide). Each packet's ICRC is still checked on its own. Only for
     * datagrams from this host (the caller checks the source): elsewhere trains arrive cut.
     */
    static int trainSegmentSize(MemorySegment s, long at, int len) {
        if (len < 2 * 16) {
            return len;
        }
        int qpn = qpnAt(s, at);
        int psn = psnAt(s, at);
        int min = Math.max(16, ((len + PacketPort.MAX_TRAIN - 1) / PacketPort.MAX_TRAIN + 3) & ~3);
        candidates:
        for (int seg = min; seg <= RxeQp.MAX_PACKET; seg += 4) {
            int k = 1;
            for (long off = seg; off < len; off += seg, k++) {
                if (len - off < 16 || qpnAt(s, at + off) != qpn || psnAt(s, at + off) != ((psn + k) & 0xFFFFFF)) {
                    continue candidates;
                }
            }
            return seg;
        }
        return len;
    }

    private static final java.lang.foreign.ValueLayout.OfInt BE_INT =
            java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private static int qpnAt(MemorySegment s, long at) {
        return s.get(BE_INT, at + 4) & 0xFFFFFF;
    }

    private static int psnAt(MemorySegment s, long at) {
        return s.get(BE_INT, at + 8) & 0xFFFFFF;
    }

    /**
     * Receives up to {@link #SLOTS} coalesced buffers from {@code socket} (non-blocking), when
     * nothing is pending.
     *
     * @return the buffers received (0 when nothing is waiting), or {@code -errno} (a pending ICMP
     *         error: the caller counts one dropped datagram)
     */
    int receive(UdpSocket socket) {
        int n = socket.receiveBatch(batch, SLOTS);
        if (n <= 0) {
            return n;
        }
        for (int i = 0; i < n; i++) {
            int len = batch.truncated(i) ? -1 : batch.length(i);
            set(i, 0, len, len > 0 ? batch.segmentSize(i) : len, -1, batch.address(i));
            tos[i] = batch.trafficClass(i);
        }
        filled(n);
        return n;
    }

    /** For a port that receives into {@link #batch()} itself (the raw port): its descriptors, one per buffer. */
    UdpBatch batch() {
        return batch;
    }

    /** Buffer {@code i} (what {@link #batch()}'s slot {@code i} receives into). */
    PacketBuffer buffer(int i) {
        return buffers[i];
    }

    /**
     * For a port that receives into {@link #batch()} itself: buffer {@code i} holds, from
     * {@code at}, {@code len} bytes of datagrams of {@code segmentSize} bytes each but the last
     * ({@code len} negative: one dropped datagram), from {@code src}, with IPv4 Identification and
     * flags {@code ipv4IdAndFlags} (-1 when unknown).
     */
    void set(int i, int at, int len, int segmentSize, long ipv4IdAndFlags, SockAddr src) {
        start[i] = at;
        length[i] = len;
        segment[i] = segmentSize;
        idFlags[i] = ipv4IdAndFlags;
        tos[i] = -1;
        from[i].copyFrom(src);
    }

    /** For a port that receives into {@link #batch()} itself: buffer {@code i}'s IP traffic class (after {@link #set}). */
    void trafficClass(int i, int trafficClass) {
        tos[i] = trafficClass;
    }

    /** For a port that receives into {@link #batch()} itself: buffers {@code [0, n)} are {@link #set}; cut them next. */
    void filled(int n) {
        filled = n;
        slot = 0;
        offset = 0;
    }

    /**
     * Takes over the datagrams after the first of a coalesced buffer that a single receive put in
     * {@code buf} ({@code received} bytes in all, {@code segmentSize} each but the last), from
     * {@code from}; the first stays in {@code buf}. Only when nothing is pending.
     */
    void keepRest(PacketBuffer buf, int received, int segmentSize, SockAddr from, long ipv4IdAndFlags) {
        keepRest(buf, received, segmentSize, from, ipv4IdAndFlags, -1);
    }

    /** {@link #keepRest(PacketBuffer, int, int, SockAddr, long)} with the IP traffic class of the datagram. */
    void keepRest(PacketBuffer buf, int received, int segmentSize, SockAddr from, long ipv4IdAndFlags,
                  int trafficClass) {
        int rest = received - segmentSize;
        MemorySegment.copy(buf.seg, segmentSize, buffers[0].seg, 0, rest);
        set(0, 0, rest, segmentSize, ipv4IdAndFlags, from);
        tos[0] = trafficClass;
        filled(1);
    }

    /**
     * Copies the waiting datagrams into slots {@code [first, burst.capacity())} of {@code burst}
     * (payload, length, source; Identification unknown), as many as fit.
     *
     * @return the slots filled
     */
    int drainInto(PacketBurst burst, int first) {
        int i = first;
        while (i < burst.capacity() && slot < filled) {
            if (length[slot] == SKIP) { // not for this port (the raw port's other traffic)
                slot++;
                continue;
            }
            burst.from(i).copyFrom(from[slot]);
            long idf = idFlags[slot];
            int tc = tos[slot];
            int len = take(burst.buffer(i), burst.slotBytes());
            burst.set(i, len, len >= 0 ? idf : -1, tc);
            i++;
        }
        return i - first;
    }

    /**
     * Copies the next waiting datagram into {@code buf} and its source into {@code from}.
     *
     * @return its length, negative when it is dropped (truncated buffer, or larger than {@code buf}),
     *         0 when nothing is pending
     */
    int next(PacketBuffer buf, SockAddr from) {
        while (slot < filled && length[slot] == SKIP) {
            slot++;
        }
        if (slot >= filled) {
            return 0;
        }
        from.copyFrom(this.from[slot]);
        lastIdFlags = idFlags[slot];
        lastTos = tos[slot];
        return take(buf, buf.capacity());
    }

    private long lastIdFlags = -1;
    private int lastTos = -1;

    /** The IP traffic class of the datagram {@link #next} returned last (-1 when unknown). */
    int lastTrafficClass() {
        return lastTos;
    }

    /** The IPv4 Identification and flags of the datagram {@link #next} returned last (-1 when unknown). */
    long lastIpv4IdAndFlags() {
        return lastIdFlags;
    }

    /** Copies the datagram at the cursor into {@code dst} (at most {@code capacity} bytes) and moves on. */
    private int take(PacketBuffer dst, int capacity) {
        int s = slot;
        int total = length[s];
        int seg = segment[s];
        int len;
        if (total <= 0 || seg <= 0) {
            len = total == 0 ? 0 : -1; // empty (too short), or truncated: the whole buffer is lost (counted once)
            offset = total;
        } else {
            len = Math.min(seg, total - offset);
            if (len <= capacity) {
                MemorySegment.copy(buffers[s].seg, start[s] + offset, dst.seg, 0, len);
            } else {
                len = -1;
            }
            offset += Math.min(seg, total - offset);
        }
        if (offset >= total) {
            slot++;
            offset = 0;
        }
        return len;
    }
}
