package org.jrdma.rocev2.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.net.Inet4Address;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Raw IPv4 I/O for RoCE v2 over IPv4 towards a strict peer (Linux rxe): the caller writes its own
 * IPv4 header, so it chooses the IP Identification that the ICRC covers ({@code raw(7)},
 * {@code ip(7)}). Needs CAP_NET_RAW (root); see {@link #permitted()}.
 *
 * <h2>Sending</h2>
 * {@code socket(AF_INET, SOCK_RAW, IPPROTO_RAW)}, which implies {@code IP_HDRINCL}: the buffer given
 * to {@link #send} starts with a 20-byte IPv4 header ({@link Ipv4Header#write}) followed by the
 * 8-byte UDP header ({@link UdpHeader#write}) and the RoCE v2 packet. The kernel keeps the
 * Identification if it is not 0, TOS, TTL, DF and the addresses (a Source Address of 0 is filled
 * in), and always rewrites Total Length and Header Checksum (to the same values if they were
 * right). The destination given to {@code send} must equal the header's Destination Address; its
 * port is ignored.
 *
 * <h2>Receiving</h2>
 * {@code socket(AF_INET, SOCK_RAW, IPPROTO_UDP)} bound to the device address sees whole IPv4
 * datagrams including the real IPv4 header (so the receiver can rebuild the ICRC with the true
 * Identification). A classic BPF filter in the kernel keeps only unfragmented datagrams to the
 * given UDP destination port (4791 for RoCE v2).
 *
 * <h2>Combining with a UDP socket</h2>
 * Raw receive is a copy: the kernel still delivers each datagram to a UDP socket bound to that
 * address and port, and if none is bound it answers the sender with ICMP port unreachable. A
 * device in raw mode therefore also opens a {@link UdpSocket} on its address and port 4791 and
 * calls {@link UdpSocket#discardAll()} on it: the port stays bound (no ICMP), and the kernel drops
 * the UDP copies at the socket filter, so there is nothing to drain.
 *
 * <h2>Data path</h2>
 * {@link #send}, {@link #sendBatch}, {@link #receive}, {@link #receiveBatch}, {@link #awaitReadable}
 * and {@link #wakeup} allocate nothing and
 * follow {@link UdpSocket}'s return convention (bytes; 0 = would block; {@code -errno} for a
 * countable condition; {@link NetException} otherwise) and thread rules (one sender, one receiver).
 */
public final class RawIpv4Socket implements AutoCloseable {
    /**
     * The message of the {@link NetException} from {@link #open} or {@link #openSender} without
     * CAP_NET_RAW.
     */
    public static final String NOT_PERMITTED_MESSAGE =
            "raw IPv4 sockets need CAP_NET_RAW: RoCE v2 over IPv4 towards a strict peer such as Linux rxe "
                    + "needs CAP_NET_RAW because the ICRC covers the IP Identification, which an ordinary UDP "
                    + "socket cannot choose; IPv6 does not need it (use an IPv6 address as the GID)";

    private static volatile Boolean permitted;

    private final int sendFd;
    private final int receiveFd;       // -1 for a send-only socket
    private final SockAddr local;      // null for a send-only socket
    private final int udpPort;
    private final Waiter waiter;
    private volatile boolean closed;

    private final MemorySegment ctlErrno;
    private final MemorySegment ctlVal;
    private final MemorySegment txErrno;
    private final MemorySegment rxErrno;
    private final MemorySegment rxMsg;
    private final MemorySegment rxIov;

    private RawIpv4Socket(Inet4Address localAddress, int udpPort) {
        Arena arena = Arena.ofAuto();
        ctlErrno = LibC.newErrnoSegment(arena);
        ctlVal = arena.allocate(8, 8);
        txErrno = LibC.newErrnoSegment(arena);
        rxErrno = LibC.newErrnoSegment(arena);
        rxMsg = arena.allocate(LibC.MSGHDR_SIZE, 8);
        rxIov = arena.allocate(LibC.IOVEC_SIZE, 8);
        this.udpPort = udpPort;
        int s = socket(LibC.IPPROTO_RAW, ctlErrno);
        if (s < 0) {
            throw notPermittedOr("socket(AF_INET, SOCK_RAW, IPPROTO_RAW)", LibC.errno(ctlErrno));
        }
        sendFd = s;
        int r = -1;
        boolean ok = false;
        try {
            trySetInt(sendFd, LibC.SOL_SOCKET, LibC.SO_SNDBUFFORCE, 4 << 20);
            if (localAddress != null) {
                r = socket(LibC.IPPROTO_UDP, ctlErrno);
                if (r < 0) {
                    throw notPermittedOr("socket(AF_INET, SOCK_RAW, IPPROTO_UDP)", LibC.errno(ctlErrno));
                }
                if (trySetInt(r, LibC.SOL_SOCKET, LibC.SO_RCVBUFFORCE, 4 << 20) < 0) {
                    trySetInt(r, LibC.SOL_SOCKET, LibC.SO_RCVBUF, 4 << 20);
                }
                SocketFilters.attach(r, SocketFilters.ipv4UdpDestinationPort(udpPort), ctlErrno);
                local = new SockAddr(arena).set(localAddress, 0);
                int b = (int) LibC.BIND.invokeExact(ctlErrno, r, local.seg, local.length());
                if (b < 0) {
                    throw NetException.bind(localAddress.getHostAddress() + " (raw IPv4)", LibC.errno(ctlErrno));
                }
                local.port(udpPort);
            } else {
                local = null;
            }
            receiveFd = r;
            waiter = new Waiter(arena);
            if (r >= 0) {
                drainQueuedBeforeFilter();
            }
            ok = true;
        } catch (NetException e) {
            throw e;
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            if (!ok) {
                LibC.closeQuietly(sendFd);
                LibC.closeQuietly(r);
            }
        }
    }

    /**
     * True if this process may open raw IPv4 sockets (CAP_NET_RAW). Tries once and remembers.
     */
    public static boolean permitted() {
        Boolean p = permitted;
        if (p == null) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment errno = LibC.newErrnoSegment(a);
                int s = socket(LibC.IPPROTO_RAW, errno);
                p = s >= 0;
                LibC.closeQuietly(s);
            }
            permitted = p;
        }
        return p;
    }

    /**
     * Opens a send-only raw IPv4 socket ({@code IPPROTO_RAW}).
     *
     * @throws NetException with {@link #NOT_PERMITTED_MESSAGE} (errno EPERM) without CAP_NET_RAW
     */
    public static RawIpv4Socket openSender() {
        return new RawIpv4Socket(null, -1);
    }

    /**
     * Opens a raw IPv4 sender and a raw receiver of UDP datagrams to {@code localAddress}:{@code udpPort}.
     *
     * @param localAddress the device's IPv4 address
     * @param udpPort      UDP destination port to receive (4791 for RoCE v2), 0–65,535
     * @throws NetException with {@link #NOT_PERMITTED_MESSAGE} (errno EPERM) without CAP_NET_RAW;
     *                      "cannot bind ..." if the address is not local
     */
    public static RawIpv4Socket open(Inet4Address localAddress, int udpPort) {
        Objects.requireNonNull(localAddress, "localAddress");
        if ((udpPort & ~0xffff) != 0) {
            throw new IllegalArgumentException("port " + udpPort + " is not in 0..65535");
        }
        return new RawIpv4Socket(localAddress, udpPort);
    }

    /**
     * Sends one IPv4 datagram: {@code length} bytes at {@code buf[offset]}, starting with its IPv4
     * header, towards {@code dst} (IPv4; the port is ignored).
     *
     * @return bytes sent; 0 if it would block; {@code -errno} as in {@link UdpSocket#sendTo}
     */
    public int send(MemorySegment buf, long offset, int length, SockAddr dst) {
        long addr = address(buf, offset, length);
        if (dst.family() != LibC.AF_INET) {
            throw new IllegalArgumentException("destination " + dst + " is not IPv4");
        }
        if (length < Ipv4Header.LENGTH) {
            throw new IllegalArgumentException(length + " bytes cannot hold an IPv4 header");
        }
        long n;
        try {
            n = (long) LibC.SENDTO_NC.invokeExact(sendFd, addr, (long) length, 0, dst.seg, LibC.SOCKADDR_IN);
            if (n < 0 && !LibC.wouldBlock(txErrno)) { // EINTR or an error: again, with errno captured
                do {
                    n = (long) LibC.SENDTO.invokeExact(txErrno, sendFd, addr, (long) length, 0, dst.seg, LibC.SOCKADDR_IN);
                } while (n < 0 && LibC.errno(txErrno) == LibC.EINTR);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            Reference.reachabilityFence(buf);
        }
        return n >= 0 ? (int) n : UdpSocket.sendError("sendto(raw)", LibC.errno(txErrno));
    }

    /**
     * Sends slots {@code [first, first+count)} of {@code batch} (each filled with
     * {@link UdpBatch#setSend}: a whole IPv4 datagram, header first, to an IPv4 destination) with one
     * {@code sendmmsg(2)}.
     *
     * @return the number of slots sent (send the rest again if fewer); 0 if it would block;
     *         {@code -errno} as in {@link UdpSocket#sendTo} when the first slot failed
     */
    public int sendBatch(UdpBatch batch, int first, int count) {
        if (closed) {
            throw NetException.of("socket closed", LibC.EBADF);
        }
        long vec = batch.vector(first, count);
        batch.checkSend(first, count, LibC.AF_INET);
        int n;
        try {
            n = (int) LibC.SENDMMSG_NC.invokeExact(sendFd, vec, count, 0);
            if (n < 0 && !LibC.wouldBlock(txErrno)) { // EINTR or an error: again, with errno captured
                do {
                    n = (int) LibC.SENDMMSG.invokeExact(txErrno, sendFd, vec, count, 0);
                } while (n < 0 && LibC.errno(txErrno) == LibC.EINTR);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            Reference.reachabilityFence(batch);
        }
        return n >= 0 ? n : UdpSocket.sendError("sendmmsg(raw)", LibC.errno(txErrno));
    }

    /**
     * Receives up to {@code count} whole IPv4 datagrams into slots {@code [0, count)} of
     * {@code batch} (each filled with {@link UdpBatch#setReceive}) with one {@code recvmmsg(2)},
     * without blocking (MSG_DONTWAIT). Per slot: {@link UdpBatch#length} (the IPv4 Total Length),
     * {@link UdpBatch#address} (port 0) and {@link UdpBatch#truncated}.
     *
     * @return the number of slots filled; 0 if nothing is there; {@code -errno} as for {@link #receive}
     * @throws IllegalStateException for a send-only socket
     */
    public int receiveBatch(UdpBatch batch, int count) {
        if (closed) {
            throw NetException.of("socket closed", LibC.EBADF);
        }
        if (receiveFd < 0) {
            throw new IllegalStateException("send-only raw socket");
        }
        long vec = batch.vector(0, count);
        batch.prepareReceive(count, false);
        int n;
        try {
            n = (int) LibC.RECVMMSG_NC.invokeExact(receiveFd, vec, count, LibC.MSG_DONTWAIT, 0L);
            if (n < 0 && !LibC.wouldBlock(rxErrno)) { // EINTR or an error: again, with errno captured
                do {
                    n = (int) LibC.RECVMMSG.invokeExact(rxErrno, receiveFd, vec, count, LibC.MSG_DONTWAIT, 0L);
                } while (n < 0 && LibC.errno(rxErrno) == LibC.EINTR);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            Reference.reachabilityFence(batch);
        }
        return n >= 0 ? n : UdpSocket.receiveError("recvmmsg(raw)", LibC.errno(rxErrno));
    }

    /**
     * Receives one whole IPv4 datagram (IPv4 header, UDP header, payload) addressed to this socket's
     * address and UDP port.
     *
     * @param from filled with the source IPv4 address (port 0); may be null
     * Receives one datagram without blocking (MSG_DONTWAIT).
     *
     * @return bytes (the IPv4 Total Length); 0 if nothing is there; {@code -EMSGSIZE} if larger than
     *         {@code capacity} (dropped)
     * @throws IllegalStateException for a send-only socket
     */
    public int receive(MemorySegment buf, long offset, int capacity, SockAddr from) {
        long addr = address(buf, offset, capacity);
        if (receiveFd < 0) {
            throw new IllegalStateException("send-only raw socket");
        }
        MemorySegment m = rxMsg;
        rxIov.set(JAVA_LONG, 0, addr);
        rxIov.set(JAVA_LONG, 8, capacity);
        m.set(JAVA_LONG, LibC.MSG_NAME, from == null ? 0L : from.seg.address());
        m.set(JAVA_INT, LibC.MSG_NAMELEN, from == null ? 0 : SockAddr.SIZE);
        m.set(JAVA_LONG, LibC.MSG_IOV, rxIov.address());
        m.set(JAVA_LONG, LibC.MSG_IOVLEN, 1L);
        m.set(JAVA_LONG, LibC.MSG_CONTROL, 0L);
        m.set(JAVA_LONG, LibC.MSG_CONTROLLEN, 0L);
        m.set(JAVA_INT, LibC.MSG_FLAGS, 0);
        long n;
        try {
            // never blocks: the receiving thread waits in awaitReadable, where timers and
            // wake-ups still reach it
            n = (long) LibC.RECVMSG_NC.invokeExact(receiveFd, m, LibC.MSG_DONTWAIT);
            if (n < 0 && !LibC.wouldBlock(rxErrno)) { // EINTR or an error: again, with errno captured
                do {
                    n = (long) LibC.RECVMSG.invokeExact(rxErrno, receiveFd, m, LibC.MSG_DONTWAIT);
                } while (n < 0 && LibC.errno(rxErrno) == LibC.EINTR);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            Reference.reachabilityFence(buf);
            Reference.reachabilityFence(from);
        }
        if (n < 0) {
            return UdpSocket.receiveError("recvmsg(raw)", LibC.errno(rxErrno));
        }
        if ((m.get(JAVA_INT, LibC.MSG_FLAGS) & LibC.MSG_TRUNC) != 0) {
            return -LibC.EMSGSIZE;
        }
        return (int) n;
    }

    /** As {@link UdpSocket#awaitReadable}: waits for a datagram on the receiving socket. */
    public boolean awaitReadable(long timeoutNanos) {
        if (closed) {
            throw NetException.of("socket closed", LibC.EBADF);
        }
        if (receiveFd < 0) {
            throw new IllegalStateException("send-only raw socket");
        }
        return waiter.await(receiveFd, timeoutNanos);
    }

    /** As {@link UdpSocket#wakeup}. */
    public void wakeup() {
        if (!closed) {
            waiter.wakeup();
        }
    }

    /**
     * Replaces the receive filter so that, of the datagrams to its UDP port, this socket gets those
     * whose BTH destination QPN {@code >>> shift} is {@code ownSlot} and, when {@code othersLive}
     * is not null, also those whose slot is none of {@code othersLive} (the process answering for
     * QPNs nobody owns); a raw socket sees every datagram, so each process sharing a device keeps its
     * own. Datagrams too short for a BTH are dropped by the filter. Control path; the kernel swaps
     * the filter atomically.
     *
     * @throws IllegalStateException for a send-only socket
     * @throws NetException if the kernel refuses the filter
     */
    public synchronized void filterQpnSlot(int shift, int ownSlot, int[] othersLive) {
        if (receiveFd < 0) {
            throw new IllegalStateException("send-only raw socket");
        }
        if (closed) {
            throw NetException.of("socket closed", LibC.EBADF);
        }
        SocketFilters.attach(receiveFd, SocketFilters.ipv4UdpDestinationPortAndQpnSlot(udpPort, shift, ownSlot,
                othersLive), ctlErrno);
    }

    /** True if this socket also receives ({@link #open}), false for {@link #openSender}. */
    public boolean canReceive() {
        return receiveFd >= 0;
    }

    /** The local address and UDP port received on, or null for a send-only socket (do not modify). */
    public SockAddr localAddress() {
        return local;
    }

    /** The UDP destination port received on, or -1 for a send-only socket. */
    public int udpPort() {
        return udpPort;
    }

    /** Closes both descriptors. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        waiter.wakeup();
        LibC.closeQuietly(sendFd);
        LibC.closeQuietly(receiveFd);
        waiter.close();
    }

    @Override
    public String toString() {
        return "RawIpv4Socket[" + (local == null ? "send-only" : local.toString()) + (closed ? ", closed" : "") + "]";
    }

    // ------------------------------------------------------------------ internals

    private long address(MemorySegment buf, long offset, int length) {
        if (closed) {
            throw NetException.of("socket closed", LibC.EBADF);
        }
        if (!buf.isNative()) {
            throw new IllegalArgumentException("buffer must be native memory");
        }
        Objects.checkFromIndexSize(offset, length, buf.byteSize());
        return buf.address() + offset;
    }

    private static int socket(int protocol, MemorySegment errno) {
        try {
            return (int) LibC.SOCKET.invokeExact(errno, LibC.AF_INET,
                    LibC.SOCK_RAW | LibC.SOCK_CLOEXEC | LibC.SOCK_NONBLOCK, protocol);
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
    }

    private static NetException notPermittedOr(String call, int errno) {
        if (errno == LibC.EPERM || errno == LibC.EACCES) {
            return new NetException(NOT_PERMITTED_MESSAGE, errno, new java.net.SocketException(NOT_PERMITTED_MESSAGE));
        }
        return NetException.of(call, errno);
    }

    private int trySetInt(int fd, int level, int name, int value) {
        ctlVal.set(JAVA_INT, 0, value);
        try {
            return (int) LibC.SETSOCKOPT.invokeExact(ctlErrno, fd, level, name, ctlVal, 4);
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
    }

    /** Discards what the raw socket queued between socket(2) and the filter/bind taking effect. */
    private void drainQueuedBeforeFilter() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sink = a.allocate(65_536);
            while (receive(sink, 0, (int) sink.byteSize(), null) != 0) {
                // discard
            }
        }
    }
}
