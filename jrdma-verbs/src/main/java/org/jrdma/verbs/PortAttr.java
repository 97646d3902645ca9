package org.jrdma.verbs;

/**
 * Port attributes, {@code struct ibv_port_attr} ({@code ibv_query_port(3)}; rdma-core
 * {@code libibverbs/verbs.h}), every field in verbs.h's order ({@code active_speed_ex} is
 * {@link #activeSpeed()} with {@link #activeSpeedGbps()}). Immutable.
 *
 * @param state logical port state (ACTIVE when the link is up)
 * @param maxMtu largest path MTU the port supports
 * @param activeMtu path MTU of the link (RoCE: the largest IBTA MTU that fits the IP MTU with the headers)
 * @param gidTblLen GID table entries ({@link Context#queryGid}, {@link Context#queryGidEx} accept 0..gidTblLen-1)
 * @param portCapFlags {@code enum ibv_port_cap_flags} bits ({@link #PORT_CM_SUP}, ...)
 * @param maxMsgSz largest message, bytes (unsigned 32 bits)
 * @param badPkeyCntr packets dropped for a P_Key not in the table (16 bits, saturating)
 * @param qkeyViolCntr UD packets dropped for a Q_Key other than the QP's (16 bits, saturating)
 * @param pkeyTblLen P_Key table entries ({@link Context#queryPkey} accepts 0..pkeyTblLen-1)
 * @param lid local identifier, {@code lid} (0 on RoCE)
 * @param smLid subnet manager LID (0 on RoCE)
 * @param lmc LID mask control (0 on RoCE)
 * @param maxVlNum virtual lanes, as the {@code IBV_VL_*} code (1 = VL0 only)
 * @param smSl subnet manager SL (0 on RoCE)
 * @param subnetTimeout subnet propagation delay, 4.096 µs × 2^value (0 on RoCE)
 * @param initTypeReply InitTypeReply from the SM (0 on RoCE)
 * @param activeWidth link width code ({@link #WIDTH_1X} ..., IBTA PortInfo LinkWidthActive)
 * @param activeSpeed lane speed code ({@link #SPEED_SDR} ..., IBTA PortInfo LinkSpeedActive)
 * @param physState physical port state ({@link #PHYS_STATE_LINK_UP} ..., IBTA PortInfo PortPhysicalState)
 * @param linkLayer ETHERNET for RoCE
 * @param flags {@code IBV_QPF_GRH_REQUIRED} (1) when address handles need a GRH
 * @param portCapFlags2 {@code enum ibv_port_cap_flags2} bits
 */
