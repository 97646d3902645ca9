package org.jrdma.rocev2.pcap;

import org.jrdma.rocev2.wire.Aeth;
import org.jrdma.rocev2.wire.AtomicAckEth;
import org.jrdma.rocev2.wire.AtomicEth;
import org.jrdma.rocev2.wire.Bth;
import org.jrdma.rocev2.wire.Deth;
import org.jrdma.rocev2.wire.DropReason;
import org.jrdma.rocev2.wire.Icrc;
import org.jrdma.rocev2.wire.ImmDt;
import org.jrdma.rocev2.wire.Ieth;
import org.jrdma.mad.MadHeader;
import org.jrdma.rocev2.wire.Opcode;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.jrdma.rocev2.wire.PacketValidator;
import org.jrdma.rocev2.wire.Reth;

/**
 * Decodes and checks the RoCE v2 packet of one captured frame: BTH and extension headers through the
 * {@code wire} flyweights, the ICRC recomputed from the captured IP and UDP headers ({@link Icrc}), and
 * the structural checks of {@link PacketValidator} (path MTU not checked: a capture does not say it).
 * Produces one line of text per packet. A tool class: it allocates text.
 */
public final class RoceFrameCheck {
    /** Status: the frame was cut by the capture's snap length, so the packet cannot be checked. */
    public static final int SNAPPED = DropReason.COUNT;

    private final Icrc icrc = new Icrc();
    private final PacketBuffer buf = PacketBuffer.allocate(65536);
    private final Bth bth = new Bth();
    private final Reth reth = new Reth();
    private final Aeth aeth = new Aeth();
    private final AtomicEth atomicEth = new AtomicEth();
    private final AtomicAckEth atomicAckEth = new AtomicAckEth();
    private final ImmDt immDt = new ImmDt();
    private final Ieth ieth = new Ieth();
    private final Deth deth = new Deth();
    private final MadHeader mad = new MadHeader();

    /** The name of a status returned by {@link #check}: a {@link DropReason} name or "snapped". */
    public static String statusName(int status) {
        return status == SNAPPED ? "snapped" : DropReason.name(status);
    }

    /** An English description of a status. */
    public static String describe(int status) {
        return status == SNAPPED ? "frame cut by the capture's snap length" : DropReason.describe(status);
    }

    /**
     * Checks the UDP payload of the reader's current frame as a RoCE v2 packet and appends its description
     * (no line terminator) to {@code line}: opcode name, destination QPN, PSN, AckReq, the other BTH flags
     * when set, the extension header fields, the payload length, "ICRC ok" or "ICRC BAD (...)", and for a
     * malformed packet "MALFORMED: reason".
     *
     * @param r a reader positioned on a UDP frame ({@link PcapReader#isUdp()})
     * @return {@link DropReason#OK}, {@link DropReason#BAD_ICRC}, another {@link DropReason} for a malformed
     *         packet, or {@link #SNAPPED}
     */
    public int check(PcapReader r, StringBuilder line) {
        int len = r.udpPayloadLength();
        buf.seg.asSlice(0, len).copyFrom(java.lang.foreign.MemorySegment.ofArray(r.data()).asSlice(r.udpPayloadOffset(), len));
        buf.length(len);
        if (r.udpTruncated()) {
            line.append("frame cut by the capture (").append(len).append(" of ").append(r.udpLength() - 8)
                .append(" UDP payload bytes captured)");
            return SNAPPED;
        }
        if (len < Bth.LENGTH + Icrc.LENGTH) {
            line.append("too short for BTH + ICRC (").append(len).append(" bytes) MALFORMED: ")
                .append(DropReason.describe(DropReason.TOO_SHORT));
            return DropReason.TOO_SHORT;
        }
        int bodyLen = len - Icrc.LENGTH;
        int computed = r.ipVersion() == 4
            ? icrc.ipv4(r.ipv4Src(), r.ipv4Dst(), r.ipId(), r.ipFlagsFragOff(), r.srcPort(), r.dstPort(), buf, 0, bodyLen)
            : icrc.ipv6(r.ipv6SrcHi(), r.ipv6SrcLo(), r.ipv6DstHi(), r.ipv6DstLo(), r.srcPort(), r.dstPort(), buf, 0, bodyLen);
        int carried = Icrc.read(buf, bodyLen);
        boolean icrcOk = computed == carried;
        int structural = PacketValidator.validate(buf, 0, len, 0, true);

        bth.wrap(buf.seg, 0);
        int op = bth.opcode();
        line.append(Opcode.name(op));
        line.append(" QPN=").append(hex(bth.destQpn(), 6));
        line.append(" PSN=").append(bth.psn());
        line.append(" AckReq=").append(bth.ackReq() ? 1 : 0);
        if (bth.se()) {
            line.append(" SE");
        }
        if (bth.migReq()) {
            line.append(" MigReq");
        }
        if (bth.fecn()) {
            line.append(" FECN");
        }
        if (bth.becn()) {
            line.append(" BECN");
        }
        if (bth.padCount() != 0) {
            line.append(" pad=").append(bth.padCount());
        }
        if (bth.pkey() != 0xffff) {
            line.append(" P_Key=").append(hex(bth.pkey(), 4));
        }
        if (bth.tver() != 0) {
            line.append(" TVer=").append(bth.tver());
        }
        if (structural == DropReason.OK || structural > DropReason.TRUNCATED_HEADER) {
            extensionHeaders(op, line);
            int payload = PacketValidator.payloadLength(buf, 0, len);
            if (Opcode.hasPayload(op)) {
                line.append(" payload=").append(Math.max(0, payload));
            }
            if (op == Opcode.UD_SEND_ONLY && bth.destQpn() == 1 && payload >= MadHeader.LENGTH) {
                mad.wrap(buf.seg, Opcode.headerLength(op));
                line.append(" MAD class=").append(hex(mad.mgmtClass(), 2))
                    .append(" method=").append(hex(mad.method(), 2))
                    .append(" status=").append(hex(mad.status(), 4))
                    .append(" attr=").append(hex(mad.attributeId(), 4))
                    .append(" tid=").append(hex(mad.transactionId()));
            }
        }
        if (icrcOk) {
            line.append(" ICRC ok");
        } else {
            line.append(" ICRC BAD (carried ").append(hex(carried, 8)).append(", computed ").append(hex(computed, 8));
            if (r.ipVersion() == 4) {
                int id = icrc.solveIpv4Id(r.ipv4Src(), r.ipv4Dst(), r.ipFlagsFragOff(), r.srcPort(), r.dstPort(), buf, 0,
                    bodyLen, carried);
                if (id >= 0) {
                    line.append("; it matches IP ID ").append(hex(id, 4)).append(" instead of ").append(hex(r.ipId(), 4));
                }
            }
            line.append(')');
        }
        if (structural != DropReason.OK) {
            line.append(" MALFORMED: ").append(DropReason.describe(structural));
        }
        return !icrcOk ? DropReason.BAD_ICRC : structural;
    }

