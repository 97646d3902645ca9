package org.jrdma.nvmeof.wire;

import java.lang.foreign.MemorySegment;

/**
 * The private data of the RDMA CM connect request of an NVMe/RDMA queue, {@code struct nvme_rdma_cm_req}
 * (NVMe over Fabrics 1.1 RDMA transport binding §3.4 "RDMA CM private data"; Linux
 * {@code include/linux/nvme-rdma.h}): 32 bytes, little endian.
 *
 * <pre>
 * 0  RECFMT  u16  record format, 0
 * 2  QID     u16  queue ID: 0 the admin queue, 1.. I/O queues
 * 4  HRQSIZE u16  host receive queue size: the response capsules the host can take (the queue's entries)
 * 6  HSQSIZE u16  host send queue size, 0's based: the Connect command's SQSIZE
 * 8  CNTLID  u16  controller ID (Linux 6.1 sends 0; reserved in NVMe-oF 1.1)
 * 10 reserved, 22 bytes
 * </pre>
 *
 * @param recfmt record format (0)
 * @param qid queue ID, 0..65534
 * @param hrqsize host receive queue size, 1..65535 entries
 * @param hsqsize host send queue size, 0's based
 * @param cntlid controller ID field
 */
public record RdmaCmRequest(int recfmt, int qid, int hrqsize, int hsqsize, int cntlid) {
    /** {@code sizeof(struct nvme_rdma_cm_req)}. */
    public static final int SIZE = 32;

    /** The request of queue {@code qid} with {@code queueSize} entries (HRQSIZE = size, HSQSIZE = size - 1), as Linux's host makes it. */
    public static RdmaCmRequest forQueue(int qid, int queueSize) {
        if (queueSize < 2 || queueSize > 65535) {
            throw new IllegalArgumentException("queue size " + queueSize + " not in 2..65535");
        }
        return new RdmaCmRequest(0, qid, queueSize, queueSize - 1, 0);
    }

    /** The 32 bytes. */
    public byte[] encode() {
        byte[] b = new byte[SIZE];
        MemorySegment s = MemorySegment.ofArray(b);
        Le.u16(s, 0, recfmt);
        Le.u16(s, 2, qid);
        Le.u16(s, 4, hrqsize);
        Le.u16(s, 6, hsqsize);
        Le.u16(s, 8, cntlid);
        return b;
    }

    /**
     * Decodes the first 32 bytes of {@code pd} (a REQ's private data after the rdma_cm header).
     *
     * @throws IllegalArgumentException when fewer than 32 bytes
     */
    public static RdmaCmRequest decode(byte[] pd) {
        if (pd.length < SIZE) {
            throw new IllegalArgumentException("nvme_rdma_cm_req needs " + SIZE + " bytes, got " + pd.length);
        }
        MemorySegment s = MemorySegment.ofArray(pd);
        return new RdmaCmRequest(Le.u16(s, 0), Le.u16(s, 2), Le.u16(s, 4), Le.u16(s, 6), Le.u16(s, 8));
    }
}
