package org.jrdma.nvmeof.wire;

import java.lang.foreign.MemorySegment;

/**
 * The private data of the RDMA CM reject of an NVMe/RDMA queue, {@code struct nvme_rdma_cm_rej}
 * (NVMe-oF 1.1 RDMA transport binding §3.4, Figure 6: RECFMT u16, STS u16, little endian; Linux
 * {@code nvme-rdma.h}, {@code enum nvme_rdma_cm_status}).
 *
 * @param recfmt record format
 * @param status the reject status, {@link #statusName(int)}
 */
public record RdmaCmReject(int recfmt, int status) {
    public static final int SIZE = 4;
    /** The private data's length is not 32. */
    public static final int INVALID_LEN = 0x01;
    /** RECFMT is not 0. */
    public static final int INVALID_RECFMT = 0x02;
    /** QID out of range. */
    public static final int INVALID_QID = 0x03;
    /** HSQSIZE out of range. */
    public static final int INVALID_HSQSIZE = 0x04;
    /** HRQSIZE out of range. */
    public static final int INVALID_HRQSIZE = 0x05;
    /** No resources. */
    public static final int NO_RSC = 0x06;
    /** IRD not supported. */
    public static final int INVALID_IRD = 0x07;
    /** ORD not supported. */
    public static final int INVALID_ORD = 0x08;

    public byte[] encode() {
        byte[] b = new byte[SIZE];
        MemorySegment s = MemorySegment.ofArray(b);
        Le.u16(s, 0, recfmt);
        Le.u16(s, 2, status);
        return b;
    }

    /** Decodes a REJ's private data; empty when it has fewer than 4 bytes (a reject not from NVMe/RDMA). */
    public static java.util.Optional<RdmaCmReject> decode(byte[] pd) {
        if (pd.length < SIZE) {
            return java.util.Optional.empty();
        }
        MemorySegment s = MemorySegment.ofArray(pd);
        return java.util.Optional.of(new RdmaCmReject(Le.u16(s, 0), Le.u16(s, 2)));
    }

    /** The name of status {@code sts} as Linux's {@code nvme_rdma_cm_msg} prints it. */
    public static String statusName(int sts) {
        return switch (sts) {
            case INVALID_LEN -> "invalid length";
            case INVALID_RECFMT -> "invalid record format";
            case INVALID_QID -> "invalid queue ID";
            case INVALID_HSQSIZE -> "invalid host SQ size";
            case INVALID_HRQSIZE -> "invalid host RQ size";
            case NO_RSC -> "resource not found";
            case INVALID_IRD -> "invalid IRD";
            case INVALID_ORD -> "Invalid ORD";
            default -> "unrecognized reason " + sts;
        };
    }

    @Override
    public String toString() {
        return "nvme_rdma_cm_rej[recfmt " + recfmt + ", sts " + status + " (" + statusName(status) + ")]";
    }
}
