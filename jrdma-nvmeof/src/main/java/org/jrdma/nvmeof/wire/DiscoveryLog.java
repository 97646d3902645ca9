package org.jrdma.nvmeof.wire;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The discovery log page, log identifier 70h (NVMe-oF 1.1 §5.3, Figures 40-41; Linux
 * {@code struct nvmf_disc_rsp_page_hdr}, {@code struct nvmf_disc_rsp_page_entry}): a 1024-byte header
 * (GENCTR u64, NUMREC u64, RECFMT u16) then NUMREC entries of 1024 bytes.
 *
 * @param genctr generation counter
 * @param numrec number of records
 * @param recfmt record format
 * @param entries the entries read (as many of NUMREC as the page held)
 */
public record DiscoveryLog(long genctr, long numrec, int recfmt, List<Entry> entries) {
    /** Bytes of the header, and of each entry. */
    public static final int HEADER_SIZE = 1024;
    public static final int ENTRY_SIZE = 1024;

    /**
     * An entry.
     *
     * @param trtype transport type (0) 1 RDMA, 2 FC, 3 TCP, 254 intra-host
     * @param adrfam address family (1) 1 IPv4, 2 IPv6, 3 IB, 4 FC
     * @param subtype subsystem type (2) 1 referral to a discovery service, 2 NVM subsystem, 3 current discovery subsystem
     * @param treq transport requirements (3)
     * @param portid port ID (4)
     * @param cntlid controller ID (6), 0xFFFF dynamic
     * @param asqsz admin max SQ size (8)
     * @param eflags entry flags (10)
     * @param trsvcid transport service identifier (32, 32 bytes): the port number
     * @param subnqn subsystem NQN (256, 256 bytes)
     * @param traddr transport address (512, 256 bytes)
     * @param rdmaQptype RDMA transport specific (768): QP type 1 reliable connected, 2 reliable datagram
     * @param rdmaPrtype RDMA provider type (769) 1 none, 2 InfiniBand, 3 RoCE, 4 RoCE v2, 5 iWARP
     * @param rdmaCms RDMA connection management service (770) 1 rdma_cm
     * @param rdmaPkey RDMA partition key (776)
     */
    public record Entry(int trtype, int adrfam, int subtype, int treq, int portid, int cntlid, int asqsz, int eflags,
            String trsvcid, String subnqn, String traddr, int rdmaQptype, int rdmaPrtype, int rdmaCms, int rdmaPkey) {
    }

    /** GENCTR of a header at {@code off}. */
    public static long genctr(MemorySegment s, long off) {
        return Le.u64(s, off);
    }

    /** NUMREC of a header at {@code off}. */
    public static long numrec(MemorySegment s, long off) {
        return Le.u64(s, off + 8);
    }

    /** Decodes the header and as many entries as {@code len} bytes from {@code off} hold (at most NUMREC). */
    public static DiscoveryLog decode(MemorySegment s, long off, long len) {
        long numrec = numrec(s, off);
        List<Entry> l = new ArrayList<>();
        for (long i = 0; i < numrec && HEADER_SIZE + (i + 1) * ENTRY_SIZE <= len; i++) {
            long e = off + HEADER_SIZE + i * ENTRY_SIZE;
            l.add(new Entry(Le.u8(s, e), Le.u8(s, e + 1), Le.u8(s, e + 2), Le.u8(s, e + 3), Le.u16(s, e + 4),
                    Le.u16(s, e + 6), Le.u16(s, e + 8), Le.u16(s, e + 10), Le.ascii(s, e + 32, 32),
                    Le.ascii(s, e + 256, 256), Le.ascii(s, e + 512, 256), Le.u8(s, e + 768), Le.u8(s, e + 769),
                    Le.u8(s, e + 770), Le.u16(s, e + 776)));
        }
        return new DiscoveryLog(genctr(s, off), numrec, Le.u16(s, off + 16), List.copyOf(l));
    }
}
