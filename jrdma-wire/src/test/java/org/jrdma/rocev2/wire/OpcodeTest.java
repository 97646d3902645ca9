package org.jrdma.rocev2.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The opcode table against IBTA Vol 1 table 38 and the header sizes of §9.3 (literals from the spec). */
class OpcodeTest {
    @Test
    void exactlyTheRcUcUdOpcodesOfTable38AndCnpAreValid() {
        int valid = 0;
        for (int op = 0; op < 256; op++) {
            if (Opcode.isValid(op)) {
                valid++;
            }
        }
        assertEquals(25 + 12 + 2 + 1, valid, "RC 0x00-0x14, 0x16, 0x17, 0x1C, 0x1D (Annex A19); UC 0x20-0x2B; UD 0x64, 0x65; CNP");
        for (int op : new int[] {0x15, 0x18, 0x1f, 0x2c, 0x3f, 0x40, 0x4a, 0x5f, 0x60, 0x63, 0x66, 0x7f, 0x80, 0x82, 0xc0, 0xff}) {
            assertFalse(Opcode.isValid(op), Integer.toHexString(op));
            assertEquals(-1, Opcode.headerLength(op));
            assertEquals(-1, Opcode.offset(op, Opcode.RETH));
        }
        assertTrue(Opcode.isValid(0x100 + Opcode.RC_SEND_ONLY), "only the low 8 bits count");
    }

    /** Table 38 read by operation, position and direction: the codes the requester and responder send. */
    @Test
    void ofFindsTheOpcodeOfAnOperationPositionAndTransport() {
        int rq = Opcode.REQUEST, rs = Opcode.RESPONSE;
        int rc = Opcode.TRANSPORT_RC, uc = Opcode.TRANSPORT_UC, ud = Opcode.TRANSPORT_UD;
        assertEquals(0x00, Opcode.of(rc, rq | Opcode.OP_SEND | Opcode.FIRST));
        assertEquals(0x01, Opcode.of(rc, rq | Opcode.OP_SEND | Opcode.MIDDLE));
        assertEquals(0x02, Opcode.of(rc, rq | Opcode.OP_SEND | Opcode.LAST));
        assertEquals(0x03, Opcode.of(rc, rq | Opcode.OP_SEND | Opcode.LAST | Opcode.IMM_DT));
        assertEquals(0x04, Opcode.of(rc, rq | Opcode.OP_SEND | Opcode.ONLY));
        assertEquals(0x05, Opcode.of(rc, rq | Opcode.OP_SEND | Opcode.ONLY | Opcode.IMM_DT));
        assertEquals(0x06, Opcode.of(rc, rq | Opcode.OP_RDMA_WRITE | Opcode.FIRST));
        assertEquals(0x07, Opcode.of(rc, rq | Opcode.OP_RDMA_WRITE | Opcode.MIDDLE));
        assertEquals(0x09, Opcode.of(rc, rq | Opcode.OP_RDMA_WRITE | Opcode.LAST | Opcode.IMM_DT));
        assertEquals(0x0a, Opcode.of(rc, rq | Opcode.OP_RDMA_WRITE | Opcode.ONLY));
        assertEquals(0x0b, Opcode.of(rc, rq | Opcode.OP_RDMA_WRITE | Opcode.ONLY | Opcode.IMM_DT));
        assertEquals(0x0c, Opcode.of(rc, rq | Opcode.OP_RDMA_READ | Opcode.ONLY));
        assertEquals(0x0d, Opcode.of(rc, rs | Opcode.OP_RDMA_READ | Opcode.position(true, false)));
        assertEquals(0x0e, Opcode.of(rc, rs | Opcode.OP_RDMA_READ | Opcode.position(false, false)));
        assertEquals(0x0f, Opcode.of(rc, rs | Opcode.OP_RDMA_READ | Opcode.position(false, true)));
        assertEquals(0x10, Opcode.of(rc, rs | Opcode.OP_RDMA_READ | Opcode.position(true, true)));
        assertEquals(0x16, Opcode.of(rc, rq | Opcode.OP_SEND | Opcode.LAST | Opcode.IETH));
        assertEquals(0x20, Opcode.of(uc, rq | Opcode.OP_SEND | Opcode.FIRST));
        assertEquals(0x2b, Opcode.of(uc, rq | Opcode.OP_RDMA_WRITE | Opcode.ONLY | Opcode.IMM_DT));
        assertEquals(0x64, Opcode.of(ud, rq | Opcode.OP_SEND | Opcode.ONLY));
        assertEquals(0x65, Opcode.of(ud, rq | Opcode.OP_SEND | Opcode.ONLY | Opcode.IMM_DT));
        assertEquals(-1, Opcode.of(uc, rq | Opcode.OP_RDMA_READ | Opcode.ONLY), "UC has no READ");
        assertEquals(-1, Opcode.of(ud, rq | Opcode.OP_SEND | Opcode.FIRST), "UD messages are single packets");
    }

