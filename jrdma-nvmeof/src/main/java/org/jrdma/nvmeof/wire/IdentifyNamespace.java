package org.jrdma.nvmeof.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The Identify Namespace data structure of the NVM command set, CNS 00h, 4096 bytes (NVM Command Set
 * 1.0 §4.1.5.1, Figure 97; Linux {@code struct nvme_id_ns}): size, capacity, use, the formatted LBA
 * size and the LBA formats.
 *
 * @param nsze namespace size, logical blocks (offset 0)
 * @param ncap namespace capacity, logical blocks (8)
 * @param nuse namespace utilization, logical blocks (16)
 * @param nsfeat namespace features (24)
 * @param nlbaf number of LBA formats, 0's based (25)
 * @param flbas formatted LBA size (26): bits 3:0 the LBA format in use
 * @param nmic multi-path I/O and sharing (30)
 * @param nguid namespace globally unique identifier (104, 16 bytes)
 * @param eui64 IEEE extended unique identifier (120, 8 bytes, big endian as printed)
 * @param lbaf the LBA formats (128, 4 bytes each: MS u16 metadata bytes, LBADS u8 log2 of the data
 *        size, RP u8 relative performance), nlbaf + 1 of them
 * @param raw the 4096 bytes
 */
public record IdentifyNamespace(long nsze, long ncap, long nuse, int nsfeat, int nlbaf, int flbas, int nmic,
        byte[] nguid, long eui64, int[] lbaf, byte[] raw) {
    public static final int SIZE = 4096;

    public static IdentifyNamespace decode(MemorySegment s, long off) {
        MemorySegment d = MemorySegment.ofArray(s.asSlice(off, SIZE).toArray(ValueLayout.JAVA_BYTE));
        int nlbaf = Le.u8(d, 25);
        int[] lbaf = new int[Math.min(nlbaf, 63) + 1];
        for (int i = 0; i < lbaf.length; i++) {
            lbaf[i] = Le.u32(d, 128 + 4L * i);
        }
        return new IdentifyNamespace(Le.u64(d, 0), Le.u64(d, 8), Le.u64(d, 16), Le.u8(d, 24), nlbaf, Le.u8(d, 26),
                Le.u8(d, 30), d.asSlice(104, 16).toArray(ValueLayout.JAVA_BYTE),
                Long.reverseBytes(Le.u64(d, 120)), lbaf, d.toArray(ValueLayout.JAVA_BYTE));
    }

    /** The LBA format in use (FLBAS bits 3:0; bits 6:5 extend it past 16 formats). */
    public int formatIndex() {
        return (flbas & 0xf) | (flbas >>> 5 & 3) << 4;
    }

    /** LBADS of the format in use: log2 of the logical block's data size. */
    public int lbads() {
        return lbaf[formatIndex()] >>> 16 & 0xff;
    }

    /** The logical block size in bytes (2^LBADS). */
    public int blockSize() {
        return 1 << lbads();
    }

    /** Metadata bytes per block of the format in use (MS). */
    public int metadataSize() {
        return lbaf[formatIndex()] & 0xffff;
    }

    @Override
    public byte[] raw() {
        return raw.clone();
    }
}
