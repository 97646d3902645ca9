package org.jrdma.rocev2.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A UDP socket over libc (FFM), bound to exactly one local address, as a RoCE v2 device uses it
 * (IBTA Vol 1 Annex A17: UDP destination port 4791). Unlike a {@code DatagramChannel} it sets the
 * options RoCE v2 needs ({@code udp(7)}, {@code ip(7)}, {@code ipv6(7)}):
 * <ul>
 *   <li>IPv4: {@code IP_MTU_DISCOVER = IP_PMTUDISC_DO}, so every datagram carries DF (receivers rely
 *       on that to rebuild the ICRC pseudo-header) and an oversize datagram fails with
 *       {@code EMSGSIZE} instead of being fragmented;</li>
 *   <li>IPv6: {@code IPV6_V6ONLY}, {@code IPV6_MTU_DISCOVER = IPV6_PMTUDISC_DO}, and
 *       {@code UDP_NO_CHECK6_RX} so that datagrams with UDP checksum 0 — which Linux rxe sends even
 *       over IPv6 — are delivered instead of dropped;</li>
 *   <li>{@code SO_REUSEADDR} off; {@code SO_REUSEPORT} only when asked ({@link Options#reusePort}):
 *       then sockets of every process of the same effective UID may bind the same address and
 *       port, and {@link #steerByQpnSlot} chooses which one gets each datagram;</li>
 *   <li>large {@code SO_RCVBUF}/{@code SO_SNDBUF} (asked with the {@code *FORCE} variants first,
 *       which need CAP_NET_ADMIN; what the kernel granted is in {@link #receiveBufferBytes()} and
 *       {@link #sendBufferBytes()});</li>
 *   <li>optional {@code UDP_GRO} receive and {@code UDP_SEGMENT} (GSO) send, see
 *       {@link #sendGso} and {@link #supportsGso()}.</li>
 * </ul>
 *
 * <h2>Data path</h2>
 * {@link #sendTo}, {@link #sendGso}, {@link #sendBatch}, {@link #receive}, {@link #receiveBatch},
 * {@link #awaitReadable} and {@link #wakeup} allocate nothing. Buffers are native
 * {@link MemorySegment}s given with an offset and length in bytes; the caller keeps their arena open
 * during the call. Return values follow one convention:
 * <ul>
 *   <li>{@code > 0}: bytes (or datagrams, for the batch calls) transferred;</li>
 *   <li>{@code 0}: would block ({@code EAGAIN}) on a non-blocking socket;</li>
 *   <li>{@code < 0}: {@code -errno} of a transient, per-datagram network condition the caller should
 *       count and carry on from: {@code ENOBUFS}, {@code ECONNREFUSED}, {@code EHOSTUNREACH},
 *       {@code ENETUNREACH}, {@code EHOSTDOWN}, {@code ENETDOWN}, {@code ECONNRESET},
 *       {@code EPERM} (a netfilter rule dropped it), {@code EMSGSIZE} (larger than the path MTU;
 *       on receive: the datagram was larger than the buffer and has been dropped);</li>
 *   <li>any other errno (a closed socket, a bad argument: {@code EBADF}, {@code EINVAL},
 *       {@code EFAULT}, {@code ENOTSOCK}, {@code EAFNOSUPPORT}, ...) throws {@link NetException}.</li>
 * </ul>
 * {@code EINTR} is retried.
 *
 * <h2>Threads</h2>
 * One thread at a time may send and one (possibly another) thread at a time may receive; the send
 * and receive sides use separate scratch memory. {@link #wakeup()} may be called from any thread.
 * Control-path setters are synchronized. {@link #close()} must not race with data-path calls: stop
 * the I/O threads first.
 */
public final class UdpSocket implements AutoCloseable {

    /**
     * Options for {@link #open}. Mutable; the defaults are: non-blocking, 4 MiB receive and send
     * buffers, traffic class left to the kernel, no GRO, no received traffic class.
     */
    public static final class Options {
        private boolean nonBlocking = true;
        private int receiveBufferBytes = 4 << 20;
        private int sendBufferBytes = 4 << 20;
        private int trafficClass = -1;
        private boolean gro;
        private boolean receiveTrafficClass;
        private boolean reusePort;

        /** The defaults. */
        public Options() {
        }

        /** New default options. */
        public static Options defaults() {
            return new Options();
        }

        /** O_NONBLOCK (default true): {@code receive} returns 0 instead of blocking. */
        public Options nonBlocking(boolean on) {
            this.nonBlocking = on;
            return this;
        }

        /** SO_RCVBUF to ask for, bytes (default 4 MiB); 0 leaves the kernel default. */
        public Options receiveBufferBytes(int bytes) {
            this.receiveBufferBytes = requireNonNegative(bytes);
            return this;
        }

        /** SO_SNDBUF to ask for, bytes (default 4 MiB); 0 leaves the kernel default. */
        public Options sendBufferBytes(int bytes) {
            this.sendBufferBytes = requireNonNegative(bytes);
            return this;
        }

        /** IPv4 TOS / IPv6 Traffic Class byte (0–255; DSCP &lt;&lt; 2 | ECN), or -1 (default) to leave it. */
        public Options trafficClass(int tc) {
            if (tc < -1 || tc > 255) {
                throw new IllegalArgumentException("traffic class " + tc + " is not in 0..255 (or -1)");
            }
            this.trafficClass = tc;
            return this;
        }

        /**
         * UDP_GRO (default false): the kernel may coalesce a train of equal-size datagrams from one
         * sender into one receive; {@link #receivedSegmentSize()} then gives the datagram size.
         * Receive buffers must then hold 65,535 bytes.
         */
        public Options gro(boolean on) {
            this.gro = on;
            return this;
        }

        /**
         * IP_RECVTOS / IPV6_RECVTCLASS (default false): {@link #receivedTrafficClass()} gives each
         * received datagram's TOS / Traffic Class byte (ECN in its low 2 bits, for DCQCN).
         */
        public Options receiveTrafficClass(boolean on) {
            this.receiveTrafficClass = on;
            return this;
        }

        /**
         * SO_REUSEPORT (default false; {@code socket(7)}): the bind succeeds where sockets with
         * SO_REUSEPORT of the same effective UID are bound to the same address and port already;
         * they form a group in which the kernel gives each datagram to one socket (by the flow hash,
         * or by a program, {@link #steerByQpnSlot}). The bind still fails with EADDRINUSE where a
         * socket without it holds the port.
         */
        public Options reusePort(boolean on) {
            this.reusePort = on;
            return this;
        }

        private static int requireNonNegative(int v) {
            if (v < 0) {
                throw new IllegalArgumentException("negative size " + v);
            }
            return v;
        }
    }

    /** Upper bound of GSO segments per send accepted by every kernel with UDP_SEGMENT (UDP_MAX_SEGMENTS = 64 before Linux 6.9). */
    public static final int MAX_GSO_SEGMENTS = 64;
    /** Largest UDP payload over IPv4: 65,535 - 20 - 8 bytes. */
    public static final int MAX_IPV4_PAYLOAD = 65_507;
    /** Largest UDP payload over IPv6 without jumbograms: 65,535 - 8 bytes. */
    public static final int MAX_IPV6_PAYLOAD = 65_527;

    private static final int RX_CONTROL_BYTES = 64;
    private static final int TX_CONTROL_BYTES = 32;

    private final int fd;
    private final int family;
    private final boolean ipv6;
    private final boolean gro;
    private final boolean recvTclass;
    private final boolean rxControl;
    private final boolean gsoSupported;
    private final SockAddr local;
    private final int receiveBufferBytes;
    private final int sendBufferBytes;
    private final Waiter waiter;
    private volatile boolean closed;

    // control path scratch (synchronized)
    private final MemorySegment ctlErrno;
    private final MemorySegment ctlVal;
    private final MemorySegment ctlLen;
    // send side scratch
    private final MemorySegment txErrno;
    private final MemorySegment txMsg;
    private final MemorySegment txIov;
    private final MemorySegment txControl;
    // receive side scratch
    private final MemorySegment rxErrno;
    private final MemorySegment rxMsg;
    private final MemorySegment rxIov;
    private final MemorySegment rxControlSeg;
    private final MemorySegment rxNameLen;
    private int lastSegmentSize;
    private int lastTrafficClass = -1;

    private UdpSocket(InetAddress bindAddress, int port, Options o) {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(o, "options");
        if ((port & ~0xffff) != 0) {
            throw new IllegalArgumentException("port " + port + " is not in 0..65535");
        }
        Arena arena = Arena.ofAuto();
        ctlErrno = LibC.newErrnoSegment(arena);
        ctlVal = arena.allocate(8, 8);
        ctlLen = arena.allocate(4, 4);
        txErrno = LibC.newErrnoSegment(arena);
        txMsg = arena.allocate(LibC.MSGHDR_SIZE, 8);
        txIov = arena.allocate(LibC.IOVEC_SIZE, 8);
        txControl = arena.allocate(TX_CONTROL_BYTES, 8);
        rxErrno = LibC.newErrnoSegment(arena);
        rxMsg = arena.allocate(LibC.MSGHDR_SIZE, 8);
        rxIov = arena.allocate(LibC.IOVEC_SIZE, 8);
        rxControlSeg = arena.allocate(RX_CONTROL_BYTES, 8);
        rxNameLen = arena.allocate(4, 4);
        local = new SockAddr(arena);

        ipv6 = bindAddress instanceof Inet6Address;
        family = ipv6 ? LibC.AF_INET6 : LibC.AF_INET;
        gro = o.gro;
        recvTclass = o.receiveTrafficClass;
        rxControl = gro || recvTclass;

        String where = ipv6 ? "[" + bindAddress.getHostAddress() + "]:" + port : bindAddress.getHostAddress() + ":" + port;
        int s = socket(family, LibC.SOCK_DGRAM | LibC.SOCK_CLOEXEC, 0, ctlErrno);
        if (s < 0) {
            throw NetException.of("socket(" + (ipv6 ? "AF_INET6" : "AF_INET") + ", SOCK_DGRAM)", LibC.errno(ctlErrno));
        }
        fd = s;
        boolean ok = false;
        Waiter w = null;
        try {
            setInt(LibC.SOL_SOCKET, LibC.SO_REUSEADDR, 0, "SO_REUSEADDR");
            if (o.reusePort) {
                setInt(LibC.SOL_SOCKET, LibC.SO_REUSEPORT, 1, "SO_REUSEPORT");
            }
            if (ipv6) {
                setInt(LibC.SOL_IPV6, LibC.IPV6_V6ONLY, 1, "IPV6_V6ONLY");
                setInt(LibC.SOL_IPV6, LibC.IPV6_MTU_DISCOVER, LibC.IPV6_PMTUDISC_DO, "IPV6_MTU_DISCOVER");
                setInt(LibC.SOL_UDP, LibC.UDP_NO_CHECK6_RX, 1, "UDP_NO_CHECK6_RX");
            } else {
                setInt(LibC.SOL_IP, LibC.IP_MTU_DISCOVER, LibC.IP_PMTUDISC_DO, "IP_MTU_DISCOVER");
            }
            if (o.receiveBufferBytes > 0) {
                setBuffer(LibC.SO_RCVBUFFORCE, LibC.SO_RCVBUF, o.receiveBufferBytes, "SO_RCVBUF");
            }
            if (o.sendBufferBytes > 0) {
                setBuffer(LibC.SO_SNDBUFFORCE, LibC.SO_SNDBUF, o.sendBufferBytes, "SO_SNDBUF");
            }
            receiveBufferBytes = getInt(LibC.SOL_SOCKET, LibC.SO_RCVBUF, "SO_RCVBUF");
            sendBufferBytes = getInt(LibC.SOL_SOCKET, LibC.SO_SNDBUF, "SO_SNDBUF");
            if (o.trafficClass >= 0) {
                applyTrafficClass(o.trafficClass);
            }
            if (gro) {
                setInt(LibC.SOL_UDP, LibC.UDP_GRO, 1, "UDP_GRO");
            }
            if (recvTclass) {
                if (ipv6) {
                    setInt(LibC.SOL_IPV6, LibC.IPV6_RECVTCLASS, 1, "IPV6_RECVTCLASS");
                } else {
                    setInt(LibC.SOL_IP, LibC.IP_RECVTOS, 1, "IP_RECVTOS");
                }
            }
            if (o.nonBlocking) {
                setNonBlocking(true);
            }
            local.set(bindAddress, port);
            int r;
            try {
                r = (int) LibC.BIND.invokeExact(ctlErrno, fd, local.seg, local.length());
            } catch (Throwable t) {
                throw LibC.rethrow(t);
            }
            if (r < 0) {
                throw NetException.bind(where, LibC.errno(ctlErrno));
            }
            readLocalName();
            gsoSupported = probeGso();
            w = new Waiter(arena);
            ok = true;
        } finally {
            if (!ok) {
                LibC.closeQuietly(fd);
            }
        }
        waiter = w;
    }

    /**
     * Opens a UDP socket bound to exactly {@code bindAddress}:{@code port}.
     *
     * @param bindAddress the device's local IPv4 or IPv6 address (its GID); the family of the socket
     * @param port        0–65535; 0 lets the kernel choose (read it with {@link #localPort()})
     * @param options     the options, or null for {@link Options#defaults()}
     * @throws NetException whose cause is a {@link java.net.BindException} and whose message is
     *                      "cannot bind ADDRESS:PORT: strerror" when {@code bind(2)} fails (e.g.
     *                      "cannot bind 10.9.9.9:4791: Cannot assign requested address"); a
     *                      {@link NetException} naming the call when {@code socket(2)} or a
     *                      required option fails
     */
    public static UdpSocket open(InetAddress bindAddress, int port, Options options) {
        return new UdpSocket(bindAddress, port, options == null ? Options.defaults() : options);
    }

    // ------------------------------------------------------------------ data path: send

    /**
     * Sends one datagram to the address this socket is {@link #connect connected} to, with
     * {@code sendto(2)} without an address: the kernel reuses the route cached at connect, which
     * on loopback takes about 0.4 µs (a sixth) off each send. Over IPv4 the kernel then writes a
     * per-socket counter into the IP Identification instead of 0 (see {@link #connect}).
     *
     * @return bytes sent; 0 if it would block; {@code -errno} for a countable condition (class doc;
     *         on a connected socket also {@code ECONNREFUSED} after an ICMP port unreachable)
     * @throws NetException for other errors (EDESTADDRREQ when not connected)
     */
    public int send(MemorySegment buf, long offset, int length) {
        long addr = address(buf, offset, length);
        long n;
        try {
            n = (long) LibC.SENDTO_NC.invokeExact(fd, addr, (long) length, 0, MemorySegment.NULL, 0);
            if (n < 0 && !LibC.wouldBlock(txErrno)) { // EINTR or an error: again, with errno captured
                do {
                    n = (long) LibC.SENDTO.invokeExact(txErrno, fd, addr, (long) length, 0, MemorySegment.NULL, 0);
                } while (n < 0 && LibC.errno(txErrno) == LibC.EINTR);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            Reference.reachabilityFence(buf);
        }
        return n >= 0 ? (int) n : sendError("send", LibC.errno(txErrno));
    }

    /**
     * {@code connect(2)}: makes {@code dst} the default destination of {@link #send} and lets the
     * kernel keep the route. Side effects, {@code udp(7)}, {@code ip(7)}: the socket then receives
     * only from {@code dst}; ICMP errors for it come back as errors of later sends; and over IPv4
     * with DF the Identification of each datagram is a per-socket counter rather than 0, so a
     * receiver that checks the ICRC must learn it from the ICRC ({@code Icrc.solveIpv4Id}).
     * {@link #sendTo} still works, to any address. Control path.
     *
     * @throws NetException if the kernel refuses (no route)
     */
    public synchronized void connect(SockAddr dst) {
        ensureOpen();
        checkDst(dst);
        int r;
        try {
            r = (int) LibC.CONNECT.invokeExact(ctlErrno, fd, dst.seg, dst.length());
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
        if (r < 0) {
            throw NetException.of("connect(" + dst + ")", LibC.errno(ctlErrno));
        }
    }

    /**
     * Sends one datagram of {@code length} bytes at {@code buf[offset]} to {@code dst} with
     * {@code sendto(2)}.
     *
     * @param buf    native memory
     * @param offset byte offset in {@code buf}
     * @param length bytes, 0–65,507 (IPv4) / 65,527 (IPv6) and at most the path MTU less headers
     * @param dst    destination of this socket's family
     * @return bytes sent; 0 if it would block; {@code -errno} for a countable condition (class doc)
     * @throws NetException for other errors; IllegalArgumentException/IndexOutOfBoundsException for
     *                      a heap segment, a wrong family or bounds outside {@code buf}
     */
    public int sendTo(MemorySegment buf, long offset, int length, SockAddr dst) {
        long addr = address(buf, offset, length);
        checkDst(dst);
        long n;
        try {
            n = (long) LibC.SENDTO_NC.invokeExact(fd, addr, (long) length, 0, dst.seg, dst.length());
            if (n < 0 && !LibC.wouldBlock(txErrno)) { // EINTR or an error: again, with errno captured
                do {
                    n = (long) LibC.SENDTO.invokeExact(txErrno, fd, addr, (long) length, 0, dst.seg, dst.length());
                } while (n < 0 && LibC.errno(txErrno) == LibC.EINTR);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            Reference.reachabilityFence(buf);
        }
        return n >= 0 ? (int) n : sendError("sendto", LibC.errno(txErrno));
    }

    /**
     * Sends a train of datagrams with one {@code sendmsg(2)} using UDP GSO ({@code UDP_SEGMENT},
     * {@code udp(7)}, Linux 4.18+): the kernel cuts {@code length} bytes at {@code buf[offset]} into
     * datagrams of {@code segmentSize} bytes each, the last one possibly shorter, all to {@code dst}.
     * This is how RoCE v2 packets of one message (all but the last of equal size) go out at several
     * times the rate of one datagram per call. Over IPv4 each datagram gets its own IP
     * Identification chosen by the kernel (see {@link RawIpv4Socket}).
     *
     * @param segmentSize bytes per datagram, 1–65,507, no more than the path MTU less headers
     * @param length      bytes in all, at most {@link #MAX_GSO_SEGMENTS} × {@code segmentSize}
     * @return bytes sent ({@code length}); 0 if it would block; {@code -errno} as for {@link #sendTo}
     * @throws UnsupportedOperationException if {@link #supportsGso()} is false
     * @throws IllegalArgumentException      for a segment size or segment count out of range
     */
    public int sendGso(MemorySegment buf, long offset, int length, int segmentSize, SockAddr dst) {
        if (!gsoSupported) {
            throw new UnsupportedOperationException("this kernel does not support UDP_SEGMENT (UDP GSO)");
        }
        if (segmentSize < 1 || segmentSize > MAX_IPV4_PAYLOAD) {
            throw new IllegalArgumentException("segment size " + segmentSize + " is not in 1.." + MAX_IPV4_PAYLOAD);
        }
        if (length > (long) segmentSize * MAX_GSO_SEGMENTS) {
            throw new IllegalArgumentException(length + " bytes make more than " + MAX_GSO_SEGMENTS
                    + " segments of " + segmentSize);
        }
        long addr = address(buf, offset, length);
        checkDst(dst);
        MemorySegment m = txMsg;
        txIov.set(JAVA_LONG, 0, addr);
        txIov.set(JAVA_LONG, 8, length);
        txControl.set(JAVA_LONG, 0, LibC.cmsgLen(2));
        txControl.set(JAVA_INT, 8, LibC.SOL_UDP);
        txControl.set(JAVA_INT, 12, LibC.UDP_SEGMENT);
        txControl.set(JAVA_SHORT, 16, (short) segmentSize);
        m.set(JAVA_LONG, LibC.MSG_NAME, dst.seg.address());
        m.set(JAVA_INT, LibC.MSG_NAMELEN, dst.length());
        m.set(JAVA_LONG, LibC.MSG_IOV, txIov.address());
        m.set(JAVA_LONG, LibC.MSG_IOVLEN, 1L);
        m.set(JAVA_LONG, LibC.MSG_CONTROL, txControl.address());
        m.set(JAVA_LONG, LibC.MSG_CONTROLLEN, LibC.cmsgSpace(2));
        m.set(JAVA_INT, LibC.MSG_FLAGS, 0);
        long n;
        try {
            n = (long) LibC.SENDMSG_NC.invokeExact(fd, m, 0);
            if (n < 0 && !LibC.wouldBlock(txErrno)) { // EINTR or an error: again, with errno captured
                do {
                    n = (long) LibC.SENDMSG.invokeExact(txErrno, fd, m, 0);
                } while (n < 0 && LibC.errno(txErrno) == LibC.EINTR);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            Reference.reachabilityFence(buf);
            Reference.reachabilityFence(dst);
        }
        return n >= 0 ? (int) n : sendError("sendmsg", LibC.errno(txErrno));
    }

    /**
     * Sends slots {@code [first, first+count)} of {@code batch} with one {@code sendmmsg(2)}.
     * Slots filled with {@link UdpBatch#setSendGso} go out as GSO trains.
     *
     * @return the number of slots sent (from {@code first}; send the rest again if fewer than
     *         {@code count}); 0 if it would block; {@code -errno} as for {@link #sendTo} when the
     *         first slot failed
     */
    public int sendBatch(UdpBatch batch, int first, int count) {
        ensureOpen();
        long vec = batch.vector(first, count);
        batch.checkSend(first, count, family);
        int n;
        try {
            n = (int) LibC.SENDMMSG_NC.invokeExact(fd, vec, count, 0);
            if (n < 0 && !LibC.wouldBlock(txErrno)) { // EINTR or an error: again, with errno captured
                do {
                    n = (int) LibC.SENDMMSG.invokeExact(txErrno, fd, vec, count, 0);
                } while (n < 0 && LibC.errno(txErrno) == LibC.EINTR);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            Reference.reachabilityFence(batch);
        }
        return n >= 0 ? n : sendError("sendmmsg", LibC.errno(txErrno));
    }

    // ------------------------------------------------------------------ data path: receive

    /**
     * Receives one datagram (with GRO: possibly a train of coalesced datagrams) into
     * {@code buf[offset .. offset+capacity)} with {@code recvfrom(2)} ({@code recvmsg(2)} when
     * control messages are wanted), and its source into
     * {@code from}. With {@link Options#gro} or {@link Options#receiveTrafficClass} on, also sets
     * {@link #receivedSegmentSize()} and {@link #receivedTrafficClass()}.
     *
     * @param from filled with the source address and port; may be null
     * @return bytes received (a datagram of 0 bytes is indistinguishable from "nothing there" and
     *         is returned as 0); 0 if nothing is there (non-blocking); {@code -EMSGSIZE} if the
     *         datagram was larger than {@code capacity} (it is dropped); other {@code -errno} for
     *         pending ICMP errors ({@code ECONNREFUSED}, {@code EHOSTUNREACH}, ...)
     * @throws NetException on a closed socket or another error
     */
    public int receive(MemorySegment buf, long offset, int capacity, SockAddr from) {
        long addr = address(buf, offset, capacity);
        if (!rxControl) {
            return receiveFrom(addr, capacity, buf, from);
        }
        MemorySegment m = rxMsg;
        rxIov.set(JAVA_LONG, 0, addr);
        rxIov.set(JAVA_LONG, 8, capacity);
        m.set(JAVA_LONG, LibC.MSG_NAME, from == null ? 0L : from.seg.address());
        m.set(JAVA_INT, LibC.MSG_NAMELEN, from == null ? 0 : SockAddr.SIZE);
        m.set(JAVA_LONG, LibC.MSG_IOV, rxIov.address());
        m.set(JAVA_LONG, LibC.MSG_IOVLEN, 1L);
        m.set(JAVA_LONG, LibC.MSG_CONTROL, rxControl ? rxControlSeg.address() : 0L);
        m.set(JAVA_LONG, LibC.MSG_CONTROLLEN, rxControl ? RX_CONTROL_BYTES : 0L);
        m.set(JAVA_INT, LibC.MSG_FLAGS, 0);
        long n;
        try {
            n = (long) LibC.RECVMSG_NC.invokeExact(fd, m, 0);
            if (n < 0 && !LibC.wouldBlock(rxErrno)) { // EINTR or an error: again, with errno captured
                do {
                    n = (long) LibC.RECVMSG.invokeExact(rxErrno, fd, m, 0);
                } while (n < 0 && LibC.errno(rxErrno) == LibC.EINTR);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            Reference.reachabilityFence(buf);
            Reference.reachabilityFence(from);
        }
        if (n < 0) {
            return receiveError("recvmsg", LibC.errno(rxErrno));
        }
        if ((m.get(JAVA_INT, LibC.MSG_FLAGS) & LibC.MSG_TRUNC) != 0) {
            return -LibC.EMSGSIZE;
        }
        if (rxControl) {
            parseControl(rxControlSeg, m.get(JAVA_LONG, LibC.MSG_CONTROLLEN), (int) n);
        }
        return (int) n;
    }

    /**
     * {@link #receive} without control messages: {@code recvfrom(2)} with MSG_TRUNC (which returns the
     * datagram's real length, so truncation is still seen) costs about 0.1 µs less per call than
     * {@code recvmsg(2)}, which copies in and checks a msghdr and an iovec, on the polling path
     * where most calls find the socket empty.
     */
    private int receiveFrom(long addr, int capacity, MemorySegment buf, SockAddr from) {
        MemorySegment name = from == null ? MemorySegment.NULL : from.seg;
        MemorySegment nameLen = from == null ? MemorySegment.NULL : rxNameLen;
        long n;
        try {
            if (from != null) {
                rxNameLen.set(JAVA_INT, 0, SockAddr.SIZE);
            }
            n = (long) LibC.RECVFROM_NC.invokeExact(fd, addr, (long) capacity, LibC.MSG_TRUNC, name, nameLen);
            if (n < 0 && !LibC.wouldBlock(rxErrno)) { // EINTR or an error: again, with errno captured
                do {
                    if (from != null) {
                        rxNameLen.set(JAVA_INT, 0, SockAddr.SIZE);
                    }
                    n = (long) LibC.RECVFROM.invokeExact(rxErrno, fd, addr, (long) capacity, LibC.MSG_TRUNC, name, nameLen);
                } while (n < 0 && LibC.errno(rxErrno) == LibC.EINTR);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            Reference.reachabilityFence(buf);
            Reference.reachabilityFence(from);
        }
        if (n < 0) {
            return receiveError("recvfrom", LibC.errno(rxErrno));
        }
        if (n > capacity) {
            return -LibC.EMSGSIZE;
        }
        return (int) n;
    }

    /**
     * Receives up to {@code count} datagrams into slots {@code [0, count)} of {@code batch} (each
     * filled with {@link UdpBatch#setReceive}) with one {@code recvmmsg(2)} (MSG_WAITFORONE: on a
     * blocking socket it waits for the first only). Per slot: {@link UdpBatch#length},
     * {@link UdpBatch#address}, {@link UdpBatch#truncated} and (GRO) {@link UdpBatch#segmentSize}.
     *
     * @return the number of slots filled; 0 if nothing is there; {@code -errno} as for {@link #receive}
     */
    public int receiveBatch(UdpBatch batch, int count) {
        ensureOpen();
        long vec = batch.vector(0, count);
        batch.prepareReceive(count, rxControl);
        int n;
        try {
            n = (int) LibC.RECVMMSG_NC.invokeExact(fd, vec, count, LibC.MSG_WAITFORONE, 0L);
            if (n < 0 && !LibC.wouldBlock(rxErrno)) { // EINTR or an error: again, with errno captured
                do {
                    n = (int) LibC.RECVMMSG.invokeExact(rxErrno, fd, vec, count, LibC.MSG_WAITFORONE, 0L);
                } while (n < 0 && LibC.errno(rxErrno) == LibC.EINTR);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        } finally {
            Reference.reachabilityFence(batch);
        }
        return n >= 0 ? n : receiveError("recvmmsg", LibC.errno(rxErrno));
    }

    /**
     * After a {@link #receive} on a socket opened with {@link Options#gro}: the size in bytes of each
     * datagram coalesced into the buffer (the last may be shorter); equals the received length when
     * nothing was coalesced. 0 before any receive or without GRO.
     */
    public int receivedSegmentSize() {
        return lastSegmentSize;
    }

    /**
     * After a {@link #receive} on a socket opened with {@link Options#receiveTrafficClass}: the
     * received IPv4 TOS / IPv6 Traffic Class byte (0–255; ECN = low 2 bits), or -1 if none was
     * reported.
     */
    public int receivedTrafficClass() {
        return lastTrafficClass;
    }

    private void parseControl(MemorySegment c, long controlLen, int received) {
        long data = LibC.cmsgData(c, 0, controlLen, LibC.SOL_UDP, LibC.UDP_GRO);
        lastSegmentSize = data >= 0 ? c.get(JAVA_INT, data) : gro ? received : 0;
        data = LibC.cmsgData(c, 0, controlLen, LibC.SOL_IP, LibC.IP_TOS);
        if (data >= 0) {
            lastTrafficClass = c.get(JAVA_BYTE, data) & 0xff;
        } else {
            data = LibC.cmsgData(c, 0, controlLen, LibC.SOL_IPV6, LibC.IPV6_TCLASS);
            lastTrafficClass = data < 0 ? -1 : c.get(JAVA_INT, data) & 0xff;
        }
    }

    // ------------------------------------------------------------------ waiting

    /**
     * Blocks in {@code ppoll(2)} until a datagram can be received (true), {@code timeoutNanos}
     * passes or {@link #wakeup()} is called (false, unless a datagram is there as well). For the
     * receiving thread. Allocation-free.
     *
     * @param timeoutNanos ns; 0 checks without blocking; negative waits without limit
     */
    public boolean awaitReadable(long timeoutNanos) {
        ensureOpen();
        return waiter.await(fd, timeoutNanos);
    }

    /** Makes a blocked (or the next) {@link #awaitReadable} return. Any thread; allocation-free. */
    public void wakeup() {
        if (!closed) {
            waiter.wakeup();
        }
    }

    // ------------------------------------------------------------------ control path

    /** The bound local port (what the kernel chose when opened with port 0). */
    public int localPort() {
        return local.port();
    }

    /** The bound local address and port (do not modify). */
    public SockAddr localAddress() {
        return local;
    }

    /** True if this is an AF_INET6 socket. */
    public boolean isIpv6() {
        return ipv6;
    }

    /** {@link SockAddr#AF_INET} or {@link SockAddr#AF_INET6}. */
    public int family() {
        return family;
    }

    /** The file descriptor (for diagnostics and for polling several sockets together). */
    public int fd() {
        return fd;
    }

    /** SO_RCVBUF as the kernel granted it at open (bytes; Linux reports twice what it accounts for payload). */
    public int receiveBufferBytes() {
        return receiveBufferBytes;
    }

    /** SO_SNDBUF as the kernel granted it at open (bytes; Linux reports twice what it accounts for payload). */
    public int sendBufferBytes() {
        return sendBufferBytes;
    }

    /** True if the kernel accepts UDP_SEGMENT (UDP GSO, Linux 4.18+) on this socket: see {@link #sendGso}. */
    public boolean supportsGso() {
        return gsoSupported;
    }

    /** True if opened with {@link Options#gro} (UDP_GRO accepted by the kernel). */
    public boolean groEnabled() {
        return gro;
    }

    /**
     * Sets the IPv4 TOS (IP_TOS) or IPv6 Traffic Class (IPV6_TCLASS) byte of datagrams sent from now
     * on: 0–255, DSCP in the upper 6 bits, ECN in the lower 2.
     *
     * @throws NetException if the kernel refuses it
     */
    public synchronized void setTrafficClass(int tc) {
        if (tc < 0 || tc > 255) {
            throw new IllegalArgumentException("traffic class " + tc + " is not in 0..255");
        }
        ensureOpen();
        applyTrafficClass(tc);
    }

    /** The current IPv4 TOS / IPv6 Traffic Class byte (0–255). */
    public synchronized int trafficClass() {
        ensureOpen();
        return ipv6 ? getInt(LibC.SOL_IPV6, LibC.IPV6_TCLASS, "IPV6_TCLASS")
                : getInt(LibC.SOL_IP, LibC.IP_TOS, "IP_TOS") & 0xff;
    }

    /** Switches O_NONBLOCK on or off with {@code fcntl(2)}. */
    public synchronized void setNonBlocking(boolean on) {
        int flags = fcntl(LibC.F_GETFL, 0);
        fcntl(LibC.F_SETFL, on ? flags | LibC.O_NONBLOCK : flags & ~LibC.O_NONBLOCK);
    }

    /** True if O_NONBLOCK is set. */
    public synchronized boolean isNonBlocking() {
        return (fcntl(LibC.F_GETFL, 0) & LibC.O_NONBLOCK) != 0;
    }

    /**
     * {@code getsockopt(2)} of an int option, e.g. {@code (17, 102)} for UDP_NO_CHECK6_RX.
     * Control path; for diagnostics and tests.
     *
     * @throws NetException if the kernel refuses it
     */
    public synchronized int getIntOption(int level, int name) {
        ensureOpen();
        return getInt(level, name, "option " + level + "/" + name);
    }

    /**
     * Attaches a classic BPF socket filter that drops every datagram ({@code SO_ATTACH_FILTER},
     * {@code socket(7)}), so the socket keeps its address and port bound — and the kernel therefore
     * answers no ICMP port unreachable — while nothing is queued to it. This is how a device that
     * receives through a {@link RawIpv4Socket} keeps the port of its UDP socket without draining it.
     *
     * @throws NetException if the kernel refuses the filter
     */
    public synchronized void discardAll() {
        ensureOpen();
        SocketFilters.attach(fd, SocketFilters.DROP_ALL, ctlErrno);
    }

    /**
     * Gives the SO_REUSEPORT group this socket belongs to ({@link Options#reusePort}) a classic BPF
     * program ({@code SO_ATTACH_REUSEPORT_CBPF}, {@code socket(7)}) that steers each RoCE v2
     * datagram by its BTH destination QPN: the socket at index {@code i} of the group (the order in
     * which the sockets joined; when one closes, the kernel moves the last into its place) gets the
     * datagrams whose QPN {@code >>> shift} is {@code slotOfIndex[i]}; for any other QPN the kernel
     * chooses a socket by the flow hash. The program belongs to the group, not to this socket: the
     * last one attached by any member applies to all. Control path.
     *
     * @param shift       0..23
     * @param slotOfIndex the QPN slot of each socket of the group, by index (at most 2000)
     * @throws NetException if the kernel refuses it (e.g. EINVAL for a socket without SO_REUSEPORT)
     */
    public synchronized void steerByQpnSlot(int shift, int[] slotOfIndex) {
        if (shift < 0 || shift > 23) {
            throw new IllegalArgumentException("shift " + shift + " is not in 0..23");
        }
        ensureOpen();
        SocketFilters.attach(fd, LibC.SO_ATTACH_REUSEPORT_CBPF, "SO_ATTACH_REUSEPORT_CBPF",
                SocketFilters.reuseportByQpnSlot(shift, slotOfIndex), ctlErrno);
    }

    /** The effective UID of this process ({@code geteuid(2)}): one SO_REUSEPORT group has one. */
    public static int effectiveUid() {
        try {
            return (int) LibC.GETEUID.invokeExact();
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
    }

    /** True once {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    /** Closes the socket and its wake-up eventfd. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        waiter.wakeup();
        LibC.closeQuietly(fd);
        waiter.close();
    }

    @Override
    public String toString() {
        return "UdpSocket[" + local + (closed ? ", closed" : "") + "]";
    }

    // ------------------------------------------------------------------ internals

    /** Bounds, nativeness and open-state check; the raw address of {@code buf[offset]}. */
    long address(MemorySegment buf, long offset, int length) {
        if (closed) {
            throw NetException.of("socket closed", LibC.EBADF);
        }
        if (!buf.isNative()) {
            throw new IllegalArgumentException("buffer must be native memory");
        }
        Objects.checkFromIndexSize(offset, length, buf.byteSize());
        return buf.address() + offset;
    }

    void checkDst(SockAddr dst) {
        if (dst.family() != family) {
            throw new IllegalArgumentException("destination " + dst + " is not of the socket's family " + family);
        }
    }

    static int sendError(String call, int errno) {
        return switch (errno) {
            case LibC.EAGAIN -> 0;
            case LibC.ENOBUFS, LibC.ECONNREFUSED, LibC.EHOSTUNREACH, LibC.ENETUNREACH, LibC.EHOSTDOWN,
                 LibC.ENETDOWN, LibC.ECONNRESET, LibC.EPERM, LibC.EMSGSIZE -> -errno;
            default -> throw NetException.of(call, errno);
        };
    }

    static int receiveError(String call, int errno) {
        return switch (errno) {
            case LibC.EAGAIN -> 0;
            case LibC.ENOBUFS, LibC.ECONNREFUSED, LibC.EHOSTUNREACH, LibC.ENETUNREACH, LibC.EHOSTDOWN,
                 LibC.ENETDOWN, LibC.ECONNRESET, LibC.EPERM, LibC.EMSGSIZE -> -errno;
            default -> throw NetException.of(call, errno);
        };
    }

    private void ensureOpen() {
        if (closed) {
            throw NetException.of("socket closed", LibC.EBADF);
        }
    }

    private static int socket(int domain, int type, int protocol, MemorySegment errno) {
        try {
            return (int) LibC.SOCKET.invokeExact(errno, domain, type, protocol);
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
    }

    private void applyTrafficClass(int tc) {
        if (ipv6) {
            setInt(LibC.SOL_IPV6, LibC.IPV6_TCLASS, tc, "IPV6_TCLASS");
        } else {
            setInt(LibC.SOL_IP, LibC.IP_TOS, tc, "IP_TOS");
        }
    }

    private void setBuffer(int forceName, int name, int bytes, String what) {
        if (trySetInt(LibC.SOL_SOCKET, forceName, bytes) < 0) {
            setInt(LibC.SOL_SOCKET, name, bytes, what);
        }
    }

    private int trySetInt(int level, int name, int value) {
        ctlVal.set(JAVA_INT, 0, value);
        try {
            return (int) LibC.SETSOCKOPT.invokeExact(ctlErrno, fd, level, name, ctlVal, 4);
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
    }

    private void setInt(int level, int name, int value, String what) {
        if (trySetInt(level, name, value) < 0) {
            throw NetException.of("setsockopt(" + what + ", " + value + ")", LibC.errno(ctlErrno));
        }
    }

    private int tryGetInt(int level, int name) {
        ctlVal.set(JAVA_LONG, 0, 0L);
        ctlLen.set(JAVA_INT, 0, 4);
        try {
            return (int) LibC.GETSOCKOPT.invokeExact(ctlErrno, fd, level, name, ctlVal, ctlLen);
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
    }

    private int getInt(int level, int name, String what) {
        if (tryGetInt(level, name) < 0) {
            throw NetException.of("getsockopt(" + what + ")", LibC.errno(ctlErrno));
        }
        return ctlVal.get(JAVA_INT, 0);
    }

    private boolean probeGso() {
        return tryGetInt(LibC.SOL_UDP, LibC.UDP_SEGMENT) == 0;
    }

    private int fcntl(int cmd, int arg) {
        ensureOpen();
        int r;
        try {
            r = (int) LibC.FCNTL.invokeExact(ctlErrno, fd, cmd, arg);
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
        if (r < 0) {
            throw NetException.of("fcntl", LibC.errno(ctlErrno));
        }
        return r;
    }

    private void readLocalName() {
        ctlLen.set(JAVA_INT, 0, SockAddr.SIZE);
        int r;
        try {
            r = (int) LibC.GETSOCKNAME.invokeExact(ctlErrno, fd, local.seg, ctlLen);
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
        if (r < 0) {
            throw NetException.of("getsockname", LibC.errno(ctlErrno));
        }
    }
}
