package org.jrdma.soft;

import java.util.ArrayList;
import java.util.List;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.MwType;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.CqEx;
import org.jrdma.verbs.CqInitAttrEx;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.DeviceAttrEx;
import org.jrdma.verbs.DeviceCapFlagsEx;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpEx;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpInitAttrEx;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SendOpsFlags;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcExFlags;

/**
 * An open software device. Creates PDs, CQs and channels; the transport creates QPs through
 * {@link #createQp(SoftPd, QpInitAttr)}. Closing it closes the QPs created through it.
 */
public abstract class SoftContext implements Context {
    private final SoftResources resources;
    private final List<SoftQp> qps = new ArrayList<>();
    private final List<SoftCq> cqs = new ArrayList<>();
    private boolean closed;

    protected SoftContext(SoftResources resources) {
        this.resources = resources;
        resources.contextOpened(asyncEvents);
    }

    /** The device's resource tables. */
    public SoftResources resources() {
        return resources;
    }

    @Override
    public ProtectionDomain allocPd() {
        ensureOpen();
        if (resources.pdCount.incrementAndGet() > SoftLimits.MAX_PD) {
            resources.pdCount.decrementAndGet();
            throw new VerbsException(Errno.ENOMEM, "too many protection domains");
        }
        return new SoftPd(this);
    }

    @Override
    public CompletionChannel createCompChannel() {
        ensureOpen();
        return new SoftCompChannel(this);
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel) {
        return createCq(cqe, channel, 0);
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        ensureOpen();
        if (cqe < 1 || cqe > SoftLimits.MAX_CQE) {
            throw new VerbsException(Errno.EINVAL, "cqe " + cqe + " not in 1.." + SoftLimits.MAX_CQE);
        }
        if (compVector < 0 || compVector >= numCompVectors()) {
            throw new VerbsException(Errno.EINVAL, "comp_vector " + compVector + " not below num_comp_vectors "
                    + numCompVectors());
        }
        if (channel != null && !(channel instanceof SoftCompChannel)) {
            throw new VerbsException(Errno.EINVAL, "completion channel of another device");
        }
        if (resources.cqCount.incrementAndGet() > SoftLimits.MAX_CQ) {
            resources.cqCount.decrementAndGet();
            throw new VerbsException(Errno.ENOMEM, "too many completion queues (max_cq " + SoftLimits.MAX_CQ + ")");
        }
        SoftCq cq = new SoftCq(this, cqe, (SoftCompChannel) channel);
        synchronized (this) {
            cqs.add(cq);
        }
        return cq;
    }

    synchronized void cqClosed(SoftCq cq) {
        cqs.remove(cq);
        resources.cqCount.decrementAndGet();
    }

    /** Creates a QP of the transport and registers it under its QPN. */
    final QueuePair createQp(SoftPd pd, QpInitAttr attr) {
        ensureOpen();
        if (attr.qpType() == null) {
            throw new VerbsException(Errno.EINVAL, "qp_type missing");
        }
        if (resources.qps.size() >= SoftLimits.MAX_QP) {
            throw new VerbsException(Errno.ENOMEM, "too many QPs");
        }
        int qpn = resources.newQpn();
        SoftQp qp = newQp(pd, attr, qpn);
        if (!resources.qps.putIfAbsent(qpn, qp)) {
            throw new VerbsException(Errno.EBUSY, "QPN 0x" + Integer.toHexString(qpn) + " taken");
        }
        synchronized (this) {
            qps.add(qp);
        }
        return qp;
    }

    /**
     * Makes progress in the calling thread: a CQ found empty by {@code poll} calls this, so that a
     * thread busy-polling its CQ receives and processes the packets that arrived itself, instead of
     * waiting for the device's I/O thread. Must not block; may do nothing (when another thread is
     * already receiving). The default does nothing.
     */
    public void progress() {
    }

    /**
     * A thread is about to block until a completion event arrives ({@code ibv_get_cq_event}): from
     * now on the transport must make progress without it (a thread that received in
     * {@link #progress()} may have let the transport's own thread step back). Must not block. The
     * default does nothing.
     */
    public void blockingForEvents() {
    }

    /**
     * Creates a QP of this provider: a {@link SoftQp} with the provider's {@link QpTransport}.
     * Called by {@code ibv_create_qp} (any thread, no lock held); the context registers the QP.
     *
     * @throws VerbsException EOPNOTSUPP for an unsupported type
     */
    protected abstract SoftQp newQp(SoftPd pd, QpInitAttr attr, int qpn);

