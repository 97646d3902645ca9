package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.jrdma.ibverbs.bind.CLayouts.offset;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.ibverbs.bind.LibIbverbs;
import org.jrdma.ibverbs.bind.OpsCalls;
import org.jrdma.verbs.AtomicCap;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.DeviceAttrEx;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.GidEntry;
import org.jrdma.verbs.GidType;
import org.jrdma.verbs.LinkLayer;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.PortState;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.VerbsException;

/**
 * An open kernel RDMA device, {@code struct ibv_context}. At open it reads the data-path function
 * pointers of the context's ops table ({@code poll_cq}, {@code req_notify_cq}, {@code post_send},
 * {@code post_recv}) and, when the context is a {@code verbs_context} large enough
 * ({@code verbs_get_ctx_op}'s test), {@code query_port} and {@code query_device_ex} from in front of
 * it; the objects created from it call through those ({@link OpsCalls}).
 *
 * <p>Thread-safe. {@link #lock} guards the sets of live objects and the closed flag; it is taken
 * before an object's own lock (the lock order: context, then QP post locks / CQ poll lock). Closing
 * destroys what is still alive in libibverbs' required order (QPs, AHs, MRs, CQs, channels, PDs),
 * then closes the device.
 */
final class IbvContext implements Context {
    final LibIbverbs lib;
    private final IbvDevice device;
    /** The {@code struct ibv_context}. */
    final MemorySegment ctx;
    final MemorySegment pollCqFn;
    final MemorySegment reqNotifyCqFn;
    final MemorySegment postSendFn;
    final MemorySegment postRecvFn;
    /** {@code verbs_context.query_port} / {@code query_device_ex}, NULL when the context has none. */
    private final MemorySegment queryPortFn;
    private final MemorySegment queryDeviceExFn;

    /** The registered MRs by lkey, for the SGE checks of the data path. */
    final MrTable mrs = new MrTable();
    /** The CQs by the id given to libibverbs as their {@code cq_context} (completion events carry it). */
    final ConcurrentHashMap<Long, IbvCq> cqsById = new ConcurrentHashMap<>();

    /** The QPs and CQs by their native address, for the element of an asynchronous event. */
    private final ConcurrentHashMap<Long, IbvQp> qpsByAddress = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, IbvCq> cqsByAddress = new ConcurrentHashMap<>();
    /** Serializes the takers of asynchronous events. */
    private final Object asyncLock = new Object();

    final Object lock = new Object();
    // guarded by lock
    private boolean closed;
    private final Set<IbvQp> qps = new LinkedHashSet<>();
    private final Set<IbvAh> ahs = new LinkedHashSet<>();
    private final Set<IbvMr> mrSet = new LinkedHashSet<>();
    private final Set<IbvCq> cqs = new LinkedHashSet<>();
    private final Set<IbvCompChannel> channels = new LinkedHashSet<>();
    private final Set<IbvPd> pds = new LinkedHashSet<>();
    private long nextCqId = 1;

    private IbvContext(LibIbverbs lib, IbvDevice device, MemorySegment ctx) {
        this.lib = lib;
        this.device = device;
        this.ctx = ctx;
        this.pollCqFn = ctx.get(ADDRESS, IbvLayouts.CTX_POLL_CQ_OFF);
        this.reqNotifyCqFn = ctx.get(ADDRESS, IbvLayouts.CTX_REQ_NOTIFY_CQ_OFF);
        this.postSendFn = ctx.get(ADDRESS, IbvLayouts.CTX_POST_SEND_OFF);
        this.postRecvFn = ctx.get(ADDRESS, IbvLayouts.CTX_POST_RECV_OFF);
        MemorySegment vctx = verbsContext(ctx);
        this.queryPortFn = op(vctx, "query_port");
        this.queryDeviceExFn = op(vctx, "query_device_ex");
    }

