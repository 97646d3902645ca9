package org.jrdma.iwarp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/**
 * MPA frames written as siw writes them, against the bytes siw sent in the reference captures, and the
 * RFC 6581 negotiation outcomes of {@code siw_cm.c}.
 */
class MpaExchangeTest {
    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }

    @Test
    void requestAndReplyAreSiwsBytes() {
        byte[] b = new byte[24];
        MemorySegment s = MemorySegment.ofArray(b);
        // siw-rping.pcap frames 6 and 8: rev 2, Enhanced, IRD/ORD 1/1
        assertEquals(24, MpaExchange.writeRequest(s, 0, false, 1, 1, 0, null, 0, 0));
        assertArrayEquals(hex("4d504120494420526571204672616d651002000400010001"), b);
        MpaExchange.writeReply(s, 0, false, 1, 1, 0, null, 0, 0);
        assertArrayEquals(hex("4d504120494420526570204672616d651002000400010001"), b);
        // siw-crc-rping.pcap: C set in both; siw-read-bw.pcap's second connection: IRD/ORD 0x80
        MpaExchange.writeRequest(s, 0, true, 1, 1, 0, null, 0, 0);
        assertEquals(0x50, b[16] & 0xff);
        MpaExchange.writeReply(s, 0, false, 0x80, 0x80, 0, null, 0, 0);
        assertArrayEquals(hex("4d504120494420526570204672616d651002000400800080"), b);
    }

    @Test
    void privateDataFollowsTheIrdOrdBlock() {
        byte[] b = new byte[40];
        MemorySegment s = MemorySegment.ofArray(b);
        MemorySegment pd = MemorySegment.ofArray("hello".getBytes());
        assertEquals(29, MpaExchange.writeRequest(s, 3, false, 4, 2, MpaExchange.RTR_WRITE | MpaExchange.RTR_READ, pd, 0, 5));
        MpaFrame f = new MpaFrame().wrap(s, 3);
        assertEquals(9, f.privateDataLength());
        assertEquals(5, f.ulpPrivateDataLength());
        assertEquals(3 + 24, f.ulpPrivateDataOffset());
        assertEquals("hello", new String(b, 27, 5));
        MpaIrdOrd io = new MpaIrdOrd().wrap(s, f.privateDataOffset());
        assertEquals(0x8004, io.irdWord());
        assertEquals(0xc002, io.ordWord());
        assertThrows(IllegalArgumentException.class, () -> MpaExchange.writeRequest(MemorySegment.ofArray(new byte[600]), 0,
            false, 0, 0, 0, MemorySegment.ofArray(new byte[509]), 0, 509));
    }

    @Test
    void rejectIsTheRequestTurnedIntoAReply() {
        // a request with markers, as siw_proc_mpareq's reject_conn answers it
        byte[] req = hex("4d504120494420526571204672616d65d002000400010001");
        MemorySegment s = MemorySegment.ofArray(req);
        MpaFrame r = new MpaFrame().wrap(s, 0);
        assertTrue(r.markers());
        assertEquals(24, MpaExchange.writeReject(r, s, 0));
        assertArrayEquals(hex("4d504120494420526570204672616d657002000400000000"), req,
            "Rep key, M cleared, R set, C and Enhanced kept, IRD/ORD block zero");
        byte[] v1 = hex("4d504120494420526571204672616d658001000000");
        MemorySegment s1 = MemorySegment.ofArray(v1);
        assertEquals(20, MpaExchange.writeReject(new MpaFrame().wrap(s1, 0), s1, 0));
        assertEquals(0x20, v1[16] & 0xff);
        assertEquals(0, new MpaFrame().wrap(s1, 0).privateDataLength());
    }

    @Test
    void negotiationAsSiwDoesIt() {
        MemorySegment s = MemorySegment.ofArray(new byte[4]);
        MpaIrdOrd req = new MpaIrdOrd().wrap(s, 0).ird(8).ord(128);
        assertEquals(128, MpaExchange.responderIrd(req, 128));
        assertEquals(8, MpaExchange.responderOrd(req, 128));
        assertEquals(16, MpaExchange.responderIrd(req, 16), "clamped to the device maximum");
        assertEquals(0, MpaExchange.replyRtr(req), "not peer-to-peer: no RTR");
        req.peerToPeer(true);
        assertEquals(MpaExchange.RTR_WRITE, MpaExchange.replyRtr(req), "no choice given: Write");
        req.readRtr(true);
        assertEquals(MpaExchange.RTR_READ, MpaExchange.replyRtr(req));
        req.writeRtr(true);
        assertEquals(MpaExchange.RTR_WRITE, MpaExchange.replyRtr(req), "Write preferred");

        MpaIrdOrd rep = new MpaIrdOrd().wrap(MemorySegment.ofArray(new byte[4]), 0).ird(8).ord(8);
        assertEquals(0, MpaExchange.checkReply(8, 8, 0, rep));
        assertEquals(TerminateCodes.LLP_INSUFFICIENT_IRD, MpaExchange.checkReply(4, 8, 0, rep), "reply ORD 8 > our IRD 4");
        assertEquals(TerminateCodes.LLP_INSUFFICIENT_IRD, MpaExchange.checkReply(8, 16, 0, rep), "our ORD 16 > reply IRD 8");
        assertEquals(TerminateCodes.LLP_NO_MATCHING_RTR, MpaExchange.checkReply(8, 8, MpaExchange.RTR_READ, rep));
        rep.peerToPeer(true).readRtr(true);
        assertEquals(0, MpaExchange.checkReply(8, 8, MpaExchange.RTR_READ, rep));
        assertEquals(RdmapOpcode.RDMA_READ_REQUEST, MpaExchange.rtrOpcode(MpaExchange.RTR_READ, rep));
        assertEquals(-1, MpaExchange.rtrOpcode(0, rep));
        rep.writeRtr(true);
        assertEquals(RdmapOpcode.RDMA_WRITE, MpaExchange.rtrOpcode(MpaExchange.RTR_WRITE | MpaExchange.RTR_READ, rep));
    }
}
