package org.jrdma.verbs;

/**
 * Extended device attributes, {@code struct ibv_device_attr_ex} ({@code ibv_query_device_ex(3)};
 * rdma-core {@code libibverbs/verbs.h}): the fields {@code ibv_devinfo -v} prints after the
 * {@code ibv_device_attr} ones, the nested caps structs flattened with their struct's name as the prefix
 * where the field name alone would be ambiguous. A zero means "not supported", as in libibverbs.
 * Immutable.
 *
 * @param origAttr the {@code ibv_device_attr} part ({@link Context#queryDevice()})
 * @param generalOdpCaps {@code odp_caps.general_caps}: on-demand paging (0: none)
 * @param rcOdpCaps {@code odp_caps.per_transport_caps.rc_odp_caps} (0)
 * @param ucOdpCaps {@code uc_odp_caps} (0)
 * @param udOdpCaps {@code ud_odp_caps} (0)
 * @param completionTimestampMask bits of a completion timestamp (0: no timestamps)
 * @param hcaCoreClock the timestamp clock, kHz (0: none)
 * @param deviceCapFlagsEx {@code device_cap_flags} in the low 32 bits, the extended flags above
 * @param maxTso {@code tso_caps.max_tso}, bytes (0: no TCP segmentation offload)
 * @param tsoSupportedQpts {@code tso_caps.supported_qpts} (bit per QP type)
 * @param maxRwqIndirectionTables {@code rss_caps.max_rwq_indirection_tables} (0: no RSS)
 * @param maxRwqIndirectionTableSize {@code rss_caps.max_rwq_indirection_table_size}
 * @param rxHashFunction {@code rss_caps.rx_hash_function}
 * @param rxHashFieldsMask {@code rss_caps.rx_hash_fields_mask}
 * @param rssSupportedQpts {@code rss_caps.supported_qpts}
 * @param maxWqTypeRq receive work queues (0: no WQs)
 * @param qpRateLimitMin {@code packet_pacing_caps.qp_rate_limit_min}, kbps (0: no pacing)
 * @param qpRateLimitMax {@code packet_pacing_caps.qp_rate_limit_max}, kbps
 * @param packetPacingSupportedQpts {@code packet_pacing_caps.supported_qpts}
 * @param rawPacketCaps {@code raw_packet_caps} (0)
 * @param tmMaxRndvHdrSize {@code tm_caps.max_rndv_hdr_size} (tag matching; 0 with {@code tmMaxNumTags} 0)
 * @param tmMaxNumTags {@code tm_caps.max_num_tags} (0: no tag matching)
 * @param tmFlags {@code tm_caps.flags}
 * @param tmMaxOps {@code tm_caps.max_ops}
 * @param tmMaxSge {@code tm_caps.max_sge}
 * @param maxCqCount {@code cq_mod_caps.max_cq_count} (0: no {@code ibv_modify_cq} moderation)
 * @param maxCqPeriod {@code cq_mod_caps.max_cq_period}, µs
 * @param maxDmSize device memory, bytes (0: none)
 * @param xrcOdpCaps {@code xrc_odp_caps} (0)
 * @param physPortCntEx ports, 32 bits ({@code phys_port_cnt} of {@code origAttr} when it fits)
 */
