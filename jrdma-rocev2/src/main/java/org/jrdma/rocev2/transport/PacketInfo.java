package org.jrdma.rocev2.transport;

import java.lang.foreign.MemorySegment;
import org.jrdma.rocev2.net.SockAddr;

/**
 * What receive dispatch learned about one arriving RoCE v2 packet (rxe: {@code struct rxe_pkt_info}),
 * handed to the QP it is for: a reusable flyweight, filled once per packet by the dispatching
 * thread and valid only until the QP's {@code receive} returns (the buffer is reused for the next
 * packet). Nothing allocates.
 */
public final class PacketInfo {
    /** The UDP payload: BTH at offset 0, ICRC in the last 4 bytes. */
    MemorySegment seg;
    /** Bytes of UDP payload, ICRC included. */
    int length;
    /** BTH opcode (IBTA Vol 1 table 38). */
    int opcode;
    /** BTH PSN, 24 bits. */
    int psn;
    /** BTH destination QPN, 24 bits. */
    int destQpn;
    /** BTH solicited event. */
    boolean se;
    /** BTH AckReq. */
    boolean ackReq;
    /** Offset of the payload: the length of BTH and the extension headers of the opcode. */
    int payloadOffset;
    /** Payload bytes, pad and ICRC excluded. */
    int payloadLength;
    /** The source IP address and UDP port (owned by the dispatcher; do not keep). */
    SockAddr from;
    /** The IP header's ECN field was CE (congestion experienced, RFC 3168): for the notification point. */
    boolean ce;

    void set(MemorySegment seg, int length, int opcode, int psn, int destQpn, boolean se, boolean ackReq,
             int payloadOffset, int payloadLength, SockAddr from) {
        this.seg = seg;
        this.length = length;
        this.opcode = opcode;
        this.psn = psn;
        this.destQpn = destQpn;
        this.se = se;
        this.ackReq = ackReq;
        this.payloadOffset = payloadOffset;
        this.payloadLength = payloadLength;
        this.from = from;
        this.ce = false;
    }

    @Override
    public String toString() {
        return "PacketInfo[opcode 0x" + Integer.toHexString(opcode) + ", psn " + psn + ", qpn 0x"
                + Integer.toHexString(destQpn) + ", payload " + payloadLength + "]";
    }
}
