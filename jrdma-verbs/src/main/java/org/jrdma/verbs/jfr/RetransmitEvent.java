package org.jrdma.verbs.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Unsigned;

/** {@code org.jrdma.Retransmit}: an RC requester sent again from a PSN (go-back-N, IBTA Vol 1 §9.7.6.1.3). */
@Name(JrdmaEvents.RETRANSMIT)
@Label("Retransmit")
@Category("jrdma")
@Description("An RC requester goes back to a PSN and sends again (IBTA Vol 1 9.7.6.1.3), or sends its last packet again as a tail-loss probe")
@StackTrace(false)
final class RetransmitEvent extends jdk.jfr.Event {
    @Label("Device")
    @Description("The device's name, e.g. jrxe0")
    String device;

    @Label("QPN")
    @Description("The requester's QP number, 24 bits")
    @Unsigned
    int qpNum;

    @Label("PSN")
    @Description("The PSN sent again from, 24 bits")
    @Unsigned
    int psn;

    @Label("Cause")
    @Description("ACK_TIMEOUT (the retransmission timer), SEQUENCE (a PSN sequence error NAK or a gap in the responses) or TAIL_LOSS_PROBE (not counted against retry_cnt)")
    String cause;

    @Label("Retries Left")
    @Description("retry_cnt left after this one (0..7; 7 with retry_cnt 7 read as unlimited)")
    int retriesLeft;
}
