package org.jrdma.ibverbs.bind;

import static org.jrdma.ibverbs.bind.CLayouts.PTR;
import static org.jrdma.ibverbs.bind.CLayouts.U16;
import static org.jrdma.ibverbs.bind.CLayouts.U32;
import static org.jrdma.ibverbs.bind.CLayouts.U64;
import static org.jrdma.ibverbs.bind.CLayouts.U8;
import static org.jrdma.ibverbs.bind.CLayouts.bytes;
import static org.jrdma.ibverbs.bind.CLayouts.m;
import static org.jrdma.ibverbs.bind.CLayouts.offset;
import static org.jrdma.ibverbs.bind.CLayouts.opaque8;
import static org.jrdma.ibverbs.bind.CLayouts.struct;
import static org.jrdma.ibverbs.bind.CLayouts.union;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

/**
 * The structures of rdma-core's {@code <infiniband/verbs.h>} as Debian 12 ships it (rdma-core 44.0,
 * libibverbs 1.14), x86-64, as {@link MemoryLayout}s whose member names are the C member names (an
 * anonymous C union's name starts with {@link CLayouts#ANONYMOUS}). {@code IbvLayoutsTest} compiles a C
 * program against the installed header and compares every member's offset and size and every struct's
 * size with these. The {@code *_OFF} constants are the offsets the provider reads and writes. The
 * pthread members are opaque (glibc x86-64: {@code pthread_mutex_t} 40 bytes, {@code pthread_cond_t}
 * 48).
 */
public final class IbvLayouts {
    private IbvLayouts() {
    }

    /** {@code union ibv_gid}. */
    public static final MemoryLayout GID = union("union ibv_gid",
            bytes("raw", 16),
            struct(null, m("subnet_prefix", U64), m("interface_id", U64)).withName("global"));

    /** {@code struct _ibv_device_ops}. */
    public static final StructLayout DEVICE_OPS = struct("struct _ibv_device_ops", m("_dummy1", PTR), m("_dummy2", PTR));

    /** {@code struct ibv_device}. */
    public static final StructLayout DEVICE = struct("struct ibv_device",
            m("_ops", DEVICE_OPS),
            m("node_type", U32),
            m("transport_type", U32),
            bytes("name", 64),
            bytes("dev_name", 64),
            bytes("dev_path", 256),
            bytes("ibdev_path", 256));

    /** {@code struct ibv_context_ops}: the provider's function pointers, the data path among them. */
    public static final StructLayout CONTEXT_OPS = struct("struct ibv_context_ops",
            m("_compat_query_device", PTR),
            m("_compat_query_port", PTR),
            m("_compat_alloc_pd", PTR),
            m("_compat_dealloc_pd", PTR),
            m("_compat_reg_mr", PTR),
            m("_compat_rereg_mr", PTR),
            m("_compat_dereg_mr", PTR),
            m("alloc_mw", PTR),
            m("bind_mw", PTR),
            m("dealloc_mw", PTR),
            m("_compat_create_cq", PTR),
            m("poll_cq", PTR),
            m("req_notify_cq", PTR),
            m("_compat_cq_event", PTR),
            m("_compat_resize_cq", PTR),
            m("_compat_destroy_cq", PTR),
            m("_compat_create_srq", PTR),
            m("_compat_modify_srq", PTR),
            m("_compat_query_srq", PTR),
            m("_compat_destroy_srq", PTR),
            m("post_srq_recv", PTR),
            m("_compat_create_qp", PTR),
            m("_compat_query_qp", PTR),
            m("_compat_modify_qp", PTR),
            m("_compat_destroy_qp", PTR),
            m("post_send", PTR),
            m("post_recv", PTR),
            m("_compat_create_ah", PTR),
            m("_compat_destroy_ah", PTR),
            m("_compat_attach_mcast", PTR),
            m("_compat_detach_mcast", PTR),
            m("_compat_async_event", PTR));

