package org.jrdma.ibverbs.bind;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * {@code struct sockaddr_in} / {@code struct sockaddr_in6} (Linux x86-64, {@code <netinet/in.h>}):
 * family in host order ({@code AF_INET} 2, {@code AF_INET6} 10), port in network order at offset 2,
 * the IPv4 address at 4, the IPv6 address at 8 and its scope id (host order) at 24. Pure; any thread.
 */
public final class SockAddr {
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    /** {@code sizeof(struct sockaddr_storage)}. */
    public static final int STORAGE = 128;

    private SockAddr() {
    }

    /** Writes {@code a} into {@code s} (at least {@link #STORAGE} bytes, zeroed first). */
    public static void write(MemorySegment s, InetSocketAddress a) {
        s.asSlice(0, STORAGE).fill((byte) 0);
        InetAddress ip = a.getAddress();
        s.set(JAVA_SHORT, 2, Short.reverseBytes((short) a.getPort()));
        byte[] raw = ip.getAddress();
        if (ip instanceof Inet4Address) {
            s.set(JAVA_SHORT, 0, (short) AF_INET);
            MemorySegment.copy(raw, 0, s, JAVA_BYTE, 4, 4);
        } else {
            s.set(JAVA_SHORT, 0, (short) AF_INET6);
            MemorySegment.copy(raw, 0, s, JAVA_BYTE, 8, 16);
            if (ip instanceof Inet6Address v6 && v6.getScopeId() != 0) {
                s.set(java.lang.foreign.ValueLayout.JAVA_INT, 24, v6.getScopeId());
            }
        }
    }

    /** Reads the address at {@code s}; null for a family other than AF_INET/AF_INET6 (an unset address). */
    public static InetSocketAddress read(MemorySegment s) {
        int family = Short.toUnsignedInt(s.get(JAVA_SHORT, 0));
        int port = Short.toUnsignedInt(Short.reverseBytes(s.get(JAVA_SHORT, 2)));
        byte[] raw;
        if (family == AF_INET) {
            raw = s.asSlice(4, 4).toArray(JAVA_BYTE);
        } else if (family == AF_INET6) {
            raw = s.asSlice(8, 16).toArray(JAVA_BYTE);
        } else {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(raw), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // 4 or 16 bytes: cannot happen
        }
    }
}
