package org.jrdma.iwarp;

import java.util.Optional;
import org.jrdma.iwarp.transport.SiwAgent;
import org.jrdma.iwarp.transport.SiwQp;
import org.jrdma.soft.SoftContext;
import org.jrdma.soft.SoftLimits;
import org.jrdma.soft.SoftPd;
import org.jrdma.soft.SoftQp;
import org.jrdma.soft.SoftResources;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.AtomicCap;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.DeviceCapFlags;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.GidEntry;
import org.jrdma.verbs.GidType;
import org.jrdma.verbs.LinkLayer;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.MwType;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.PortState;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.SendOpsFlags;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.HardwareCounters;
import org.jrdma.verbs.ext.PacketCapture;
import org.jrdma.verbs.ext.ResourceCounts;

/**
 * An open software iWARP device. What it reports and refuses follows Linux siw
 * ({@code drivers/infiniband/sw/siw/siw_verbs.c}, {@code siw.h}, {@code rdma/siw-abi.h}): RC QPs
 * only (UD and UC: EOPNOTSUPP, as {@code siw_create_qp}), no atomics ({@code atomic_cap} 0), no
 * immediate data, 6 SGEs per WR and 1 per RDMA READ, 80 bytes of inline data, no address handles,
 * 128 outstanding READs each way. Where the soft core enforces a smaller limit than siw's (queue
 * depths, CQ size, table sizes) that limit is reported, so every number here is honoured.
 */
public final class SiwContext extends SoftContext {
    /** siw's vendor id, ASCII "bmt" ({@code SIW_VENDOR_ID}). */
    public static final int VENDOR_ID = 0x626d74;
    /** SGEs per send or receive WR ({@code SIW_MAX_SGE}, siw-abi.h). */
    public static final int MAX_SGE = 6;
    /** SGEs of an RDMA READ sink ({@code SIW_MAX_SGE_RD}: one, an iWARP Read Request names one sink STag). */
    public static final int MAX_SGE_RD = 1;
    /** Inline bytes per send WR ({@code SIW_MAX_INLINE} = 5 SGEs of 16 bytes). */
    public static final int MAX_INLINE_DATA = 80;
    /** Outstanding inbound and outbound RDMA READs per QP ({@code SIW_MAX_IRD_QP}, {@code SIW_MAX_ORD_QP}). */
    public static final int MAX_IRD_ORD = 128;
    /** QPs per device: siw's 100 K, bounded by the soft core's table. */
    private static final int MAX_QP = Math.min(1024 * 100, SoftLimits.MAX_QP);

    private final SiwDevice device;
    private final SiwAgent agent;
    private final Mtu mtu;

    SiwContext(SiwDevice device, SoftResources resources, SiwAgent agent, int interfaceMtu) {
        super(resources);
        this.device = device;
        this.agent = agent;
        this.mtu = Mtu.largestNotAbove(interfaceMtu);
    }

    @Override
    public Device device() {
        return device;
    }

    /**
     * A CQ of this context was found empty by {@code poll}: the polling thread receives for the
     * device itself ({@link SiwAgent#progress()}; never blocks).
     */
    @Override
    public void progress() {
        agent.progress();
    }

    /** A thread blocks for a CQ event: the device's I/O thread receives again ({@link SiwAgent#applicationBlocking()}). */
    @Override
    public void blockingForEvents() {
        agent.applicationBlocking();
    }

    /** The device's I/O agent (for the CM transport of the same module). */
    public SiwAgent agent() {
        return agent;
    }

    /**
     * {@link ResourceCounts}: the device's live objects; {@link HardwareCounters}: its counters
     * ({@link org.jrdma.iwarp.transport.SiwCounters}: FPDUs, Terminates by cause, MPA rejects), shared
     * by the device's contexts in this process; {@link PacketCapture}: a pcap of its connections'
     * TCP streams ({@link org.jrdma.iwarp.transport.SiwCapture}).
     */
    @Override
    public <T> Optional<T> extension(Class<T> type) {
        if (type == ResourceCounts.class) {
            return Optional.of(type.cast(resources()));
        }
        if (type == HardwareCounters.class) {
            return Optional.of(type.cast(agent.counters()));
        }
        if (type == PacketCapture.class) {
            return Optional.of(type.cast(agent.capture()));
        }
        return Optional.empty();
    }

    /**
     * siw's {@code siw_query_device}: MEM_MGT_EXTENSIONS, no atomics, max_sge 6, max_sge_rd 1, max_mw 0,
     * no AHs, 128 READs each way (max_res_rd_atom = max_qp × 128), page_size_cap one 4 KiB page, vendor
     * 0x626d74; the system image GUID is the node GUID (siw: the MAC as EUI-48). No P_Keys (iWARP has none).
     */
    @Override
    public DeviceAttr queryDevice() {
        return SoftLimits.deviceAttr().fwVer("0.1.0").nodeGuid(device.guid()).sysImageGuid(device.guid())
                .vendorId(VENDOR_ID).vendorPartId(1).maxQp(MAX_QP).maxSge(MAX_SGE).maxSgeRd(MAX_SGE_RD)
                .maxQpRdAtom(MAX_IRD_ORD).maxQpInitRdAtom(MAX_IRD_ORD).maxResRdAtom(MAX_QP * MAX_IRD_ORD)
                .atomicCap(AtomicCap.NONE).deviceCapFlags(DeviceCapFlags.MEM_MGT_EXTENSIONS).maxMw(0).maxAh(0)
                .maxPkeys(0).localCaAckDelay(0).pageSizeCap(4096).maxSrqSge(MAX_SGE).maxInlineData(MAX_INLINE_DATA)
                .build();
    }

