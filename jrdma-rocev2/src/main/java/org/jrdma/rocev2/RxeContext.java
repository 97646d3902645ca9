package org.jrdma.rocev2;

import java.util.Optional;
import org.jrdma.rocev2.stats.Counters;

import org.jrdma.rocev2.transport.RxeAgent;
import org.jrdma.rocev2.transport.RxeQp;
import org.jrdma.soft.SoftContext;
import org.jrdma.soft.SoftLimits;
import org.jrdma.soft.SoftPd;
import org.jrdma.soft.SoftQp;
import org.jrdma.soft.SoftResources;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.GidEntry;
import org.jrdma.verbs.GidType;
import org.jrdma.verbs.LinkLayer;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.PortState;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.HardwareCounters;
import org.jrdma.verbs.ext.ManagementDatagrams;
import org.jrdma.verbs.ext.PacketCapture;
import org.jrdma.verbs.ext.ResourceCounts;

/**
 * An open software RoCE v2 device. Its extensions ({@link #extension(Class)}): the device's
 * {@link HardwareCounters} (rxe's hw_counters names, then jrdma's {@code rcvd_drop_*} and others:
 * the names {@code jrdma stat} shows), {@link ResourceCounts} (live PDs, CQs, QPs and MRs over
 * every context open on the device in this process) and {@link PacketCapture} (a pcap of what the
 * device sends and receives in this process). All are shared by the device's contexts; counters
 * start from zero and a capture stops when the device's last context closes.
 */
public final class RxeContext extends SoftContext {
    private final RxeDevice device;
    private final RxeAgent agent;
    private final Counters counters;
    private final Mtu activeMtu;
    private final DeviceCapture capture;

    RxeContext(RxeDevice device, SoftResources resources, RxeAgent agent, Counters counters, Mtu activeMtu,
               DeviceCapture capture) {
        super(resources);
        this.device = device;
        this.agent = agent;
        this.counters = counters;
        this.activeMtu = activeMtu;
        this.capture = capture;
    }

    @Override
    public Device device() {
        return device;
    }

    /**
     * The device's counters with their writers' methods, for the provider's own code and tests
     * (package {@code stats} is not exported: applications read the same counters through
     * {@code extension(HardwareCounters.class)}).
     */
    @SuppressWarnings("exports")
    public Counters counters() {
        return counters;
    }

    /**
     * {@link HardwareCounters}: the device's counters; {@link ResourceCounts}: its live objects.
     * Any thread; both stay readable after this context is closed (the last values).
     */
    @Override
    public <T> Optional<T> extension(Class<T> type) {
        if (type == ManagementDatagrams.class) { // issue 11 (cm): see managementDatagrams()
            return Optional.of(type.cast(managementDatagrams()));
        }
        if (type == HardwareCounters.class) {
            return Optional.of(type.cast(counters));
        }
        if (type == ResourceCounts.class) {
            return Optional.of(type.cast(resources()));
        }
        if (type == PacketCapture.class) {
            return Optional.of(type.cast(capture));
        }
        if (type == org.jrdma.verbs.ext.CongestionControl.class) { // issue 16: each RC/UC QP's DCQCN rate
            org.jrdma.verbs.ext.CongestionControl cc = () -> {
                java.util.List<org.jrdma.verbs.ext.CongestionControl.QpRate> out = new java.util.ArrayList<>();
                for (org.jrdma.soft.SoftQp q : resources().qps.values()) {
                    if (q.transport() instanceof org.jrdma.rocev2.transport.RxeQp t) {
                        org.jrdma.verbs.ext.CongestionControl.QpRate r = t.dcqcnState();
                        if (r != null) {
                            out.add(r);
                        }
                    }
                }
                out.sort(java.util.Comparator.comparingInt(org.jrdma.verbs.ext.CongestionControl.QpRate::qpNum));
                return out;
            };
            return Optional.of(type.cast(cc));
        }
        return Optional.empty();
    }

    /**
     * The soft core's limits ({@link SoftLimits#deviceAttr()}) with this device's identity: firmware
     * version "0.1.0" (jrdma's), the node GUID of {@link Device#guid()} as node and system image GUID.
     */
    @Override
    public DeviceAttr queryDevice() {
        return SoftLimits.deviceAttr().fwVer("0.1.0").nodeGuid(device.guid()).sysImageGuid(device.guid()).build();
    }

