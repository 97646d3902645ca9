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
    /** Bytes the application has queued (fixed for a bulk flow; grows with each message of a persistent one). */
    long size;
    /** A connection that carries messages ({@link #send}) and never finishes. */
    boolean persistent;
    /** TCP state (transport tcp / iwarp), or null for a RoCE QP. */
    TcpConnection tcp;
    /** Told when a whole message has arrived in order, or null. */
    MessageSink sink;
    private long[] msgEnd = new long[16];
    private int[] msgTag = new int[16];
    private int msgHead;
    private int msgCount;
    final int priority;
    /** HPCC's standalone FCT (base RTT + bytes with headers / bottleneck rate), in ps. */
    long standalonePs;
    /** The base RTT: 2 × Σ delay + per hop one data frame's and one ACK's serialization, in ps. */
    long baseRttPs;
    /** HPCC's sender, or null. */
    Hpcc hpcc;
    // IRN (selective repeat): null / unused under go-back-N
    /** Sender: ranges beyond sndUna the receiver has (from its NAKs). */
    Intervals sacked;
    /** Receiver: ranges beyond {@link #expected} that arrived out of order. */
    Intervals rcvOoo;
    boolean inRecovery;
    /** Recovery ends when sndUna reaches this (sndNxt when it began). */
    long recoveryPoint;
    /** The next byte to consider for a resend, and the end below which holes are resent. */
    long rtxNext;
    long rtxLimit;
    /** BDP flow control's cap on sndNxt − sndUna. */
    long bdpBytes;
    long retransmitted;

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
        this.persistent = spec.sizeBytes() == 0;
        this.priority = spec.priority();
        this.rp = rp;
        this.np = np;
    }

    /** Receives whole messages of a persistent flow (the application on the receiving host). */
    interface MessageSink {
        /** Message {@code tag} of flow {@code f} has fully arrived, in order, at {@code nowPs}. */
        void onMessage(Flow f, int tag, long nowPs);
    }

    /** Queues a message of {@code bytes} on a persistent flow; the caller kicks the sender's port. */
    void send(long bytes, int tag) {
        size += bytes;
        if (msgCount == msgEnd.length) {
            long[] e = new long[2 * msgCount];
            int[] t = new int[2 * msgCount];
            for (int i = 0; i < msgCount; i++) {
                e[i] = msgEnd[(msgHead + i) % msgCount];
                t[i] = msgTag[(msgHead + i) % msgCount];
            }
            msgEnd = e;
            msgTag = t;
            msgHead = 0;
        }
        int at = (msgHead + msgCount) % msgEnd.length;
        msgEnd[at] = size;
        msgTag[at] = tag;
        msgCount++;
    }

    /** The receiver's in-order bytes reached {@link #expected}: tells the sink of every message now complete. */
    void deliveredTo(long nowPs) {
        while (msgCount > 0 && msgEnd[msgHead] <= expected) {
            int tag = msgTag[msgHead];
            msgHead = (msgHead + 1) % msgEnd.length;
            msgCount--;
            if (sink != null) {
                sink.onMessage(this, tag, nowPs);
            }
        }
    }
}
