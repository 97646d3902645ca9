package org.jrdma.nvmeof.target;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The data structures the target returns, built once: the Identify Controller data of the NVM
 * subsystem and of the discovery controller (NVMe Base 2.0 Figure 275, NVMe-oF 1.1 §4.1; the field
 * values of Linux's nvmet where the host reads them, e.g. CTRATT 41h, KAS 10, SGLS 00100005h), the
 * Identify Namespace data of each namespace (NVM Command Set 1.0 Figure 97) and the discovery log page
 * (NVMe-oF 1.1 Figures 40-41). Little endian.
 */
final class TargetData {
    static final int IDENTIFY_SIZE = 4096;
    /** Identify Controller: offset of CNTLID, patched per controller. */
    static final int ID_CNTLID = 78;
    /** MDTS: 2^8 pages of 4 KiB (1 MiB), Linux nvmet-rdma's. */
    static final int MDTS = 8;
    /** AERL: 4 outstanding Asynchronous Event Requests (0's based 3), Linux's NVMET_ASYNC_EVENTS. */
    static final int AERL = 3;
    /** KAS: keep alive granularity 10 × 100 ms, Linux's. */
    static final int KAS = 10;
    /** VS 1.3.0, as Linux 6.1's nvmet. */
    static final int VERSION = 0x00010300;
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private TargetData() {
    }

    static void ascii(MemorySegment s, long off, int len, String v, byte pad) {
        s.asSlice(off, len).fill(pad);
        byte[] b = v.getBytes(StandardCharsets.US_ASCII);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, off, Math.min(b.length, len - (pad == 0 ? 1 : 0)));
    }

    /** Identify Controller of the NVM subsystem (CNTLID 0: patched in the copy given to each controller). */
    static MemorySegment nvmController(Arena a, NvmeTargetOptions o, int namespaces) {
        MemorySegment s = common(a, o.serial(), o.subsysNqn(), o.maxQueueSize());
        s.set(ValueLayout.JAVA_BYTE, 76, (byte) 0);                      // CMIC: one port, one controller per host
        s.set(U32, 96, 0x41);                                            // CTRATT: 128-bit host ID, TBKAS
        s.set(U32, 516, namespaces);                                     // NN
        s.set(U16, 520, (short) (1 << 2 | 1 << 3));                               // ONCS: Dataset Management, Write Zeroes
        s.set(ValueLayout.JAVA_BYTE, 525, (byte) 0);                     // VWC: none (RAM is the medium; Flush is a no-op)
        s.set(U32, 1792, (64 + o.inCapsuleDataSize()) / 16);             // IOCCSZ
        s.set(U32, 1796, 1);                                             // IORCSZ: 16-byte responses
        s.set(U16, 1800, (short) (0));                                             // ICDOFF
        return s;
    }

    /** Identify Controller of the discovery controller. */
    static MemorySegment discoveryController(Arena a, NvmeTargetOptions o) {
        return common(a, o.serial(), org.jrdma.nvmeof.NvmeConnectOptions.DISCOVERY_NQN, 32);
    }

    private static MemorySegment common(Arena a, String serial, String subnqn, int maxcmd) {
        MemorySegment s = a.allocate(IDENTIFY_SIZE, 8);
        s.fill((byte) 0);
        ascii(s, 4, 20, serial, (byte) ' ');                             // SN
        ascii(s, 24, 40, "jrdma", (byte) ' ');                           // MN
        ascii(s, 64, 8, "0.1.0", (byte) ' ');                            // FR
        s.set(ValueLayout.JAVA_BYTE, 72, (byte) 6);                      // RAB
        s.set(ValueLayout.JAVA_BYTE, 77, (byte) MDTS);                   // MDTS
        s.set(U32, 80, VERSION);                                         // VER
        s.set(ValueLayout.JAVA_BYTE, 111, (byte) 1);                     // CNTRLTYPE: 1 I/O controller (2: discovery, below)
        s.set(ValueLayout.JAVA_BYTE, 258, (byte) 3);                     // ACL: 4 Aborts
        s.set(ValueLayout.JAVA_BYTE, 259, (byte) AERL);                  // AERL
        s.set(ValueLayout.JAVA_BYTE, 261, (byte) (1 << 2));              // LPA: extended data for Get Log Page
        s.set(U16, 320, (short) (KAS));                                            // KAS
        s.set(ValueLayout.JAVA_BYTE, 512, (byte) 0x66);                  // SQES: 64 bytes
        s.set(ValueLayout.JAVA_BYTE, 513, (byte) 0x44);                  // CQES: 16 bytes
        s.set(U16, 514, (short) (maxcmd));                                         // MAXCMD
        s.set(U32, 536, 0x00100005);                                     // SGLS: SGLs, keyed data blocks, offsets (in-capsule)
        ascii(s, 768, 256, subnqn, (byte) 0);                            // SUBNQN
        s.set(ValueLayout.JAVA_BYTE, 1802, (byte) 0);                    // FCATT: dynamic controller model
        s.set(ValueLayout.JAVA_BYTE, 1803, (byte) 1);                    // MSDBD: one SGL data block descriptor
        if (org.jrdma.nvmeof.NvmeConnectOptions.DISCOVERY_NQN.equals(subnqn)) {
            s.set(ValueLayout.JAVA_BYTE, 111, (byte) 2);
        }
        return s;
    }

    /** Identify Namespace of a namespace of {@code blocks} blocks of 2^{@code lbads} bytes. */
    static MemorySegment namespace(Arena a, long blocks, int lbads, int nsid, String subnqn) {
        MemorySegment s = a.allocate(IDENTIFY_SIZE, 8);
        s.fill((byte) 0);
        s.set(U64, 0, blocks);                                           // NSZE
        s.set(U64, 8, blocks);                                           // NCAP
        s.set(U64, 16, blocks);                                          // NUSE
        s.set(ValueLayout.JAVA_BYTE, 25, (byte) 0);                      // NLBAF: one format
        s.set(ValueLayout.JAVA_BYTE, 26, (byte) 0);                      // FLBAS: format 0
        s.set(ValueLayout.JAVA_BYTE, 33, (byte) 0x09);                   // DLFEAT: deallocated blocks read 0; Write Zeroes may deallocate
        long h = subnqn.hashCode() * 0x9E3779B97F4A7C15L;
        s.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 104, h);      // NGUID
        s.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 112, nsid);
        s.set(U32, 128, lbads << 16);                                    // LBAF0: MS 0, LBADS, RP 0
        return s;
    }

    /**
     * The discovery log page, as Linux 6.1's nvmet lists a port: two entries, the current discovery
     * subsystem (SUBTYPE 3, the discovery NQN) and the NVM subsystem (SUBTYPE 2) (NVMe-oF 1.1 Figure 41:
     * TRTYPE 1 RDMA, ADRFAM 1 IPv4 / 2 IPv6, TREQ 0 not specified (nvmet says 4, SQ flow control disable
     * supported, which this target does not do), PORTID 1, CNTLID FFFFh, ASQSZ 32, TRSVCID, SUBNQN,
     * TRADDR (NUL padded, as Linux), RDMA QPTYPE 1 connected, PRTYPE 1 not specified, CMS 1 rdma_cm).
     */
    static MemorySegment discoveryLog(Arena a, InetSocketAddress at, String subnqn) {
        MemorySegment s = a.allocate(3072, 8);
        s.fill((byte) 0);
        s.set(U64, 0, 1);                                                // GENCTR
        s.set(U64, 8, 2);                                                // NUMREC
        s.set(U16, 16, (short) 0);                                       // RECFMT
        entry(s, 1024, at, 3, org.jrdma.nvmeof.NvmeConnectOptions.DISCOVERY_NQN);
        entry(s, 2048, at, 2, subnqn);
        return s;
    }

    private static void entry(MemorySegment s, long e, InetSocketAddress at, int subtype, String nqn) {
        s.set(ValueLayout.JAVA_BYTE, e, (byte) 1);
        s.set(ValueLayout.JAVA_BYTE, e + 1, (byte) (at.getAddress() instanceof Inet6Address ? 2 : 1));
        s.set(ValueLayout.JAVA_BYTE, e + 2, (byte) subtype);
        s.set(ValueLayout.JAVA_BYTE, e + 3, (byte) 0);
        s.set(U16, e + 4, (short) 1);
        s.set(U16, e + 6, (short) 0xffff);
        s.set(U16, e + 8, (short) 32);
        ascii(s, e + 32, 32, Integer.toString(at.getPort()), (byte) 0);
        ascii(s, e + 256, 256, nqn, (byte) 0);
        ascii(s, e + 512, 256, at.getAddress().getHostAddress(), (byte) 0);
        s.set(ValueLayout.JAVA_BYTE, e + 768, (byte) 1);
        s.set(ValueLayout.JAVA_BYTE, e + 769, (byte) 1);
        s.set(ValueLayout.JAVA_BYTE, e + 770, (byte) 1);
    }
}
