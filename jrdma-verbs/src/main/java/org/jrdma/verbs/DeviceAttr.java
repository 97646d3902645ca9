package org.jrdma.verbs;

/**
 * Device attributes, {@code struct ibv_device_attr} ({@code ibv_query_device(3)}; rdma-core
 * {@code libibverbs/verbs.h}), every field in verbs.h's order, plus jrdma's {@code maxInlineData}.
 * The software RoCE v2 provider reports Linux rdma_rxe's values where it has the same limit, its own
 * where it differs (see {@code org.jrdma.soft.SoftLimits}). Counts are signed 32-bit as in C;
 * {@code maxMrSize} and {@code pageSizeCap} are unsigned 64-bit. Immutable.
 *
 * @param fwVer firmware version text (ibv_devinfo's {@code fw_ver})
 * @param nodeGuid node GUID, 64 bits in host order (ibv_devinfo prints it as four groups of 16 bits)
 * @param sysImageGuid system image GUID, 64 bits in host order (rxe: the node GUID)
 * @param maxMrSize largest memory region, bytes, unsigned ({@code -1} = 2^64 - 1, rxe's {@code -1ull}: no limit)
 * @param pageSizeCap supported page sizes, a bit per size (rxe: {@code 0xfffff000}, 4 KiB and up)
 * @param vendorId IEEE vendor OUI, 24 bits (0xFFFFFF for software devices, as rdma_rxe)
 * @param vendorPartId vendor part id (0 on rxe)
 * @param hwVer hardware version (0 on rxe)
 * @param maxQp queue pairs per device
 * @param maxQpWr work requests per send or receive queue
 * @param deviceCapFlags {@link DeviceCapFlags} bits ({@code enum ibv_device_cap_flags}, 32 bits)
 * @param maxSge scatter/gather entries per send or receive WR
 * @param maxSgeRd scatter/gather entries per RDMA READ WR
 * @param maxCq completion queues per device
 * @param maxCqe entries per completion queue ({@link Context#createCq} and {@link CompletionQueue#resize} accept up to this)
 * @param maxMr memory regions per device
 * @param maxPd protection domains per device
 * @param maxQpRdAtom outstanding RDMA READ/atomic operations a QP may be the target of (max_dest_rd_atomic)
 * @param maxEeRdAtom the same per EE context (0: no EE contexts)
 * @param maxResRdAtom responder resources for RDMA READ/atomics of the whole device
 * @param maxQpInitRdAtom outstanding RDMA READ/atomic operations a QP may initiate (max_rd_atomic)
 * @param maxEeInitRdAtom the same per EE context (0)
 * @param atomicCap atomic operation guarantees
 * @param maxEe EE contexts (0: not supported)
 * @param maxRdd reliable datagram domains (0: not supported)
 * @param maxMw memory windows per device (0: no memory windows)
 * @param maxRawIpv6Qp raw IPv6 QPs (0)
 * @param maxRawEthyQp raw Ethertype QPs (0)
 * @param maxMcastGrp multicast groups (0: no multicast)
 * @param maxMcastQpAttach QPs per multicast group
 * @param maxTotalMcastQpAttach QP attachments to multicast groups of the whole device
 * @param maxAh address handles per device
 * @param maxFmr fast memory regions (0: none, as every current provider)
 * @param maxMapPerFmr remaps per FMR (0)
 * @param maxSrq shared receive queues (0: no SRQs)
 * @param maxSrqWr work requests per SRQ
 * @param maxSrqSge scatter/gather entries per SRQ WR
 * @param maxPkeys P_Key table entries per port (partitions)
 * @param localCaAckDelay local CA ACK delay, as the exponent of 4.096 µs × 2^value (IBTA Vol 1 §9.7.6.1.3)
 * @param physPortCnt physical ports (ports are numbered 1..phys_port_cnt)
 * @param maxInlineData jrdma: the largest {@code max_inline_data} a QP may ask for, bytes (not a field of {@code ibv_device_attr}: libibverbs learns it from create_qp's answer)
 */
