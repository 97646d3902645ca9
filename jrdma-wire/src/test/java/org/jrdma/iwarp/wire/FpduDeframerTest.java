package org.jrdma.iwarp.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The deframer's error paths and the validator's checks, on hand-built frames whose expected outcome comes
 * from RFC 5040/5041/5044 and siw's receive code (named per test).
 */
class FpduDeframerTest {
    /** Records what a deframer delivers. */
    static final class Recorder implements FpduHandler {
        final List<Integer> ulpduLengths = new ArrayList<>();
        final List<Integer> drops = new ArrayList<>();
        final List<String> mpa = new ArrayList<>();
        FpduDeframer crcOnReply;

        @Override
        public void onFpdu(MemorySegment seg, long off, int len) {
            ulpduLengths.add(len);
        }

        @Override
        public void onMpaFrame(MpaFrame f) {
            mpa.add(f.key() + " rev " + f.revision() + " pd " + f.privateDataLength());
            if (crcOnReply != null) {
                crcOnReply.crcEnabled(f.crc());
            }
        }

        @Override
        public void onDrop(int reason, MemorySegment seg, long offset, int length) {
            drops.add(reason);
        }
    }

    /** An FPDU around a Send of {@code payload} bytes (MSN 1, L set). */
    static byte[] send(int payload, boolean crc) {
        int ulpdu = DdpHeader.UNTAGGED_LENGTH + payload;
        ByteBuffer b = ByteBuffer.allocate(Mpa.fpduLength(ulpdu));
        new DdpHeader().wrap(MemorySegment.ofBuffer(b), 2).control(RdmapOpcode.SEND, true)
            .queueNumber(DdpHeader.QN_SEND).msn(1).messageOffset(0);
        for (int i = 0; i < payload; i++) {
            b.put(2 + DdpHeader.UNTAGGED_LENGTH + i, (byte) i);
        }
        new FpduFramer().crcEnabled(crc).frame(b, 0, ulpdu);
        return b.array();
    }

