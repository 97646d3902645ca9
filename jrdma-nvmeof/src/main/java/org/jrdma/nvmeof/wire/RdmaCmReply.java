package org.jrdma.nvmeof.wire;

import java.lang.foreign.MemorySegment;

/**
 * The private data of the RDMA CM reply accepting an NVMe/RDMA queue, {@code struct nvme_rdma_cm_rep}
 * (NVMe-oF 1.1 RDMA transport binding §3.4; Linux {@code nvme-rdma.h}): 32 bytes, little endian.
 *
 * <pre>
 * 0 RECFMT  u16 record format, 0
 * 2 CRQSIZE u16 controller receive queue size: the command capsules the controller can take
 * 4 reserved, 28 bytes
 * </pre>
 *
 * @param recfmt record format
 * @param crqsize controller receive queue size, entries
 */
public record RdmaCmReply(int recfmt, int crqsize) {
    /** {@code sizeof(struct nvme_rdma_cm_rep)}. */
    public static final int SIZE = 32;

    public byte[] encode() {
        byte[] b = new byte[SIZE];
        MemorySegment s = MemorySegment.ofArray(b);
        Le.u16(s, 0, recfmt);
        Le.u16(s, 2, crqsize);
        return b;
    }

    /**
     * Decodes a REP's private data (32 bytes or more: the IB CM pads it to 196).
     *
     * @throws IllegalArgumentException when fewer than 4 bytes (RECFMT and CRQSIZE)
     */
    public static RdmaCmReply decode(byte[] pd) {
        if (pd.length < 4) {
            throw new IllegalArgumentException("nvme_rdma_cm_rep needs at least 4 bytes, got " + pd.length);
        }
        MemorySegment s = MemorySegment.ofArray(pd);
        return new RdmaCmReply(Le.u16(s, 0), Le.u16(s, 2));
    }
}
