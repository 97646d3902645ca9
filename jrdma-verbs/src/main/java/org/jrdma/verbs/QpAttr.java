package org.jrdma.verbs;

/**
 * Queue pair attributes, {@code struct ibv_qp_attr} ({@code ibv_modify_qp(3)}, {@code ibv_query_qp(3)}).
 * Which fields a transition reads is chosen by the {@link QpAttrMask} bits passed with it.
 */
public final class QpAttr {
    private QpState qpState = QpState.RESET;
    private QpState curQpState = QpState.RESET;
    private Mtu pathMtu = Mtu.MTU_1024;
    private int qkey;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private int qpAccessFlags;
    private final QpCap cap = new QpCap();
    private final AhAttr ahAttr = new AhAttr();
    private int pkeyIndex;
    private int portNum = 1;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;
    private boolean sqDraining;

    public QpState qpState() {
        return qpState;
    }

    /** The target state ({@link QpAttrMask#STATE}). */
    public QpAttr qpState(QpState s) {
        qpState = s;
        return this;
    }

    public QpState curQpState() {
        return curQpState;
    }

    public QpAttr curQpState(QpState s) {
        curQpState = s;
        return this;
    }

    /** The path MTU ({@link QpAttrMask#PATH_MTU}), 256..4096 bytes. */
    public Mtu pathMtu() {
        return pathMtu;
    }

    public QpAttr pathMtu(Mtu m) {
        pathMtu = m;
        return this;
    }

    /** The Q_Key of a UD QP ({@link QpAttrMask#QKEY}), 32 bits. */
    public int qkey() {
        return qkey;
    }

    public QpAttr qkey(int v) {
        qkey = v;
        return this;
    }

    /** The first PSN expected by the receive side ({@link QpAttrMask#RQ_PSN}), 24 bits. */
    public int rqPsn() {
        return rqPsn;
    }

    public QpAttr rqPsn(int v) {
        rqPsn = v;
        return this;
    }

    /** The first PSN the send side uses ({@link QpAttrMask#SQ_PSN}), 24 bits. */
    public int sqPsn() {
        return sqPsn;
    }

    public QpAttr sqPsn(int v) {
        sqPsn = v;
        return this;
    }

    /** The remote QPN ({@link QpAttrMask#DEST_QPN}), 24 bits. */
    public int destQpNum() {
        return destQpNum;
    }

    public QpAttr destQpNum(int v) {
        destQpNum = v;
        return this;
    }

    /** Remote access the QP allows: {@link AccessFlags} REMOTE_* bits ({@link QpAttrMask#ACCESS_FLAGS}). */
    public int qpAccessFlags() {
        return qpAccessFlags;
    }

    public QpAttr qpAccessFlags(int v) {
        qpAccessFlags = v;
        return this;
    }

    /** The capabilities (query output; {@link QpAttrMask#CAP}). */
    public QpCap cap() {
        return cap;
    }

    /** The primary path's address vector ({@link QpAttrMask#AV}; mutable in place). */
    public AhAttr ahAttr() {
        return ahAttr;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public QpAttr pkeyIndex(int v) {
        pkeyIndex = v;
        return this;
    }

    /** The port, 1 ({@link QpAttrMask#PORT}). */
    public int portNum() {
        return portNum;
    }

    public QpAttr portNum(int v) {
        portNum = v;
        return this;
    }

    /** Outstanding RDMA READ / atomic operations this QP may initiate ({@link QpAttrMask#MAX_QP_RD_ATOMIC}). */
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    public QpAttr maxRdAtomic(int v) {
        maxRdAtomic = v;
        return this;
    }

    /** Outstanding RDMA READ / atomic operations this QP accepts as target ({@link QpAttrMask#MAX_DEST_RD_ATOMIC}). */
    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    public QpAttr maxDestRdAtomic(int v) {
        maxDestRdAtomic = v;
        return this;
    }

    /** The RNR NAK timer code, 0..31 (IBTA Vol 1 table 45; 0 = 655.36 ms, 1 = 0.01 ms, ... 31 = 491.52 ms). */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    public QpAttr minRnrTimer(int v) {
        minRnrTimer = v;
        return this;
    }

    /** Local ACK timeout exponent, 0..31: 4.096 µs × 2^timeout (0 = infinite) ({@link QpAttrMask#TIMEOUT}). */
    public int timeout() {
        return timeout;
    }

    public QpAttr timeout(int v) {
        timeout = v;
        return this;
    }

    /** Retries after a timeout or sequence error, 0..7 ({@link QpAttrMask#RETRY_CNT}). */
    public int retryCnt() {
        return retryCnt;
    }

    public QpAttr retryCnt(int v) {
        retryCnt = v;
        return this;
    }

    /** Retries after an RNR NAK, 0..7, 7 = infinite ({@link QpAttrMask#RNR_RETRY}). */
    public int rnrRetry() {
        return rnrRetry;
    }

    public QpAttr rnrRetry(int v) {
        rnrRetry = v;
        return this;
    }

    public boolean sqDraining() {
        return sqDraining;
    }

    public QpAttr sqDraining(boolean v) {
        sqDraining = v;
        return this;
    }
}
