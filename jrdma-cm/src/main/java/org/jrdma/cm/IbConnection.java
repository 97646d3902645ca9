package org.jrdma.cm;

import java.util.concurrent.ScheduledFuture;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.ManagementDatagrams.MadAddress;

/**
 * One IB CM connection of a {@link CmId} (Linux's {@code cm_id_private}): its state, both sides'
 * communication IDs, QPNs and PSNs, the path, and what its QP gets in {@code rdma_init_qp_attr}.
 * Guarded by the CM lock; the transitions are {@link IbCm}'s.
 */
final class IbConnection {
    /** The ID, or null once the application destroyed it (the connection lives on through its timewait). */
    CmId id;
    final boolean active;
    IbCmState state = IbCmState.IDLE;

    int localCommId;
    int remoteCommId;
    long remoteCaGuid;
    /** The TID of the exchange (the REQ's; a passive side's REP and RTU use it). */
    long tid;
    /** The TID of the request the MAD layer is resending for us (REQ, REP or DREQ), 0 when none. */
    long outstandingTid;
    MadAddress peer;

    Gid localGid;
    Gid remoteGid;
    int localQpn;
    int remoteQpn;
    /**
     * The starting PSN we announced (REQ or REP), which is the PSN our QP expects to receive first
     * (its rq_psn): Linux's {@code cm.c} has each side announce its receive PSN, as rxe-cm-rping.pcap
     * shows (the client's first SEND carries the REP's starting PSN, the server's first READ the REQ's).
     */
    int localPsn;
    /** The peer's starting PSN, the PSN our QP sends first (its sq_psn). */
    int remotePsn;
    /** Our max_dest_rd_atomic. */
    int responderResources;
    /** Our max_rd_atomic. */
    int initiatorDepth;
    Mtu pathMtu;
    int flowLabel;
    int trafficClass;
    int hopLimit = 64;
    /** The REQ's "primary local ACK timeout". */
    int localAckTimeout;
    /** The RTS timeout of our QP. */
    int qpTimeout;
    int retryCount;
    int rnrRetryCount;
    boolean flowControl;
    boolean srq;
    /** Timeout and retries of the requests we send (REQ, REP, DREQ). */
    long sendTimeoutMs;
    int maxCmRetries;
    /** Passive: the REQ's "remote CM response timeout" (how long its active side waits per try). */
    int remoteCmResponseTimeout;
    /** Passive: the REQ's parameters, for an accept without parameters. */
    ConnParam request;
    ScheduledFuture<?> timewait;
    boolean disconnectReported;

    IbConnection(CmId id, boolean active) {
        this.id = id;
        this.active = active;
    }

    /** {@code ib_cm_init_qp_attr} (through {@code cma_ib_init_qp_attr}). */
    int initQpAttr(QpAttr attr) {
        switch (attr.qpState()) {
            case INIT -> {
                int access = AccessFlags.REMOTE_WRITE;
                if (responderResources > 0) {
                    access |= AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
                }
                attr.pkeyIndex(0).portNum(CmId.PORT_NUM).qpAccessFlags(access);
                return QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS;
            }
            case RTR -> {
                if (remoteGid == null) {
                    throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: RTR before the peer's parameters are known");
                }
                attr.pathMtu(pathMtu).destQpNum(remoteQpn).rqPsn(localPsn).maxDestRdAtomic(responderResources)
                        .minRnrTimer(0);
                attr.ahAttr().isGlobal(true).dlid(0).sl(0).portNum(CmId.PORT_NUM).grh().dgid(remoteGid)
                        .sgidIndex(0).flowLabel(flowLabel).hopLimit(hopLimit).trafficClass(trafficClass);
                return QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
                        | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
            }
            case RTS -> {
                if (remoteGid == null) {
                    throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: RTS before the peer's parameters are known");
                }
                attr.sqPsn(remotePsn).timeout(qpTimeout).retryCnt(retryCount).rnrRetry(rnrRetryCount)
                        .maxRdAtomic(initiatorDepth);
                return QpAttrMask.STATE | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                        | QpAttrMask.SQ_PSN | QpAttrMask.MAX_QP_RD_ATOMIC;
            }
            default -> throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: no attributes for " + attr.qpState());
        }
    }

    @Override
    public String toString() {
        return "IbConnection[" + state + " local 0x" + Integer.toHexString(localCommId) + " remote 0x"
                + Integer.toHexString(remoteCommId) + " qpn 0x" + Integer.toHexString(localQpn) + "]";
    }
}