public record PortAttr(
        PortState state,
        Mtu maxMtu,
        Mtu activeMtu,
        int gidTblLen,
        int portCapFlags,
        long maxMsgSz,
        int badPkeyCntr,
        int qkeyViolCntr,
        int pkeyTblLen,
        int lid,
        int smLid,
        int lmc,
        int maxVlNum,
        int smSl,
        int subnetTimeout,
        int initTypeReply,
        int activeWidth,
        int activeSpeed,
        int physState,
        LinkLayer linkLayer,
        int flags,
        int portCapFlags2) {
    /** {@code IBV_PORT_CM_SUP}: the port answers connection manager MADs (IBTA PortInfo CapabilityMask bit 16). */
    public static final int PORT_CM_SUP = 1 << 16;
    /** {@code IBV_QPF_GRH_REQUIRED}: address handles of this port need a GRH (RoCE). */
    public static final int QPF_GRH_REQUIRED = 1;
    /** {@code active_width} codes (IBTA Vol 1 §14.2.5.6, LinkWidthActive): 1X, 4X, 8X, 12X, 2X. */
    public static final int WIDTH_1X = 1;
    /** 4 lanes. */
    public static final int WIDTH_4X = 2;
    /** 8 lanes. */
    public static final int WIDTH_8X = 4;
    /** 12 lanes. */
    public static final int WIDTH_12X = 8;
    /** 2 lanes. */
    public static final int WIDTH_2X = 16;
    /** {@code active_speed} codes (LinkSpeedActive and its extensions): SDR 2.5 Gb/s per lane. */
    public static final int SPEED_SDR = 1;
    /** DDR, 5 Gb/s. */
    public static final int SPEED_DDR = 2;
    /** QDR, 10 Gb/s. */
    public static final int SPEED_QDR = 4;
    /** FDR10, 10 Gb/s (64b/66b). */
    public static final int SPEED_FDR10 = 8;
    /** FDR, 14 Gb/s. */
    public static final int SPEED_FDR = 16;
    /** EDR, 25 Gb/s. */
    public static final int SPEED_EDR = 32;
    /** HDR, 50 Gb/s. */
    public static final int SPEED_HDR = 64;
    /** NDR, 100 Gb/s. */
    public static final int SPEED_NDR = 128;
    /** {@code phys_state} 5: LinkUp. */
    public static final int PHYS_STATE_LINK_UP = 5;

    /** A port attribute record needs its enum fields. */
    public PortAttr {
        java.util.Objects.requireNonNull(state, "state");
        java.util.Objects.requireNonNull(maxMtu, "maxMtu");
        java.util.Objects.requireNonNull(activeMtu, "activeMtu");
        java.util.Objects.requireNonNull(linkLayer, "linkLayer");
    }

    /** The lanes of an {@code active_width} code (0 for an unknown code). */
    public static int lanes(int width) {
        return switch (width) {
            case WIDTH_1X -> 1;
            case WIDTH_2X -> 2;
            case WIDTH_4X -> 4;
            case WIDTH_8X -> 8;
            case WIDTH_12X -> 12;
            default -> 0;
        };
    }

    /** Gb/s per lane of an {@code active_speed} code (0 for an unknown code). */
    public static double laneGbps(int speed) {
        return switch (speed) {
            case SPEED_SDR -> 2.5;
            case SPEED_DDR -> 5;
            case SPEED_QDR, SPEED_FDR10 -> 10;
            case SPEED_FDR -> 14;
            case SPEED_EDR -> 25;
            case SPEED_HDR -> 50;
            case SPEED_NDR -> 100;
            default -> 0;
        };
    }

    /** Nominal link speed, Gb/s: lanes × lane speed (informative only for software devices). */
    public double activeSpeedGbps() {
        return lanes(activeWidth) * laneGbps(activeSpeed);
    }

    /** A builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link PortAttr} field by field (unset numbers are 0). Not thread-safe. */
    public static final class Builder {
        private PortState state = PortState.DOWN;
        private Mtu maxMtu = Mtu.MTU_4096;
        private Mtu activeMtu = Mtu.MTU_1024;
        private int gidTblLen;
        private int portCapFlags;
        private long maxMsgSz;
        private int badPkeyCntr;
        private int qkeyViolCntr;
        private int pkeyTblLen;
        private int lid;
        private int smLid;
        private int lmc;
        private int maxVlNum;
        private int smSl;
        private int subnetTimeout;
        private int initTypeReply;
        private int activeWidth;
        private int activeSpeed;
        private int physState;
        private LinkLayer linkLayer = LinkLayer.ETHERNET;
        private int flags;
        private int portCapFlags2;

        private Builder() {
        }

        /** Sets {@code state}. */
        public Builder state(PortState v) {
            this.state = v;
            return this;
        }

        /** Sets {@code max_mtu}. */
        public Builder maxMtu(Mtu v) {
            this.maxMtu = v;
            return this;
        }

        /** Sets {@code active_mtu}. */
        public Builder activeMtu(Mtu v) {
            this.activeMtu = v;
            return this;
        }

        /** Sets {@code gid_tbl_len}. */
        public Builder gidTblLen(int v) {
            this.gidTblLen = v;
            return this;
        }

        /** Sets {@code port_cap_flags}. */
        public Builder portCapFlags(int v) {
            this.portCapFlags = v;
            return this;
        }

        /** Sets {@code max_msg_sz}. */
        public Builder maxMsgSz(long v) {
            this.maxMsgSz = v;
            return this;
        }

        /** Sets {@code bad_pkey_cntr}. */
        public Builder badPkeyCntr(int v) {
            this.badPkeyCntr = v;
            return this;
        }

        /** Sets {@code qkey_viol_cntr}. */
        public Builder qkeyViolCntr(int v) {
            this.qkeyViolCntr = v;
            return this;
        }

        /** Sets {@code pkey_tbl_len}. */
        public Builder pkeyTblLen(int v) {
            this.pkeyTblLen = v;
            return this;
        }

        /** Sets {@code lid}. */
        public Builder lid(int v) {
            this.lid = v;
            return this;
        }

        /** Sets {@code sm_lid}. */
        public Builder smLid(int v) {
            this.smLid = v;
            return this;
        }

        /** Sets {@code lmc}. */
        public Builder lmc(int v) {
            this.lmc = v;
            return this;
        }

        /** Sets {@code max_vl_num}. */
        public Builder maxVlNum(int v) {
            this.maxVlNum = v;
            return this;
        }

        /** Sets {@code sm_sl}. */
        public Builder smSl(int v) {
            this.smSl = v;
            return this;
        }

        /** Sets {@code subnet_timeout}. */
        public Builder subnetTimeout(int v) {
            this.subnetTimeout = v;
            return this;
        }

        /** Sets {@code init_type_reply}. */
        public Builder initTypeReply(int v) {
            this.initTypeReply = v;
            return this;
        }

        /** Sets {@code active_width}. */
        public Builder activeWidth(int v) {
            this.activeWidth = v;
            return this;
        }

        /** Sets {@code active_speed}. */
        public Builder activeSpeed(int v) {
            this.activeSpeed = v;
            return this;
        }

        /** Sets {@code phys_state}. */
        public Builder physState(int v) {
            this.physState = v;
            return this;
        }

        /** Sets {@code link_layer}. */
        public Builder linkLayer(LinkLayer v) {
            this.linkLayer = v;
            return this;
        }

        /** Sets {@code flags}. */
        public Builder flags(int v) {
            this.flags = v;
            return this;
        }

        /** Sets {@code port_cap_flags2}. */
        public Builder portCapFlags2(int v) {
            this.portCapFlags2 = v;
            return this;
        }

        /** The record. */
        public PortAttr build() {
            return new PortAttr(state, maxMtu, activeMtu, gidTblLen, portCapFlags, maxMsgSz, badPkeyCntr, qkeyViolCntr, pkeyTblLen, lid, smLid, lmc, maxVlNum, smSl, subnetTimeout, initTypeReply, activeWidth, activeSpeed, physState, linkLayer, flags, portCapFlags2);
        }
    }
}