    /** {@code struct ibv_context}. */
    public static final StructLayout CONTEXT = struct("struct ibv_context",
            m("device", PTR),
            m("ops", CONTEXT_OPS),
            m("cmd_fd", U32),
            m("async_fd", U32),
            m("num_comp_vectors", U32),
            opaque8("mutex", 40),
            m("abi_compat", PTR));

    /**
     * {@code struct verbs_context}: the extended context that contains {@code struct ibv_context} as its
     * last member ({@code verbs_get_ctx}: when {@code ibv_context.abi_compat} is
     * {@link #VERBS_ABI_IS_EXTENDED}); "grows up", new members are added at its start, so a member's
     * place counts back from {@code context}.
     */
    public static final StructLayout VERBS_CONTEXT = struct("struct verbs_context",
            m("query_port", PTR),
            m("advise_mr", PTR),
            m("alloc_null_mr", PTR),
            m("read_counters", PTR),
            m("attach_counters_point_flow", PTR),
            m("create_counters", PTR),
            m("destroy_counters", PTR),
            m("reg_dm_mr", PTR),
            m("alloc_dm", PTR),
            m("free_dm", PTR),
            m("modify_flow_action_esp", PTR),
            m("destroy_flow_action", PTR),
            m("create_flow_action_esp", PTR),
            m("modify_qp_rate_limit", PTR),
            m("alloc_parent_domain", PTR),
            m("dealloc_td", PTR),
            m("alloc_td", PTR),
            m("modify_cq", PTR),
            m("post_srq_ops", PTR),
            m("destroy_rwq_ind_table", PTR),
            m("create_rwq_ind_table", PTR),
            m("destroy_wq", PTR),
            m("modify_wq", PTR),
            m("create_wq", PTR),
            m("query_rt_values", PTR),
            m("create_cq_ex", PTR),
            m("priv", PTR),
            m("query_device_ex", PTR),
            m("ibv_destroy_flow", PTR),
            m("ABI_placeholder2", PTR),
            m("ibv_create_flow", PTR),
            m("ABI_placeholder1", PTR),
            m("open_qp", PTR),
            m("create_qp_ex", PTR),
            m("get_srq_num", PTR),
            m("create_srq_ex", PTR),
            m("open_xrcd", PTR),
            m("close_xrcd", PTR),
            m("_ABI_placeholder3", U64),
            m("sz", U64),
            m("context", CONTEXT));

    /** {@code __VERBS_ABI_IS_EXTENDED}: {@code ((void *)UINTPTR_MAX)}. */
    public static final long VERBS_ABI_IS_EXTENDED = -1L;

    /** {@code struct ibv_device_attr}. */
    public static final StructLayout DEVICE_ATTR = struct("struct ibv_device_attr",
            bytes("fw_ver", 64),
            m("node_guid", U64), m("sys_image_guid", U64), m("max_mr_size", U64), m("page_size_cap", U64),
            m("vendor_id", U32), m("vendor_part_id", U32), m("hw_ver", U32), m("max_qp", U32), m("max_qp_wr", U32),
            m("device_cap_flags", U32), m("max_sge", U32), m("max_sge_rd", U32), m("max_cq", U32), m("max_cqe", U32),
            m("max_mr", U32), m("max_pd", U32), m("max_qp_rd_atom", U32), m("max_ee_rd_atom", U32),
            m("max_res_rd_atom", U32), m("max_qp_init_rd_atom", U32), m("max_ee_init_rd_atom", U32),
            m("atomic_cap", U32), m("max_ee", U32), m("max_rdd", U32), m("max_mw", U32), m("max_raw_ipv6_qp", U32),
            m("max_raw_ethy_qp", U32), m("max_mcast_grp", U32), m("max_mcast_qp_attach", U32),
            m("max_total_mcast_qp_attach", U32), m("max_ah", U32), m("max_fmr", U32), m("max_map_per_fmr", U32),
            m("max_srq", U32), m("max_srq_wr", U32), m("max_srq_sge", U32),
            m("max_pkeys", U16), m("local_ca_ack_delay", U8), m("phys_port_cnt", U8));