    /**
     * The extended attributes: {@link #queryDevice()} and its capability flags only. No Memory
     * Placement Extensions (FLUSH, ATOMIC WRITE are RoCE's, not RDMAP's) and no completion
     * timestamps (siw has neither).
     */
    @Override
    public org.jrdma.verbs.DeviceAttrEx queryDeviceEx() {
        DeviceAttr a = queryDevice();
        return org.jrdma.verbs.DeviceAttrEx.builder().origAttr(a)
                .deviceCapFlagsEx(Integer.toUnsignedLong(a.deviceCapFlags())).physPortCntEx(a.physPortCnt()).build();
    }

    /**
     * siw's {@code siw_query_port}: ACTIVE, max and active MTU from the interface's MTU (4096 on
     * loopback, 1024 for a 1500-byte Ethernet MTU), one GID, max_msg_sz 2^32 - 1, port_cap_flags
     * CM_SUP | DEVICE_MGMT_SUP, link layer Ethernet, no P_Key table; width 1X and speed SDR (siw asks
     * the netdev, jrdma binds an address and has no link speed to read).
     */
    @Override
    public PortAttr queryPort(int portNum) {
        checkPort(portNum);
        return PortAttr.builder().state(PortState.ACTIVE).maxMtu(mtu).activeMtu(mtu).gidTblLen(1)
                .portCapFlags(PortAttr.PORT_CM_SUP | PORT_DEVICE_MGMT_SUP).maxMsgSz(0xFFFF_FFFFL).pkeyTblLen(0)
                .activeWidth(PortAttr.WIDTH_1X).activeSpeed(PortAttr.SPEED_SDR).physState(PortAttr.PHYS_STATE_LINK_UP)
                .linkLayer(LinkLayer.ETHERNET).build();
    }

    /** {@code IB_PORT_DEVICE_MGMT_SUP} (1 << 19). */
    static final int PORT_DEVICE_MGMT_SUP = 1 << 19;

    @Override
    public Gid queryGid(int portNum, int index) {
        checkPort(portNum);
        if (index != 0) {
            throw new VerbsException(Errno.EINVAL, "GID index " + index + " outside the GID table of " + device.name()
                    + " (1 entry)");
        }
        return device.gid();
    }

    @Override
    public GidEntry queryGidEx(int portNum, int gidIndex) {
        return new GidEntry(queryGid(portNum, gidIndex), gidIndex, portNum, GidType.IB, 0);
    }

    @Override
    public int queryGidTable(GidEntry[] entries) {
        if (entries.length < 1) {
            throw new VerbsException(Errno.EINVAL, "max_entries " + entries.length + ": the GID table has 1 entry");
        }
        entries[0] = queryGidEx(1, 0);
        return 1;
    }

    /** siw has no P_Key table. @throws VerbsException EINVAL for every index */
    @Override
    public int queryPkey(int portNum, int index) {
        checkPort(portNum);
        throw new VerbsException(Errno.EINVAL, "iWARP ports have no P_Key table (pkey_tbl_len 0)");
    }

    /**
     * {@code siw_create_qp}: RC only (EOPNOTSUPP), max_send_sge/max_recv_sge at most 6 and
     * max_inline_data at most 80 (EINVAL), a send queue (max_send_wr ≥ 1, EINVAL).
     */
    @Override
    protected SoftQp newQp(SoftPd pd, QpInitAttr attr, int qpn) {
        if (attr.qpType() != QpType.RC) {
            throw new VerbsException(Errno.EOPNOTSUPP, "iWARP has " + attr.qpType() + " QPs no more than siw: RC only");
        }
        var cap = attr.cap();
        if (cap.maxSendSge() > MAX_SGE || (attr.srq() == null && cap.maxRecvSge() > MAX_SGE)) {
            throw new VerbsException(Errno.EINVAL, "max_send_sge " + cap.maxSendSge() + " / max_recv_sge "
                    + cap.maxRecvSge() + " above siw's " + MAX_SGE);
        }
        if (cap.maxInlineData() > MAX_INLINE_DATA) {
            throw new VerbsException(Errno.EINVAL, "max_inline_data " + cap.maxInlineData() + " above siw's " + MAX_INLINE_DATA);
        }
        return new SiwQp(pd, attr, qpn, agent).core();
    }

    /** siw offers no address handles ({@code ibv_create_ah}: EOPNOTSUPP, libibverbs' answer for a missing verb). */
    @Override
    protected void checkAhAttr(AhAttr attr) {
        throw new VerbsException(Errno.EOPNOTSUPP, "iWARP devices have no address handles");
    }

    /**
     * siw has no memory windows ({@code SIW_MAX_MW} 0, no {@code alloc_mw} in its device ops nor in
     * rdma-core's siw provider): libibverbs' fallback {@code alloc_mw} fails with EOPNOTSUPP
     * ({@code libibverbs/dummy_ops.c}), and so does this.
     */
    @Override
    protected void checkAllocMw(MwType type) {
        throw new VerbsException(Errno.EOPNOTSUPP, "ibv_alloc_mw: iWARP devices have no memory windows (siw: max_mw 0)");
    }

    /** RC send_ops_flags of siw: SEND, SEND_WITH_INV, RDMA_WRITE, RDMA_READ, LOCAL_INV. */
    @Override
    protected int rcSendOpsFlags() {
        return SendOpsFlags.WITH_SEND | SendOpsFlags.WITH_SEND_WITH_INV | SendOpsFlags.WITH_RDMA_WRITE
                | SendOpsFlags.WITH_RDMA_READ | SendOpsFlags.WITH_LOCAL_INV;
    }

    @Override
    protected void onClose() {
        device.contextClosed();
    }
}