    @Test
    void headerLengthsAreBthPlusTheExtensionHeaders() {
        assertEquals(12, Opcode.headerLength(Opcode.RC_SEND_FIRST));
        assertEquals(12, Opcode.headerLength(Opcode.RC_SEND_MIDDLE));
        assertEquals(16, Opcode.headerLength(Opcode.RC_SEND_LAST_WITH_IMMEDIATE));
        assertEquals(16, Opcode.headerLength(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE));
        assertEquals(28, Opcode.headerLength(Opcode.RC_RDMA_WRITE_FIRST));
        assertEquals(28, Opcode.headerLength(Opcode.RC_RDMA_WRITE_ONLY));
        assertEquals(32, Opcode.headerLength(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE));
        assertEquals(16, Opcode.headerLength(Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE));
        assertEquals(28, Opcode.headerLength(Opcode.RC_RDMA_READ_REQUEST));
        assertEquals(16, Opcode.headerLength(Opcode.RC_RDMA_READ_RESPONSE_FIRST));
        assertEquals(12, Opcode.headerLength(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE));
        assertEquals(16, Opcode.headerLength(Opcode.RC_RDMA_READ_RESPONSE_ONLY));
        assertEquals(16, Opcode.headerLength(Opcode.RC_ACKNOWLEDGE));
        assertEquals(24, Opcode.headerLength(Opcode.RC_ATOMIC_ACKNOWLEDGE));
        assertEquals(40, Opcode.headerLength(Opcode.RC_COMPARE_SWAP));
        assertEquals(40, Opcode.headerLength(Opcode.RC_FETCH_ADD));
        assertEquals(16, Opcode.headerLength(Opcode.RC_SEND_LAST_WITH_INVALIDATE));
        assertEquals(16, Opcode.headerLength(Opcode.RC_SEND_ONLY_WITH_INVALIDATE));
        assertEquals(28, Opcode.headerLength(Opcode.UC_RDMA_WRITE_FIRST));
        assertEquals(32, Opcode.headerLength(Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE));
        assertEquals(20, Opcode.headerLength(Opcode.UD_SEND_ONLY));
        assertEquals(24, Opcode.headerLength(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE));
        assertEquals(28, Opcode.headerLength(Opcode.CNP), "BTH + 16 reserved bytes (A17.9.2)");
    }

    @Test
    void extensionHeadersFollowInSpecOrder() {
        assertEquals(12, Opcode.offset(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.RETH));
        assertEquals(28, Opcode.offset(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.IMM_DT));
        assertEquals(12, Opcode.offset(Opcode.RC_ATOMIC_ACKNOWLEDGE, Opcode.AETH));
        assertEquals(16, Opcode.offset(Opcode.RC_ATOMIC_ACKNOWLEDGE, Opcode.ATOMIC_ACK_ETH));
        assertEquals(12, Opcode.offset(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, Opcode.DETH));
        assertEquals(20, Opcode.offset(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, Opcode.IMM_DT));
        assertEquals(12, Opcode.offset(Opcode.RC_SEND_ONLY_WITH_INVALIDATE, Opcode.IETH));
        assertEquals(12, Opcode.offset(Opcode.RC_COMPARE_SWAP, Opcode.ATOMIC_ETH));
        assertEquals(-1, Opcode.offset(Opcode.RC_SEND_ONLY, Opcode.RETH));
        assertEquals(-1, Opcode.offset(Opcode.RC_ACKNOWLEDGE, Opcode.RETH | Opcode.AETH), "one flag at a time");
        assertTrue(Opcode.has(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.RETH | Opcode.IMM_DT));
        assertFalse(Opcode.has(Opcode.RC_RDMA_WRITE_ONLY, Opcode.IMM_DT));
    }

    @Test
    void propertiesOfTheOperations() {
        assertTrue(Opcode.hasPayload(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE));
        assertFalse(Opcode.hasPayload(Opcode.RC_RDMA_READ_REQUEST));
        assertFalse(Opcode.hasPayload(Opcode.RC_ACKNOWLEDGE));
        assertFalse(Opcode.hasPayload(Opcode.RC_FETCH_ADD));
        assertFalse(Opcode.hasPayload(Opcode.CNP));
        assertTrue(Opcode.isStart(Opcode.RC_SEND_FIRST) && !Opcode.isEnd(Opcode.RC_SEND_FIRST));
        assertTrue(Opcode.isStart(Opcode.UD_SEND_ONLY) && Opcode.isEnd(Opcode.UD_SEND_ONLY));
        assertTrue(!Opcode.isStart(Opcode.UC_RDMA_WRITE_LAST) && Opcode.isEnd(Opcode.UC_RDMA_WRITE_LAST));
        assertTrue(Opcode.has(Opcode.RC_SEND_MIDDLE, Opcode.MIDDLE));
        assertTrue(Opcode.isResponse(Opcode.RC_RDMA_READ_RESPONSE_LAST));
        assertTrue(Opcode.isResponse(Opcode.RC_ATOMIC_ACKNOWLEDGE));
        assertTrue(Opcode.isRequest(Opcode.RC_RDMA_READ_REQUEST));
        assertEquals(Opcode.TRANSPORT_UC, Opcode.transport(Opcode.UC_SEND_ONLY));
        assertEquals(Opcode.TRANSPORT_UD, Opcode.transport(Opcode.UD_SEND_ONLY));
        assertEquals(Opcode.TRANSPORT_CNP, Opcode.transport(Opcode.CNP));
    }