    static IbvContext open(LibIbverbs lib, IbvDevice device, MemorySegment dev) {
        MemorySegment ctx = lib.openDevice(dev).reinterpret(IbvLayouts.CONTEXT.byteSize());
        if (ctx.get(ADDRESS, IbvLayouts.CTX_DEVICE_OFF).address() != dev.address()) {
            lib.closeDevice(ctx);
            throw new VerbsException(Errno.EPROTO, "struct ibv_context of " + lib.file()
                    + " does not have the layout of verbs.h 44 (its device member is not the device opened)");
        }
        IbvContext c = new IbvContext(lib, device, ctx);
        if (c.pollCqFn.address() == 0 || c.postSendFn.address() == 0 || c.postRecvFn.address() == 0
                || c.reqNotifyCqFn.address() == 0) {
            lib.closeDevice(ctx);
            throw new VerbsException(Errno.EOPNOTSUPP, "the libibverbs provider of " + device.name()
                    + " has no poll_cq/req_notify_cq/post_send/post_recv in its ops table");
        }
        return c;
    }

    /** {@code verbs_get_ctx}: the {@code struct verbs_context} around {@code ctx}, or NULL. */
    private static MemorySegment verbsContext(MemorySegment ctx) {
        if (ctx.get(JAVA_LONG, IbvLayouts.CTX_ABI_COMPAT_OFF) != IbvLayouts.VERBS_ABI_IS_EXTENDED) {
            return MemorySegment.NULL;
        }
        return MemorySegment.ofAddress(ctx.address() - IbvLayouts.VCTX_CONTEXT_OFF)
                .reinterpret(IbvLayouts.VERBS_CONTEXT.byteSize());
    }

    /** {@code verbs_get_ctx_op(ctx, op)}: the op's pointer when the provider's verbs_context has it. */
    private static MemorySegment op(MemorySegment vctx, String name) {
        if (vctx.address() == 0) {
            return MemorySegment.NULL;
        }
        long sz = vctx.get(JAVA_LONG, IbvLayouts.VCTX_CONTEXT_OFF + IbvLayouts.VCTX_SZ_REL);
        long at = offset(IbvLayouts.VERBS_CONTEXT, name);
        if (sz < IbvLayouts.VERBS_CONTEXT.byteSize() - at) {
            return MemorySegment.NULL;
        }
        return vctx.get(ADDRESS, at);
    }

    @Override
    public IbvDevice device() {
        return device;
    }

