package org.jrdma.verbs;

/** Queue pair creation attributes, {@code struct ibv_qp_init_attr} ({@code ibv_create_qp(3)}). */
public final class QpInitAttr {
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private final QpCap cap = new QpCap();
    private QpType qpType = QpType.RC;
    private boolean sqSigAll;

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
}
