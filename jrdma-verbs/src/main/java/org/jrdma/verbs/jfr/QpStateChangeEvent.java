package org.jrdma.verbs.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Unsigned;

/** {@code org.jrdma.QpStateChange}: a QP moved from one IBTA state to another (Vol 1 §10.3). */
@Name(JrdmaEvents.QP_STATE_CHANGE)
@Label("QP State Change")
@Category("jrdma")
@Description("A queue pair moved from one state to another (IBTA Vol 1 10.3): by ibv_modify_qp, by an error, or on destroy")
@StackTrace(false)
final class QpStateChangeEvent extends jdk.jfr.Event {
    @Label("Device")
    @Description("The device's name, e.g. jrxe0 or jsiw0")
    String device;

    @Label("QPN")
    @Description("The QP number, 24 bits (jrdma's logs print it in hex: QP 0x11)")
    @Unsigned
    int qpNum;

    @Label("From")
    @Description("The state before: RESET, INIT, RTR, RTS, SQD, SQE or ERR")
    String from;

    @Label("To")
    @Description("The state after")
    String to;

    @Label("Cause")
    @Description("MODIFY (ibv_modify_qp), ERROR (an error completion, a fatal error, a received or sent Terminate, a CQ overrun) or DESTROY (ibv_destroy_qp)")
    String cause;
}
