package org.jrdma.rocev2.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.jrdma.mad.MadHeader;
import org.jrdma.rocev2.pcap.Captures;
import org.jrdma.rocev2.pcap.Captures.RoceFrame;
import org.junit.jupiter.api.Test;

/**
 * The header flyweights against the captures: expected field values are literals read from
 * {@code tshark -r FILE -V} (tshark 4.0.17), not from this code.
 */
class HeaderCaptureTest {
    private final Bth bth = new Bth();
    private final Reth reth = new Reth();
    private final Aeth aeth = new Aeth();
    private final AtomicEth atomicEth = new AtomicEth();
    private final AtomicAckEth atomicAckEth = new AtomicAckEth();
    private final ImmDt immDt = new ImmDt();
    private final Ieth ieth = new Ieth();
    private final Deth deth = new Deth();
    private final MadHeader mad = new MadHeader();

    private MemorySegment seg(String file, long frame) {
        return Captures.frame(file, frame).buffer().seg;
    }

    private static int payloadLength(RoceFrame f, MemorySegment s) {
        int op = new Bth().wrap(s, 0).opcode();
        return f.udpPayload().length - Opcode.headerLength(op) - new Bth().wrap(s, 0).padCount() - Icrc.LENGTH;
    }

    @Test
    void rdmaWriteFirstAndLast() {
        RoceFrame f = Captures.frame("rxe-rc-write-bw.pcap", 34);
        MemorySegment s = f.buffer().seg;
        bth.wrap(s, 0);
        assertEquals(6, bth.opcode());
        assertEquals("RC RDMA WRITE First", Opcode.name(bth.opcode()));
        assertFalse(bth.se());
        assertFalse(bth.migReq());
        assertEquals(0, bth.padCount());
        assertEquals(0, bth.tver());
        assertEquals(65535, bth.pkey());
        assertEquals(0x000012, bth.destQpn());
        assertFalse(bth.ackReq());
        assertEquals(6007353, bth.psn());
        reth.wrap(s, Opcode.offset(6, Opcode.RETH));
        assertEquals(0x000055614da0f000L, reth.va());
        assertEquals(0x00000398, reth.rkey());
        assertEquals(8192, reth.dmaLength());
        assertEquals(1024, payloadLength(f, s)); // tshark: Data (1024 bytes)

        bth.wrap(seg("rxe-rc-write-bw.pcap", 41), 0);
        assertEquals(8, bth.opcode());
        assertTrue(bth.ackReq());
        assertEquals(6007360, bth.psn());
    }

    @Test
    void rdmaReadRequestAndResponseFirst() {
        MemorySegment s = seg("rxe-rc-read-bw.pcap", 22);
        bth.wrap(s, 0);
        assertEquals(12, bth.opcode());
        assertTrue(bth.ackReq());
        assertEquals(2441113, bth.psn());
        assertEquals(0x000013, bth.destQpn());
        reth.wrap(s, Opcode.offset(12, Opcode.RETH));
        assertEquals(0x00005617c3ce7000L, reth.va());
        assertEquals(0x000004d9, reth.rkey());
        assertEquals(8192, reth.dmaLength());

        s = seg("rxe-rc-read-bw.pcap", 27);
        bth.wrap(s, 0);
        assertEquals(13, bth.opcode());
        assertEquals(2441113, bth.psn());
        aeth.wrap(s, Opcode.offset(13, Opcode.AETH));
        assertEquals(31, aeth.syndrome());
        assertEquals(Aeth.TYPE_ACK, aeth.type());
        assertEquals(Aeth.CREDIT_COUNT_INVALID, aeth.value());
        assertEquals(1, aeth.msn());
    }

    @Test
    void compareSwapAndAtomicAcknowledge() {
        MemorySegment s = seg("rxe-rc-atomic-cswap.pcap", 22);
        bth.wrap(s, 0);
        assertEquals(19, bth.opcode());
        assertEquals("RC CmpSwap", Opcode.name(19));
        assertEquals(15966210, bth.psn());
        assertEquals(0x000015, bth.destQpn());
        atomicEth.wrap(s, Opcode.offset(19, Opcode.ATOMIC_ETH));
        assertEquals(0x0000557d866dc000L, atomicEth.va());
        assertEquals(0x000006cd, atomicEth.rkey());
        assertEquals(0L, atomicEth.swapData());
        assertEquals(0L, atomicEth.compareData());

        s = seg("rxe-rc-atomic-cswap.pcap", 23);
        bth.wrap(s, 0);
        assertEquals(18, bth.opcode());
        aeth.wrap(s, Opcode.offset(18, Opcode.AETH));
        assertEquals(31, aeth.syndrome());
        assertEquals(1, aeth.msn());
        atomicAckEth.wrap(s, Opcode.offset(18, Opcode.ATOMIC_ACK_ETH));
        assertEquals(Long.parseUnsignedLong("2053363665818730746"), atomicAckEth.origRemoteData());
    }

