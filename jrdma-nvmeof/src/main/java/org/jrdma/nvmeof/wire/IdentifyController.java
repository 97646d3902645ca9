package org.jrdma.nvmeof.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The Identify Controller data structure, CNS 01h, 4096 bytes (NVMe Base 2.0 §5.17.2.1, Figure 275;
 * NVMe-oF 1.1 §4.1 the fabrics fields; Linux {@code struct nvme_id_ctrl}): the fields the host and
 * {@code jrdma nvme id-ctrl} use, decoded from a copy of the 4096 bytes ({@link #raw()}).
 *
 * @param vid PCI vendor ID (offset 0)
 * @param ssvid PCI subsystem vendor ID (2)
 * @param sn serial number (4, 20 bytes)
 * @param mn model number (24, 40 bytes)
 * @param fr firmware revision (64, 8 bytes)
 * @param rab recommended arbitration burst (72)
 * @param ieee IEEE OUI (73, 3 bytes, little endian)
 * @param cmic multi-path I/O and namespace sharing (76)
 * @param mdts maximum data transfer size (77), 2^MDTS units of CAP.MPSMIN pages; 0 no limit
 * @param cntlid controller ID (78)
 * @param ver version (80)
 * @param ctratt controller attributes (96)
 * @param oacs optional admin command support (256)
 * @param kas keep alive support (320): granularity in 100 ms units, 0 no keep alive
 * @param sqes SQ entry size (512)
 * @param cqes CQ entry size (513)
 * @param maxcmd maximum outstanding commands (514)
 * @param nn number of namespaces (516)
 * @param oncs optional NVM command support (520)
 * @param vwc volatile write cache (525)
 * @param sgls SGL support (536)
 * @param subnqn NVM subsystem NQN (768, 256 bytes)
 * @param ioccsz I/O queue command capsule supported size (1792), 16-byte units
 * @param iorcsz I/O queue response capsule supported size (1796), 16-byte units
 * @param icdoff in-capsule data offset (1800), 16-byte units
 * @param fcatt fabrics controller attributes (1802; bit 0: 0 dynamic controller model, 1 static)
 * @param msdbd maximum SGL data block descriptors (1803)
 * @param raw the 4096 bytes
 */
public record IdentifyController(int vid, int ssvid, String sn, String mn, String fr, int rab, int ieee, int cmic,
        int mdts, int cntlid, int ver, int ctratt, int oacs, int kas, int sqes, int cqes, int maxcmd, int nn, int oncs, int vwc,
        int sgls, String subnqn, int ioccsz, int iorcsz, int icdoff, int fcatt, int msdbd, byte[] raw) {
    public static final int SIZE = 4096;

    /** Decodes the 4096 bytes at {@code off} of {@code s}. */
    public static IdentifyController decode(MemorySegment s, long off) {
        MemorySegment d = MemorySegment.ofArray(s.asSlice(off, SIZE).toArray(ValueLayout.JAVA_BYTE));
        return new IdentifyController(Le.u16(d, 0), Le.u16(d, 2), Le.ascii(d, 4, 20), Le.ascii(d, 24, 40),
                Le.ascii(d, 64, 8), Le.u8(d, 72), Le.u24(d, 73), Le.u8(d, 76), Le.u8(d, 77), Le.u16(d, 78),
                Le.u32(d, 80), Le.u32(d, 96), Le.u16(d, 256), Le.u16(d, 320), Le.u8(d, 512), Le.u8(d, 513), Le.u16(d, 514),
                Le.u32(d, 516), Le.u16(d, 520), Le.u8(d, 525), Le.u32(d, 536), Le.ascii(d, 768, 256),
                Le.u32(d, 1792), Le.u32(d, 1796), Le.u16(d, 1800), Le.u8(d, 1802), Le.u8(d, 1803),
                d.toArray(ValueLayout.JAVA_BYTE));
    }

    /** SGLS bits 1:0 not 00b: the controller supports SGLs (required over fabrics). */
    public boolean sglSupported() {
        return (sgls & 3) != 0;
    }

    /** SGLS bit 2: keyed SGL data block descriptors. */
    public boolean keyedSglSupported() {
        return (sgls & 1 << 2) != 0;
    }

    /** The in-capsule data the I/O queues take with a command: IOCCSZ × 16 − 64 bytes. */
    public int inCapsuleDataSize() {
        return Math.max(0, ioccsz * 16 - Sqe.SIZE);
    }

    /** The raw bytes (a copy). */
    @Override
    public byte[] raw() {
        return raw.clone();
    }
}
