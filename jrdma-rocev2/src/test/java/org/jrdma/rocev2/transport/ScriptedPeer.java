package org.jrdma.rocev2.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.net.UdpSocket;
import org.jrdma.rocev2.wire.Aeth;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.Reth;
import org.jrdma.verbs.Gid;

/**
 * A hand-driven RC peer for tests: a UDP socket on port 4791 of its own loopback address that
 * receives what a jrdma QP sends and answers with packets the test builds (ACKs, NAKs, READ
 * responses, requests), each with a correct ICRC. It plays exactly the script a test gives it, so
 * golden wire behaviour (IBTA, rxe) can be checked packet by packet. Test thread only.
 */
final class ScriptedPeer implements AutoCloseable {
    /** One received packet: its BTH fields, length, and arrival time (System.nanoTime). */
    record Packet(int opcode, int psn, int destQpn, boolean ackReq, int length, long at, int syndrome) {
        @Override
        public String toString() {
            return Opcode.name(opcode) + " psn " + psn + (syndrome >= 0 ? " " + Aeth.describe(syndrome) : "");
        }
    }

    final UdpSocket socket;
    final Gid gid;
    final int qpn;
    private final int ip;
    private int destQpn;
    private final PacketBuffer rx = PacketBuffer.allocate(RxeQp.MAX_PACKET);
    private final PacketBuffer tx = PacketBuffer.allocate(RxeQp.MAX_PACKET);
    private final SockAddr from = new SockAddr();
    private final SockAddr to = new SockAddr();
    private final Icrc icrc = new Icrc();
    private int toIp;

    /** A peer on {@code address}:4791 posing as QP {@code qpn}. */
    ScriptedPeer(String address, int qpn) {
        this(address, qpn, null);
    }

    /** A peer on {@code address}:4791 posing as QP {@code qpn}, its socket opened with {@code options} (e.g. UDP_GRO). */
    ScriptedPeer(String address, int qpn, UdpSocket.Options options) {
        InetAddress a = InetAddress.ofLiteral(address);
        this.socket = UdpSocket.open(a, 4791, options);
        this.ip = ByteBuffer.wrap(a.getAddress()).getInt();
        this.gid = Gid.of(a);
        this.qpn = qpn;
    }

    /** The jrdma QP this peer talks to, at {@code address}:4791. */
    ScriptedPeer talkTo(String address, int jrdmaQpn) {
        toIp = ByteBuffer.wrap(InetAddress.ofLiteral(address).getAddress()).getInt();
        to.setIpv4(toIp, 4791);
        destQpn = jrdmaQpn;
        return this;
    }