    static byte[] mpaFrame(boolean request, int flags, int revision, int pdLength) {
        byte[] f = new byte[MpaFrame.HEADER_LENGTH + pdLength];
        MpaFrame m = new MpaFrame().wrap(MemorySegment.ofArray(f), 0);
        if (request) {
            m.requestKey();
        } else {
            m.replyKey();
        }
        m.flags(flags).revision(revision).privateDataLength(pdLength);
        return f;
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    @Test
    void siwRequestBytesFromTheCaptureParse() {
        // siw-rping.pcap frame 6, the whole TCP payload
        byte[] req = java.util.HexFormat.of().parseHex("4d504120494420526571204672616d651002000400010001");
        MpaFrame f = new MpaFrame().wrap(MemorySegment.ofArray(req), 0);
        assertTrue(f.isRequest());
        assertEquals(0x10, f.flags());
        assertEquals(2, f.revision());
        assertEquals(4, f.privateDataLength());
        assertEquals(24, f.length());
        MpaIrdOrd io = new MpaIrdOrd().wrap(MemorySegment.ofArray(req), f.privateDataOffset());
        assertEquals(1, io.ird());
        assertEquals(1, io.ord());
    }

    @Test
    void mpaReplyThenFpdusInOneReadAndCrcSwitchedOnByTheHandler() {
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer().expectMpaReply();
        r.crcOnReply = d;
        byte[] rep = mpaFrame(false, MpaFrame.FLAG_CRC | MpaFrame.FLAG_ENHANCED, 2, 4);
        byte[] all = concat(rep, send(5, true), send(0, true), send(1448, true));
        assertEquals(4, d.feed(ByteBuffer.wrap(all), r));
        assertEquals(List.of("MPA ID Rep Frame rev 2 pd 4"), r.mpa);
        assertEquals(List.of(23, 18, 1466), r.ulpduLengths);
        assertEquals(List.of(), r.drops);
        assertTrue(d.crcEnabled());
        assertEquals(all.length, d.bytes());
        assertEquals(0, d.buffered());
    }

    @Test
    void mpaFrameErrorsFailTheStream() {
        // siw_proc_mpareq: revision > 2 and a wrong key are protocol errors; Enhanced needs 4 bytes of private data
        int[][] cases = {
            {0, 3, 0, FpduDropReason.MPA_BAD_REVISION},
            {MpaFrame.FLAG_ENHANCED, 2, 3, FpduDropReason.MPA_NO_IRD_ORD},
            {0, 1, 513, FpduDropReason.MPA_PRIVATE_DATA_TOO_LONG},
        };
        for (int[] c : cases) {
            Recorder r = new Recorder();
            FpduDeframer d = new FpduDeframer().expectMpaRequest();
            d.feed(ByteBuffer.wrap(concat(mpaFrame(true, c[0], c[1], c[2]), send(4, false))), r);
            assertEquals(List.of(c[3]), r.drops, "case " + java.util.Arrays.toString(c));
            assertTrue(d.failed());
            assertEquals(List.of(), r.ulpduLengths);
            assertEquals(1, d.drops(c[3]));
        }
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer().expectMpaRequest();
        d.feed(ByteBuffer.wrap(mpaFrame(false, 0, 1, 0)), r);
        assertEquals(List.of(FpduDropReason.MPA_BAD_KEY), r.drops, "a Reply where a Request is expected");
        // siw's private data limit is 256 (RDMA_MAX_PRIVATE_DATA)
        r = new Recorder();
        d = new FpduDeframer().expectMpaRequest().maxPrivateData(Mpa.SIW_MAX_PRIVATE_DATA);
        d.feed(ByteBuffer.wrap(mpaFrame(true, 0, 1, 257)), r);
        assertEquals(List.of(FpduDropReason.MPA_PRIVATE_DATA_TOO_LONG), r.drops);
    }

    @Test
    void markersAreAValidFrameTheProviderMustRefuse() {
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer().expectMpaRequest();
        d.feed(ByteBuffer.wrap(mpaFrame(true, MpaFrame.FLAG_MARKERS, 1, 0)), r);
        assertEquals(1, r.mpa.size());
        MpaFrame f = new MpaFrame().wrap(MemorySegment.ofArray(mpaFrame(true, MpaFrame.FLAG_MARKERS, 1, 0)), 0);
        assertTrue(f.markers());
    }

    @Test
    void ulpduLongerThanTheLimitFailsTheStreamAndCountsTheRestAsBytes() {
        Recorder r = new Recorder();
        FpduDeframer d = new FpduDeframer().maxUlpduLength(1000);
        byte[] big = send(1000, false);
        byte[] all = concat(send(4, false), big, send(4, false));
        d.feed(ByteBuffer.wrap(all), r);
        assertEquals(List.of(22), r.ulpduLengths);
        assertEquals(List.of(FpduDropReason.ULPDU_TOO_LONG), r.drops);
        assertTrue(d.failed());
        assertEquals(big.length + send(4, false).length, d.drops(FpduDropReason.AFTER_STOP));
        assertEquals(1, d.totalDrops());
    }

    @Test
    void stopFromTheHandlerDiscardsWhatFollows() {
        FpduDeframer d = new FpduDeframer();
        int[] n = {0};
        d.feed(ByteBuffer.wrap(concat(send(1, false), send(2, false), send(3, false))), (seg, off, len) -> {
            n[0]++;
            d.stop();
        });
        assertEquals(1, n[0]);
        assertTrue(d.stopped());
        assertFalse(d.failed());
    }

    @Test
    void validatorChecksInSiwsOrder() {
        byte[] f = send(8, false);
        MemorySegment s = MemorySegment.ofArray(f);
        int len = f.length - 2 - 4 - Mpa.padLength(26);
        assertEquals(FpduDropReason.OK, FpduValidator.check(s, 2, len));
        f[2] = (byte) ((f[2] & ~3) | 2); // DV 2
        f[3] = (byte) 0x8f;                // RV 2, opcode 15
        assertEquals(FpduDropReason.BAD_DDP_VERSION, FpduValidator.check(s, 2, len), "DDP version first");
        f[2] = (byte) ((f[2] & ~3) | 1);
        assertEquals(FpduDropReason.BAD_RDMAP_VERSION, FpduValidator.check(s, 2, len));
        f[3] = (byte) 0x4f;
        assertEquals(FpduDropReason.BAD_OPCODE, FpduValidator.check(s, 2, len));
        f[3] = (byte) 0x40;                // RDMA Write, untagged
        assertEquals(FpduDropReason.TAGGED_MISMATCH, FpduValidator.check(s, 2, len));
        f[3] = (byte) 0x43;
        assertEquals(FpduDropReason.ULPDU_TOO_SHORT, FpduValidator.check(s, 2, 17));
        assertEquals(FpduDropReason.ULPDU_TOO_SHORT, FpduValidator.check(s, 2, 1));
        new DdpHeader().wrap(s, 2).queueNumber(1);
        assertEquals(FpduDropReason.BAD_QN, FpduValidator.check(s, 2, len), "a Send on the Read Request queue");
        new DdpHeader().wrap(s, 2).opcode(RdmapOpcode.RDMA_READ_REQUEST);
        assertEquals(FpduDropReason.ULPDU_TOO_SHORT, FpduValidator.check(s, 2, len), "26 < 46");
        int t = FpduDropReason.terminateCodes(FpduDropReason.BAD_DDP_VERSION, true);
        assertEquals(TerminateCodes.pack(1, 1, 4), t, "siw_get_hdr: DDP, tagged buffer, DDP_ECODE_T_VERSION");
        assertEquals(TerminateCodes.pack(0, 2, 6), FpduDropReason.terminateCodes(FpduDropReason.BAD_OPCODE, false));
    }

    @Test
    void nonZeroCrcWithoutCrcIsDeliveredAndCounted() {
        byte[] f = send(4, false);
        f[f.length - 1] = 1;
        FpduDeframer d = new FpduDeframer();
        Recorder r = new Recorder();
        d.feed(ByteBuffer.wrap(f), r);
        assertEquals(1, r.ulpduLengths.size());
        assertEquals(1, d.nonZeroCrcFields());
    }

    @Test
    void argumentChecks() {
        assertThrows(IllegalArgumentException.class, () -> new FpduDeframer(1000));
        assertThrows(IllegalArgumentException.class, () -> new FpduDeframer().maxUlpduLength(13));
        assertThrows(IllegalArgumentException.class, () -> new FpduDeframer().maxPrivateData(513));
        assertThrows(IllegalArgumentException.class, () -> new FpduFramer().frame(ByteBuffer.allocate(100), 0, 70000));
        assertThrows(IndexOutOfBoundsException.class, () -> new FpduFramer().frame(ByteBuffer.allocate(20), 0, 18));
        assertThrows(IllegalArgumentException.class, () -> new Terminate().layout(2));
        assertThrows(IllegalArgumentException.class, () -> Mpa.maxPayload(20, 14));
    }

    @Test
    void terminateLayouts() {
        byte[] b = new byte[Terminate.CONTROL_LENGTH + 2];
        MemorySegment s = MemorySegment.ofArray(b);
        Terminate t = new Terminate().wrap(s, 0);
        t.layer(TerminateCodes.LAYER_LLP).etype(TerminateCodes.LLP_ETYPE_MPA).errorCode(TerminateCodes.LLP_RECEIVED_CRC)
            .segmentLengthValid(true).ddpHeaderIncluded(true);
        // RFC 5040 §4.8: Layer in the high nibble, EType low; M 0x80, D 0x40 of byte 2
        assertEquals(0x2002c000, t.controlWord());
        t.controlWord(0).layout(Terminate.SIW_X86).layer(TerminateCodes.LAYER_DDP).etype(TerminateCodes.DDP_ETYPE_TAGGED_BUF)
            .errorCode(TerminateCodes.DDP_T_BASE_BOUNDS).segmentLengthValid(true).ddpHeaderIncluded(true)
            .rdmaHeaderIncluded(true);
        // siw's little-endian bit-fields: byte 0 = etype << 4 | layer, byte 2 = r << 2 | d << 1 | m
        assertEquals(0x11010700, t.controlWord());
        assertEquals(1, t.layer());
        assertEquals(1, t.etype());
        assertTrue(t.rdmaHeaderIncluded());
    }
}
