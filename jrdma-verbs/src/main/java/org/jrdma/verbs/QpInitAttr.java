package org.jrdma.verbs;

/** Queue pair creation attributes, {@code struct ibv_qp_init_attr} ({@code ibv_create_qp(3)}). */
public final class QpInitAttr {
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private final QpCap cap = new QpCap();
    private QpType qpType = QpType.RC;
    private boolean sqSigAll;
    private SharedReceiveQueue srq;

    public CompletionQueue sendCq() {
        return sendCq;
    }

    public QpInitAttr sendCq(CompletionQueue cq) {
        sendCq = cq;
        return this;
    }

    public CompletionQueue recvCq() {
        return recvCq;
    }

    public QpInitAttr recvCq(CompletionQueue cq) {
        recvCq = cq;
        return this;
    }

    /** The capabilities (mutable in place). */
    public QpCap cap() {
        return cap;
    }

    public QpType qpType() {
        return qpType;
    }

    public QpInitAttr qpType(QpType t) {
        qpType = t;
        return this;
    }

    /** When true every send WR completes with a CQE; otherwise only those with SIGNALED. */
    public boolean sqSigAll() {
        return sqSigAll;
    }

    public QpInitAttr sqSigAll(boolean v) {
        sqSigAll = v;
        return this;
    }

    /**
     * The shared receive queue the QP takes its receive WQEs from, or null for its own receive
     * queue ({@code ibv_qp_init_attr.srq}). RC and UD QPs may use one; {@code max_recv_wr} and
     * {@code max_recv_sge} are then ignored (query gives 0) and {@code postRecv} on the QP fails with
     * EINVAL. The SRQ must be of a PD of the same device.
     */
    public SharedReceiveQueue srq() {
        return srq;
    }

    public QpInitAttr srq(SharedReceiveQueue s) {
        srq = s;
        return this;
    }
}
