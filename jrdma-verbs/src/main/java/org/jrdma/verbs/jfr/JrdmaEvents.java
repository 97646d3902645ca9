package org.jrdma.verbs.jfr;

import java.net.InetSocketAddress;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;

/**
 * jrdma's Flight Recorder events: their names (category {@code jrdma}) and the calls that emit them.
 * Every event has the device's name and the QP number (24 bits, an unsigned int) where it has a QP.
 * <ul>
 *   <li>{@value #QP_STATE_CHANGE}: device, qpNum, from, to, cause ({@value #CAUSE_MODIFY},
 *       {@value #CAUSE_ERROR}, {@value #CAUSE_DESTROY}); both software providers, from the soft core.</li>
 *   <li>{@value #RETRANSMIT}: device, qpNum, psn, cause ({@value #RETRANSMIT_ACK_TIMEOUT},
 *       {@value #RETRANSMIT_SEQUENCE}, {@value #RETRANSMIT_TAIL_LOSS_PROBE}), retriesLeft; RoCE v2
 *       (iWARP leaves retransmission to TCP).</li>
 *   <li>{@value #RNR_NAK}: device, qpNum, psn, sent, rnrTimer (0..31), wait (ns), rnrRetriesLeft; RoCE
 *       v2 (an iWARP SEND without a receive WQE is a Terminate).</li>
 *   <li>{@value #ERROR_COMPLETION}: device, qpNum, wrId, status, opcode, vendorErr; every completion
 *       whose status is not SUCCESS, flushed WRs included; both software providers.</li>
 *   <li>{@value #TERMINATE}: device, qpNum, sent, layer, errorType, errorCode (RFC 5040 §7); iWARP.</li>
 *   <li>{@value #CM_EVENT}: eventType, status, device, portSpace, qpNum, localAddress, localPort,
 *       peerAddress, peerPort; every event the CM queues on an event channel, on any transport.</li>
 * </ul>
 * The events are enabled by default (as any event not named in the recording's settings) and
 * record no stack trace.
 *
 * <p>Cost: the calls are for rare paths only (a state change, a retransmission, an RNR NAK, an
 * error completion, a Terminate, a CM event); a successful completion never comes here. While Flight
 * Recorder is not initialized a call is one static read and returns; when it is, one more read
 * (the event type's enabled flag), and only an enabled event creates its {@code jdk.jfr.Event}.
 * Event types are registered on the first call after Flight Recorder was initialized.
 *
 * <p>Threads: any thread, with any lock held (a commit takes none of jrdma's locks).
 */
public final class JrdmaEvents {
    /** A QP moved from one state to another. */
    public static final String QP_STATE_CHANGE = "org.jrdma.QpStateChange";
    /** An RC requester sent again from a PSN. */
    public static final String RETRANSMIT = "org.jrdma.Retransmit";
    /** An RNR NAK sent or received. */
    public static final String RNR_NAK = "org.jrdma.RnrNak";
    /** A completion with an error status was queued. */
    public static final String ERROR_COMPLETION = "org.jrdma.ErrorCompletion";
    /** An iWARP Terminate sent or received. */
    public static final String TERMINATE = "org.jrdma.Terminate";
    /** The CM queued an event on an event channel. */
    public static final String CM_EVENT = "org.jrdma.CmEvent";

    /** State change by {@code ibv_modify_qp}. */
    public static final String CAUSE_MODIFY = "MODIFY";
    /** State change to ERR by the transport: an error completion, a fatal error, a Terminate, a CQ overrun. */
    public static final String CAUSE_ERROR = "ERROR";
    /** State change to RESET by {@code ibv_destroy_qp} (or the context's close). */
    public static final String CAUSE_DESTROY = "DESTROY";

    /** Retransmission after the retransmission (ACK) timer expired. */
    public static final String RETRANSMIT_ACK_TIMEOUT = "ACK_TIMEOUT";
    /** Retransmission after a PSN sequence error NAK or a gap in the responses. */
    public static final String RETRANSMIT_SEQUENCE = "SEQUENCE";
    /** The last packet sent again as a tail-loss probe (not counted against retry_cnt). */
    public static final String RETRANSMIT_TAIL_LOSS_PROBE = "TAIL_LOSS_PROBE";

    private JrdmaEvents() {
    }

    /** The registered event types; initialized on the first call made after Flight Recorder was. */
    private static final class Types {
        static final EventType QP_STATE_CHANGE = EventType.getEventType(QpStateChangeEvent.class);
        static final EventType RETRANSMIT = EventType.getEventType(RetransmitEvent.class);
        static final EventType RNR_NAK = EventType.getEventType(RnrNakEvent.class);
        static final EventType ERROR_COMPLETION = EventType.getEventType(ErrorCompletionEvent.class);
        static final EventType TERMINATE = EventType.getEventType(TerminateEvent.class);
        static final EventType CM_EVENT = EventType.getEventType(CmEventRecord.class);
    }

    /** True when a QP state change would be recorded now. */
    public static boolean qpStateChangeEnabled() {
        return FlightRecorder.isInitialized() && Types.QP_STATE_CHANGE.isEnabled();
    }