    void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.ENODEV, "the context of " + device.name() + " is closed");
        }
    }

    // ---------------------------------------------------------------- queries

    @Override
    public DeviceAttr queryDevice() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(IbvLayouts.DEVICE_ATTR);
            lib.queryDevice(ctx, attr);
            return deviceAttr(attr);
        }
    }

    private static int i(MemorySegment s, MemoryLayout l, String... path) {
        return s.get(JAVA_INT, offset(l, path));
    }

    private static long l(MemorySegment s, MemoryLayout l, String... path) {
        return s.get(JAVA_LONG, offset(l, path));
    }

    private static int u8(MemorySegment s, MemoryLayout l, String... path) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, offset(l, path)));
    }

    private static int u16(MemorySegment s, MemoryLayout l, String... path) {
        return Short.toUnsignedInt(s.get(JAVA_SHORT, offset(l, path)));
    }

    static DeviceAttr deviceAttr(MemorySegment s) {
        MemoryLayout d = IbvLayouts.DEVICE_ATTR;
        int atomic = i(s, d, "atomic_cap");
        return DeviceAttr.builder()
                .fwVer(s.getString(0))
                .nodeGuid(Long.reverseBytes(l(s, d, "node_guid")))
                .sysImageGuid(Long.reverseBytes(l(s, d, "sys_image_guid")))
                .maxMrSize(l(s, d, "max_mr_size")).pageSizeCap(l(s, d, "page_size_cap"))
                .vendorId(i(s, d, "vendor_id")).vendorPartId(i(s, d, "vendor_part_id")).hwVer(i(s, d, "hw_ver"))
                .maxQp(i(s, d, "max_qp")).maxQpWr(i(s, d, "max_qp_wr")).deviceCapFlags(i(s, d, "device_cap_flags"))
                .maxSge(i(s, d, "max_sge")).maxSgeRd(i(s, d, "max_sge_rd")).maxCq(i(s, d, "max_cq"))
                .maxCqe(i(s, d, "max_cqe")).maxMr(i(s, d, "max_mr")).maxPd(i(s, d, "max_pd"))
                .maxQpRdAtom(i(s, d, "max_qp_rd_atom")).maxEeRdAtom(i(s, d, "max_ee_rd_atom"))
                .maxResRdAtom(i(s, d, "max_res_rd_atom")).maxQpInitRdAtom(i(s, d, "max_qp_init_rd_atom"))
                .maxEeInitRdAtom(i(s, d, "max_ee_init_rd_atom"))
                .atomicCap(atomic >= 0 && atomic < AtomicCap.values().length ? AtomicCap.values()[atomic] : AtomicCap.NONE)
                .maxEe(i(s, d, "max_ee")).maxRdd(i(s, d, "max_rdd")).maxMw(i(s, d, "max_mw"))
                .maxRawIpv6Qp(i(s, d, "max_raw_ipv6_qp")).maxRawEthyQp(i(s, d, "max_raw_ethy_qp"))
                .maxMcastGrp(i(s, d, "max_mcast_grp")).maxMcastQpAttach(i(s, d, "max_mcast_qp_attach"))
                .maxTotalMcastQpAttach(i(s, d, "max_total_mcast_qp_attach")).maxAh(i(s, d, "max_ah"))
                .maxFmr(i(s, d, "max_fmr")).maxMapPerFmr(i(s, d, "max_map_per_fmr")).maxSrq(i(s, d, "max_srq"))
                .maxSrqWr(i(s, d, "max_srq_wr")).maxSrqSge(i(s, d, "max_srq_sge"))
                .maxPkeys(u16(s, d, "max_pkeys")).localCaAckDelay(u8(s, d, "local_ca_ack_delay"))
                .physPortCnt(u8(s, d, "phys_port_cnt"))
                .build();
    }

    /**
     * {@code ibv_query_device_ex(3)} as verbs.h does it: the provider's {@code query_device_ex}, or when
     * it has none (or says EOPNOTSUPP/ENOSYS) {@code ibv_query_device} with the extended part zero.
     */
    @Override
    public DeviceAttrEx queryDeviceEx() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(IbvLayouts.DEVICE_ATTR_EX);
            if (queryDeviceExFn.address() != 0) {
                int rc = OpsCalls.queryDeviceEx(queryDeviceExFn, ctx, s);
                if (rc == Errno.EOPNOTSUPP || rc == Errno.ENOSYS) {
                    s.fill((byte) 0);
                    lib.queryDevice(ctx, s);
                } else if (rc != 0) {
                    throw new VerbsException(rc, "ibv_query_device_ex failed: " + Errno.name(rc));
                }
            } else {
                lib.queryDevice(ctx, s);
            }
            MemoryLayout x = IbvLayouts.DEVICE_ATTR_EX;
            return DeviceAttrEx.builder()
                    .origAttr(deviceAttr(s))
                    .generalOdpCaps(l(s, x, "odp_caps", "general_caps"))
                    .rcOdpCaps(i(s, x, "odp_caps", "per_transport_caps", "rc_odp_caps"))
                    .ucOdpCaps(i(s, x, "odp_caps", "per_transport_caps", "uc_odp_caps"))
                    .udOdpCaps(i(s, x, "odp_caps", "per_transport_caps", "ud_odp_caps"))
                    .completionTimestampMask(l(s, x, "completion_timestamp_mask"))
                    .hcaCoreClock(l(s, x, "hca_core_clock"))
                    .deviceCapFlagsEx(l(s, x, "device_cap_flags_ex"))
                    .maxTso(i(s, x, "tso_caps", "max_tso"))
                    .tsoSupportedQpts(i(s, x, "tso_caps", "supported_qpts"))
                    .maxRwqIndirectionTables(i(s, x, "rss_caps", "max_rwq_indirection_tables"))
                    .maxRwqIndirectionTableSize(i(s, x, "rss_caps", "max_rwq_indirection_table_size"))
                    .rxHashFunction(u8(s, x, "rss_caps", "rx_hash_function"))
                    .rxHashFieldsMask(l(s, x, "rss_caps", "rx_hash_fields_mask"))
                    .rssSupportedQpts(i(s, x, "rss_caps", "supported_qpts"))
                    .maxWqTypeRq(i(s, x, "max_wq_type_rq"))
                    .qpRateLimitMin(i(s, x, "packet_pacing_caps", "qp_rate_limit_min"))
                    .qpRateLimitMax(i(s, x, "packet_pacing_caps", "qp_rate_limit_max"))
                    .packetPacingSupportedQpts(i(s, x, "packet_pacing_caps", "supported_qpts"))
                    .rawPacketCaps(i(s, x, "raw_packet_caps"))
                    .tmMaxRndvHdrSize(i(s, x, "tm_caps", "max_rndv_hdr_size"))
                    .tmMaxNumTags(i(s, x, "tm_caps", "max_num_tags"))
                    .tmFlags(i(s, x, "tm_caps", "flags"))
                    .tmMaxOps(i(s, x, "tm_caps", "max_ops"))
                    .tmMaxSge(i(s, x, "tm_caps", "max_sge"))
                    .maxCqCount(u16(s, x, "cq_mod_caps", "max_cq_count"))
                    .maxCqPeriod(u16(s, x, "cq_mod_caps", "max_cq_period"))
                    .maxDmSize(l(s, x, "max_dm_size"))
                    .xrcOdpCaps(i(s, x, "xrc_odp_caps"))
                    .physPortCntEx(i(s, x, "phys_port_cnt_ex"))
                    .build();
        }
    }

    /** {@code ibv_query_port(3)} as verbs.h's inline does it (the verbs_context's query_port when there is one). */
    @Override
    public PortAttr queryPort(int portNum) {
        if (portNum < 1 || portNum > 255) {
            throw new VerbsException(Errno.EINVAL, "ibv_query_port: port_num " + portNum + " is not 1..255");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(IbvLayouts.PORT_ATTR);
            if (queryPortFn.address() != 0) {
                int rc = OpsCalls.queryPort(queryPortFn, ctx, portNum, s);
                if (rc != 0) {
                    throw new VerbsException(rc, "ibv_query_port failed: " + Errno.name(rc));
                }
            } else {
                lib.queryPortCompat(ctx, portNum, s);
            }
            MemoryLayout p = IbvLayouts.PORT_ATTR;
            int state = i(s, p, "state");
            int linkLayer = u8(s, p, "link_layer"); // IBV_LINK_LAYER_UNSPECIFIED 0, INFINIBAND 1, ETHERNET 2
            return PortAttr.builder()
                    .state(state >= 0 && state < PortState.values().length ? PortState.values()[state] : PortState.NOP)
                    .maxMtu(mtu(i(s, p, "max_mtu")))
                    .activeMtu(mtu(i(s, p, "active_mtu")))
                    .gidTblLen(i(s, p, "gid_tbl_len"))
                    .portCapFlags(i(s, p, "port_cap_flags"))
                    .maxMsgSz(Integer.toUnsignedLong(i(s, p, "max_msg_sz")))
                    .badPkeyCntr(i(s, p, "bad_pkey_cntr"))
                    .qkeyViolCntr(i(s, p, "qkey_viol_cntr"))
                    .pkeyTblLen(u16(s, p, "pkey_tbl_len"))
                    .lid(u16(s, p, "lid"))
                    .smLid(u16(s, p, "sm_lid"))
                    .lmc(u8(s, p, "lmc"))
                    .maxVlNum(u8(s, p, "max_vl_num"))
                    .smSl(u8(s, p, "sm_sl"))
                    .subnetTimeout(u8(s, p, "subnet_timeout"))
                    .initTypeReply(u8(s, p, "init_type_reply"))
                    .activeWidth(u8(s, p, "active_width"))
                    .activeSpeed(u8(s, p, "active_speed"))
                    .physState(u8(s, p, "phys_state"))
                    .linkLayer(linkLayer == 2 ? LinkLayer.ETHERNET : LinkLayer.INFINIBAND)
                    .flags(u8(s, p, "flags"))
                    .portCapFlags2(u16(s, p, "port_cap_flags2"))
                    .build();
        }
    }

    private static Mtu mtu(int v) {
        return v >= 1 && v <= 5 ? Mtu.ofValue(v) : Mtu.MTU_256;
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment g = a.allocate(IbvLayouts.GID);
            lib.queryGid(ctx, portNum, index, g);
            return Gid.of(g.toArray(JAVA_BYTE));
        }
    }

    @Override
    public GidEntry queryGidEx(int portNum, int gidIndex) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment e = a.allocate(IbvLayouts.GID_ENTRY);
            lib.queryGidEx(ctx, portNum, gidIndex, e);
            return gidEntry(e);
        }
    }

    private static GidEntry gidEntry(MemorySegment e) {
        MemoryLayout g = IbvLayouts.GID_ENTRY;
        int type = i(e, g, "gid_type");
        return new GidEntry(Gid.of(e.asSlice(0, 16).toArray(JAVA_BYTE)), i(e, g, "gid_index"), i(e, g, "port_num"),
                type >= 0 && type < GidType.values().length ? GidType.values()[type] : GidType.IB,
                i(e, g, "ndev_ifindex"));
    }

    /** {@code ibv_query_gid_table(3)}, from {@code ibv_query_gid_ex} on every entry of every port. */
    @Override
    public int queryGidTable(GidEntry[] entries) {
        if (entries.length == 0) {
            throw new VerbsException(Errno.EINVAL, "ibv_query_gid_table: max_entries is 0");
        }
        List<GidEntry> valid = new ArrayList<>();
        int ports = queryDevice().physPortCnt();
        for (int p = 1; p <= ports; p++) {
            int len = queryPort(p).gidTblLen();
            for (int i = 0; i < len; i++) {
                try {
                    valid.add(queryGidEx(p, i));
                } catch (VerbsException e) {
                    if (e.errno() != Errno.ENODATA) {
                        throw e;
                    }
                }
            }
        }
        if (valid.size() > entries.length) {
            throw new VerbsException(Errno.EINVAL, "ibv_query_gid_table: " + valid.size()
                    + " valid entries do not fit max_entries " + entries.length);
        }
        for (int i = 0; i < valid.size(); i++) {
            entries[i] = valid.get(i);
        }
        return valid.size();
    }

    @Override
    public int queryPkey(int portNum, int index) {
        return lib.queryPkey(ctx, portNum, index);
    }

    @Override
    public int getPkeyIndex(int portNum, int pkey) {
        if (pkey < 0 || pkey > 0xFFFF) {
            throw new VerbsException(Errno.EINVAL, "ibv_get_pkey_index: pkey " + pkey + " is not 16 bits");
        }
        int r = lib.getPkeyIndex(ctx, portNum, pkey);
        if (r < -1) {
            throw new VerbsException(-r, "ibv_get_pkey_index failed: " + Errno.name(-r));
        }
        return r;
    }

    @Override
    public int numCompVectors() {
        return ctx.get(JAVA_INT, IbvLayouts.CTX_NUM_COMP_VECTORS_OFF);
    }

    // ---------------------------------------------------------------- objects

    @Override
    public ProtectionDomain allocPd() {
        synchronized (lock) {
            checkOpen();
            IbvPd pd = new IbvPd(this, lib.allocPd(ctx).reinterpret(IbvLayouts.PD.byteSize()));
            pds.add(pd);
            return pd;
        }
    }

    @Override
    public CompletionChannel createCompChannel() {
        synchronized (lock) {
            checkOpen();
            IbvCompChannel ch = new IbvCompChannel(this,
                    lib.createCompChannel(ctx).reinterpret(IbvLayouts.COMP_CHANNEL.byteSize()));
            channels.add(ch);
            return ch;
        }
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel) {
        return createCq(cqe, channel, 0);
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        IbvCompChannel ch = null;
        if (channel != null) {
            if (!(channel instanceof IbvCompChannel c) || c.context != this) {
                throw new VerbsException(Errno.EINVAL, "ibv_create_cq: channel is not a completion channel of this context");
            }
            ch = c;
        }
        if (cqe < 1) {
            throw new VerbsException(Errno.EINVAL, "ibv_create_cq: cqe " + cqe + " is below 1");
        }
        if (compVector < 0 || compVector >= numCompVectors()) {
            throw new VerbsException(Errno.EINVAL, "ibv_create_cq: comp_vector " + compVector + " is not below "
                    + numCompVectors());
        }
        synchronized (lock) {
            checkOpen();
            long id = nextCqId++;
            MemorySegment cq = lib.createCq(ctx, cqe, MemorySegment.ofAddress(id),
                    ch == null ? MemorySegment.NULL : ch.ch, compVector).reinterpret(IbvLayouts.CQ.byteSize());
            IbvCq q = new IbvCq(this, cq, id, ch);
            cqs.add(q);
            cqsById.put(id, q);
            cqsByAddress.put(cq.address(), q);
            return q;
        }
    }

    // ---------------------------------------------------------------- asynchronous events

    /** {@code ibv_get_async_event(3)}, waiting in 100 ms slices of {@code poll(2)} on the async_fd. */
    @Override
    public org.jrdma.verbs.AsyncEvent getAsyncEvent() {
        org.jrdma.verbs.AsyncEvent e;
        while ((e = getAsyncEvent(100, java.util.concurrent.TimeUnit.MILLISECONDS)) == null) {
            if (Thread.currentThread().isInterrupted()) {
                throw new VerbsException(4, "ibv_get_async_event: interrupted"); // EINTR
            }
        }
        return e;
    }

    /**
     * {@code poll(2)} on the context's async_fd, then {@code ibv_get_async_event(3)}: the event with the
     * QP or CQ it names (null when that object is not one of this context's live objects) or its port.
     */
    @Override
    public org.jrdma.verbs.AsyncEvent getAsyncEvent(long timeout, java.util.concurrent.TimeUnit unit) {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        int fd = ctx.get(JAVA_INT, IbvLayouts.CTX_ASYNC_FD_OFF);
        synchronized (asyncLock) {
            while (true) {
                if (closed) {
                    throw new VerbsException(Errno.ENODEV, "ibv_get_async_event: the context of " + device.name()
                            + " is closed");
                }
                long left = deadline - System.nanoTime();
                int ms = (int) Math.max(0, Math.min(100, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
                if (lib.pollIn(fd, ms)) {
                    return takeAsyncEvent();
                }
                if (left <= 0 || Thread.currentThread().isInterrupted()) {
                    return null;
                }
            }
        }
    }

    private org.jrdma.verbs.AsyncEvent takeAsyncEvent() {
        Arena arena = Arena.ofShared();
        MemorySegment ev = arena.allocate(IbvLayouts.ASYNC_EVENT);
        try {
            lib.getAsyncEvent(ctx, ev);
        } catch (VerbsException e) {
            arena.close();
            throw e;
        }
        int value = ev.get(JAVA_INT, offset(IbvLayouts.ASYNC_EVENT, "event_type"));
        org.jrdma.verbs.AsyncEventType type = null;
        for (org.jrdma.verbs.AsyncEventType t : org.jrdma.verbs.AsyncEventType.values()) {
            if (t.value() == value) {
                type = t;
            }
        }
        if (type == null) {
            lib.ackAsyncEvent(ev);
            arena.close();
            throw new VerbsException(Errno.EPROTO, "ibv_get_async_event: unknown event type " + value);
        }
        long element = ev.get(JAVA_LONG, 0);
        IbvQp qp = null;
        IbvCq cq = null;
        int port = 0;
        switch (type) {
            case CQ_ERR -> cq = cqsByAddress.get(element);
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                 QP_LAST_WQE_REACHED -> qp = qpsByAddress.get(element);
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE ->
                    port = ev.get(JAVA_INT, 0);
            default -> {
            }
        }
        if (qp != null) {
            qp.asyncEvents.taken();
        }
        if (cq != null) {
            cq.asyncEvents.taken();
        }
        return new IbvAsyncEvent(this, arena, ev, type, qp, cq, port);
    }

    // ---------------------------------------------------------------- bookkeeping (under lock)

    void added(IbvQp qp) {
        qps.add(qp);
        qpsByAddress.put(qp.native_().address(), qp);
    }

    void added(IbvAh ah) {
        ahs.add(ah);
    }

    void added(IbvMr mr) {
        mrSet.add(mr);
        mrs.put(mr);
    }

    void removed(Object o) {
        synchronized (lock) {
            if (o instanceof IbvMr mr) {
                mrSet.remove(mr);
                mrs.remove(mr);
            } else if (o instanceof IbvCq cq) {
                cqs.remove(cq);
                cqsById.remove(cq.id);
                cqsByAddress.remove(cq.native_().address());
            } else if (o instanceof IbvQp qp) {
                qps.remove(qp);
                qpsByAddress.remove(qp.native_().address());
            } else {
                ahs.remove(o);
                channels.remove(o);
                pds.remove(o);
            }
        }
    }

    @Override
    public void close() {
        List<AutoCloseable> order;
        synchronized (lock) {
            if (closed) {
                return;
            }
            order = new ArrayList<>();
            order.addAll(qps);
            order.addAll(ahs);
            order.addAll(mrSet);
            order.addAll(cqs);
            order.addAll(channels);
            order.addAll(pds);
            closed = true;
        }
        VerbsException first = null;
        for (AutoCloseable c : order) {
            try {
                c.close();
            } catch (VerbsException e) {
                first = first == null ? e : first;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        lib.closeDevice(ctx);
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "IbvContext[" + device.name() + "]";
    }
}