    private void extensionHeaders(int op, StringBuilder line) {
        int o;
        if ((o = Opcode.offset(op, Opcode.DETH)) > 0) {
            deth.wrap(buf.seg, o);
            line.append(" DETH Q_Key=").append(hex(deth.qkey(), 8)).append(" SrcQP=").append(hex(deth.srcQpn(), 6));
        }
        if ((o = Opcode.offset(op, Opcode.RETH)) > 0) {
            reth.wrap(buf.seg, o);
            line.append(" RETH va=").append(hex(reth.va())).append(" rkey=").append(hex(reth.rkey(), 8))
                .append(" len=").append(Integer.toUnsignedString(reth.dmaLength()));
        }
        if ((o = Opcode.offset(op, Opcode.ATOMIC_ETH)) > 0) {
            atomicEth.wrap(buf.seg, o);
            line.append(" AtomicETH va=").append(hex(atomicEth.va())).append(" rkey=").append(hex(atomicEth.rkey(), 8))
                .append(" swap=").append(hex(atomicEth.swapData())).append(" compare=").append(hex(atomicEth.compareData()));
        }
        if ((o = Opcode.offset(op, Opcode.AETH)) > 0) {
            aeth.wrap(buf.seg, o);
            line.append(" AETH ").append(Aeth.describe(aeth.syndrome())).append(" MSN=").append(aeth.msn());
        }
        if ((o = Opcode.offset(op, Opcode.ATOMIC_ACK_ETH)) > 0) {
            atomicAckEth.wrap(buf.seg, o);
            line.append(" AtomicAckETH orig=").append(hex(atomicAckEth.origRemoteData()));
        }
        if ((o = Opcode.offset(op, Opcode.IMM_DT)) > 0) {
            line.append(" ImmDt=").append(hex(immDt.wrap(buf.seg, o).immDt(), 8));
        }
        if ((o = Opcode.offset(op, Opcode.IETH)) > 0) {
            line.append(" IETH rkey=").append(hex(ieth.wrap(buf.seg, o).rkey(), 8));
        }
    }

    private static String hex(int v, int digits) {
        String h = Integer.toHexString(v);
        return "0x" + "0".repeat(Math.max(0, digits - h.length())) + h;
    }

    private static String hex(long v) {
        String h = Long.toHexString(v);
        return "0x" + "0".repeat(Math.max(0, 16 - h.length())) + h;
    }
}