    /** {@code struct ibv_device_attr_ex}. */
    public static final StructLayout DEVICE_ATTR_EX = struct("struct ibv_device_attr_ex",
            m("orig_attr", DEVICE_ATTR),
            m("comp_mask", U32),
            struct(null, m("general_caps", U64),
                    struct(null, m("rc_odp_caps", U32), m("uc_odp_caps", U32), m("ud_odp_caps", U32))
                            .withName("per_transport_caps")).withName("odp_caps"),
            m("completion_timestamp_mask", U64),
            m("hca_core_clock", U64),
            m("device_cap_flags_ex", U64),
            struct(null, m("max_tso", U32), m("supported_qpts", U32)).withName("tso_caps"),
            struct(null, m("supported_qpts", U32), m("max_rwq_indirection_tables", U32),
                    m("max_rwq_indirection_table_size", U32), m("rx_hash_fields_mask", U64),
                    m("rx_hash_function", U8)).withName("rss_caps"),
            m("max_wq_type_rq", U32),
            struct(null, m("qp_rate_limit_min", U32), m("qp_rate_limit_max", U32), m("supported_qpts", U32))
                    .withName("packet_pacing_caps"),
            m("raw_packet_caps", U32),
            struct(null, m("max_rndv_hdr_size", U32), m("max_num_tags", U32), m("flags", U32), m("max_ops", U32),
                    m("max_sge", U32)).withName("tm_caps"),
            struct(null, m("max_cq_count", U16), m("max_cq_period", U16)).withName("cq_mod_caps"),
            m("max_dm_size", U64),
            struct(null, m("fetch_add", U16), m("swap", U16), m("compare_swap", U16)).withName("pci_atomic_caps"),
            m("xrc_odp_caps", U32),
            m("phys_port_cnt_ex", U32));

    /** {@code struct ibv_port_attr}. */
    public static final StructLayout PORT_ATTR = struct("struct ibv_port_attr",
            m("state", U32), m("max_mtu", U32), m("active_mtu", U32), m("gid_tbl_len", U32),
            m("port_cap_flags", U32), m("max_msg_sz", U32), m("bad_pkey_cntr", U32), m("qkey_viol_cntr", U32),
            m("pkey_tbl_len", U16), m("lid", U16), m("sm_lid", U16),
            m("lmc", U8), m("max_vl_num", U8), m("sm_sl", U8), m("subnet_timeout", U8), m("init_type_reply", U8),
            m("active_width", U8), m("active_speed", U8), m("phys_state", U8), m("link_layer", U8), m("flags", U8),
            m("port_cap_flags2", U16));

    /** {@code struct ibv_gid_entry}. */
    public static final StructLayout GID_ENTRY = struct("struct ibv_gid_entry",
            m("gid", GID), m("gid_index", U32), m("port_num", U32), m("gid_type", U32), m("ndev_ifindex", U32));

    /** {@code struct ibv_pd}. */
    public static final StructLayout PD = struct("struct ibv_pd", m("context", PTR), m("handle", U32));

    /** {@code struct ibv_mr}. */
    public static final StructLayout MR = struct("struct ibv_mr",
            m("context", PTR), m("pd", PTR), m("addr", PTR), m("length", U64),
            m("handle", U32), m("lkey", U32), m("rkey", U32));

    /** {@code struct ibv_comp_channel}. */
    public static final StructLayout COMP_CHANNEL = struct("struct ibv_comp_channel",
            m("context", PTR), m("fd", U32), m("refcnt", U32));

    /** {@code struct ibv_cq}. */
    public static final StructLayout CQ = struct("struct ibv_cq",
            m("context", PTR), m("channel", PTR), m("cq_context", PTR), m("handle", U32), m("cqe", U32),
            opaque8("mutex", 40), opaque8("cond", 48),
            m("comp_events_completed", U32), m("async_events_completed", U32));