    /**
     * Port 1: ACTIVE, MTU 4096 at most and the device's active MTU, RoCE (Ethernet, GRH required,
     * LID 0), one GID, the default P_Key, messages up to {@link SoftLimits#MAX_MSG_SIZE}; width 1X
     * and speed 2.5 Gb/s (SDR), what rxe reports on a net device whose speed it cannot read (the
     * lab's virtio NIC; a loopback address has none). The bad P_Key and Q_Key counters are the
     * device's {@code rcvd_drop_bad_pkey} and {@code rcvd_drop_bad_qkey} counters, saturating at
     * 0xFFFF as the 16-bit IBTA counters do.
     */
    @Override
    public PortAttr queryPort(int portNum) {
        checkPort(portNum);
        return PortAttr.builder().state(PortState.ACTIVE).maxMtu(Mtu.MTU_4096).activeMtu(activeMtu).gidTblLen(1)
                .portCapFlags(0).maxMsgSz(SoftLimits.MAX_MSG_SIZE)
                .badPkeyCntr(saturate16(counters.get(Counters.RCVD_DROP_BAD_PKEY)))
                .qkeyViolCntr(saturate16(counters.get(Counters.RCVD_DROP_BAD_QKEY)))
                .pkeyTblLen(SoftLimits.PKEY_TBL_LEN).lid(0).smLid(0).lmc(0).maxVlNum(1).smSl(0).subnetTimeout(0)
                .initTypeReply(0).activeWidth(PortAttr.WIDTH_1X).activeSpeed(PortAttr.SPEED_SDR)
                .physState(PortAttr.PHYS_STATE_LINK_UP).linkLayer(LinkLayer.ETHERNET).flags(PortAttr.QPF_GRH_REQUIRED)
                .portCapFlags2(0).build();
    }

    private static int saturate16(long n) {
        return (int) Math.min(n, 0xFFFF);
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        checkPort(portNum);
        if (index != 0) {
            throw new VerbsException(Errno.EINVAL, "GID index " + index + " outside the GID table of " + device.name()
                    + " (1 entry: index 0 = " + device.gid() + ")");
        }
        return device.gid();
    }

    /** Receives and processes what has arrived, in the calling thread, unless the I/O thread is at it. */
    @Override
    public void progress() {
        agent.progress();
    }

    /** A thread blocks for a CQ event: the I/O thread receives again at once. */
    @Override
    public void blockingForEvents() {
        agent.applicationBlocking();
    }

    @Override
    protected SoftQp newQp(SoftPd pd, QpInitAttr attr, int qpn) {
        RxeQp qp = new RxeQp(pd, attr, qpn, agent);
        agent.qpCreated(qp);
        return qp.core();
    }

    /** RoCE routes by GID: an address handle needs a GRH. */
    @Override
    protected void checkAhAttr(AhAttr attr) {
        if (!attr.isGlobal()) {
            throw new VerbsException(Errno.EINVAL, "RoCE address handles need a GRH (is_global = 1)");
        }
    }

    @Override
    protected void onClose() {
        device.contextClosed();
    }

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    /**
     * The device's one GID (its address), RoCE v2, without a net device index (jrdma binds an
     * address, not an interface). Every index of the table is valid, so ENODATA does not occur.
     */
    @Override
    public GidEntry queryGidEx(int portNum, int gidIndex) {
        return new GidEntry(queryGid(portNum, gidIndex), gidIndex, portNum, GidType.ROCE_V2, 0);
    }

    @Override
    public int queryGidTable(GidEntry[] entries) {
        if (entries.length < 1) {
            throw new VerbsException(Errno.EINVAL, "max_entries " + entries.length + ": the GID table of "
                    + device.name() + " has 1 valid entry");
        }
        entries[0] = queryGidEx(1, 0);
        return 1;
    }

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    // ---- issue 11 (cm): connection manager, QP1 ----

    /**
     * QP1 of the device ({@code extension(ManagementDatagrams.class)}): MAD agents by class, version and
     * method, requests with timeouts and retries, and Linux's answer to what no agent serves. Shared by
     * the device's contexts in this process; only the process holding slot 0 of the device owns QP1
     * (another gets EBUSY from {@code register}, naming the owner). Any thread.
     */
    public ManagementDatagrams managementDatagrams() {
        return agent.gsi();
    }
}
