package org.jrdma.rocev2.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * A mutable, reusable socket address in native memory: a {@code struct sockaddr_storage} (128
 * bytes) holding a {@code struct sockaddr_in} (IPv4, 16 bytes) or {@code struct sockaddr_in6}
 * (IPv6, 28 bytes), ready to pass to {@code sendto(2)} / {@code recvmsg(2)}. See {@code ip(7)},
 * {@code ipv6(7)}.
 *
 * <p>Addresses and ports are given and returned in host order as plain numbers: an IPv4 address
 * 127.0.0.1 is the {@code int} {@code 0x7f000001}; an IPv6 address is two {@code long}s, the first
 * ({@code hi}) holding its first 8 bytes, most significant first; a port is 0–65535. The native
 * memory holds them in network byte order as the kernel expects.
 *
 * <p>Every setter, getter, {@link #sameAs} and {@link #copyFrom} is allocation-free; only
 * {@link #set(InetAddress, int)}, {@link #toInetSocketAddress()} and {@link #toString()} (control
 * path) allocate. Not thread-safe: one owner at a time.
 */
public final class SockAddr {
    /** {@code sizeof(struct sockaddr_storage)}: 128 bytes. */
    public static final int SIZE = LibC.SOCKADDR_STORAGE;
    /** {@code AF_INET}. */
    public static final int AF_INET = LibC.AF_INET;
    /** {@code AF_INET6}. */
    public static final int AF_INET6 = LibC.AF_INET6;

    private static final ValueLayout.OfShort FAMILY = ValueLayout.JAVA_SHORT; // host order
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt HOST32 = ValueLayout.JAVA_INT_UNALIGNED;

    // sockaddr_in: family@0 port@2 addr@4; sockaddr_in6: family@0 port@2 flowinfo@4 addr@8 scope_id@24
    private static final long PORT = 2;
    private static final long IN_ADDR = 4;
    private static final long IN6_FLOWINFO = 4;
    private static final long IN6_ADDR = 8;
    private static final long IN6_SCOPE = 24;

    final MemorySegment seg;

    /** A new, unset ({@link #family()} 0) address in memory of an automatic arena (freed by the GC). */
    public SockAddr() {
        this(Arena.ofAuto());
    }

    /**
     * A new, unset address in memory of {@code arena}; it lives as long as the arena. Use a shared or
     * automatic arena when several threads touch it over its life.
     */
    public SockAddr(Arena arena) {
        this.seg = arena.allocate(SIZE, 8);
    }

    /** A view of 128 bytes of {@code storage} at {@code offset} (the slots of a {@link UdpBatch}). */
    SockAddr(MemorySegment storage, long offset) {
        this.seg = storage.asSlice(offset, SIZE);
    }

    /** The 128 bytes of native memory ({@code struct sockaddr_storage}). */
    public MemorySegment segment() {
        return seg;
    }

    /** Sets IPv4 {@code addr} (host order, e.g. {@code 0x7f000001} = 127.0.0.1) and {@code port} (0–65535). */
    public SockAddr setIpv4(int addr, int port) {
        checkPort(port);
        seg.fill((byte) 0);
        seg.set(FAMILY, 0, (short) AF_INET);
        seg.set(BE16, PORT, (short) port);
        seg.set(BE32, IN_ADDR, addr);
        return this;
    }

    /**
     * Sets IPv6 address {@code hi:lo} (bytes 0–7 and 8–15 of the address, each most significant
     * first) and {@code port} (0–65535), flow info 0 and scope id 0.
     */
    public SockAddr setIpv6(long hi, long lo, int port) {
        return setIpv6(hi, lo, port, 0);
    }

    /** As {@link #setIpv6(long, long, int)} with the scope id (interface index) of a link-local address. */
    public SockAddr setIpv6(long hi, long lo, int port, int scopeId) {
        checkPort(port);
        seg.fill((byte) 0);
        seg.set(FAMILY, 0, (short) AF_INET6);
        seg.set(BE16, PORT, (short) port);
        seg.set(BE64, IN6_ADDR, hi);
        seg.set(BE64, IN6_ADDR + 8, lo);
        seg.set(HOST32, IN6_SCOPE, scopeId);
        return this;
    }

    /** Sets {@code address} (IPv4 or IPv6, with its scope id) and {@code port} (0–65535). Control path. */
    public SockAddr set(InetAddress address, int port) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return setIpv4(MemorySegment.ofArray(b).get(BE32, 0), port);
        }
        MemorySegment a = MemorySegment.ofArray(b);
        int scope = address instanceof Inet6Address i6 ? i6.getScopeId() : 0;
        return setIpv6(a.get(BE64, 0), a.get(BE64, 8), port, scope);
    }

    /** Sets the address and port of {@code address}, which must be resolved. Control path. */
    public SockAddr set(InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address " + address);
        }
        return set(address.getAddress(), address.getPort());
    }

    /** Makes this address unset ({@link #family()} 0). */
    public void clear() {
        seg.fill((byte) 0);
    }

    /** {@link #AF_INET}, {@link #AF_INET6}, or 0 when unset. */
    public int family() {
        return seg.get(FAMILY, 0) & 0xffff;
    }

    /** True for an IPv4 address. */
    public boolean isIpv4() {
        return family() == AF_INET;
    }

    /** True for an IPv4 loopback address (127.0.0.0/8, RFC 1122 §3.2.1.3). */
    public boolean isIpv4Loopback() {
        return isIpv4() && (ipv4() >>> 24) == 127;
    }

    /** True for an IPv6 address. */
    public boolean isIpv6() {
        return family() == AF_INET6;
    }

    /** The port, 0–65535. */
    public int port() {
        return seg.get(BE16, PORT) & 0xffff;
    }

    /** Sets only the port (0–65535), keeping the address. */
    public SockAddr port(int port) {
        checkPort(port);
        seg.set(BE16, PORT, (short) port);
        return this;
    }

    /** The IPv4 address in host order; meaningful only when {@link #isIpv4()}. */
    public int ipv4() {
        return seg.get(BE32, IN_ADDR);
    }

    /** Bytes 0–7 of the IPv6 address, most significant first; meaningful only when {@link #isIpv6()}. */
    public long ipv6Hi() {
        return seg.get(BE64, IN6_ADDR);
    }

    /** Bytes 8–15 of the IPv6 address, most significant first; meaningful only when {@link #isIpv6()}. */
    public long ipv6Lo() {
        return seg.get(BE64, IN6_ADDR + 8);
    }

    /** The IPv6 scope id (interface index), 0 when none. */
    public int scopeId() {
        return isIpv6() ? seg.get(HOST32, IN6_SCOPE) : 0;
    }

    /** The IPv6 flow information field as stored (network order value), 0 for IPv4. */
    public int flowInfo() {
        return isIpv6() ? seg.get(BE32, IN6_FLOWINFO) : 0;
    }

    /**
     * The {@code socklen_t} to pass with this address: 16 for IPv4, 28 for IPv6, 128 when unset
     * (the whole storage, as a receive buffer).
     */
    public int length() {
        int f = family();
        return f == AF_INET ? LibC.SOCKADDR_IN : f == AF_INET6 ? LibC.SOCKADDR_IN6 : SIZE;
    }

    /**
     * True if {@code other} has the same family, address, port (and for IPv6 scope id). Ignores
     * IPv6 flow information. Allocation-free.
     */
    public boolean sameAs(SockAddr other) {
        int f = family();
        if (f != other.family() || port() != other.port()) {
            return false;
        }
        if (f == AF_INET) {
            return ipv4() == other.ipv4();
        }
        if (f == AF_INET6) {
            return ipv6Hi() == other.ipv6Hi() && ipv6Lo() == other.ipv6Lo() && scopeId() == other.scopeId();
        }
        return f == 0;
    }

    /** Copies {@code other} into this address (all 128 bytes). Allocation-free. */
    public SockAddr copyFrom(SockAddr other) {
        MemorySegment.copy(other.seg, 0, seg, 0, SIZE);
        return this;
    }

    /**
     * A new {@link InetSocketAddress} equal to this address. Control path only.
     *
     * @throws IllegalStateException if unset
     */
    public InetSocketAddress toInetSocketAddress() {
        return new InetSocketAddress(toInetAddress(), port());
    }

    /**
     * A new {@link InetAddress} equal to this address (without the port). Control path only.
     *
     * @throws IllegalStateException if unset
     */
    public InetAddress toInetAddress() {
        int f = family();
        try {
            if (f == AF_INET) {
                byte[] b = new byte[4];
                MemorySegment.ofArray(b).set(BE32, 0, ipv4());
                return InetAddress.getByAddress(b);
            }
            if (f == AF_INET6) {
                byte[] b = new byte[16];
                MemorySegment.ofArray(b).set(BE64, 0, ipv6Hi());
                MemorySegment.ofArray(b).set(BE64, 8, ipv6Lo());
                int scope = scopeId();
                return scope != 0 ? Inet6Address.getByAddress(null, b, scope) : InetAddress.getByAddress(b);
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalStateException("address family " + f + " is neither AF_INET nor AF_INET6");
    }

    /** "127.0.0.1:4791", "[::1]:4791" or "unset". Control path. */
    @Override
    public String toString() {
        int f = family();
        if (f == AF_INET) {
            return toInetAddress().getHostAddress() + ":" + port();
        }
        if (f == AF_INET6) {
            return "[" + toInetAddress().getHostAddress() + "]:" + port();
        }
        return f == 0 ? "unset" : "family " + f;
    }

    private static void checkPort(int port) {
        if ((port & ~0xffff) != 0) {
            throw new IllegalArgumentException("port " + port + " is not in 0..65535");
        }
    }
}