    /** {@code struct ibv_qp_cap}. */
    public static final StructLayout QP_CAP = struct("struct ibv_qp_cap",
            m("max_send_wr", U32), m("max_recv_wr", U32), m("max_send_sge", U32), m("max_recv_sge", U32),
            m("max_inline_data", U32));

    /** {@code struct ibv_qp_init_attr}. */
    public static final StructLayout QP_INIT_ATTR = struct("struct ibv_qp_init_attr",
            m("qp_context", PTR), m("send_cq", PTR), m("recv_cq", PTR), m("srq", PTR),
            m("cap", QP_CAP), m("qp_type", U32), m("sq_sig_all", U32));

    /** {@code struct ibv_global_route}. */
    public static final StructLayout GLOBAL_ROUTE = struct("struct ibv_global_route",
            m("dgid", GID), m("flow_label", U32), m("sgid_index", U8), m("hop_limit", U8), m("traffic_class", U8));

    /** {@code struct ibv_ah_attr}. */
    public static final StructLayout AH_ATTR = struct("struct ibv_ah_attr",
            m("grh", GLOBAL_ROUTE), m("dlid", U16), m("sl", U8), m("src_path_bits", U8), m("static_rate", U8),
            m("is_global", U8), m("port_num", U8));

    /** {@code struct ibv_ah}. */
    public static final StructLayout AH = struct("struct ibv_ah", m("context", PTR), m("pd", PTR), m("handle", U32));

    /** {@code struct ibv_qp_attr}. */
    public static final StructLayout QP_ATTR = struct("struct ibv_qp_attr",
            m("qp_state", U32), m("cur_qp_state", U32), m("path_mtu", U32), m("path_mig_state", U32),
            m("qkey", U32), m("rq_psn", U32), m("sq_psn", U32), m("dest_qp_num", U32), m("qp_access_flags", U32),
            m("cap", QP_CAP), m("ah_attr", AH_ATTR), m("alt_ah_attr", AH_ATTR),
            m("pkey_index", U16), m("alt_pkey_index", U16),
            m("en_sqd_async_notify", U8), m("sq_draining", U8), m("max_rd_atomic", U8), m("max_dest_rd_atomic", U8),
            m("min_rnr_timer", U8), m("port_num", U8), m("timeout", U8), m("retry_cnt", U8), m("rnr_retry", U8),
            m("alt_port_num", U8), m("alt_timeout", U8),
            m("rate_limit", U32));

    /** {@code struct ibv_qp}. */
    public static final StructLayout QP = struct("struct ibv_qp",
            m("context", PTR), m("qp_context", PTR), m("pd", PTR), m("send_cq", PTR), m("recv_cq", PTR), m("srq", PTR),
            m("handle", U32), m("qp_num", U32), m("state", U32), m("qp_type", U32),
            opaque8("mutex", 40), opaque8("cond", 48), m("events_completed", U32));

    /** {@code struct ibv_sge}. */
    public static final StructLayout SGE = struct("struct ibv_sge", m("addr", U64), m("length", U32), m("lkey", U32));

    /** {@code struct ibv_mw_bind_info}. */
    public static final StructLayout MW_BIND_INFO = struct("struct ibv_mw_bind_info",
            m("mr", PTR), m("addr", U64), m("length", U64), m("mw_access_flags", U32));

    /** {@code struct ibv_send_wr}. */
    public static final StructLayout SEND_WR = struct("struct ibv_send_wr",
            m("wr_id", U64), m("next", PTR), m("sg_list", PTR), m("num_sge", U32), m("opcode", U32),
            m("send_flags", U32),
            union(null, m("imm_data", U32), m("invalidate_rkey", U32)).withName("$imm"),
            union(null,
                    struct(null, m("remote_addr", U64), m("rkey", U32)).withName("rdma"),
                    struct(null, m("remote_addr", U64), m("compare_add", U64), m("swap", U64), m("rkey", U32))
                            .withName("atomic"),
                    struct(null, m("ah", PTR), m("remote_qpn", U32), m("remote_qkey", U32)).withName("ud"))
                    .withName("wr"),
            union(null, struct(null, m("remote_srqn", U32)).withName("xrc")).withName("qp_type"),
            union(null,
                    struct(null, m("mw", PTR), m("rkey", U32), m("bind_info", MW_BIND_INFO)).withName("bind_mw"),
                    struct(null, m("hdr", PTR), m("hdr_sz", U16), m("mss", U16)).withName("tso"))
                    .withName("$bind"));