    @Test
    void fetchAdd() {
        MemorySegment s = seg("rxe-rc-atomic-fadd.pcap", 21);
        bth.wrap(s, 0);
        assertEquals(20, bth.opcode());
        atomicEth.wrap(s, Opcode.offset(20, Opcode.ATOMIC_ETH));
        assertEquals(0x000055986719e000L, atomicEth.va());
        assertEquals(0x000005b6, atomicEth.rkey());
        assertEquals(1L, atomicEth.swapData());
        assertEquals(0L, atomicEth.compareData());
        s = seg("rxe-rc-atomic-fadd.pcap", 26);
        atomicAckEth.wrap(s, Opcode.offset(18, Opcode.ATOMIC_ACK_ETH));
        assertEquals(Long.parseUnsignedLong("15222610572337448418"), atomicAckEth.origRemoteData());
    }

    @Test
    void immediateData() {
        MemorySegment s = seg("rxe-rc-imm.pcap", 5);
        bth.wrap(s, 0);
        assertEquals(5, bth.opcode());
        assertEquals(16108502, bth.psn());
        assertEquals(0x000019, bth.destQpn());
        assertEquals(0x11111111, immDt.wrap(s, Opcode.offset(5, Opcode.IMM_DT)).immDt());
        assertEquals(0x22222222, immDt.wrap(seg("rxe-rc-imm.pcap", 9), Opcode.offset(3, Opcode.IMM_DT)).immDt());
        assertEquals(0x44444444, immDt.wrap(seg("rxe-rc-imm.pcap", 15), Opcode.offset(9, Opcode.IMM_DT)).immDt());

        s = seg("rxe-rc-imm.pcap", 11);
        bth.wrap(s, 0);
        assertEquals(11, bth.opcode());
        assertEquals(16108506, bth.psn());
        reth.wrap(s, Opcode.offset(11, Opcode.RETH));
        assertEquals(0x00005626dad62c40L, reth.va());
        assertEquals(0x00000a12, reth.rkey());
        assertEquals(64, reth.dmaLength());
        assertEquals(0x33333333, immDt.wrap(s, Opcode.offset(11, Opcode.IMM_DT)).immDt());
        assertEquals(12 + 16, Opcode.offset(11, Opcode.IMM_DT));
    }

    @Test
    void udSendOnlyDeth() {
        MemorySegment s = seg("rxe-ud-pingpong.pcap", 13);
        bth.wrap(s, 0);
        assertEquals(100, bth.opcode());
        assertEquals("UD SEND Only", Opcode.name(100));
        assertEquals(0x00001b, bth.destQpn());
        assertEquals(4571889, bth.psn());
        assertFalse(bth.ackReq());
        deth.wrap(s, Opcode.offset(100, Opcode.DETH));
        assertEquals(0x11111111, deth.qkey());
        assertEquals(0x00001b, deth.srcQpn());
    }

    @Test
    void cmMadOnQp1() {
        MemorySegment s = seg("host-mad-ping.pcap", 2);
        bth.wrap(s, 0);
        assertEquals(100, bth.opcode());
        assertEquals(1, bth.destQpn());
        deth.wrap(s, Bth.LENGTH);
        assertEquals(0x80010000, deth.qkey());
        assertEquals(1, deth.srcQpn());
        mad.wrap(s, Opcode.headerLength(100));
        assertEquals(0x01, mad.baseVersion());
        assertEquals(0x07, mad.mgmtClass());
        assertEquals(0x02, mad.classVersion());
        assertEquals(0x81, mad.method());
        assertEquals(0x000c, mad.status());
        assertEquals(0x0000, mad.classSpecific());
        assertEquals(0x00b0bab9c481f3d5L, mad.transactionId());
        assertEquals(0x0001, mad.attributeId());
        assertEquals(0, mad.attributeModifier());
    }

