package org.jrdma.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.function.ToIntFunction;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.GidEntry;
import org.jrdma.verbs.GidType;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WorkCompletion;

/**
 * {@code ibv_init_ah_from_wc(3)} on a RoCE v2 port, as rdma-core's {@code libibverbs/verbs.c} does
 * it: the address of the sender of a UD receive, from its completion and the 40-byte GRH area in
 * front of its data. The area holds an IPv6 header, or (RoCE v2 over IPv4) 20 bytes then the IPv4
 * header ({@code get_grh_header_version}: IP version 6 in the first word, else version 4 at byte
 * 20; an area whose first word says 6 but whose byte 20 starts a 20-byte IPv4 header with a valid
 * checksum is IPv4).
 * <ul>
 *   <li>always: port, flow label (the area's first word, low 20 bits), DLID = the completion's SLID,
 *       SL, source path bits 0;</li>
 *   <li>with a GRH ({@link WcFlags#GRH}): global; DGID = the packet's source (IPv4: as an
 *       IPv4-mapped GID); SGID index = the index of the packet's destination in the port's GID table
 *       ({@code ibv_find_gid_index}, RoCE v2 entries); hop limit = the packet's TTL or hop limit;
 *       traffic class = its TOS or traffic class.</li>
 * </ul>
 * Used by perftest's rdma_cm UD mode ({@code ibv_create_ah_from_wc} in
 * {@code rdma_cm_initialize_ud_connection_parameters}) and udaddy's {@code create_reply_ah}.
 * Runs on the calling tool's thread; no locks.
 */
final class AhFromWc {
    /** Bytes of the GRH area in front of a UD receive's data ({@code sizeof(struct ibv_grh)}). */
    static final int GRH_BYTES = 40;

    private AhFromWc() {
    }

    /**
     * The attributes for {@code pd.createAh} of the sender of {@code wc} received on {@code port} of
     * {@code ctx}, whose GRH area is {@code grh[0, 40)}.
     *
     * @throws PerftestException when the GRH is neither IPv4 nor IPv6, its destination is multicast,
     *         or the destination is not in the port's GID table (rdma-core: ibv_create_ah_from_wc NULL)
     */
    static AhAttr of(Context ctx, int port, WorkCompletion wc, MemorySegment grh) {
        return of(wc, grh, port, gid -> findGidIndex(ctx, port, gid));
    }

    /** {@link #of(Context, int, WorkCompletion, MemorySegment)} with the GID table lookup given: index, or −1. */
    static AhAttr of(WorkCompletion wc, MemorySegment grh, int port, ToIntFunction<Gid> gidIndex) {
        AhAttr a = new AhAttr().portNum(port).dlid(wc.slid()).sl(wc.sl()).srcPathBits(0);
        int w0 = grh.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0);
        a.grh().flowLabel(w0 & 0xfffff);
        if ((wc.wcFlags() & WcFlags.GRH) == 0) {
            return a;
        }
        a.isGlobal(true);
        Gid src;
        Gid dst;
        int hopLimit;
        int tclass;
        if (grhIsIpv4(grh)) {
            dst = ipv4Gid(grh, 36);
            if ((grh.get(ValueLayout.JAVA_BYTE, 36) & 0xf0) == 0xe0) {
                throw new PerftestException("ibv_create_ah_from_wc: the packet went to a multicast address (IN_CLASSD)");
            }
            src = ipv4Gid(grh, 32);
            hopLimit = grh.get(ValueLayout.JAVA_BYTE, 28) & 0xff;
            tclass = grh.get(ValueLayout.JAVA_BYTE, 21) & 0xff;
        } else if ((w0 >>> 28) == 6) {
            dst = Gid.of(grh.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE));
            if (dst.byteAt(0) == 0xff) {
                throw new PerftestException("ibv_create_ah_from_wc: the packet went to a multicast GID");
            }
            int nextHeader = grh.get(ValueLayout.JAVA_BYTE, 6) & 0xff;
            if (nextHeader != 17) { // IPPROTO_UDP: RoCE v2 (jrdma's devices have no RoCE v1 GIDs)
                throw new PerftestException("ibv_create_ah_from_wc: GRH next header " + nextHeader + " is not UDP (RoCE v2)");
            }
            src = Gid.of(grh.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE));
            hopLimit = grh.get(ValueLayout.JAVA_BYTE, 7) & 0xff;
            tclass = (w0 >>> 20) & 0xff;
        } else {
            throw new PerftestException("ibv_create_ah_from_wc: the GRH area holds neither an IPv6 nor an IPv4 header"
                    + " (EPROTONOSUPPORT)");
        }
        int index = gidIndex.applyAsInt(dst);
        if (index < 0) {
            throw new PerftestException("ibv_create_ah_from_wc: the packet's destination " + dst
                    + " is not in the GID table of port " + port);
        }
        a.grh().dgid(src).sgidIndex(index).hopLimit(hopLimit).trafficClass(tclass);
        return a;
    }

    /** {@code get_grh_header_version} == 4. */
    private static boolean grhIsIpv4(MemorySegment grh) {
        int ip6Version = (grh.get(ValueLayout.JAVA_BYTE, 0) >> 4) & 0xf;
        int b20 = grh.get(ValueLayout.JAVA_BYTE, 20) & 0xff;
        if (ip6Version != 6) {
            return (b20 >> 4) == 4;
        }
        if ((b20 & 0xf) != 5) {
            return false;
        }
        // the IPv4 header's checksum over its 10 words, with the checksum field taken as 0
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            if (i != 10) {
                sum += grh.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 20 + i) & 0xffff;
            }
        }
        sum = (sum & 0xffff) + (sum >>> 16);
        sum = (sum & 0xffff) + (sum >>> 16);
        int check = grh.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 30) & 0xffff;
        return check == (~sum & 0xffff);
    }

    private static Gid ipv4Gid(MemorySegment grh, long offset) {
        try {
            return Gid.of(InetAddress.getByAddress(grh.asSlice(offset, 4).toArray(ValueLayout.JAVA_BYTE)));
        } catch (UnknownHostException e) {
            throw new AssertionError(e); // four bytes are always an address
        }
    }

    /** {@code ibv_find_gid_index}: the first RoCE v2 entry of {@code port} equal to {@code gid}, or −1. */
    static int findGidIndex(Context ctx, int port, Gid gid) {
        PortAttr pa = ctx.queryPort(port);
        for (int i = 0; i < pa.gidTblLen(); i++) {
            GidEntry e;
            try {
                e = ctx.queryGidEx(port, i);
            } catch (VerbsException ex) {
                continue; // ENODATA: an empty entry
            }
            if (e.gidType() == GidType.ROCE_V2 && e.gid().equals(gid)) {
                return i;
            }
        }
        return -1;
    }
}
