package org.jrdma.rocev2.transport;

import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.DropReason;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.PacketValidator;
import org.jrdma.rocev2.wire.RoceV2;
import org.jrdma.soft.SoftQp;
import org.jrdma.soft.SoftResources;

/**
 * Receive dispatch of one device (rxe: {@code rxe_recv.c}): checks one arrived RoCE v2 packet and
 * hands it to its QP, whose {@link RxeQp#receive(PacketInfo)} sends it on to the responder
 * (requests) or the completer (responses). The checks, in rxe's order: length (at least BTH +
 * ICRC), ICRC, then {@link PacketValidator}'s TVer, opcode, header length, pad and MTU checks, the
 * P_Key, and the destination QPN. A packet that fails one is dropped and counted in
 * {@link Counters} under its reason; nothing is thrown.
 *
 * <p>What the ICRC check covers: over IPv6, and over IPv4 when the port saw the real IP header (the
 * raw port), the whole ICRC is checked exactly. Over IPv4 through an ordinary UDP socket the IP
 * Identification, which the ICRC covers (IBTA Annex A17.3.3), is invisible; dispatch solves for the
 * one 16-bit Identification that makes the ICRC match (with DF set, then clear) and drops the
 * packet when none does. That keeps 16 of the ICRC's 32 bits: a corrupted packet passes with
 * probability about 2^-15 (the UDP checksum, which the kernel verifies when it is not 0, protects
 * the payload on a real link). A raw-mode receiver on loopback also accepts the ICRC computed with
 * Identification 0, which a UDP-mode jrdma peer's connected flow socket does not write (still an
 * exact 32-bit check, of a second value).
 *
 * <p>Threads: run by whichever thread receives (the device's I/O agent thread, or an application
 * thread in {@link DeviceAgent#progress()}), which holds the device's receive lock; one packet at a
 * time. The QP's lock is taken inside {@code receive}. Allocation-free.
 */
final class RxeRecv {
    private final SoftResources resources;
    private final Counters counters;
    private final int maxMtuBytes;
    private final boolean ipv6;
    private final int ipv4;
    private final long ipv6Hi, ipv6Lo;
    private final Bth bth = new Bth();
    private final Icrc icrc = new Icrc();
    private final PacketInfo pkt = new PacketInfo();
    /** IPv4 Identification and flags of the packet being dispatched ({@link PacketPort#lastIpv4IdAndFlags()}). */
    private long ipv4IdAndFlags = -1;
    /** QP1, which gets every packet for QPN 1 that passed the checks (issue 11). */
    private Gsi gsi;

    /**
     * @param localIpv4 the device's IPv4 address (0 for an IPv6 device)
     * @param localIpv6Hi the high 64 bits of the device's IPv6 address (0 for IPv4)
     */
    RxeRecv(SoftResources resources, Counters counters, int maxMtuBytes, boolean ipv6, int localIpv4,
            long localIpv6Hi, long localIpv6Lo) {
        this.resources = resources;
        this.counters = counters;
        this.maxMtuBytes = maxMtuBytes;
        this.ipv6 = ipv6;
        this.ipv4 = localIpv4;
        this.ipv6Hi = localIpv6Hi;
        this.ipv6Lo = localIpv6Lo;
    }

    /** Sets QP1's MAD layer; by the constructing thread, before the device receives. */
    void gsi(Gsi g) {
        this.gsi = g;
    }

    /**
     * Checks the datagram of {@code n} bytes (UDP payload, BTH at offset 0) in {@code rx}, from
     * {@code from}, and hands it to its QP.
     *
     * @param n bytes received; negative when the port dropped a datagram (too large, or an ICMP
     *          error): counted as {@link DropReason#BAD_LENGTH}
     * @param ipv4IdAndFlags {@code (id << 16) | flags} of its IPv4 header, or -1 when the port cannot see it
     */
    void dispatch(PacketBuffer rx, int n, SockAddr from, long ipv4IdAndFlags) {
        dispatch(rx, n, from, ipv4IdAndFlags, -1);
    }