    /** {@code struct ibv_recv_wr}. */
    public static final StructLayout RECV_WR = struct("struct ibv_recv_wr",
            m("wr_id", U64), m("next", PTR), m("sg_list", PTR), m("num_sge", U32));

    /** {@code struct ibv_wc}. */
    public static final StructLayout WC = struct("struct ibv_wc",
            m("wr_id", U64), m("status", U32), m("opcode", U32), m("vendor_err", U32), m("byte_len", U32),
            union(null, m("imm_data", U32), m("invalidated_rkey", U32)).withName("$imm"),
            m("qp_num", U32), m("src_qp", U32), m("wc_flags", U32), m("pkey_index", U16), m("slid", U16),
            m("sl", U8), m("dlid_path_bits", U8));

    /** {@code struct ibv_async_event}. */
    public static final StructLayout ASYNC_EVENT = struct("struct ibv_async_event",
            union(null, m("cq", PTR), m("qp", PTR), m("srq", PTR), m("wq", PTR), m("port_num", U32)).withName("element"),
            m("event_type", U32));

    /** Every layout above, for the layout test. */
    public static final List<MemoryLayout> ALL = List.of(GID, DEVICE, CONTEXT_OPS, CONTEXT, VERBS_CONTEXT, DEVICE_ATTR,
            DEVICE_ATTR_EX, PORT_ATTR, GID_ENTRY, PD, MR, COMP_CHANNEL, CQ, QP_CAP, QP_INIT_ATTR, GLOBAL_ROUTE, AH_ATTR,
            AH, QP_ATTR, QP, SGE, MW_BIND_INFO, SEND_WR, RECV_WR, WC, ASYNC_EVENT);

    // ---- offsets the provider uses

    public static final long DEVICE_NAME_OFF = offset(DEVICE, "name");
    public static final long DEVICE_TRANSPORT_OFF = offset(DEVICE, "transport_type");
    public static final long DEVICE_NODE_TYPE_OFF = offset(DEVICE, "node_type");

    public static final long CTX_DEVICE_OFF = offset(CONTEXT, "device");
    public static final long CTX_POLL_CQ_OFF = offset(CONTEXT, "ops", "poll_cq");
    public static final long CTX_REQ_NOTIFY_CQ_OFF = offset(CONTEXT, "ops", "req_notify_cq");
    public static final long CTX_POST_SEND_OFF = offset(CONTEXT, "ops", "post_send");
    public static final long CTX_POST_RECV_OFF = offset(CONTEXT, "ops", "post_recv");
    public static final long CTX_ASYNC_FD_OFF = offset(CONTEXT, "async_fd");
    public static final long CTX_NUM_COMP_VECTORS_OFF = offset(CONTEXT, "num_comp_vectors");
    public static final long CTX_ABI_COMPAT_OFF = offset(CONTEXT, "abi_compat");

    /** Where {@code struct ibv_context} is in {@code struct verbs_context}. */
    public static final long VCTX_CONTEXT_OFF = offset(VERBS_CONTEXT, "context");
    /** {@code verbs_context.sz}, counted back from the {@code ibv_context}: negative. */
    public static final long VCTX_SZ_REL = offset(VERBS_CONTEXT, "sz") - VCTX_CONTEXT_OFF;
    public static final long VCTX_QUERY_PORT_REL = offset(VERBS_CONTEXT, "query_port") - VCTX_CONTEXT_OFF;
    public static final long VCTX_QUERY_DEVICE_EX_REL = offset(VERBS_CONTEXT, "query_device_ex") - VCTX_CONTEXT_OFF;

