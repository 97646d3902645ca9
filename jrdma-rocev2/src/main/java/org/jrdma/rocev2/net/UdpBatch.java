package org.jrdma.rocev2.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A pre-allocated array of datagram descriptors for {@code sendmmsg(2)} and {@code recvmmsg(2)}
 * ({@link UdpSocket#sendBatch}, {@link UdpSocket#receiveBatch}): per slot a {@code struct mmsghdr},
 * one {@code struct iovec}, a {@link SockAddr} and 64 bytes of control data. Filling slots and
 * reading results allocates nothing.
 *
 * <p>Slots hold raw addresses of the caller's buffers; the batch also keeps a reference to each
 * buffer segment, but the caller must keep their arenas open while the batch refers to them.
 * Not thread-safe: one batch per sending or receiving thread.
 */
public final class UdpBatch {
    private static final int CONTROL_BYTES = 64;

    private final int capacity;
    private final MemorySegment vec;       // mmsghdr[capacity]
    private final MemorySegment iov;       // iovec[capacity]
    private final MemorySegment control;   // 64 bytes per slot
    private final SockAddr[] addresses;
    private final MemorySegment[] buffers; // keeps the buffers reachable while referred to
    private final int[] capacities;        // receive capacity per slot

    /**
     * A batch of {@code capacity} slots (1–1024, the kernel's UIO_MAXIOV per call) in memory of an
     * automatic arena.
     */
    public UdpBatch(int capacity) {
        if (capacity < 1 || capacity > 1024) {
            throw new IllegalArgumentException("capacity " + capacity + " is not in 1..1024");
        }
        this.capacity = capacity;
        Arena arena = Arena.ofAuto();
        vec = arena.allocate((long) capacity * LibC.MMSGHDR_SIZE, 8);
        iov = arena.allocate((long) capacity * LibC.IOVEC_SIZE, 8);
        control = arena.allocate((long) capacity * CONTROL_BYTES, 8);
        MemorySegment names = arena.allocate((long) capacity * SockAddr.SIZE, 8);
        addresses = new SockAddr[capacity];
        buffers = new MemorySegment[capacity];
        capacities = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            addresses[i] = new SockAddr(names, (long) i * SockAddr.SIZE);
            long h = (long) i * LibC.MMSGHDR_SIZE;
            vec.set(JAVA_LONG, h + LibC.MSG_NAME, addresses[i].seg.address());
            vec.set(JAVA_LONG, h + LibC.MSG_IOV, iov.address() + (long) i * LibC.IOVEC_SIZE);
            vec.set(JAVA_LONG, h + LibC.MSG_IOVLEN, 1L);
        }
    }

    /** The number of slots. */
    public int capacity() {
        return capacity;
    }

    /**
     * Fills slot {@code i} for sending {@code length} bytes at {@code buf[offset]} to {@code dst}
     * (copied into the slot's own address).
     */
    public UdpBatch setSend(int i, MemorySegment buf, long offset, int length, SockAddr dst) {
        setSendGso(i, buf, offset, length, 0, dst);
        return this;
    }

    /**
     * Fills slot {@code i} for sending a GSO train ({@link UdpSocket#sendGso}) of {@code length}
     * bytes cut into datagrams of {@code segmentSize} bytes; {@code segmentSize} 0 sends one
     * datagram.
     */
    public UdpBatch setSendGso(int i, MemorySegment buf, long offset, int length, int segmentSize, SockAddr dst) {
        Objects.checkIndex(i, capacity);
        setBuffer(i, buf, offset, length);
        if (segmentSize < 0 || segmentSize > UdpSocket.MAX_IPV6_PAYLOAD) {
            throw new IllegalArgumentException("segment size " + segmentSize);
        }
        addresses[i].copyFrom(dst);
        long h = (long) i * LibC.MMSGHDR_SIZE;
        vec.set(JAVA_INT, h + LibC.MSG_NAMELEN, dst.length());
        if (segmentSize > 0) {
            long c = (long) i * CONTROL_BYTES;
            control.set(JAVA_LONG, c, LibC.cmsgLen(2));
            control.set(JAVA_INT, c + 8, LibC.SOL_UDP);
            control.set(JAVA_INT, c + 12, LibC.UDP_SEGMENT);
            control.set(JAVA_SHORT, c + 16, (short) segmentSize);
            vec.set(JAVA_LONG, h + LibC.MSG_CONTROL, control.address() + c);
            vec.set(JAVA_LONG, h + LibC.MSG_CONTROLLEN, LibC.cmsgSpace(2));
        } else {
            vec.set(JAVA_LONG, h + LibC.MSG_CONTROL, 0L);
            vec.set(JAVA_LONG, h + LibC.MSG_CONTROLLEN, 0L);
        }
        vec.set(JAVA_INT, h + LibC.MSG_FLAGS, 0);
        vec.set(JAVA_INT, h + LibC.MMSG_LEN, 0);
        return this;
    }

    /** Fills slot {@code i} for receiving at most {@code capacity} bytes into {@code buf[offset]}. */
    public UdpBatch setReceive(int i, MemorySegment buf, long offset, int capacity) {
        Objects.checkIndex(i, this.capacity);
        setBuffer(i, buf, offset, capacity);
        capacities[i] = capacity;
        return this;
    }

    /**
     * After {@link UdpSocket#receiveBatch}: bytes received into slot {@code i}; after
     * {@link UdpSocket#sendBatch}: bytes sent from it.
     */
    public int length(int i) {
        return vec.get(JAVA_INT, (long) i * LibC.MMSGHDR_SIZE + LibC.MMSG_LEN);
    }

    /** After a receive: true if slot {@code i}'s datagram was larger than its buffer (the rest is lost). */
    public boolean truncated(int i) {
        return (vec.get(JAVA_INT, (long) i * LibC.MMSGHDR_SIZE + LibC.MSG_FLAGS) & LibC.MSG_TRUNC) != 0;
    }

    /**
     * After a receive on a GRO socket: the size of each datagram coalesced into slot {@code i} (the
     * last may be shorter), or {@link #length(int)} when nothing was coalesced.
     */
    public int segmentSize(int i) {
        long data = control(i, LibC.SOL_UDP, LibC.UDP_GRO);
        return data < 0 ? length(i) : control.get(JAVA_INT, data);
    }

    /**
     * After a receive on a socket with {@link UdpSocket.Options#receiveTrafficClass}: slot
     * {@code i}'s IPv4 TOS / IPv6 Traffic Class byte (0–255; ECN in its low 2 bits: 3 is CE), from
     * the {@code IP_TOS} / {@code IPV6_TCLASS} control message; -1 when none came.
     */
    public int trafficClass(int i) {
        long data = control(i, LibC.SOL_IP, LibC.IP_TOS);
        if (data >= 0) {
            return control.get(JAVA_BYTE, data) & 0xff;
        }
        data = control(i, LibC.SOL_IPV6, LibC.IPV6_TCLASS);
        return data < 0 ? -1 : control.get(JAVA_INT, data) & 0xff;
    }

    /** The offset in {@code control} of slot {@code i}'s control message {@code level}/{@code type}'s data, or -1. */
    private long control(int i, int level, int type) {
        long len = vec.get(JAVA_LONG, (long) i * LibC.MMSGHDR_SIZE + LibC.MSG_CONTROLLEN);
        return LibC.cmsgData(control, (long) i * CONTROL_BYTES, len, level, type);
    }

    /** Slot {@code i}'s address: the destination for a send, the source after a receive. */
    public SockAddr address(int i) {
        return addresses[i];
    }

    // ---- for UdpSocket

    /** Address of mmsghdr[first] after checking that [first, first+count) are slots. */
    long vector(int first, int count) {
        Objects.checkFromIndexSize(first, count, capacity);
        return vec.address() + (long) first * LibC.MMSGHDR_SIZE;
    }

    /** Resets name length, control length and flags of receive slots [0, count) before recvmmsg. */
    void prepareReceive(int count, boolean withControl) {
        for (int i = 0; i < count; i++) {
            long h = (long) i * LibC.MMSGHDR_SIZE;
            if (buffers[i] == null) {
                throw new IllegalStateException("slot " + i + " has no receive buffer");
            }
            iov.set(JAVA_LONG, (long) i * LibC.IOVEC_SIZE + 8, capacities[i]);
            vec.set(JAVA_INT, h + LibC.MSG_NAMELEN, SockAddr.SIZE);
            vec.set(JAVA_LONG, h + LibC.MSG_CONTROL, withControl ? control.address() + (long) i * CONTROL_BYTES : 0L);
            vec.set(JAVA_LONG, h + LibC.MSG_CONTROLLEN, withControl ? CONTROL_BYTES : 0L);
            vec.set(JAVA_INT, h + LibC.MSG_FLAGS, 0);
            vec.set(JAVA_INT, h + LibC.MMSG_LEN, 0);
        }
    }

    /** Checks that send slots [first, first+count) have buffers and the socket's family. */
    void checkSend(int first, int count, int family) {
        for (int i = first; i < first + count; i++) {
            if (buffers[i] == null) {
                throw new IllegalStateException("slot " + i + " has no buffer");
            }
            if (addresses[i].family() != family) {
                throw new IllegalArgumentException("slot " + i + " destination " + addresses[i]
                        + " is not of the socket's family " + family);
            }
        }
    }

    private void setBuffer(int i, MemorySegment buf, long offset, int length) {
        if (!buf.isNative()) {
            throw new IllegalArgumentException("buffer must be native memory");
        }
        Objects.checkFromIndexSize(offset, length, buf.byteSize());
        buffers[i] = buf;
        long v = (long) i * LibC.IOVEC_SIZE;
        iov.set(JAVA_LONG, v, buf.address() + offset);
        iov.set(JAVA_LONG, v + 8, length);
    }
}
