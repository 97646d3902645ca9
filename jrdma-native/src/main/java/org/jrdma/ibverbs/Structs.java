package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.jrdma.ibverbs.bind.CLayouts.offset;

import java.lang.foreign.MemorySegment;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.GlobalRoute;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpCap;
import org.jrdma.verbs.QpState;

/**
 * The control-path translations between the API's attribute objects and {@code struct ibv_ah_attr},
 * {@code struct ibv_qp_cap}, {@code struct ibv_qp_attr}. Pure; the caller owns the segment.
 */
final class Structs {
    private static final long GRH = offset(IbvLayouts.AH_ATTR, "grh");
    private static final long GRH_FLOW = offset(IbvLayouts.GLOBAL_ROUTE, "flow_label");
    private static final long GRH_SGID = offset(IbvLayouts.GLOBAL_ROUTE, "sgid_index");
    private static final long GRH_HOP = offset(IbvLayouts.GLOBAL_ROUTE, "hop_limit");
    private static final long GRH_TC = offset(IbvLayouts.GLOBAL_ROUTE, "traffic_class");
    private static final long AH_DLID = offset(IbvLayouts.AH_ATTR, "dlid");
    private static final long AH_SL = offset(IbvLayouts.AH_ATTR, "sl");
    private static final long AH_SPB = offset(IbvLayouts.AH_ATTR, "src_path_bits");
    private static final long AH_RATE = offset(IbvLayouts.AH_ATTR, "static_rate");
    private static final long AH_GLOBAL = offset(IbvLayouts.AH_ATTR, "is_global");
    private static final long AH_PORT = offset(IbvLayouts.AH_ATTR, "port_num");

    private Structs() {
    }

    static void writeAhAttr(MemorySegment s, long at, AhAttr a) {
        GlobalRoute g = a.grh();
        MemorySegment.copy(g.dgid().raw(), 0, s, JAVA_BYTE, at + GRH, 16);
        s.set(JAVA_INT, at + GRH + GRH_FLOW, g.flowLabel());
        s.set(JAVA_BYTE, at + GRH + GRH_SGID, (byte) g.sgidIndex());
        s.set(JAVA_BYTE, at + GRH + GRH_HOP, (byte) g.hopLimit());
        s.set(JAVA_BYTE, at + GRH + GRH_TC, (byte) g.trafficClass());
        s.set(JAVA_SHORT, at + AH_DLID, (short) a.dlid());
        s.set(JAVA_BYTE, at + AH_SL, (byte) a.sl());
        s.set(JAVA_BYTE, at + AH_SPB, (byte) a.srcPathBits());
        s.set(JAVA_BYTE, at + AH_RATE, (byte) a.staticRate());
        s.set(JAVA_BYTE, at + AH_GLOBAL, (byte) (a.isGlobal() ? 1 : 0));
        s.set(JAVA_BYTE, at + AH_PORT, (byte) a.portNum());
    }

    static void readAhAttr(MemorySegment s, long at, AhAttr a) {
        GlobalRoute g = a.grh();
        g.dgid(Gid.of(s.asSlice(at + GRH, 16).toArray(JAVA_BYTE)))
                .flowLabel(s.get(JAVA_INT, at + GRH + GRH_FLOW))
                .sgidIndex(u8(s, at + GRH + GRH_SGID))
                .hopLimit(u8(s, at + GRH + GRH_HOP))
                .trafficClass(u8(s, at + GRH + GRH_TC));
        a.dlid(Short.toUnsignedInt(s.get(JAVA_SHORT, at + AH_DLID))).sl(u8(s, at + AH_SL))
                .srcPathBits(u8(s, at + AH_SPB)).staticRate(u8(s, at + AH_RATE))
                .isGlobal(s.get(JAVA_BYTE, at + AH_GLOBAL) != 0).portNum(u8(s, at + AH_PORT));
    }