    @Test
    void namesFollowTable38() {
        assertEquals("RC SEND First", Opcode.name(0x00));
        assertEquals("RC RDMA WRITE Last with Immediate", Opcode.name(0x09));
        assertEquals("RC RDMA READ response Only", Opcode.name(0x10));
        assertEquals("RC ATOMIC Acknowledge", Opcode.name(0x12));
        assertEquals("RC FetchAdd", Opcode.name(0x14));
        assertEquals("RC SEND Only with Invalidate", Opcode.name(0x17));
        assertEquals("UC RDMA WRITE Only with Immediate", Opcode.name(0x2b));
        assertEquals("UD SEND Only with Immediate", Opcode.name(0x65));
        assertEquals("CNP", Opcode.name(0x81));
        assertEquals("reserved 0x15", Opcode.name(0x15));
        assertEquals("AtomicAckETH", Opcode.headerName(Opcode.ATOMIC_ACK_ETH));
    }

    /**
     * The Memory Placement Extensions rows as rxe's opcode table (Linux 6.2+, rxe_opcode.c) has them:
     * FLUSH 0x1C = BTH + FETH (offset 12) + RETH (offset 16), 32 bytes of headers, no payload; ATOMIC
     * WRITE 0x1D = BTH + RETH (offset 12), 28 bytes of headers, then its 8-byte payload; RC only.
     */
    @Test
    void flushAndAtomicWriteRowsAreRxes() {
        assertTrue(Opcode.isValid(0x1c) && Opcode.isValid(0x1d));
        assertEquals(0x1c, Opcode.RC_FLUSH);
        assertEquals(0x1d, Opcode.RC_ATOMIC_WRITE);
        assertEquals("RC FLUSH", Opcode.name(0x1c));
        assertEquals("RC ATOMIC WRITE", Opcode.name(0x1d));
        assertEquals(32, Opcode.headerLength(0x1c));
        assertEquals(12, Opcode.offset(0x1c, Opcode.FETH));
        assertEquals(16, Opcode.offset(0x1c, Opcode.RETH));
        assertFalse(Opcode.hasPayload(0x1c));
        assertEquals(28, Opcode.headerLength(0x1d));
        assertEquals(12, Opcode.offset(0x1d, Opcode.RETH));
        assertEquals(-1, Opcode.offset(0x1d, Opcode.FETH));
        assertTrue(Opcode.hasPayload(0x1d));
        assertTrue(Opcode.isRequest(0x1c) && Opcode.isStart(0x1c) && Opcode.isEnd(0x1c));
        assertTrue(Opcode.isRequest(0x1d) && Opcode.isStart(0x1d) && Opcode.isEnd(0x1d));
        assertEquals(0x1c, Opcode.of(Opcode.TRANSPORT_RC, Opcode.REQUEST | Opcode.OP_FLUSH | Opcode.ONLY));
        assertEquals(0x1d, Opcode.of(Opcode.TRANSPORT_RC, Opcode.REQUEST | Opcode.OP_ATOMIC_WRITE | Opcode.ONLY));
        assertEquals(-1, Opcode.of(Opcode.TRANSPORT_UC, Opcode.REQUEST | Opcode.OP_FLUSH | Opcode.ONLY), "RC only");
        assertFalse(Opcode.isValid(0x3c) || Opcode.isValid(0x3d), "no UC rows");
        assertEquals("FETH", Opcode.headerName(Opcode.FETH));
        assertEquals("IETH", Opcode.headerName(Opcode.IETH));
        assertEquals("DETH", Opcode.headerName(Opcode.DETH));
    }

    /** FETH (Annex A19.4.1; rxe_hdr.h): PLT in bits 3-0, SEL in bits 5-4 of one big-endian word. */
    @Test
    void fethLayout() {
        java.lang.foreign.MemorySegment m = java.lang.foreign.MemorySegment.ofArray(new byte[4]);
        new Feth().wrap(m, 0).set(Feth.PLT_GLOBAL | Feth.PLT_PERSISTENT, Feth.SEL_MR);
        assertEquals(0x13, m.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 3));
        assertEquals(0, m.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
        m.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 3, (byte) 0x01);
        m.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 0xff); // reserved bits are not PLT/SEL
        Feth f = new Feth().wrap(m, 0);
        assertEquals(Feth.PLT_GLOBAL, f.placementType());
        assertEquals(Feth.SEL_RANGE, f.selectivity());
    }
}
