package org.jrdma.verbs.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Unsigned;

/** {@code org.jrdma.ErrorCompletion}: a work completion with a status other than SUCCESS was queued. */
@Name(JrdmaEvents.ERROR_COMPLETION)
@Label("Error Completion")
@Category("jrdma")
@Description("A work completion with an error status (ibv_wc_status other than IBV_WC_SUCCESS) was put on a CQ, including the WR_FLUSH_ERR of each WR flushed when a QP enters ERR")
@StackTrace(false)
final class ErrorCompletionEvent extends jdk.jfr.Event {
    @Label("Device")
    @Description("The device's name, e.g. jrxe0 or jsiw0")
    String device;

    @Label("QPN")
    @Description("The QP number of the completion, 24 bits")
    @Unsigned
    int qpNum;

    @Label("WR ID")
    @Description("The wr_id of the work request")
    @Unsigned
    long wrId;

    @Label("Status")
    @Description("The status name as libibverbs' ibv_wc_status_str without IBV_WC_: REM_ACCESS_ERR, RETRY_EXC_ERR, RNR_RETRY_EXC_ERR, WR_FLUSH_ERR, ...")
    String status;

    @Label("Opcode")
    @Description("The completion's opcode (ibv_wc_opcode without IBV_WC_): SEND, RDMA_WRITE, RDMA_READ, RECV, ...")
    String opcode;

    @Label("Vendor Error")
    @Description("vendor_err: the provider's detail (for RoCE v2 the NAK's AETH syndrome), 0 when none")
    @Unsigned
    int vendorErr;
}
