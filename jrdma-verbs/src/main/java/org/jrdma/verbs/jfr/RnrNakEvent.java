package org.jrdma.verbs.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import jdk.jfr.Unsigned;

/** {@code org.jrdma.RnrNak}: an RNR NAK sent (no receive WQE) or received (IBTA Vol 1 §9.7.5.2.8). */
@Name(JrdmaEvents.RNR_NAK)
@Label("RNR NAK")
@Category("jrdma")
@Description("Receiver Not Ready: a responder found no receive WQE for a SEND and NAKed it, or a requester got such a NAK and waits before sending again (IBTA Vol 1 9.7.5.2.8)")
@StackTrace(false)
final class RnrNakEvent extends jdk.jfr.Event {
    @Label("Device")
    @Description("The device's name, e.g. jrxe0")
    String device;

    @Label("QPN")
    @Description("The QP number of the side that sent or received the NAK, 24 bits")
    @Unsigned
    int qpNum;

    @Label("PSN")
    @Description("The PSN of the request NAKed, 24 bits")
    @Unsigned
    int psn;

    @Label("Sent")
    @Description("true: this QP (the responder) sent the NAK; false: this QP (the requester) received it")
    boolean sent;

    @Label("RNR Timer")
    @Description("The NAK's RNR timer field, 0..31 (IBTA Vol 1 table 45; the responder's min_rnr_timer)")
    int rnrTimer;

    @Label("Wait")
    @Description("How long the requester waits before it sends again (the RNR timer's value)")
    @Timespan(Timespan.NANOSECONDS)
    long wait;

    @Label("RNR Retries Left")
    @Description("Received: rnr_retry left before this NAK (0: this one ends the WQE with RNR_RETRY_EXC_ERR; 7 is infinite); sent: -1")
    int rnrRetriesLeft;
}
