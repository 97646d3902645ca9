package org.jrdma.ibverbs.bind;

import static org.jrdma.ibverbs.bind.CLayouts.PTR;
import static org.jrdma.ibverbs.bind.CLayouts.U32;
import static org.jrdma.ibverbs.bind.CLayouts.U8;
import static org.jrdma.ibverbs.bind.CLayouts.m;
import static org.jrdma.ibverbs.bind.CLayouts.offset;
import static org.jrdma.ibverbs.bind.CLayouts.struct;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

/**
 * The structs of rdma-core's {@code <rdma/rdma_cma.h>} (rdma-core 44, Debian 12) that the CM
 * transport over librdmacm reads and writes: {@code struct rdma_conn_param}, {@code struct
 * rdma_cm_event} (with the {@code conn} member of its parameter union; {@code struct rdma_ud_param},
 * the other member, is not read: UD IDs are not offered) and the head of {@code struct rdma_cm_id}
 * up to its route's addresses (the members {@code rdma_get_local_addr}/{@code rdma_get_peer_addr},
 * inline in the header, read). {@code RdmaCmLayoutsTest} compares every offset and size with gcc's
 * for the installed header. Constants; any thread.
 */
public final class RdmaCmLayouts {
    private RdmaCmLayouts() {
    }

    /** {@code struct sockaddr_storage}: 128 bytes, aligned to 8. */
    public static final MemoryLayout SOCKADDR_STORAGE = MemoryLayout.sequenceLayout(16, CLayouts.U64);

    /** {@code struct rdma_conn_param}. */
    public static final StructLayout CONN_PARAM = struct("struct rdma_conn_param",
            m("private_data", PTR), m("private_data_len", U8), m("responder_resources", U8),
            m("initiator_depth", U8), m("flow_control", U8), m("retry_count", U8), m("rnr_retry_count", U8),
            m("srq", U8), m("qp_num", U32));

    /** {@code struct rdma_ud_param} (only its size matters here: it shares the event's union). */
    public static final StructLayout UD_PARAM = struct("struct rdma_ud_param",
            m("private_data", PTR), m("private_data_len", U8), m("ah_attr", IbvLayouts.AH_ATTR),
            m("qp_num", U32), m("qkey", U32));

    /** {@code struct rdma_cm_event}; the parameter union is written as its {@code conn} member padded to the union's size. */
    public static final StructLayout CM_EVENT = struct("struct rdma_cm_event",
            m("id", PTR), m("listen_id", PTR), m("event", U32), m("status", U32),
            CLayouts.union(null, m("conn", CONN_PARAM), m("ud", UD_PARAM)).withName("param"));

    /** The head of {@code struct rdma_cm_id} up to {@code route.addr}'s source and destination. */
    public static final StructLayout CM_ID_HEAD = struct("struct rdma_cm_id",
            m("verbs", PTR), m("channel", PTR), m("context", PTR), m("qp", PTR),
            m("route", struct(null, m("addr", struct(null,
                    m("src_storage", SOCKADDR_STORAGE), m("dst_storage", SOCKADDR_STORAGE))))));

    /** {@code struct rdma_event_channel}: its {@code fd}. */
    public static final StructLayout EVENT_CHANNEL = struct("struct rdma_event_channel", m("fd", U32));

    public static final long EV_ID_OFF = offset(CM_EVENT, "id");
    public static final long EV_LISTEN_ID_OFF = offset(CM_EVENT, "listen_id");
    public static final long EV_EVENT_OFF = offset(CM_EVENT, "event");
    public static final long EV_STATUS_OFF = offset(CM_EVENT, "status");
    public static final long EV_CONN_OFF = offset(CM_EVENT, "param", "conn");
    public static final long CP_PRIVATE_DATA_OFF = offset(CONN_PARAM, "private_data");
    public static final long CP_PRIVATE_DATA_LEN_OFF = offset(CONN_PARAM, "private_data_len");
    public static final long CP_RESPONDER_RESOURCES_OFF = offset(CONN_PARAM, "responder_resources");
    public static final long CP_INITIATOR_DEPTH_OFF = offset(CONN_PARAM, "initiator_depth");
    public static final long CP_FLOW_CONTROL_OFF = offset(CONN_PARAM, "flow_control");
    public static final long CP_RETRY_COUNT_OFF = offset(CONN_PARAM, "retry_count");
    public static final long CP_RNR_RETRY_COUNT_OFF = offset(CONN_PARAM, "rnr_retry_count");
    public static final long CP_SRQ_OFF = offset(CONN_PARAM, "srq");
    public static final long CP_QP_NUM_OFF = offset(CONN_PARAM, "qp_num");
    public static final long ID_VERBS_OFF = offset(CM_ID_HEAD, "verbs");
    public static final long ID_SRC_OFF = offset(CM_ID_HEAD, "route", "addr", "src_storage");
    public static final long ID_DST_OFF = offset(CM_ID_HEAD, "route", "addr", "dst_storage");

    /** Every layout {@code RdmaCmLayoutsTest} checks (the C paths of the route's members: route.addr.src_storage...). */
    public static final List<StructLayout> ALL = List.of(CONN_PARAM, UD_PARAM, CM_EVENT, CM_ID_HEAD, EVENT_CHANNEL);
}