    public static final long MR_LKEY_OFF = offset(MR, "lkey");
    public static final long MR_RKEY_OFF = offset(MR, "rkey");
    public static final long COMP_CHANNEL_FD_OFF = offset(COMP_CHANNEL, "fd");
    public static final long CQ_CQE_OFF = offset(CQ, "cqe");
    public static final long CQ_CONTEXT_OFF = offset(CQ, "cq_context");
    public static final long QP_NUM_OFF = offset(QP, "qp_num");
    public static final long QP_STATE_OFF = offset(QP, "state");

    public static final long SGE_ADDR_OFF = offset(SGE, "addr");
    public static final long SGE_LENGTH_OFF = offset(SGE, "length");
    public static final long SGE_LKEY_OFF = offset(SGE, "lkey");

    public static final long SWR_WR_ID_OFF = offset(SEND_WR, "wr_id");
    public static final long SWR_NEXT_OFF = offset(SEND_WR, "next");
    public static final long SWR_SG_LIST_OFF = offset(SEND_WR, "sg_list");
    public static final long SWR_NUM_SGE_OFF = offset(SEND_WR, "num_sge");
    public static final long SWR_OPCODE_OFF = offset(SEND_WR, "opcode");
    public static final long SWR_SEND_FLAGS_OFF = offset(SEND_WR, "send_flags");
    public static final long SWR_IMM_DATA_OFF = offset(SEND_WR, "$imm", "imm_data");
    public static final long SWR_RDMA_REMOTE_ADDR_OFF = offset(SEND_WR, "wr", "rdma", "remote_addr");
    public static final long SWR_RDMA_RKEY_OFF = offset(SEND_WR, "wr", "rdma", "rkey");
    public static final long SWR_ATOMIC_REMOTE_ADDR_OFF = offset(SEND_WR, "wr", "atomic", "remote_addr");
    public static final long SWR_ATOMIC_COMPARE_ADD_OFF = offset(SEND_WR, "wr", "atomic", "compare_add");
    public static final long SWR_ATOMIC_SWAP_OFF = offset(SEND_WR, "wr", "atomic", "swap");
    public static final long SWR_ATOMIC_RKEY_OFF = offset(SEND_WR, "wr", "atomic", "rkey");
    public static final long SWR_UD_AH_OFF = offset(SEND_WR, "wr", "ud", "ah");
    public static final long SWR_UD_REMOTE_QPN_OFF = offset(SEND_WR, "wr", "ud", "remote_qpn");
    public static final long SWR_UD_REMOTE_QKEY_OFF = offset(SEND_WR, "wr", "ud", "remote_qkey");

    public static final long RWR_WR_ID_OFF = offset(RECV_WR, "wr_id");
    public static final long RWR_NEXT_OFF = offset(RECV_WR, "next");
    public static final long RWR_SG_LIST_OFF = offset(RECV_WR, "sg_list");
    public static final long RWR_NUM_SGE_OFF = offset(RECV_WR, "num_sge");

    public static final long WC_WR_ID_OFF = offset(WC, "wr_id");
    public static final long WC_STATUS_OFF = offset(WC, "status");
    public static final long WC_OPCODE_OFF = offset(WC, "opcode");
    public static final long WC_VENDOR_ERR_OFF = offset(WC, "vendor_err");
    public static final long WC_BYTE_LEN_OFF = offset(WC, "byte_len");
    public static final long WC_IMM_DATA_OFF = offset(WC, "$imm", "imm_data");
    public static final long WC_QP_NUM_OFF = offset(WC, "qp_num");
    public static final long WC_SRC_QP_OFF = offset(WC, "src_qp");
    public static final long WC_WC_FLAGS_OFF = offset(WC, "wc_flags");
    public static final long WC_PKEY_INDEX_OFF = offset(WC, "pkey_index");
    public static final long WC_SLID_OFF = offset(WC, "slid");
    public static final long WC_SL_OFF = offset(WC, "sl");
}