public record DeviceAttrEx(
        DeviceAttr origAttr,
        long generalOdpCaps,
        int rcOdpCaps,
        int ucOdpCaps,
        int udOdpCaps,
        long completionTimestampMask,
        long hcaCoreClock,
        long deviceCapFlagsEx,
        int maxTso,
        int tsoSupportedQpts,
        int maxRwqIndirectionTables,
        int maxRwqIndirectionTableSize,
        int rxHashFunction,
        long rxHashFieldsMask,
        int rssSupportedQpts,
        int maxWqTypeRq,
        int qpRateLimitMin,
        int qpRateLimitMax,
        int packetPacingSupportedQpts,
        int rawPacketCaps,
        int tmMaxRndvHdrSize,
        int tmMaxNumTags,
        int tmFlags,
        int tmMaxOps,
        int tmMaxSge,
        int maxCqCount,
        int maxCqPeriod,
        long maxDmSize,
        int xrcOdpCaps,
        int physPortCntEx) {
    /** The classic attributes are required. */
    public DeviceAttrEx {
        java.util.Objects.requireNonNull(origAttr, "origAttr");
    }

    /** A builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link DeviceAttrEx} field by field (unset numbers are 0). Not thread-safe. */
    public static final class Builder {
        private DeviceAttr origAttr;
        private long generalOdpCaps;
        private int rcOdpCaps;
        private int ucOdpCaps;
        private int udOdpCaps;
        private long completionTimestampMask;
        private long hcaCoreClock;
        private long deviceCapFlagsEx;
        private int maxTso;
        private int tsoSupportedQpts;
        private int maxRwqIndirectionTables;
        private int maxRwqIndirectionTableSize;
        private int rxHashFunction;
        private long rxHashFieldsMask;
        private int rssSupportedQpts;
        private int maxWqTypeRq;
        private int qpRateLimitMin;
        private int qpRateLimitMax;
        private int packetPacingSupportedQpts;
        private int rawPacketCaps;
        private int tmMaxRndvHdrSize;
        private int tmMaxNumTags;
        private int tmFlags;
        private int tmMaxOps;
        private int tmMaxSge;
        private int maxCqCount;
        private int maxCqPeriod;
        private long maxDmSize;
        private int xrcOdpCaps;
        private int physPortCntEx;

        private Builder() {
        }

        /** Sets {@code orig_attr}. */
        public Builder origAttr(DeviceAttr v) {
            this.origAttr = v;
            return this;
        }

        /** Sets {@code general_odp_caps}. */
        public Builder generalOdpCaps(long v) {
            this.generalOdpCaps = v;
            return this;
        }

        /** Sets {@code rc_odp_caps}. */
        public Builder rcOdpCaps(int v) {
            this.rcOdpCaps = v;
            return this;
        }

        /** Sets {@code uc_odp_caps}. */
        public Builder ucOdpCaps(int v) {
            this.ucOdpCaps = v;
            return this;
        }

        /** Sets {@code ud_odp_caps}. */
        public Builder udOdpCaps(int v) {
            this.udOdpCaps = v;
            return this;
        }

        /** Sets {@code completion_timestamp_mask}. */
        public Builder completionTimestampMask(long v) {
            this.completionTimestampMask = v;
            return this;
        }

        /** Sets {@code hca_core_clock}. */
        public Builder hcaCoreClock(long v) {
            this.hcaCoreClock = v;
            return this;
        }

        /** Sets {@code device_cap_flags_ex}. */
        public Builder deviceCapFlagsEx(long v) {
            this.deviceCapFlagsEx = v;
            return this;
        }

        /** Sets {@code max_tso}. */
        public Builder maxTso(int v) {
            this.maxTso = v;
            return this;
        }

        /** Sets {@code tso_supported_qpts}. */
        public Builder tsoSupportedQpts(int v) {
            this.tsoSupportedQpts = v;
            return this;
        }

        /** Sets {@code max_rwq_indirection_tables}. */
        public Builder maxRwqIndirectionTables(int v) {
            this.maxRwqIndirectionTables = v;
            return this;
        }

        /** Sets {@code max_rwq_indirection_table_size}. */
        public Builder maxRwqIndirectionTableSize(int v) {
            this.maxRwqIndirectionTableSize = v;
            return this;
        }

        /** Sets {@code rx_hash_function}. */
        public Builder rxHashFunction(int v) {
            this.rxHashFunction = v;
            return this;
        }

        /** Sets {@code rx_hash_fields_mask}. */
        public Builder rxHashFieldsMask(long v) {
            this.rxHashFieldsMask = v;
            return this;
        }

        /** Sets {@code rss_supported_qpts}. */
        public Builder rssSupportedQpts(int v) {
            this.rssSupportedQpts = v;
            return this;
        }

        /** Sets {@code max_wq_type_rq}. */
        public Builder maxWqTypeRq(int v) {
            this.maxWqTypeRq = v;
            return this;
        }

        /** Sets {@code qp_rate_limit_min}. */
        public Builder qpRateLimitMin(int v) {
            this.qpRateLimitMin = v;
            return this;
        }

        /** Sets {@code qp_rate_limit_max}. */
        public Builder qpRateLimitMax(int v) {
            this.qpRateLimitMax = v;
            return this;
        }

        /** Sets {@code packet_pacing_supported_qpts}. */
        public Builder packetPacingSupportedQpts(int v) {
            this.packetPacingSupportedQpts = v;
            return this;
        }

        /** Sets {@code raw_packet_caps}. */
        public Builder rawPacketCaps(int v) {
            this.rawPacketCaps = v;
            return this;
        }

        /** Sets {@code tm_max_rndv_hdr_size}. */
        public Builder tmMaxRndvHdrSize(int v) {
            this.tmMaxRndvHdrSize = v;
            return this;
        }

        /** Sets {@code tm_max_num_tags}. */
        public Builder tmMaxNumTags(int v) {
            this.tmMaxNumTags = v;
            return this;
        }

        /** Sets {@code tm_flags}. */
        public Builder tmFlags(int v) {
            this.tmFlags = v;
            return this;
        }

        /** Sets {@code tm_max_ops}. */
        public Builder tmMaxOps(int v) {
            this.tmMaxOps = v;
            return this;
        }

        /** Sets {@code tm_max_sge}. */
        public Builder tmMaxSge(int v) {
            this.tmMaxSge = v;
            return this;
        }

        /** Sets {@code max_cq_count}. */
        public Builder maxCqCount(int v) {
            this.maxCqCount = v;
            return this;
        }

        /** Sets {@code max_cq_period}. */
        public Builder maxCqPeriod(int v) {
            this.maxCqPeriod = v;
            return this;
        }

        /** Sets {@code max_dm_size}. */
        public Builder maxDmSize(long v) {
            this.maxDmSize = v;
            return this;
        }

        /** Sets {@code xrc_odp_caps}. */
        public Builder xrcOdpCaps(int v) {
            this.xrcOdpCaps = v;
            return this;
        }

        /** Sets {@code phys_port_cnt_ex}. */
        public Builder physPortCntEx(int v) {
            this.physPortCntEx = v;
            return this;
        }

        /** The record. */
        public DeviceAttrEx build() {
            return new DeviceAttrEx(origAttr, generalOdpCaps, rcOdpCaps, ucOdpCaps, udOdpCaps, completionTimestampMask, hcaCoreClock, deviceCapFlagsEx, maxTso, tsoSupportedQpts, maxRwqIndirectionTables, maxRwqIndirectionTableSize, rxHashFunction, rxHashFieldsMask, rssSupportedQpts, maxWqTypeRq, qpRateLimitMin, qpRateLimitMax, packetPacingSupportedQpts, rawPacketCaps, tmMaxRndvHdrSize, tmMaxNumTags, tmFlags, tmMaxOps, tmMaxSge, maxCqCount, maxCqPeriod, maxDmSize, xrcOdpCaps, physPortCntEx);
        }
    }
}
