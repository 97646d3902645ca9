package org.jrdma.rocev2.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.jrdma.rocev2.net.Ipv4Header;
import org.jrdma.rocev2.net.SockAddr;

/**
 * Writes the 40-byte GRH area of a UD receive (IBTA Vol 1 §11.4.1.1): on RoCE v2 the network
 * header, as rxe writes it: over IPv6 the
 * 40-byte IPv6 header; over IPv4 20 zero bytes and then the 20-byte IPv4 header (version 4, TTL 64,
 * protocol UDP, DF, the received Identification where the port saw it, else 0). Stateless apart
 * from the device's address; any thread; allocation-free.
 */
final class GrhWriter {
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Bytes of the GRH area. */
    static final int LENGTH = 40;

    private final boolean ipv6;
    private final int ipv4;
    private final long ipv6Hi, ipv6Lo;

    /** For a device of the given address (IPv4: {@code localIpv4}; IPv6: the two halves). */
    GrhWriter(boolean ipv6, int localIpv4, long localIpv6Hi, long localIpv6Lo) {
        this.ipv6 = ipv6;
        this.ipv4 = localIpv4;
        this.ipv6Hi = localIpv6Hi;
        this.ipv6Lo = localIpv6Lo;
    }

    /**
     * Writes the GRH area at {@code dst[off, off+40)} for a packet of {@code udpPayload} bytes
     * (UDP payload, ICRC included) from {@code from} to this device.
     *
     * @param ipv4IdAndFlags the packet's {@code (id << 16) | flags} or -1 when unknown (IPv4 only)
     */
    void write(MemorySegment dst, long off, SockAddr from, int udpPayload, long ipv4IdAndFlags) {
        if (ipv6) {
            dst.set(I32, off, 0x60000000);
            dst.set(I16, off + 4, (short) (udpPayload + 8));
            dst.set(ValueLayout.JAVA_BYTE, off + 6, (byte) 17);
            dst.set(ValueLayout.JAVA_BYTE, off + 7, (byte) 64);
            dst.set(I64, off + 8, from.ipv6Hi());
            dst.set(I64, off + 16, from.ipv6Lo());
            dst.set(I64, off + 24, ipv6Hi);
            dst.set(I64, off + 32, ipv6Lo);
            return;
        }
        for (int k = 0; k < 20; k += 4) {
            dst.set(I32, off + k, 0);
        }
        Ipv4Header.write(dst, off + 20, 0, 20 + 8 + udpPayload,
                ipv4IdAndFlags >= 0 ? (int) (ipv4IdAndFlags >>> 16) : 0, true, 64, 17, from.ipv4(), ipv4);
    }
}