public record DeviceAttr(
        String fwVer,
        long nodeGuid,
        long sysImageGuid,
        long maxMrSize,
        long pageSizeCap,
        int vendorId,
        int vendorPartId,
        int hwVer,
        int maxQp,
        int maxQpWr,
        int deviceCapFlags,
        int maxSge,
        int maxSgeRd,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxEeRdAtom,
        int maxResRdAtom,
        int maxQpInitRdAtom,
        int maxEeInitRdAtom,
        AtomicCap atomicCap,
        int maxEe,
        int maxRdd,
        int maxMw,
        int maxRawIpv6Qp,
        int maxRawEthyQp,
        int maxMcastGrp,
        int maxMcastQpAttach,
        int maxTotalMcastQpAttach,
        int maxAh,
        int maxFmr,
        int maxMapPerFmr,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxPkeys,
        int localCaAckDelay,
        int physPortCnt,
        int maxInlineData) {
    /** A device attribute record needs its text fields. */
    public DeviceAttr {
        java.util.Objects.requireNonNull(fwVer, "fwVer");
        java.util.Objects.requireNonNull(atomicCap, "atomicCap");
    }

    /** True when every flag of {@code flags} ({@link DeviceCapFlags}) is in {@link #deviceCapFlags()}. */
    public boolean hasCap(int flags) {
        return (deviceCapFlags & flags) == flags;
    }

    /** A builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link DeviceAttr} field by field (unset numbers are 0). Not thread-safe. */
    public static final class Builder {
        private String fwVer = "";
        private long nodeGuid;
        private long sysImageGuid;
        private long maxMrSize;
        private long pageSizeCap;
        private int vendorId;
        private int vendorPartId;
        private int hwVer;
        private int maxQp;
        private int maxQpWr;
        private int deviceCapFlags;
        private int maxSge;
        private int maxSgeRd;
        private int maxCq;
        private int maxCqe;
        private int maxMr;
        private int maxPd;
        private int maxQpRdAtom;
        private int maxEeRdAtom;
        private int maxResRdAtom;
        private int maxQpInitRdAtom;
        private int maxEeInitRdAtom;
        private AtomicCap atomicCap = AtomicCap.NONE;
        private int maxEe;
        private int maxRdd;
        private int maxMw;
        private int maxRawIpv6Qp;
        private int maxRawEthyQp;
        private int maxMcastGrp;
        private int maxMcastQpAttach;
        private int maxTotalMcastQpAttach;
        private int maxAh;
        private int maxFmr;
        private int maxMapPerFmr;
        private int maxSrq;
        private int maxSrqWr;
        private int maxSrqSge;
        private int maxPkeys;
        private int localCaAckDelay;
        private int physPortCnt;
        private int maxInlineData;

        private Builder() {
        }

        /** Sets {@code fw_ver}. */
        public Builder fwVer(String v) {
            this.fwVer = v;
            return this;
        }

        /** Sets {@code node_guid}. */
        public Builder nodeGuid(long v) {
            this.nodeGuid = v;
            return this;
        }

        /** Sets {@code sys_image_guid}. */
        public Builder sysImageGuid(long v) {
            this.sysImageGuid = v;
            return this;
        }

        /** Sets {@code max_mr_size}. */
        public Builder maxMrSize(long v) {
            this.maxMrSize = v;
            return this;
        }

        /** Sets {@code page_size_cap}. */
        public Builder pageSizeCap(long v) {
            this.pageSizeCap = v;
            return this;
        }

        /** Sets {@code vendor_id}. */
        public Builder vendorId(int v) {
            this.vendorId = v;
            return this;
        }

        /** Sets {@code vendor_part_id}. */
        public Builder vendorPartId(int v) {
            this.vendorPartId = v;
            return this;
        }

        /** Sets {@code hw_ver}. */
        public Builder hwVer(int v) {
            this.hwVer = v;
            return this;
        }

        /** Sets {@code max_qp}. */
        public Builder maxQp(int v) {
            this.maxQp = v;
            return this;
        }

        /** Sets {@code max_qp_wr}. */
        public Builder maxQpWr(int v) {
            this.maxQpWr = v;
            return this;
        }

        /** Sets {@code device_cap_flags}. */
        public Builder deviceCapFlags(int v) {
            this.deviceCapFlags = v;
            return this;
        }

        /** Sets {@code max_sge}. */
        public Builder maxSge(int v) {
            this.maxSge = v;
            return this;
        }

        /** Sets {@code max_sge_rd}. */
        public Builder maxSgeRd(int v) {
            this.maxSgeRd = v;
            return this;
        }

        /** Sets {@code max_cq}. */
        public Builder maxCq(int v) {
            this.maxCq = v;
            return this;
        }

        /** Sets {@code max_cqe}. */
        public Builder maxCqe(int v) {
            this.maxCqe = v;
            return this;
        }

        /** Sets {@code max_mr}. */
        public Builder maxMr(int v) {
            this.maxMr = v;
            return this;
        }

        /** Sets {@code max_pd}. */
        public Builder maxPd(int v) {
            this.maxPd = v;
            return this;
        }

        /** Sets {@code max_qp_rd_atom}. */
        public Builder maxQpRdAtom(int v) {
            this.maxQpRdAtom = v;
            return this;
        }

        /** Sets {@code max_ee_rd_atom}. */
        public Builder maxEeRdAtom(int v) {
            this.maxEeRdAtom = v;
            return this;
        }

        /** Sets {@code max_res_rd_atom}. */
        public Builder maxResRdAtom(int v) {
            this.maxResRdAtom = v;
            return this;
        }

        /** Sets {@code max_qp_init_rd_atom}. */
        public Builder maxQpInitRdAtom(int v) {
            this.maxQpInitRdAtom = v;
            return this;
        }

        /** Sets {@code max_ee_init_rd_atom}. */
        public Builder maxEeInitRdAtom(int v) {
            this.maxEeInitRdAtom = v;
            return this;
        }

        /** Sets {@code atomic_cap}. */
        public Builder atomicCap(AtomicCap v) {
            this.atomicCap = v;
            return this;
        }

        /** Sets {@code max_ee}. */
        public Builder maxEe(int v) {
            this.maxEe = v;
            return this;
        }

        /** Sets {@code max_rdd}. */
        public Builder maxRdd(int v) {
            this.maxRdd = v;
            return this;
        }

        /** Sets {@code max_mw}. */
        public Builder maxMw(int v) {
            this.maxMw = v;
            return this;
        }

        /** Sets {@code max_raw_ipv6_qp}. */
        public Builder maxRawIpv6Qp(int v) {
            this.maxRawIpv6Qp = v;
            return this;
        }

        /** Sets {@code max_raw_ethy_qp}. */
        public Builder maxRawEthyQp(int v) {
            this.maxRawEthyQp = v;
            return this;
        }

        /** Sets {@code max_mcast_grp}. */
        public Builder maxMcastGrp(int v) {
            this.maxMcastGrp = v;
            return this;
        }

        /** Sets {@code max_mcast_qp_attach}. */
        public Builder maxMcastQpAttach(int v) {
            this.maxMcastQpAttach = v;
            return this;
        }

        /** Sets {@code max_total_mcast_qp_attach}. */
        public Builder maxTotalMcastQpAttach(int v) {
            this.maxTotalMcastQpAttach = v;
            return this;
        }

        /** Sets {@code max_ah}. */
        public Builder maxAh(int v) {
            this.maxAh = v;
            return this;
        }

        /** Sets {@code max_fmr}. */
        public Builder maxFmr(int v) {
            this.maxFmr = v;
            return this;
        }

        /** Sets {@code max_map_per_fmr}. */
        public Builder maxMapPerFmr(int v) {
            this.maxMapPerFmr = v;
            return this;
        }

        /** Sets {@code max_srq}. */
        public Builder maxSrq(int v) {
            this.maxSrq = v;
            return this;
        }

        /** Sets {@code max_srq_wr}. */
        public Builder maxSrqWr(int v) {
            this.maxSrqWr = v;
            return this;
        }

        /** Sets {@code max_srq_sge}. */
        public Builder maxSrqSge(int v) {
            this.maxSrqSge = v;
            return this;
        }

        /** Sets {@code max_pkeys}. */
        public Builder maxPkeys(int v) {
            this.maxPkeys = v;
            return this;
        }

        /** Sets {@code local_ca_ack_delay}. */
        public Builder localCaAckDelay(int v) {
            this.localCaAckDelay = v;
            return this;
        }

        /** Sets {@code phys_port_cnt}. */
        public Builder physPortCnt(int v) {
            this.physPortCnt = v;
            return this;
        }

        /** Sets {@code max_inline_data}. */
        public Builder maxInlineData(int v) {
            this.maxInlineData = v;
            return this;
        }

        /** The record. */
        public DeviceAttr build() {
            return new DeviceAttr(fwVer, nodeGuid, sysImageGuid, maxMrSize, pageSizeCap, vendorId, vendorPartId, hwVer, maxQp, maxQpWr, deviceCapFlags, maxSge, maxSgeRd, maxCq, maxCqe, maxMr, maxPd, maxQpRdAtom, maxEeRdAtom, maxResRdAtom, maxQpInitRdAtom, maxEeInitRdAtom, atomicCap, maxEe, maxRdd, maxMw, maxRawIpv6Qp, maxRawEthyQp, maxMcastGrp, maxMcastQpAttach, maxTotalMcastQpAttach, maxAh, maxFmr, maxMapPerFmr, maxSrq, maxSrqWr, maxSrqSge, maxPkeys, localCaAckDelay, physPortCnt, maxInlineData);
        }
    }
}