    /**
     * Records {@value #QP_STATE_CHANGE} when enabled.
     *
     * @param cause {@link #CAUSE_MODIFY}, {@link #CAUSE_ERROR} or {@link #CAUSE_DESTROY}
     */
    public static void qpStateChange(String device, int qpNum, QpState from, QpState to, String cause) {
        if (!qpStateChangeEnabled()) {
            return;
        }
        QpStateChangeEvent e = new QpStateChangeEvent();
        e.device = device;
        e.qpNum = qpNum;
        e.from = from.name();
        e.to = to.name();
        e.cause = cause;
        e.commit();
    }

    /**
     * Records {@value #RETRANSMIT} when enabled.
     *
     * @param psn the PSN sent again from (24 bits)
     * @param cause {@link #RETRANSMIT_ACK_TIMEOUT}, {@link #RETRANSMIT_SEQUENCE} or {@link #RETRANSMIT_TAIL_LOSS_PROBE}
     * @param retriesLeft retry_cnt left after this retransmission
     */
    public static void retransmit(String device, int qpNum, int psn, String cause, int retriesLeft) {
        if (!FlightRecorder.isInitialized() || !Types.RETRANSMIT.isEnabled()) {
            return;
        }
        RetransmitEvent e = new RetransmitEvent();
        e.device = device;
        e.qpNum = qpNum;
        e.psn = psn;
        e.cause = cause;
        e.retriesLeft = retriesLeft;
        e.commit();
    }

    /**
     * Records {@value #RNR_NAK} when enabled.
     *
     * @param psn the PSN NAKed (24 bits)
     * @param sent true for the responder that sends the NAK, false for the requester that receives it
     * @param rnrTimer the NAK's timer field, 0..31
     * @param waitNanos the time that field stands for, ns
     * @param rnrRetriesLeft received: rnr_retry left before this NAK; sent: -1
     */
    public static void rnrNak(String device, int qpNum, int psn, boolean sent, int rnrTimer, long waitNanos,
                              int rnrRetriesLeft) {
        if (!FlightRecorder.isInitialized() || !Types.RNR_NAK.isEnabled()) {
            return;
        }
        RnrNakEvent e = new RnrNakEvent();
        e.device = device;
        e.qpNum = qpNum;
        e.psn = psn;
        e.sent = sent;
        e.rnrTimer = rnrTimer;
        e.wait = waitNanos;
        e.rnrRetriesLeft = rnrRetriesLeft;
        e.commit();
    }

    /**
     * Records {@value #ERROR_COMPLETION} when enabled. Call it for a status other than SUCCESS only.
     *
     * @param vendorErr the completion's vendor_err
     */
    public static void errorCompletion(String device, int qpNum, long wrId, WcStatus status, WcOpcode opcode,
                                       int vendorErr) {
        if (!FlightRecorder.isInitialized() || !Types.ERROR_COMPLETION.isEnabled()) {
            return;
        }
        ErrorCompletionEvent e = new ErrorCompletionEvent();
        e.device = device;
        e.qpNum = qpNum;
        e.wrId = wrId;
        e.status = status.name();
        e.opcode = opcode == null ? "" : opcode.name();
        e.vendorErr = vendorErr;
        e.commit();
    }

    /**
     * Records {@value #TERMINATE} when enabled.
     *
     * @param sent true when this QP sent it, false when it received it
     * @param layer RFC 5040 §7.2's layer (0 RDMAP, 1 DDP, 2 LLP), -1 when unknown
     * @param errorType the error type, -1 when unknown
     * @param errorCode the error code, -1 when unknown
     */
    public static void terminate(String device, int qpNum, boolean sent, int layer, int errorType, int errorCode) {
        if (!FlightRecorder.isInitialized() || !Types.TERMINATE.isEnabled()) {
            return;
        }
        TerminateEvent e = new TerminateEvent();
        e.device = device;
        e.qpNum = qpNum;
        e.sent = sent;
        e.layer = layer;
        e.errorType = errorType;
        e.errorCode = errorCode;
        e.commit();
    }

    /** True when a CM event would be recorded now (a caller may skip gathering the fields otherwise). */
    public static boolean cmEventEnabled() {
        return FlightRecorder.isInitialized() && Types.CM_EVENT.isEnabled();
    }

    /**
     * Records {@value #CM_EVENT} when enabled.
     *
     * @param eventType the rdma_cm event type's name (e.g. ESTABLISHED)
     * @param status the event's status (0, a reject reason or -errno)
     * @param device the ID's device name, or null
     * @param portSpace TCP or UDP
     * @param qpNum the ID's QPN, 0 when none
     * @param local the bound address, or null
     * @param peer the peer's address, or null
     */
    public static void cmEvent(String eventType, int status, String device, String portSpace, int qpNum,
                               InetSocketAddress local, InetSocketAddress peer) {
        if (!cmEventEnabled()) {
            return;
        }
        CmEventRecord e = new CmEventRecord();
        e.eventType = eventType;
        e.status = status;
        e.device = device == null ? "" : device;
        e.portSpace = portSpace;
        e.qpNum = qpNum;
        e.localAddress = local == null || local.getAddress() == null ? "" : local.getAddress().getHostAddress();
        e.localPort = local == null ? 0 : local.getPort();
        e.peerAddress = peer == null || peer.getAddress() == null ? "" : peer.getAddress().getHostAddress();
        e.peerPort = peer == null ? 0 : peer.getPort();
        e.commit();
    }
}
