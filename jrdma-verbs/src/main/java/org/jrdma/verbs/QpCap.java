package org.jrdma.verbs;

/**
 * Queue pair capabilities, {@code struct ibv_qp_cap}: the requested sizes at create time, the
 * actual sizes after it ({@code ibv_create_qp(3)} may round up).
 */
public final class QpCap {
    private int maxSendWr;
    private int maxRecvWr;
    private int maxSendSge = 1;
    private int maxRecvSge = 1;
    private int maxInlineData;

    public int maxSendWr() {
        return maxSendWr;
    }

    public QpCap maxSendWr(int v) {
        maxSendWr = v;
        return this;
    }

    public int maxRecvWr() {
        return maxRecvWr;
    }

    public QpCap maxRecvWr(int v) {
        maxRecvWr = v;
        return this;
    }

    public int maxSendSge() {
        return maxSendSge;
    }

    public QpCap maxSendSge(int v) {
        maxSendSge = v;
        return this;
    }

    public int maxRecvSge() {
        return maxRecvSge;
    }

    public QpCap maxRecvSge(int v) {
        maxRecvSge = v;
        return this;
    }

    /** Bytes of inline data a send WR may carry. */
    public int maxInlineData() {
        return maxInlineData;
    }

    public QpCap maxInlineData(int v) {
        maxInlineData = v;
        return this;
    }

    public QpCap copyFrom(QpCap o) {
        maxSendWr = o.maxSendWr;
        maxRecvWr = o.maxRecvWr;
        maxSendSge = o.maxSendSge;
        maxRecvSge = o.maxRecvSge;
        maxInlineData = o.maxInlineData;
        return this;
    }
}
