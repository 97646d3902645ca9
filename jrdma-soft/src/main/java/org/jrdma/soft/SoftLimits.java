package org.jrdma.soft;

import org.jrdma.verbs.AtomicCap;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.DeviceCapFlags;

/**
 * The limits of the software devices. Where the soft core has a limit of its own (queue, CQ and
 * table sizes it enforces) it is that limit; the rest are Linux rdma_rxe's ({@code rxe_param.h},
 * as the lab's Linux 6.1 rxe0 reports them: {@code testdata/devinfo/}), so that programs tuned for
 * rxe fit. {@link #deviceAttr()} is the {@code ibv_device_attr} they make.
 */
public final class SoftLimits {
    /** Work requests per send or receive queue (rxe 6.1: 2^20). */
    public static final int MAX_QP_WR = 0x4000;
    /** Scatter/gather entries per work request (rxe: 32). */
    public static final int MAX_SGE = 32;
    /** Scatter/gather entries per RDMA READ work request (rxe: 32). */
    public static final int MAX_SGE_RD = 32;
    /** Inline data per send WR, bytes. */
    public static final int MAX_INLINE_DATA = 256;
    /** Completion queue entries, for create and resize (2^15, rxe's MAX_LOG_CQE; rxe reports 2^15 - 1). */
    public static final int MAX_CQE = 1 << 15;
    /** Queue pairs per device (rxe 6.1: 2^20 - 16). */
    public static final int MAX_QP = 0x10000;
    /** Completion queues per device (rxe 6.1: 2^20). */
    public static final int MAX_CQ = 0x4000;
    /** Memory regions per device (rxe 6.1: 2^19 - 1). */
    public static final int MAX_MR = 0x40000;
    /** Protection domains per device (rxe 6.1: 2^20). */
    public static final int MAX_PD = 0x7ff0;
    /** Outstanding RDMA READ / atomic operations per QP, as target and as initiator (rxe: 128). */
    public static final int MAX_QP_RD_ATOM = 128;
    /** Responder resources of the whole device (rxe's RXE_MAX_RES_RD_ATOM, 0x3f000). */
    public static final int MAX_RES_RD_ATOM = 0x3f000;
    /** Largest message, bytes (2^31; rxe: 2^23). */
    public static final long MAX_MSG_SIZE = 1L << 31;
    /** Largest memory region, bytes, unsigned: -1 = 2^64 - 1, no limit (rxe's {@code -1ull}). */
    public static final long MAX_MR_SIZE = -1L;
    /** Page sizes a memory region may use: 4 KiB and up (rxe's RXE_PAGE_SIZE_CAP). */
    public static final long PAGE_SIZE_CAP = 0xfffff000L;
    /** Address handles per device (rxe: 32767). */
    public static final int MAX_AH = 32767;
    /** P_Key table entries (partitions) per port, as rxe reports them (RXE_MAX_PKEYS). */
    public static final int MAX_PKEYS = 64;
    /** Local CA ACK delay exponent (rxe's RXE_LOCAL_CA_ACK_DELAY). */
    public static final int LOCAL_CA_ACK_DELAY = 15;
    /** The vendor id rdma_rxe reports. */
    public static final int VENDOR_ID = 0xFFFFFF;
    /** Completion vectors per device (rxe: 1). */
    public static final int NUM_COMP_VECTORS = 1;
    /** The P_Key table of every port: one entry, the default P_Key 0xFFFF (as rxe). */
    public static final int DEFAULT_PKEY = 0xFFFF;
    /** P_Key table length of a port. */
    public static final int PKEY_TBL_LEN = 1;
    /**
     * The {@link DeviceCapFlags} the soft core honours: it counts bad P_Keys and Q_Keys, checks the
     * port of a UD address handle, reports a system image GUID, sends RNR NAKs, resizes SRQs
     * ({@code IBV_SRQ_MAX_WR}), has memory windows of type 1 and 2B (bound through one QP) and
     * LOCAL_INV / SEND with Invalidate (the user-visible part of MEM_MGT_EXTENSIONS), as rxe. rxe also
     * reports AUTO_PATH_MIG and CHANGE_PHY_PORT (no APM, one port here) and PORT_ACTIVE_EVENT (the soft
     * port has no link-state source: PORT_ACTIVE is never raised: docs/DESIGN.md, the events table).
     */
    public static final int DEVICE_CAP_FLAGS = DeviceCapFlags.BAD_PKEY_CNTR | DeviceCapFlags.BAD_QKEY_CNTR
            | DeviceCapFlags.UD_AV_PORT_ENFORCE | DeviceCapFlags.SYS_IMAGE_GUID | DeviceCapFlags.RC_RNR_NAK_GEN
            | DeviceCapFlags.SRQ_RESIZE | DeviceCapFlags.MEM_WINDOW | DeviceCapFlags.MEM_MGT_EXTENSIONS
            | DeviceCapFlags.MEM_WINDOW_TYPE_2B;

    private SoftLimits() {
    }

    /**
     * The attributes of a software device with these limits; the provider adds its identity
     * ({@code fwVer}, GUIDs) and builds. SRQs and memory windows have the soft core's limits
     * ({@link SoftSrq#MAX_SRQ}, {@link SoftSrq#MAX_SRQ_WR}, {@link SoftSrq#MAX_SRQ_SGE},
     * {@link SoftMw#MAX_MW}); counts the soft core does not have (multicast, EE contexts, FMRs, raw
     * QPs) are 0, as libibverbs reads "not supported".
     */
    public static DeviceAttr.Builder deviceAttr() {
        return DeviceAttr.builder()
                .maxMrSize(MAX_MR_SIZE).pageSizeCap(PAGE_SIZE_CAP).vendorId(VENDOR_ID).vendorPartId(0).hwVer(0)
                .maxQp(MAX_QP).maxQpWr(MAX_QP_WR).deviceCapFlags(DEVICE_CAP_FLAGS).maxSge(MAX_SGE)
                .maxSgeRd(MAX_SGE_RD).maxCq(MAX_CQ).maxCqe(MAX_CQE).maxMr(MAX_MR).maxPd(MAX_PD)
                .maxQpRdAtom(MAX_QP_RD_ATOM).maxResRdAtom(MAX_RES_RD_ATOM).maxQpInitRdAtom(MAX_QP_RD_ATOM)
                .atomicCap(AtomicCap.HCA).maxAh(MAX_AH).maxPkeys(MAX_PKEYS).localCaAckDelay(LOCAL_CA_ACK_DELAY)
                .maxSrq(SoftSrq.MAX_SRQ).maxSrqWr(SoftSrq.MAX_SRQ_WR).maxSrqSge(SoftSrq.MAX_SRQ_SGE).maxMw(SoftMw.MAX_MW)
                .physPortCnt(1).maxInlineData(MAX_INLINE_DATA);
    }
}