    private static int u8(MemorySegment s, long at) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, at));
    }

    static void writeCap(MemorySegment s, long at, QpCap c) {
        MemoryLayoutOffsets o = MemoryLayoutOffsets.CAP;
        s.set(JAVA_INT, at + o.a, c.maxSendWr());
        s.set(JAVA_INT, at + o.b, c.maxRecvWr());
        s.set(JAVA_INT, at + o.c, c.maxSendSge());
        s.set(JAVA_INT, at + o.d, c.maxRecvSge());
        s.set(JAVA_INT, at + o.e, c.maxInlineData());
    }

    static void readCap(MemorySegment s, long at, QpCap c) {
        MemoryLayoutOffsets o = MemoryLayoutOffsets.CAP;
        c.maxSendWr(s.get(JAVA_INT, at + o.a)).maxRecvWr(s.get(JAVA_INT, at + o.b))
                .maxSendSge(s.get(JAVA_INT, at + o.c)).maxRecvSge(s.get(JAVA_INT, at + o.d))
                .maxInlineData(s.get(JAVA_INT, at + o.e));
    }

    /** The five members of {@code struct ibv_qp_cap}. */
    private record MemoryLayoutOffsets(long a, long b, long c, long d, long e) {
        static final MemoryLayoutOffsets CAP = new MemoryLayoutOffsets(
                offset(IbvLayouts.QP_CAP, "max_send_wr"), offset(IbvLayouts.QP_CAP, "max_recv_wr"),
                offset(IbvLayouts.QP_CAP, "max_send_sge"), offset(IbvLayouts.QP_CAP, "max_recv_sge"),
                offset(IbvLayouts.QP_CAP, "max_inline_data"));
    }

    private static long q(String... path) {
        return offset(IbvLayouts.QP_ATTR, path);
    }

    private static final long QA_STATE = q("qp_state");
    private static final long QA_CUR_STATE = q("cur_qp_state");
    private static final long QA_MTU = q("path_mtu");
    private static final long QA_QKEY = q("qkey");
    private static final long QA_RQ_PSN = q("rq_psn");
    private static final long QA_SQ_PSN = q("sq_psn");
    private static final long QA_DEST_QPN = q("dest_qp_num");
    private static final long QA_ACCESS = q("qp_access_flags");
    private static final long QA_CAP = q("cap");
    private static final long QA_AH = q("ah_attr");
    private static final long QA_PKEY = q("pkey_index");
    private static final long QA_SQ_DRAINING = q("sq_draining");
    private static final long QA_MAX_RD = q("max_rd_atomic");
    private static final long QA_MAX_DEST_RD = q("max_dest_rd_atomic");
    private static final long QA_MIN_RNR = q("min_rnr_timer");
    private static final long QA_PORT = q("port_num");
    private static final long QA_TIMEOUT = q("timeout");
    private static final long QA_RETRY = q("retry_cnt");
    private static final long QA_RNR_RETRY = q("rnr_retry");

    /** Fills {@code struct ibv_qp_attr} (zeroed first) from {@code a}; libibverbs reads the members the mask names. */
    static void writeQpAttr(MemorySegment s, QpAttr a) {
        s.fill((byte) 0);
        s.set(JAVA_INT, QA_STATE, a.qpState().value());
        s.set(JAVA_INT, QA_CUR_STATE, a.curQpState().value());
        s.set(JAVA_INT, QA_MTU, a.pathMtu().value());
        s.set(JAVA_INT, QA_QKEY, a.qkey());
        s.set(JAVA_INT, QA_RQ_PSN, a.rqPsn());
        s.set(JAVA_INT, QA_SQ_PSN, a.sqPsn());
        s.set(JAVA_INT, QA_DEST_QPN, a.destQpNum());
        s.set(JAVA_INT, QA_ACCESS, a.qpAccessFlags());
        writeCap(s, QA_CAP, a.cap());
        writeAhAttr(s, QA_AH, a.ahAttr());
        s.set(JAVA_SHORT, QA_PKEY, (short) a.pkeyIndex());
        s.set(JAVA_BYTE, QA_SQ_DRAINING, (byte) (a.sqDraining() ? 1 : 0));
        s.set(JAVA_BYTE, QA_MAX_RD, (byte) a.maxRdAtomic());
        s.set(JAVA_BYTE, QA_MAX_DEST_RD, (byte) a.maxDestRdAtomic());
        s.set(JAVA_BYTE, QA_MIN_RNR, (byte) a.minRnrTimer());
        s.set(JAVA_BYTE, QA_PORT, (byte) a.portNum());
        s.set(JAVA_BYTE, QA_TIMEOUT, (byte) a.timeout());
        s.set(JAVA_BYTE, QA_RETRY, (byte) a.retryCnt());
        s.set(JAVA_BYTE, QA_RNR_RETRY, (byte) a.rnrRetry());
    }

    /** Reads {@code struct ibv_qp_attr} into {@code a} (every member the API has). */
    static void readQpAttr(MemorySegment s, QpAttr a) {
        a.qpState(state(s.get(JAVA_INT, QA_STATE)));
        a.curQpState(state(s.get(JAVA_INT, QA_CUR_STATE)));
        int mtu = s.get(JAVA_INT, QA_MTU);
        if (mtu >= 1 && mtu <= 5) {
            a.pathMtu(Mtu.ofValue(mtu));
        }
        a.qkey(s.get(JAVA_INT, QA_QKEY)).rqPsn(s.get(JAVA_INT, QA_RQ_PSN)).sqPsn(s.get(JAVA_INT, QA_SQ_PSN))
                .destQpNum(s.get(JAVA_INT, QA_DEST_QPN)).qpAccessFlags(s.get(JAVA_INT, QA_ACCESS))
                .pkeyIndex(Short.toUnsignedInt(s.get(JAVA_SHORT, QA_PKEY)))
                .sqDraining(s.get(JAVA_BYTE, QA_SQ_DRAINING) != 0)
                .maxRdAtomic(u8(s, QA_MAX_RD)).maxDestRdAtomic(u8(s, QA_MAX_DEST_RD))
                .minRnrTimer(u8(s, QA_MIN_RNR)).portNum(u8(s, QA_PORT)).timeout(u8(s, QA_TIMEOUT))
                .retryCnt(u8(s, QA_RETRY)).rnrRetry(u8(s, QA_RNR_RETRY));
        readCap(s, QA_CAP, a.cap());
        readAhAttr(s, QA_AH, a.ahAttr());
    }

    static QpState state(int v) {
        return v >= 0 && v < QpState.values().length ? QpState.values()[v] : QpState.ERR;
    }
}
