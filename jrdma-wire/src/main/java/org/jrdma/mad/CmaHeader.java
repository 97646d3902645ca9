package org.jrdma.mad;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The 36-byte header of the "RDMA IP CM Service" (IBTA Vol 1 Annex A11; Linux {@code struct cma_hdr} in
 * {@code drivers/infiniband/core/cma.c}) that rdma_cm puts first in the PrivateData of a REQ (and of a
 * SIDR_REQ) whose ServiceID is in an IP port space ({@link #serviceId(int, int)}). What the application passes
 * as private data follows it, so it gets {@code 92 - 36 = 56} bytes on connect.
 *
 * <pre>
 * byte 0       CMA version: MajV (4) | MinV (4), 0x00
 * byte 1       IP version (4 bits: 4 or 6) | reserved (4)
 * bytes 2-3    source port (the connecting side's port)
 * bytes 4-19   source IP address
 * bytes 20-35  destination IP address
 * </pre>
 *
 * An IPv4 address takes the last four bytes of its 16, the twelve before are zero (Linux's
 * {@code cma_ip_addr.ip4}: {@code pad[3], addr}; as in the REQs of {@code rxe-cm-rping.pcap}); reading also
 * accepts the {@code ::ffff:a.b.c.d} form. Not thread-safe; allocation-free except the address accessors.
 */
public final class CmaHeader {
    /** Length of the header, bytes. */
    public static final int LENGTH = 36;
    /** The CMA version Linux sends and accepts (MajV 0, MinV 0). */
    public static final int CMA_VERSION = 0x00;

    /** rdma_cm port space TCP (RC): {@code RDMA_PS_TCP}. */
    public static final int RDMA_PS_TCP = 0x0106;
    /** rdma_cm port space UDP (UD): {@code RDMA_PS_UDP}. */
    public static final int RDMA_PS_UDP = 0x0111;
    /** rdma_cm port space IB (native service IDs): {@code RDMA_PS_IB}. */
    public static final int RDMA_PS_IB = 0x013F;
    /** rdma_cm port space IPoIB: {@code RDMA_PS_IPOIB}. */
    public static final int RDMA_PS_IPOIB = 0x0002;

    private static final int SRC = 4;
    private static final int DST = 20;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at {@code seg[offset, offset + 36)}, e.g. a REQ's {@link CmReq#PRIVATE_DATA_OFFSET}. @return this */
    public CmaHeader wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /**
     * The IP CM ServiceID of a port in a port space: {@code (ps << 16) + port} ({@code cma.c:
     * cma_get_service_id}; e.g. TCP port 7174 = {@code 0x0000000001061C06}).
     *
     * @param portSpace 16 bits ({@link #RDMA_PS_TCP}, {@link #RDMA_PS_UDP}, ...)
     * @param port 0..65535
     */
    public static long serviceId(int portSpace, int port) {
        return ((long) (portSpace & 0xffff) << 16) + (port & 0xffff);
    }

    /** The port space of an IP CM ServiceID (bits 31..16), the inverse of {@link #serviceId(int, int)}. */
    public static int portSpace(long serviceId) {
        return (int) (serviceId >>> 16) & 0xffff;
    }

    /** The port of an IP CM ServiceID (bits 15..0). */
    public static int port(long serviceId) {
        return (int) serviceId & 0xffff;
    }

    /** True if the ServiceID is an IP CM ServiceID ({@code 0x0000000001PPpppp}) of any port space. */
    public static boolean isIpServiceId(long serviceId) {
        return (serviceId >>> 32) == 0 && (serviceId >>> 24) == 1;
    }

    /** CMA version, 8 bits (MajV | MinV). */
    public int cmaVersion() {
        return Bits.get(seg, off, 0, 8);
    }

    /** Sets {@link #cmaVersion()}. @return this */
    public CmaHeader cmaVersion(int v) {
        Bits.set(seg, off, 0, 8, v);
        return this;
    }

    /** IP version, bits 7..4 of byte 1 (4 or 6). */
    public int ipVersion() {
        return Bits.get(seg, off + 1, 0, 4);
    }

    /** Sets {@link #ipVersion()} (masked to 4 bits; the reserved low nibble is kept). @return this */
    public CmaHeader ipVersion(int v) {
        Bits.set(seg, off + 1, 0, 4, v);
        return this;
    }

    /** Source port, 16 bits. */
    public int port() {
        return Bits.get(seg, off + 2, 0, 16);
    }

    /** Sets {@link #port()}. @return this */
    public CmaHeader port(int v) {
        Bits.set(seg, off + 2, 0, 16, v);
        return this;
    }

    /** The source address as the IP version says (4: the last four bytes); null for another IP version. */
    public InetAddress srcAddress() {
        return address(SRC);
    }

    /** Writes the source address (IPv4: twelve zero bytes, then the address). @return this */
    public CmaHeader srcAddress(InetAddress a) {
        address(SRC, a);
        return this;
    }

    /** The destination address as the IP version says; null for another IP version. */
    public InetAddress dstAddress() {
        return address(DST);
    }

    /** Writes the destination address (IPv4: twelve zero bytes, then the address). @return this */
    public CmaHeader dstAddress(InetAddress a) {
        address(DST, a);
        return this;
    }

    /**
     * Writes the whole header as Linux's {@code cma_format_hdr} does for a REQ: version 0, the IP version of
     * {@code src} (both addresses must be of one family), the source port and both addresses.
     *
     * @throws IllegalArgumentException if the two addresses are of different families
     * @return this
     */
    public CmaHeader set(InetAddress src, int srcPort, InetAddress dst) {
        if ((src instanceof Inet4Address) != (dst instanceof Inet4Address)) {
            throw new IllegalArgumentException("source " + src + " and destination " + dst + " differ in IP version");
        }
        seg.asSlice(off, LENGTH).fill((byte) 0);
        return cmaVersion(CMA_VERSION).ipVersion(src instanceof Inet4Address ? 4 : 6).port(srcPort)
            .srcAddress(src).dstAddress(dst);
    }

    private InetAddress address(int at) {
        byte[] b = Bits.bytes(seg, off + at, 16);
        try {
            return switch (ipVersion()) {
                case 4 -> InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
                case 6 -> Inet6Address.getByAddress(null, b, -1);
                default -> null;
            };
        } catch (UnknownHostException e) {
            throw new AssertionError(e); // a 4- or 16-byte array is always an address
        }
    }

    private void address(int at, InetAddress a) {
        byte[] b = a.getAddress();
        MemorySegment s = seg.asSlice(off + at, 16);
        s.fill((byte) 0);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 16 - b.length, b.length);
    }
}