    @Test
    void ipv6Acknowledge() {
        MemorySegment s = seg("rxe-rc-pingpong-ipv6.pcap", 17);
        bth.wrap(s, 0);
        assertEquals(17, bth.opcode());
        assertEquals(0x000018, bth.destQpn());
        assertEquals(12157990, bth.psn());
        aeth.wrap(s, Opcode.offset(17, Opcode.AETH));
        assertEquals(31, aeth.syndrome());
        assertEquals(1, aeth.msn());
    }

    /** Decodes every header of every packet and writes the values through the setters into zeroed memory. */
    @Test
    void reEncodingTheDecodedFieldsReproducesEveryCapturedPacket() {
        int n = 0;
        for (RoceFrame f : Captures.roceFrames()) {
            byte[] in = f.udpPayload();
            MemorySegment s = MemorySegment.ofArray(in);
            MemorySegment out = MemorySegment.ofArray(new byte[in.length]);
            bth.wrap(s, 0);
            int op = bth.opcode();
            assertTrue(Opcode.isValid(op), f.id());
            assertEquals(0, bth.resv6(), f.id());
            assertEquals(0, bth.resv7(), f.id());
            new Bth().wrap(out, 0).opcode(op).se(bth.se()).migReq(bth.migReq()).padCount(bth.padCount())
                .tver(bth.tver()).pkey(bth.pkey()).fecn(bth.fecn()).becn(bth.becn()).destQpn(bth.destQpn())
                .ackReq(bth.ackReq()).psn(bth.psn());
            int o;
            if ((o = Opcode.offset(op, Opcode.DETH)) > 0) {
                deth.wrap(s, o);
                new Deth().wrap(out, o).qkey(deth.qkey()).srcQpn(deth.srcQpn());
            }
            if ((o = Opcode.offset(op, Opcode.RETH)) > 0) {
                reth.wrap(s, o);
                new Reth().wrap(out, o).va(reth.va()).rkey(reth.rkey()).dmaLength(reth.dmaLength());
            }
            if ((o = Opcode.offset(op, Opcode.ATOMIC_ETH)) > 0) {
                atomicEth.wrap(s, o);
                new AtomicEth().wrap(out, o).va(atomicEth.va()).rkey(atomicEth.rkey())
                    .swapData(atomicEth.swapData()).compareData(atomicEth.compareData());
            }
            if ((o = Opcode.offset(op, Opcode.AETH)) > 0) {
                aeth.wrap(s, o);
                new Aeth().wrap(out, o).syndrome(aeth.syndrome()).msn(aeth.msn());
            }
            if ((o = Opcode.offset(op, Opcode.ATOMIC_ACK_ETH)) > 0) {
                atomicAckEth.wrap(s, o);
                new AtomicAckEth().wrap(out, o).origRemoteData(atomicAckEth.origRemoteData());
            }
            if ((o = Opcode.offset(op, Opcode.IMM_DT)) > 0) {
                new ImmDt().wrap(out, o).immDt(immDt.wrap(s, o).immDt());
            }
            if ((o = Opcode.offset(op, Opcode.IETH)) > 0) {
                new Ieth().wrap(out, o).rkey(ieth.wrap(s, o).rkey());
            }
            int h = Opcode.headerLength(op);
            int rawFrom = h;
            if (op == Opcode.UD_SEND_ONLY && bth.destQpn() == 1) {
                mad.wrap(s, h);
                new MadHeader().wrap(out, h).baseVersion(mad.baseVersion()).mgmtClass(mad.mgmtClass())
                    .classVersion(mad.classVersion()).method(mad.method()).status(mad.status())
                    .classSpecific(mad.classSpecific()).transactionId(mad.transactionId())
                    .attributeId(mad.attributeId()).attributeModifier(mad.attributeModifier());
                MemorySegment.copy(s, h + 18, out, h + 18, 2); // the reserved bytes 18-19
                rawFrom = h + MadHeader.LENGTH;
            }
            MemorySegment.copy(s, rawFrom, out, rawFrom, in.length - rawFrom);
            assertArrayEquals(in, out.toArray(ValueLayout.JAVA_BYTE), f.id() + " " + Opcode.name(op));
            n++;
        }
        assertEquals(426, n);
    }
}
