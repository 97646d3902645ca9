package org.jrdma.soft;

import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.VerbsException;

/**
 * The attributes of a QP as {@code ibv_modify_qp(3)} sets them ({@code struct ibv_qp_attr}, which
 * is provider-neutral): stored as given, with the values every transport shares checked here.
 * The values only some transports interpret (IB/RoCE: the PSNs, timeout, retry_cnt, rnr_retry,
 * min_rnr_timer, the Q_Key) are stored here too but checked and read by the transport
 * ({@link QpTransport#checkModify}).
 *
 * <p>Threads: read and written under the QP's lock ({@link SoftQp#lock()}).
 */
public final class QpAttributes {
    private Mtu pathMtu;
    private int destQpn;
    private int rqPsn;
    private int sqPsn;
    private int qpAccessFlags;
    private int qkey;
    private int pkeyIndex;
    private int portNum = 1;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;
    private int minRnrTimer;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private final AhAttr av = new AhAttr();

    QpAttributes(Mtu initialPathMtu) {
        this.pathMtu = initialPathMtu;
    }

    /**
     * Checks the provider-neutral values of a modify (port, P_Key index, access flags, path MTU,
     * dest QPN, the rd_atomic depths, cur_qp_state) before anything changes.
     *
     * @throws VerbsException EINVAL naming the bad value
     */
    void check(QpAttr a, int mask, org.jrdma.verbs.QpState cur, Mtu portMaxMtu) {
        if ((mask & QpAttrMask.CUR_STATE) != 0 && a.curQpState() != cur) {
            throw new VerbsException(Errno.EINVAL, "cur_qp_state " + a.curQpState() + " is not the QP's state " + cur);
        }
        if ((mask & QpAttrMask.PORT) != 0) {
            require(a.portNum() == 1, "port " + a.portNum() + " does not exist (only port 1)");
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0) {
            require(a.pkeyIndex() == 0, "pkey_index " + a.pkeyIndex() + " outside the P_Key table (1 entry)");
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0) {
            int ok = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC
                    | AccessFlags.FLUSH_GLOBAL | AccessFlags.FLUSH_PERSISTENT;
            require((a.qpAccessFlags() & ~ok) == 0, "qp_access_flags 0x" + Integer.toHexString(a.qpAccessFlags()) + " has unknown bits");
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0) {
            require(a.pathMtu() != null && a.pathMtu().bytes() <= portMaxMtu.bytes(), "path_mtu " + a.pathMtu() + " above the port's " + portMaxMtu);
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0) {
            require(a.maxRdAtomic() >= 0 && a.maxRdAtomic() <= SoftLimits.MAX_QP_RD_ATOM, "max_rd_atomic " + a.maxRdAtomic() + " not in 0.." + SoftLimits.MAX_QP_RD_ATOM);
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0) {
            require(a.maxDestRdAtomic() >= 0 && a.maxDestRdAtomic() <= SoftLimits.MAX_QP_RD_ATOM, "max_dest_rd_atomic " + a.maxDestRdAtomic() + " not in 0.." + SoftLimits.MAX_QP_RD_ATOM);
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0) {
            require((a.destQpNum() & ~0xFFFFFF) == 0, "dest_qp_num 0x" + Integer.toHexString(a.destQpNum()) + " is not 24 bits");
        }
    }

    /** Throws {@link VerbsException} EINVAL with {@code what} unless {@code ok}. */
    public static void require(boolean ok, String what) {
        if (!ok) {
            throw new VerbsException(Errno.EINVAL, what);
        }
    }

    /** Stores the attributes of {@code mask} (after every check passed). */
    void apply(QpAttr a, int mask) {
        if ((mask & QpAttrMask.PORT) != 0) {
            portNum = a.portNum();
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0) {
            pkeyIndex = a.pkeyIndex();
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0) {
            qpAccessFlags = a.qpAccessFlags();
        }
        if ((mask & QpAttrMask.QKEY) != 0) {
            qkey = a.qkey();
        }
        if ((mask & QpAttrMask.AV) != 0) {
            av.copyFrom(a.ahAttr());
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0) {
            pathMtu = a.pathMtu();
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0) {
            destQpn = a.destQpNum();
        }
        if ((mask & QpAttrMask.RQ_PSN) != 0) {
            rqPsn = a.rqPsn();
        }
        if ((mask & QpAttrMask.SQ_PSN) != 0) {
            sqPsn = a.sqPsn();
        }
        if ((mask & QpAttrMask.TIMEOUT) != 0) {
            timeout = a.timeout();
        }
        if ((mask & QpAttrMask.RETRY_CNT) != 0) {
            retryCnt = a.retryCnt();
        }
        if ((mask & QpAttrMask.RNR_RETRY) != 0) {
            rnrRetry = a.rnrRetry();
        }
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0) {
            minRnrTimer = a.minRnrTimer();
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0) {
            maxRdAtomic = a.maxRdAtomic();
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0) {
            maxDestRdAtomic = a.maxDestRdAtomic();
        }
    }

    /** Fills the attribute fields of {@code a} ({@code ibv_query_qp}; state and caps are the QP's). */
    void query(QpAttr a) {
        a.pathMtu(pathMtu).qkey(qkey).rqPsn(rqPsn).sqPsn(sqPsn).destQpNum(destQpn).qpAccessFlags(qpAccessFlags)
                .pkeyIndex(pkeyIndex).portNum(portNum).maxRdAtomic(maxRdAtomic).maxDestRdAtomic(maxDestRdAtomic)
                .minRnrTimer(minRnrTimer).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry);
        a.ahAttr().copyFrom(av);
    }

    public Mtu pathMtu() {
        return pathMtu;
    }

    public int destQpn() {
        return destQpn;
    }

    public int rqPsn() {
        return rqPsn;
    }

    /** Lets a transport normalize the value it interprets (RoCE: PSNs are 24 bits). */
    public void rqPsn(int psn) {
        rqPsn = psn;
    }

    public int sqPsn() {
        return sqPsn;
    }

    /** Lets a transport normalize the value it interprets (RoCE: PSNs are 24 bits). */
    public void sqPsn(int psn) {
        sqPsn = psn;
    }

    /** {@link AccessFlags} of the remote operations the QP allows. */
    public int qpAccessFlags() {
        return qpAccessFlags;
    }

    public int qkey() {
        return qkey;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public int portNum() {
        return portNum;
    }

    public int timeout() {
        return timeout;
    }

    public int retryCnt() {
        return retryCnt;
    }

    public int rnrRetry() {
        return rnrRetry;
    }

    public int minRnrTimer() {
        return minRnrTimer;
    }

    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    /** The address vector (the QP's own copy; do not modify). */
    public AhAttr av() {
        return av;
    }
}