    /** The next packet within {@code timeoutMillis}, or null. */
    Packet receive(long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !socket.awaitReadable(left)) {
                return null;
            }
            int n = socket.receive(rx.seg, 0, RxeQp.MAX_PACKET, from);
            if (n < Bth.LENGTH + 4) {
                continue;
            }
            long at = System.nanoTime();
            Bth b = new Bth().wrap(rx.seg, 0);
            int op = b.opcode();
            int syn = Opcode.has(op, Opcode.AETH) ? new Aeth().wrap(rx.seg, Opcode.offset(op, Opcode.AETH)).syndrome() : -1;
            return new Packet(op, b.psn(), b.destQpn(), b.ackReq(), n, at, syn);
        }
    }

    /** The payload of the last received packet, {@code len} bytes from its payload offset. */
    MemorySegment lastPayload(int len) {
        return rx.seg.asSlice(Opcode.headerLength(new Bth().wrap(rx.seg, 0).opcode()), len);
    }

    /** The first {@code len} bytes (from BTH on) of the last received packet. */
    byte[] lastBytes(int len) {
        return rx.seg.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * Sends {@code packet} as it is (BTH, extension headers, payload and pad, built by the test) with
     * the ICRC appended; the BTH's destination QPN must be the jrdma QP's.
     */
    void sendRaw(byte[] packet) {
        MemorySegment.copy(MemorySegment.ofArray(packet), 0, tx.seg, 0, packet.length);
        send(packet.length);
    }

    /** Sends a CNP (Annex A17.9.2) to the jrdma QP. */
    void cnp() {
        org.jrdma.rocev2.wire.Cnp.write(tx.seg, 0, destQpn, 0xFFFF);
        send(org.jrdma.rocev2.wire.Cnp.LENGTH);
    }

    /** The IP traffic class of the last received packet (a socket opened with receiveTrafficClass), or -1. */
    int lastTrafficClass() {
        return socket.receivedTrafficClass();
    }

    /** Reads the RETH of the last received packet: {va, rkey, dmaLength}. */
    long[] lastReth() {
        int op = new Bth().wrap(rx.seg, 0).opcode();
        Reth r = new Reth().wrap(rx.seg, Opcode.offset(op, Opcode.RETH));
        return new long[] {r.va(), r.rkey() & 0xFFFFFFFFL, r.dmaLength() & 0xFFFFFFFFL};
    }

    /** Sends an Acknowledge with {@code syndrome} (an ACK, RNR NAK or NAK) for {@code psn}. */
    void acknowledge(int psn, int syndrome, int msn) {
        int op = Opcode.RC_ACKNOWLEDGE;
        bth(op, psn, 0, false);
        new Aeth().wrap(tx.seg, Opcode.offset(op, Opcode.AETH)).syndrome(syndrome).msn(msn);
        send(Opcode.headerLength(op));
    }

    /** Sends an RDMA READ response (First/Middle/Last/Only) for {@code psn} with {@code payload}. */
    void readResponse(int op, int psn, byte[] payload, int msn) {
        int hdr = Opcode.headerLength(op);
        int pad = (-payload.length) & 3;
        bth(op, psn, pad, false);
        if (Opcode.has(op, Opcode.AETH)) {
            new Aeth().wrap(tx.seg, Opcode.offset(op, Opcode.AETH)).syndrome(Aeth.ackSyndrome(Aeth.CREDIT_COUNT_INVALID))
                    .msn(msn);
        }
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, tx.seg, hdr, payload.length);
        for (int i = 0; i < pad; i++) {
            tx.seg.set(ValueLayout.JAVA_BYTE, hdr + payload.length + i, (byte) 0);
        }
        send(hdr + payload.length + pad);
    }

    /** Sends an RDMA WRITE Only of {@code payload} to {@code va}/{@code rkey}, AckReq set. */
    void writeOnly(int psn, long va, int rkey, byte[] payload) {
        int op = Opcode.RC_RDMA_WRITE_ONLY;
        int hdr = Opcode.headerLength(op);
        int pad = (-payload.length) & 3;
        bth(op, psn, pad, true);
        new Reth().wrap(tx.seg, Opcode.offset(op, Opcode.RETH)).va(va).rkey(rkey).dmaLength(payload.length);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, tx.seg, hdr, payload.length);
        for (int i = 0; i < pad; i++) {
            tx.seg.set(ValueLayout.JAVA_BYTE, hdr + payload.length + i, (byte) 0);
        }
        send(hdr + payload.length + pad);
    }

    /** Sends an RDMA READ Request for {@code length} bytes at {@code va}/{@code rkey}. */
    void readRequest(int psn, long va, int rkey, int length) {
        int op = Opcode.RC_RDMA_READ_REQUEST;
        bth(op, psn, 0, true);
        new Reth().wrap(tx.seg, Opcode.offset(op, Opcode.RETH)).va(va).rkey(rkey).dmaLength(length);
        send(Opcode.headerLength(op));
    }

    private void bth(int op, int psn, int pad, boolean ackReq) {
        new Bth().wrap(tx.seg, 0).opcode(op).se(false).migReq(false).padCount(pad).tver(0).pkey(0xFFFF).fecn(false)
                .becn(false).destQpn(destQpn).ackReq(ackReq).psn(psn);
    }

    private void send(int len) {
        // a jrdma receiver over UDP recovers the ICRC of an IPv4 packet computed with Identification 0 and DF
        Icrc.write(tx, len, icrc.ipv4(ip, toIp, 0, 0x4000, 4791, 4791, tx, 0, len));
        socket.sendTo(tx.seg, 0, len + 4, to);
    }

    /** The 32-bit big-endian word at {@code offset} of the last received packet (e.g. its IETH at 12). */
    int lastWord(int offset) {
        return rx.seg.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), offset);
    }

    /** Sends an RC SEND Only with Invalidate (0x17) of {@code payload} whose IETH names {@code rkey}, AckReq set. */
    void sendOnlyWithInvalidate(int psn, int rkey, byte[] payload) {
        int op = Opcode.RC_SEND_ONLY_WITH_INVALIDATE;
        int hdr = Opcode.headerLength(op);
        int pad = (-payload.length) & 3;
        bth(op, psn, pad, true);
        new org.jrdma.rocev2.wire.Ieth().wrap(tx.seg, Opcode.offset(op, Opcode.IETH)).rkey(rkey);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, tx.seg, hdr, payload.length);
        for (int i = 0; i < pad; i++) {
            tx.seg.set(ValueLayout.JAVA_BYTE, hdr + payload.length + i, (byte) 0);
        }
        send(hdr + payload.length + pad);
    }

    /** Sends the first {@code len} bytes of a request with BTH of {@code opcode} (whatever follows is zero). */
    void truncated(int opcode, int psn, int len) {
        tx.seg.asSlice(0, len).fill((byte) 0);
        bth(opcode, psn, 0, true);
        send(len);
    }

    @Override
    public void close() {
        socket.close();
    }
}