    /**
     * {@link #dispatch(PacketBuffer, int, SockAddr, long)} of a datagram whose IP traffic class the
     * port saw: {@code trafficClass} 0–255, or -1 when unknown. ECN-CE (its low 2 bits 3, RFC 3168)
     * is counted ({@code np_ecn_marked_roce_packets}) and handed to the QP with the packet, whose
     * notification point may answer with a CNP (DCQCN).
     */
    void dispatch(PacketBuffer rx, int n, SockAddr from, long ipv4IdAndFlags, int trafficClass) {
        if (n < 0) {
            counters.drop(DropReason.BAD_LENGTH);
            return;
        }
        if (n < Bth.LENGTH + Icrc.LENGTH) {
            counters.drop(DropReason.TOO_SHORT);
            return;
        }
        this.ipv4IdAndFlags = ipv4IdAndFlags;
        boolean icrcGood = icrcOk(rx, n - Icrc.LENGTH, Icrc.read(rx, n - Icrc.LENGTH), from, ipv4IdAndFlags);
        int reason = PacketValidator.validate(rx, 0, n, maxMtuBytes, icrcGood);
        if (reason != DropReason.OK) {
            counters.drop(reason);
            return;
        }
        bth.wrap(rx.seg, 0);
        int op = bth.opcode();
        // P_Key table of one entry, the default 0xFFFF: the low 15 bits must match (IBTA Vol 1 §10.9.3)
        if ((bth.pkey() & 0x7FFF) != 0x7FFF) {
            counters.increment(Counters.RCVD_DROP_BAD_PKEY);
            return;
        }
        counters.increment(Counters.RCVD_PKTS);
        boolean ce = (trafficClass & 3) == 3; // -1 (unknown) has both bits set: excluded below
        if (ce && trafficClass >= 0) {
            counters.increment(Counters.NP_ECN_MARKED_ROCE_PACKETS);
        } else {
            ce = false;
        }
        int payloadLen = PacketValidator.payloadLength(rx, 0, n);
        if (bth.destQpn() == Gsi.QPN && gsi != null) {
            gsi.receive(rx.seg, op, Opcode.headerLength(op), payloadLen, from);
            return;
        }
        SoftQp q = resources.qps.get(bth.destQpn());
        if (q == null || !(q.transport() instanceof RxeQp qp)) {
            counters.increment(Counters.RCVD_DROP_UNKNOWN_QPN);
            return;
        }
        pkt.set(rx.seg, n, op, bth.psn(), bth.destQpn(), bth.se(), bth.ackReq(), Opcode.headerLength(op), payloadLen,
                from);
        pkt.ce = ce;
        qp.receive(pkt);
    }

    /**
     * The IPv4 Identification and flags of the packet being dispatched, as
     * {@link PacketPort#lastIpv4IdAndFlags()} (-1 when unknown); for the GRH of a UD receive.
     */
    long ipv4IdAndFlags() {
        return ipv4IdAndFlags;
    }

    private boolean icrcOk(PacketBuffer rx, int len, int received, SockAddr from, long idFlags) {
        int srcPort = from.port();
        int dstPort = RoceV2.UDP_PORT;
        if (ipv6) {
            return from.isIpv6()
                    && icrc.ipv6(from.ipv6Hi(), from.ipv6Lo(), ipv6Hi, ipv6Lo, srcPort, dstPort, rx, 0, len) == received;
        }
        if (!from.isIpv4()) {
            return false;
        }
        if (idFlags >= 0) { // the real IP header was seen: exact
            int flags = (int) (idFlags & 0xFFFF);
            return icrc.ipv4(from.ipv4(), ipv4, (int) (idFlags >>> 16), flags, srcPort, dstPort, rx, 0, len) == received
                    // or a jrdma peer on loopback in UDP mode: its connected flow socket lets the kernel number
                    // datagrams whose ICRC assumed Identification 0 (still an exact 32-bit check, of a second value)
                    || (from.isIpv4Loopback()
                        && icrc.ipv4(from.ipv4(), ipv4, 0, flags, srcPort, dstPort, rx, 0, len) == received);
        }
        return icrc.solveIpv4Id(from.ipv4(), ipv4, 0x4000, srcPort, dstPort, rx, 0, len, received) >= 0
                || icrc.solveIpv4Id(from.ipv4(), ipv4, 0, srcPort, dstPort, rx, 0, len, received) >= 0;
    }
}