    /**
     * Checks the address vector of {@code ibv_create_ah} against what the provider can reach (RoCE:
     * a GRH is required). The core has checked the port.
     *
     * @throws VerbsException EINVAL
     */
    protected abstract void checkAhAttr(AhAttr attr);

    /**
     * Whether the provider offers memory windows ({@code ibv_alloc_mw}); by default it does. A
     * provider without them (iWARP, as siw) refuses the call here.
     *
     * @throws VerbsException EOPNOTSUPP
     */
    protected void checkAllocMw(MwType type) {
    }

    /** A QP was destroyed: forget it (its QPN is free again). */
    final void qpDestroyed(SoftQp qp) {
        resources.qps.remove(qp.qpNum());
        synchronized (this) {
            qps.remove(qp);
        }
    }

    private synchronized void ensureOpen() {
        if (closed) {
            throw new VerbsException(Errno.ENODEV, "context is closed");
        }
    }

    @Override
    public void close() {
        List<SoftQp> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(qps);
            qps.clear();
        }
        for (SoftQp qp : toClose) {
            qp.destroy(); // ibv_close_device: no wait for unacknowledged events
        }
        asyncEvents.close();
        resources.contextClosed(asyncEvents);
        onClose();
    }

    /** Called once when the context closes, after its QPs. */
    protected abstract void onClose();

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    /** This context's asynchronous events (raised by its QPs, CQs and SRQs, and by the device). */
    private final AsyncEventQueue asyncEvents = new AsyncEventQueue();

    /** The queue this context's asynchronous events go to. */
    public AsyncEventQueue asyncEvents() {
        return asyncEvents;
    }

    /** {@code ibv_get_async_event}: see {@link Context#getAsyncEvent()}; null only when the thread is interrupted. */
    @Override
    public org.jrdma.verbs.AsyncEvent getAsyncEvent() {
        ensureOpen();
        return asyncEvents.take(-1);
    }

    @Override
    public org.jrdma.verbs.AsyncEvent getAsyncEvent(long timeout, java.util.concurrent.TimeUnit unit) {
        ensureOpen();
        return asyncEvents.take(Math.max(0, unit.toNanos(timeout)));
    }

    /** {@code ibv_create_srq} (from {@link SoftPd#createSrq}): counts it against the device's limit. */
    final SoftSrq createSrq(SoftPd pd, org.jrdma.verbs.SrqInitAttr attr) {
        ensureOpen();
        if (resources.srqCount.incrementAndGet() > SoftSrq.MAX_SRQ) {
            resources.srqCount.decrementAndGet();
            throw new VerbsException(Errno.ENOMEM, "too many SRQs (" + SoftSrq.MAX_SRQ + ")");
        }
        try {
            return new SoftSrq(pd, attr);
        } catch (RuntimeException e) {
            resources.srqCount.decrementAndGet();
            throw e;
        }
    }

    final void srqClosed(SoftSrq srq) {
        resources.srqCount.decrementAndGet();
    }

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    /**
     * The extended attributes of a software device: {@link #queryDevice()}; device_cap_flags_ex adds
     * the Memory Placement Extensions ({@link DeviceCapFlagsEx}: FLUSH of both placement types and
     * ATOMIC WRITE); completion timestamps ({@code createCqEx} with the timestamp wc_flags) are
     * {@code System.nanoTime()}: completion_timestamp_mask all 64 bits, hca_core_clock 1 GHz
     * ({@link #HCA_CORE_CLOCK_KHZ}). No ODP, TSO, RSS, WQs, pacing, tag matching, CQ moderation or
     * device memory. Any thread.
     */
    @Override
    public DeviceAttrEx queryDeviceEx() {
        DeviceAttr a = queryDevice();
        return DeviceAttrEx.builder().origAttr(a)
                .deviceCapFlagsEx(Integer.toUnsignedLong(a.deviceCapFlags()) | DeviceCapFlagsEx.FLUSH_GLOBAL
                        | DeviceCapFlagsEx.FLUSH_PERSISTENT | DeviceCapFlagsEx.ATOMIC_WRITE)
                .completionTimestampMask(-1L).hcaCoreClock(HCA_CORE_CLOCK_KHZ)
                .physPortCntEx(a.physPortCnt()).build();
    }

    /** One completion vector ({@link SoftLimits#NUM_COMP_VECTORS}): completion events are not spread. */
    @Override
    public int numCompVectors() {
        return SoftLimits.NUM_COMP_VECTORS;
    }

    /** The P_Key table has one entry, the default P_Key 0xFFFF ({@link SoftLimits#DEFAULT_PKEY}), as rxe's. */
    @Override
    public int queryPkey(int portNum, int index) {
        checkPort(portNum);
        if (index < 0 || index >= SoftLimits.PKEY_TBL_LEN) {
            throw new VerbsException(Errno.EINVAL, "P_Key index " + index + " outside the P_Key table (pkey_tbl_len "
                    + SoftLimits.PKEY_TBL_LEN + ")");
        }
        return SoftLimits.DEFAULT_PKEY;
    }

    @Override
    public int getPkeyIndex(int portNum, int pkey) {
        checkPort(portNum);
        if (pkey < 0 || pkey > 0xFFFF) {
            throw new VerbsException(Errno.EINVAL, "P_Key 0x" + Integer.toHexString(pkey) + " is not 16 bits");
        }
        for (int i = 0; i < SoftLimits.PKEY_TBL_LEN; i++) {
            if (queryPkey(portNum, i) == pkey) {
                return i;
            }
        }
        return -1;
    }

    /**
     * A software device has one port, number 1.
     *
     * @throws VerbsException EINVAL for any other port number
     */
    protected static void checkPort(int portNum) {
        if (portNum != 1) {
            throw new VerbsException(Errno.EINVAL, "port " + portNum + " does not exist (only port 1)");
        }
    }

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    /** send_ops_flags of RC QPs (rxe's RXE_SUP_RC_QP_SEND_OPS_FLAGS): all but TSO. */
    private static final int RC_SEND_OPS = SendOpsFlags.WITH_RDMA_WRITE | SendOpsFlags.WITH_RDMA_WRITE_WITH_IMM
            | SendOpsFlags.WITH_SEND | SendOpsFlags.WITH_SEND_WITH_IMM | SendOpsFlags.WITH_RDMA_READ
            | SendOpsFlags.WITH_ATOMIC_CMP_AND_SWP | SendOpsFlags.WITH_ATOMIC_FETCH_AND_ADD | SendOpsFlags.WITH_LOCAL_INV
            | SendOpsFlags.WITH_BIND_MW | SendOpsFlags.WITH_SEND_WITH_INV | SendOpsFlags.WITH_FLUSH
            | SendOpsFlags.WITH_ATOMIC_WRITE;
    /**
     * send_ops_flags of UC QPs: what {@code postSend} accepts on UC (SendQueue.checkOpcode). rxe's
     * RXE_SUP_UC_QP_SEND_OPS_FLAGS also names SEND_WITH_INV, but IBTA has no UC SEND with Invalidate
     * opcode (Vol 1 table 38: 0x16/0x17 are RC only), so it is refused here rather than at post time.
     */
    private static final int UC_SEND_OPS = SendOpsFlags.WITH_RDMA_WRITE | SendOpsFlags.WITH_RDMA_WRITE_WITH_IMM
            | SendOpsFlags.WITH_SEND | SendOpsFlags.WITH_SEND_WITH_IMM | SendOpsFlags.WITH_BIND_MW
            | SendOpsFlags.WITH_LOCAL_INV;
    /** send_ops_flags of UD QPs (rxe's RXE_SUP_UD_QP_SEND_OPS_FLAGS). */
    private static final int UD_SEND_OPS = SendOpsFlags.WITH_SEND | SendOpsFlags.WITH_SEND_WITH_IMM;
    /** The completion timestamp clock ({@code hca_core_clock}), kHz: System.nanoTime() counts at 1 GHz. */
    static final long HCA_CORE_CLOCK_KHZ = 1_000_000L;
    /** wc_flags of extended CQs (rxe's RXE_SUP_WC_FLAGS). */
    private static final long CQ_WC_FLAGS = WcExFlags.STANDARD_FLAGS | WcExFlags.WITH_COMPLETION_TIMESTAMP
            | WcExFlags.WITH_COMPLETION_TIMESTAMP_WALLCLOCK;

    /**
     * {@code ibv_create_qp_ex}: checks the extended attributes as rxe's {@code check_qp_init_attr}
     * (comp_mask PD, CREATE_FLAGS, SEND_OPS_FLAGS; no create_flags; send_ops_flags of the QP type),
     * then creates the QP as {@link ProtectionDomain#createQp} and gives it its {@code ibv_wr_*} API.
     * Any thread, no lock held.
     */
    @Override
    public QpEx createQpEx(QpInitAttrEx attr) {
        ensureOpen();
        int mask = attr.compMask();
        if ((mask & QpInitAttrEx.MASK_PD) == 0 || !(attr.pd() instanceof SoftPd pd) || pd.softContext() != this) {
            throw new VerbsException(Errno.EINVAL, "pd missing (IBV_QP_INIT_ATTR_PD) or of another context");
        }
        int supported = QpInitAttrEx.MASK_PD | QpInitAttrEx.MASK_CREATE_FLAGS | QpInitAttrEx.MASK_SEND_OPS_FLAGS;
        if ((mask & ~supported) != 0) {
            throw new VerbsException(Errno.EOPNOTSUPP, "comp_mask 0x" + Integer.toHexString(mask & ~supported)
                    + " not supported (XRCD, TSO, RSS)");
        }
        if ((mask & QpInitAttrEx.MASK_CREATE_FLAGS) != 0 && attr.createFlags() != 0) {
            throw new VerbsException(Errno.EOPNOTSUPP, "create_flags 0x" + Integer.toHexString(attr.createFlags()) + " not supported");
        }
        int ops = (mask & QpInitAttrEx.MASK_SEND_OPS_FLAGS) != 0 ? attr.sendOpsFlags() : 0;
        QpType type = attr.attr().qpType();
        if (type != null) {
            int allowed = switch (type) {
                case RC -> rcSendOpsFlags();
                case UC -> UC_SEND_OPS;
                case UD -> UD_SEND_OPS;
            };
            if ((ops & ~allowed) != 0) {
                throw new VerbsException(Errno.EOPNOTSUPP, "send_ops_flags 0x" + Integer.toHexString(ops & ~allowed)
                        + " not supported on a " + type + " QP");
            }
        }
        return new SoftQpEx((SoftQp) pd.createQp(attr.attr()), ops);
    }

    /**
     * The send_ops_flags {@code createQpEx} accepts on an RC QP: rxe's set (all but TSO). A provider
     * whose transport carries fewer operations (iWARP: no immediate data, no atomics) narrows it.
     */
    protected int rcSendOpsFlags() {
        return RC_SEND_OPS;
    }

    /**
     * {@code ibv_create_cq_ex}: checks wc_flags (rxe's set), comp_mask, flags and comp_vector, then
     * creates the CQ as {@link #createCq} and gives it its start/next/end poll API. Any thread.
     */
    @Override
    public CqEx createCqEx(CqInitAttrEx attr) {
        ensureOpen();
        if ((attr.wcFlags() & ~CQ_WC_FLAGS) != 0) {
            throw new VerbsException(Errno.EOPNOTSUPP, "wc_flags 0x" + Long.toHexString(attr.wcFlags() & ~CQ_WC_FLAGS)
                    + " not supported (CVLAN, FLOW_TAG, TM_INFO)");
        }
        int mask = attr.compMask();
        if ((mask & ~(CqInitAttrEx.MASK_FLAGS | CqInitAttrEx.MASK_PD)) != 0) {
            throw new VerbsException(Errno.EINVAL, "comp_mask 0x" + Integer.toHexString(mask) + " has unknown bits");
        }
        if ((mask & CqInitAttrEx.MASK_PD) != 0) {
            throw new VerbsException(Errno.EOPNOTSUPP, "parent domains (IBV_CQ_INIT_ATTR_MASK_PD) are not supported");
        }
        if ((mask & CqInitAttrEx.MASK_FLAGS) != 0 && (attr.flags() & ~CqInitAttrEx.SINGLE_THREADED) != 0) {
            throw new VerbsException(Errno.EOPNOTSUPP, "flags 0x" + Integer.toHexString(attr.flags()) + " not supported");
        }
        SoftCq cq = (SoftCq) createCq(attr.cqe(), attr.channel(), attr.compVector());
        if ((attr.wcFlags() & (WcExFlags.WITH_COMPLETION_TIMESTAMP | WcExFlags.WITH_COMPLETION_TIMESTAMP_WALLCLOCK)) != 0) {
            cq.enableTimestamps();
        }
        return new SoftCqEx(cq, attr.wcFlags());
    }

    // ---- issue 11 (cm): connection manager, QP1 ----
}
