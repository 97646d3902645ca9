package org.jrdma.soft;

/**
 * The limits of the software devices, chosen as Linux rdma_rxe's ({@code rxe_param.h}) so that
 * programs tuned for rxe fit.
 */
public final class SoftLimits {
    /** Work requests per send or receive queue. */
    public static final int MAX_QP_WR = 0x4000;
    /** Scatter/gather entries per work request. */
    public static final int MAX_SGE = 32;
    /** Inline data per send WR, bytes. */
    public static final int MAX_INLINE_DATA = 256;
    /** Completion queue entries (2^15, rxe's MAX_LOG_CQE). */
    public static final int MAX_CQE = 1 << 15;
    /** Queue pairs per device. */
    public static final int MAX_QP = 0x10000;
    /** Completion queues per device. */
    public static final int MAX_CQ = 0x4000;
    /** Memory regions per device. */
    public static final int MAX_MR = 0x40000;
    /** Protection domains per device. */
    public static final int MAX_PD = 0x7ff0;
    /** Outstanding RDMA READ / atomic operations per QP, as target and as initiator. */
    public static final int MAX_QP_RD_ATOM = 128;
    /** Largest message, bytes (2^31). */
    public static final long MAX_MSG_SIZE = 1L << 31;
    /** Largest memory region, bytes. */
    public static final long MAX_MR_SIZE = Long.MAX_VALUE;
    /** The vendor id rdma_rxe reports. */
    public static final int VENDOR_ID = 0xFFFFFF;

    private SoftLimits() {
    }
}
