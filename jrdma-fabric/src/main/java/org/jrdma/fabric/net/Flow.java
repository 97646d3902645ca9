package org.jrdma.fabric.net;

import org.jrdma.congestion.DcqcnNotificationPoint;
import org.jrdma.congestion.DcqcnReactionPoint;
import org.jrdma.fabric.scenario.FlowSpec;

/**
 * One flow: an RC QP pair, the sender's state (go-back-N: next byte to send, oldest unacked,
 * the DCQCN reaction point and its pacing time) and the receiver's (next expected byte, the DCQCN
 * notification point, NAK pacing). They talk only through packets.
 */
final class Flow {
    final int index;
    final FlowSpec spec;
    final Nic src;
    final Nic dst;
    final long size;
    final int priority;
    /** HPCC's standalone FCT (base RTT + bytes with headers / bottleneck rate), in ps. */
    long standalonePs;

    // sender
    final DcqcnReactionPoint rp;
    long sndNxt;
    long sndUna;
    long nextAvailPs;
    long lastProgressPs;
    boolean rtoArmed;
    boolean started;
    boolean done;
    /** The sender stopped before the end ({@code stop=}); {@link #done} is also set. */
    boolean stopped;
    long finishPs;
    long timeouts;
    long sentPackets;

    // receiver
    final DcqcnNotificationPoint np;
    long expected;
    int sinceAck;
    long nackFor = -1;
    long lastNackPs = Long.MIN_VALUE / 2;
    long delivered;
    long deliveredAtSample;

    Flow(int index, FlowSpec spec, Nic src, Nic dst, DcqcnReactionPoint rp, DcqcnNotificationPoint np) {
        this.index = index;
        this.spec = spec;
        this.src = src;
        this.dst = dst;
        this.size = spec.sizeBytes();
        this.priority = spec.priority();
        this.rp = rp;
        this.np = np;
    }
}
