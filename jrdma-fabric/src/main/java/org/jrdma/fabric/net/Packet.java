package org.jrdma.fabric.net;

/**
 * A frame on the simulated wire: a RoCE v2 data packet, an ACK, a NAK, a CNP, or a PFC frame.
 * Packets come from a {@link PacketPool} and go back to it when consumed or dropped, so the steady
 * state allocates none. Fields are plain (one simulator thread).
 */
public final class Packet {
    /** Data (RDMA WRITE/SEND payload; {@link #psn} is the byte offset, HPCC-style). */
    public static final int DATA = 0;
    /** Cumulative ACK: {@link #psn} is the next expected byte offset. */
    public static final int ACK = 1;
    /** NAK (PSN sequence error): {@link #psn} is the expected byte offset; go back to it. */
    public static final int NACK = 2;
    /** Congestion notification packet (RoCE v2, IBTA Annex A17) to the flow's sender. */
    public static final int CNP = 3;
    /** 802.1Qbb PFC frame (link-local). */
    public static final int PFC = 4;
    /** InfiniBand flow-control packet (link-local): {@link #pfcPriority} is the VL, {@link #psn} the FCCL. */
    public static final int FC = 5;

    /** One of the type constants. */
    public int type;
    /** The flow's index. */
    public int flow;
    /** The host that sent it (node id). */
    public int src;
    /** The host it goes to (node id). */
    public int dst;
    /** Byte offset (DATA) or acknowledged offset (ACK/NACK). */
    public long psn;
    /** Payload bytes. */
    public int payload;
    /** Bytes on the wire (payload + headers). */
    public int wireBytes;
    /** The priority / switch queue, 0–7 (0: control, strict). */
    public int priority;
    /** The sending NIC's 16-bit IPv4 identification of a data packet (a new one per transmission). */
    public int ipId;
    /** ECN-capable transport (ECT(0)). */
    public boolean ect;
    /** ECN congestion experienced. */
    public boolean ce;
    /** At a switch: the ingress port it came in on (MMU accounting). */
    public int inPort;
    /** PFC: the priority paused or resumed. */
    public int pfcPriority;
    /** PFC: the pause time in quanta; 0 resumes (XON). */
    public int pfcQuanta;
    /** On the wire: when it reaches the peer port, in ps. */
    public long arrivalPs;
    /** TCP ACK: SACK blocks as [start, end) pairs (up to 3, RFC 2018). */
    public final long[] sack = new long[6];
    /** TCP ACK: how many SACK blocks are set. */
    public int sackCount;
    /** TCP ACK: ECN-Echo (DCTCP: the acked segment carried CE). */
    public boolean ece;
    /** HPCC INT: how many switch hops recorded (a data packet; its ACK carries a copy). */
    public int intHops;
    /** HPCC INT per hop: the time the packet left the egress port, in ps (the four arrays: null until {@link #ensureInt}). */
    public long[] intTs;
    /** HPCC INT per hop: the egress port's bytes sent, this packet included. */
    public long[] intTx;
    /** HPCC INT per hop: the egress port's queued bytes (all queues) after this packet left. */
    public long[] intQlen;
    /** HPCC INT per hop: the egress port's rate in bit/s. */
    public long[] intBps;

    /** Makes the INT arrays (once per pooled packet, only when HPCC runs; {@code null} before). */
    void ensureInt() {
        if (intTs == null) {
            intTs = new long[Hpcc.MAX_HOPS];
            intTx = new long[Hpcc.MAX_HOPS];
            intQlen = new long[Hpcc.MAX_HOPS];
            intBps = new long[Hpcc.MAX_HOPS];
        }
    }

    /** Copies {@code from}'s INT records (a receiver's ACK echoes its data packet's). */
    void copyInt(Packet from) {
        intHops = from.intHops;
        if (intHops == 0) {
            return;
        }
        ensureInt();
        System.arraycopy(from.intTs, 0, intTs, 0, intHops);
        System.arraycopy(from.intTx, 0, intTx, 0, intHops);
        System.arraycopy(from.intQlen, 0, intQlen, 0, intHops);
        System.arraycopy(from.intBps, 0, intBps, 0, intHops);
    }

    void clear() {
        type = 0;
        flow = 0;
        src = 0;
        dst = 0;
        psn = 0;
        payload = 0;
        wireBytes = 0;
        priority = 0;
        ect = false;
        ipId = 0;
        ce = false;
        inPort = 0;
        pfcPriority = 0;
        pfcQuanta = 0;
        arrivalPs = 0;
        sackCount = 0;
        ece = false;
        intHops = 0;
    }
}
