package org.jrdma.cm;

import java.util.Arrays;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * Connection parameters, {@code struct rdma_conn_param} ({@code rdma_connect(3)}, {@code rdma_accept(3)}).
 * A mutable, fluent holder; values are checked when it is used.
 *
 * <ul>
 *   <li>{@code privateData}: up to 56 bytes on connect, 196 on accept, 148 on reject (PS_TCP);
 *       longer gives EINVAL. Default none.</li>
 *   <li>{@code responderResources}: RDMA READ/atomic operations this side accepts at once from the
 *       peer (its QP's max_dest_rd_atomic), 0..255, default 0.</li>
 *   <li>{@code initiatorDepth}: READ/atomic operations this side issues at once (max_rd_atomic),
 *       0..255, default 0.</li>
 *   <li>{@code flowControl}: end-to-end flow control, 0 or 1, default 0.</li>
 *   <li>{@code retryCount}: the QP's retry_cnt, 0..7 (larger values are cut to 7 as the kernel does),
 *       ignored on accept; default 0.</li>
 *   <li>{@code rnrRetryCount}: the QP's rnr_retry, 0..7 (7 = infinite), default 0.</li>
 *   <li>{@code srq}: the QP uses an SRQ, only without a QP on the ID (with {@code qpNum}).</li>
 *   <li>{@code qpNum}: the QPN, only when the application created the QP itself (no {@link CmId#createQp}).</li>
 * </ul>
 */
public final class ConnParam {
    private byte[] privateData = new byte[0];
    private int responderResources;
    private int initiatorDepth;
    private int flowControl;
    private int retryCount;
    private int rnrRetryCount;
    private boolean srq;
    private int qpNum;

    public byte[] privateData() {
        return privateData.clone();
    }

    /** Sets the private data (copied). @return this */
    public ConnParam privateData(byte[] v) {
        privateData = v == null ? new byte[0] : v.clone();
        return this;
    }

    public int responderResources() {
        return responderResources;
    }

    public ConnParam responderResources(int v) {
        responderResources = v;
        return this;
    }

    public int initiatorDepth() {
        return initiatorDepth;
    }

    public ConnParam initiatorDepth(int v) {
        initiatorDepth = v;
        return this;
    }

    public int flowControl() {
        return flowControl;
    }

    public ConnParam flowControl(int v) {
        flowControl = v;
        return this;
    }

    public int retryCount() {
        return retryCount;
    }

    public ConnParam retryCount(int v) {
        retryCount = v;
        return this;
    }

    public int rnrRetryCount() {
        return rnrRetryCount;
    }

    public ConnParam rnrRetryCount(int v) {
        rnrRetryCount = v;
        return this;
    }

    public boolean srq() {
        return srq;
    }

    public ConnParam srq(boolean v) {
        srq = v;
        return this;
    }

    public int qpNum() {
        return qpNum;
    }

    public ConnParam qpNum(int v) {
        qpNum = v;
        return this;
    }

    /** A copy. */
    public ConnParam copy() {
        ConnParam c = new ConnParam();
        c.privateData = privateData.clone();
        c.responderResources = responderResources;
        c.initiatorDepth = initiatorDepth;
        c.flowControl = flowControl;
        c.retryCount = retryCount;
        c.rnrRetryCount = rnrRetryCount;
        c.srq = srq;
        c.qpNum = qpNum;
        return c;
    }

    /** Checks the ranges, with {@code maxPrivateData} the limit of the call. @throws VerbsException EINVAL naming the field */
    void check(int maxPrivateData, String call) {
        if (privateData.length > maxPrivateData) {
            throw new VerbsException(Errno.EINVAL, call + ": private_data_len " + privateData.length
                    + " > " + maxPrivateData);
        }
        range(responderResources, 255, "responder_resources", call);
        range(initiatorDepth, 255, "initiator_depth", call);
        range(flowControl, 1, "flow_control", call);
        if (retryCount < 0) {
            throw new VerbsException(Errno.EINVAL, call + ": retry_count " + retryCount + " < 0");
        }
        if (rnrRetryCount < 0) {
            throw new VerbsException(Errno.EINVAL, call + ": rnr_retry_count " + rnrRetryCount + " < 0");
        }
        if (qpNum < 0 || qpNum > 0xffffff) {
            throw new VerbsException(Errno.EINVAL, call + ": qp_num " + qpNum + " is not a 24-bit QPN");
        }
    }

    private static void range(int v, int max, String field, String call) {
        if (v < 0 || v > max) {
            throw new VerbsException(Errno.EINVAL, call + ": " + field + " " + v + " not in 0.." + max);
        }
    }

    @Override
    public String toString() {
        return "ConnParam[private_data_len=" + privateData.length + ", responder_resources=" + responderResources
                + ", initiator_depth=" + initiatorDepth + ", flow_control=" + flowControl + ", retry_count="
                + retryCount + ", rnr_retry_count=" + rnrRetryCount + ", srq=" + srq + ", qp_num=" + qpNum + "]"
                + (privateData.length > 0 ? " " + Arrays.toString(privateData) : "");
    }
}
