package org.jrdma.verbs.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Unsigned;

/** {@code org.jrdma.Terminate}: an iWARP Terminate message sent or received (RFC 5040 §7). */
@Name(JrdmaEvents.TERMINATE)
@Label("iWARP Terminate")
@Category("jrdma")
@Description("An iWARP QP sent a Terminate message (a check of an FPDU failed) or received one (RFC 5040 7); the QP goes to ERR")
@StackTrace(false)
final class TerminateEvent extends jdk.jfr.Event {
    @Label("Device")
    @Description("The device's name, e.g. jsiw0")
    String device;

    @Label("QPN")
    @Description("The QP number, 24 bits")
    @Unsigned
    int qpNum;

    @Label("Sent")
    @Description("true: this QP sent the Terminate; false: it received it")
    boolean sent;

    @Label("Layer")
    @Description("The layer in error (RFC 5040 7.2): 0 RDMAP, 1 DDP, 2 LLP (MPA); -1 when a received Terminate was too short to tell")
    int layer;

    @Label("Error Type")
    @Description("The error type within the layer (RFC 5040 7.2), -1 when unknown")
    int errorType;

    @Label("Error Code")
    @Description("The error code (RFC 5040 7.2, RFC 5041 7, RFC 5044 8), -1 when unknown")
    int errorCode;
}
