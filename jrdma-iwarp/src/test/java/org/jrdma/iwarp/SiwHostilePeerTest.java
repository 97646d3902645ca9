package org.jrdma.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.ext.HardwareCounters;
import org.junit.jupiter.api.Test;

/**
 * A hostile peer: a raw TCP client ({@link RawMpaPeer}, bytes written by the test from the RFCs)
 * connects to a jsiw0 listener, completes the MPA exchange, then sends one bad FPDU. jsiw must answer
 * with one Terminate carrying the codes siw sends for that check ({@code siw_qp_rx.c}: layer, error
 * type, error code; M/D/R and the copied header as {@code siw_send_terminate}), close the connection
 * (FIN), count the Terminate by its cause, and touch no memory outside the region the STag names (nor
 * inside it, for a segment it refuses).
 *
 * <p>The Terminate's layout is checked field by field against RFC 5040 §4.8 / §7: MPA length, DDP
 * control (untagged, Last, DV 1, RV 1, opcode 7), QN 2, MSN 1, MO 0, then the Terminate control word,
 * DDP Segment Length and the copied headers. The control word's nibbles follow siw's x86 bit-field
 * order (Layer in the low nibble of the first byte, M/D/R in bits 0x01/0x02/0x04 of the third), which
 * differs from the RFC's drawing (Layer in the high nibble, M/D/R 0x80/0x40/0x20): jsiw talks to siw,
 * which reads Terminates with the same bit-fields ({@code struct iwarp_terminate}, {@code iwarp.h}).
 */
class SiwHostilePeerTest {
    private static final AtomicInteger PORTS = new AtomicInteger(36000 + (int) (ProcessHandle.current().pid() % 4000));
    private static final int PAGE = 4096;
    private static final byte GUARD = 0x5a;
    /** siw's M, D, R bits in the third byte of the control word. */
    private static final int MF = 0x01;
    private static final int DF = 0x02;
    private static final int RF = 0x04;
    /** RDMAP opcodes (RFC 5040 §4.3 table 1). */
    private static final int WRITE = 0;
    private static final int READ_REQUEST = 1;
    private static final int SEND = 3;

    /** A jsiw0 listener with one accepted connection from a {@link RawMpaPeer}. */
    static final class Server implements AutoCloseable {
        final EventChannel ch = EventChannel.create();
        final CmId listener = CmId.create(ch, "hostile-listener", PortSpace.TCP);
        final Arena arena = Arena.ofShared();
        /** Three pages; the region is the middle one. */
        final MemorySegment whole = arena.allocate(3 * PAGE, PAGE);
        final int port = PORTS.incrementAndGet();
        CmId id;
        QueuePair qp;
        CompletionQueue cq;
        MemoryRegion mr;
        HardwareCounters counters;
        RawMpaPeer peer;
        byte[] reply;

        Server() {
            listener.bind(new InetSocketAddress(SiwCmLoopbackTest.SERVER, port));
            listener.listen(4);
            whole.fill(GUARD);
        }

        /** The raw peer connects, sends an MPA request (revision 2, Enhanced, IRD/ORD 4, maybe C) and is accepted. */
        RawMpaPeer connect(boolean crc) throws IOException {
            peer = new RawMpaPeer(new InetSocketAddress(SiwCmLoopbackTest.SERVER, port));
            peer.write(RawMpaPeer.frame(RawMpaPeer.REQ_KEY, RawMpaPeer.ENHANCED | (crc ? RawMpaPeer.C : 0), 2,
                    RawMpaPeer.irdOrd(4, 0, 4, 0, "hostile".getBytes(StandardCharsets.US_ASCII))));
            CmEvent req = SiwCmLoopbackTest.expect(ch, CmEventType.CONNECT_REQUEST);
            id = req.id();
            ProtectionDomain pd = id.verbs().allocPd();
            cq = id.verbs().createCq(16, null);
            qp = id.createQp(pd, SiwCmLoopbackTest.Pair.attr(cq));
            mr = pd.regMr(whole.asSlice(PAGE, PAGE), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            qp.postRecv(new RecvWr().wrId(7).sgList(new Sge(mr.addr(), 256, mr.lkey())));
            counters = id.verbs().extension(HardwareCounters.class).orElseThrow();
            id.accept(new ConnParam().responderResources(4).initiatorDepth(4));
            SiwCmLoopbackTest.expect(ch, CmEventType.ESTABLISHED);
            reply = peer.readFrame();
            assertArrayEquals(RawMpaPeer.REP_KEY, Arrays.copyOf(reply, 16));
            assertEquals(crc, (reply[16] & RawMpaPeer.C) != 0, "CRC honoured");
            peer.crc = crc;
            return peer;
        }

        boolean untouched() {
            for (long i = 0; i < whole.byteSize(); i++) {
                if (whole.get(ValueLayout.JAVA_BYTE, i) != GUARD) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void close() throws IOException {
            if (peer != null) {
                peer.close();
            }
            if (id != null) {
                id.destroy();
            }
            listener.destroy();
            if (qp != null) {
                qp.close();
            }
        }
    }

    private static int u16(byte[] b, int o) {
        return (b[o] & 0xff) << 8 | (b[o + 1] & 0xff);
    }

    private static int u32(byte[] b, int o) {
        return ByteBuffer.wrap(b, o, 4).getInt();
    }

    /**
     * Checks a Terminate FPDU (RFC 5040 §4.8 with siw's control-word bit order) and returns nothing;
     * {@code info} null: the bytes after the control word are not compared (only their length).
     */
    private static void assertTerminate(byte[] f, boolean crc, int layer, int etype, int code, int mdr, int infoLength,
                                        byte[] info) {
        assertEquals(18 + 4 + infoLength, u16(f, 0), "ULPDU_Length: untagged header + control word + copied header");
        assertEquals(0x41, f[2] & 0xff, "DDP control: untagged, Last, DV 1");
        assertEquals(0x47, f[3] & 0xff, "RDMAP control: RV 1, opcode 7 (Terminate)");
        assertEquals(0, u32(f, 4), "reserved for the ULP");
        assertEquals(2, u32(f, 8), "QN 2 (Terminate)");
        assertEquals(1, u32(f, 12), "MSN 1");
        assertEquals(0, u32(f, 16), "MO 0");
        assertEquals(etype << 4 | layer, f[20] & 0xff, "Layer (low nibble, siw) and EType (high nibble)");
        assertEquals(code, f[21] & 0xff, "Error Code");
        assertEquals(mdr, f[22] & 0xff, "M/D/R");
        assertEquals(0, f[23], "reserved");
        if (info != null) {
            assertArrayEquals(info, Arrays.copyOfRange(f, 24, 24 + infoLength), "DDP Segment Length + copied header");
        }
        int end = 2 + u16(f, 0);
        for (int i = end; i < f.length - 4; i++) {
            assertEquals(0, f[i], "pad");
        }
        int stored = ByteBuffer.wrap(f, f.length - 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (crc) {
            CRC32C c = new CRC32C();
            c.update(f, 0, f.length - 4);
            assertEquals((int) c.getValue(), stored, "MPA CRC of the Terminate");
        } else {
            assertEquals(0, stored, "CRC field zero without CRC");
        }
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    private static byte[] be16(int v) {
        return new byte[] {(byte) (v >> 8), (byte) v};
    }

    /**
     * Sends {@code ulpdu} (CRC flipped when {@code badCrc}) and checks the Terminate, the FIN, the
     * counters (sent_terminates and {@code cause} each one more) and that the QP is in ERR.
     */
    private static void hostile(boolean crc, byte[] ulpdu, boolean badCrc, String cause, int layer, int etype, int code,
                                int mdr, int infoLength, byte[] info) throws IOException {
        try (Server s = new Server()) {
            RawMpaPeer p = s.connect(crc);
            long terms = s.counters.get("sent_terminates");
            long byCause = s.counters.get(cause);
            p.write(p.fpdu(ulpdu, badCrc));
            byte[] t = p.readFpdu();
            assertTerminate(t, crc, layer, etype, code, mdr, infoLength, info);
            assertTrue(p.closedByPeer(), "the connection ends after the Terminate");
            assertEquals(terms + 1, s.counters.get("sent_terminates"));
            assertEquals(byCause + 1, s.counters.get(cause), cause);
            assertEquals(QpState.ERR, s.qp.state());
            assertTrue(s.untouched(), "no byte of the three pages changed");
        }
    }

    @Test
    void wellFormedWriteAndSendArePlaced() throws IOException {
        try (Server s = new Server()) {
            RawMpaPeer p = s.connect(false);
            long rcvd = s.counters.get("rcvd_fpdus");
            long terms = s.counters.get("sent_terminates");
            byte[] data = "sixteen bytes!!!".getBytes(StandardCharsets.US_ASCII);
            p.write(p.fpdu(RawMpaPeer.tagged(WRITE, true, s.mr.rkey(), s.mr.addr() + 100, data), false));
            p.write(p.fpdu(RawMpaPeer.untagged(SEND, true, 0, 0, 1, 0, new byte[] {1, 2, 3}), false));
            WorkCompletion wc = SiwCmLoopbackTest.poll(s.cq);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(3, wc.byteLen());
            assertArrayEquals(data, SiwCmLoopbackTest.bytes(s.whole, PAGE + 100, 16));
            assertArrayEquals(new byte[] {1, 2, 3}, SiwCmLoopbackTest.bytes(s.whole, PAGE, 3));
            assertEquals(QpState.RTS, s.qp.state());
            assertEquals(rcvd + 2, s.counters.get("rcvd_fpdus"), "rcvd_fpdus counts both FPDUs");
            assertEquals(terms, s.counters.get("sent_terminates"));
        }
    }

    /** siw_proc_write / siw_check_mem: a WRITE crossing the region's end: DDP, tagged buffer, base or bounds. */
    @Test
    void writePastTheRegionGetsBaseBounds() throws IOException {
        int payload = 64;
        try (Server s = new Server()) {
            RawMpaPeer p = s.connect(false);
            long to = s.mr.addr() + PAGE - 32;
            byte[] u = RawMpaPeer.tagged(WRITE, true, s.mr.rkey(), to, new byte[payload]);
            long terms = s.counters.get("sent_terminates");
            long bounds = s.counters.get("term_ddp_t_base_bounds");
            p.write(p.fpdu(u, false));
            byte[] t = p.readFpdu();
            assertTerminate(t, false, 1, 1, 1, MF | DF, 16, concat(be16(payload), Arrays.copyOf(u, 14)));
            assertTrue(p.closedByPeer());
            assertEquals(terms + 1, s.counters.get("sent_terminates"));
            assertEquals(bounds + 1, s.counters.get("term_ddp_t_base_bounds"));
            assertTrue(s.untouched(), "no byte of the three pages changed");
            assertEquals(QpState.ERR, s.qp.state());
        }
    }

    /** siw_proc_write: no region with the STag: DDP, tagged buffer, invalid STag; header copied. */
    @Test
    void writeToAnUnknownStagGetsInvalidStag() throws IOException {
        byte[] u = RawMpaPeer.tagged(WRITE, true, 0x0bad_0b00, 0x1000, new byte[8]);
        hostile(false, u, false, "term_ddp_t_invalid_stag", 1, 1, 0, MF | DF, 16, concat(be16(8), Arrays.copyOf(u, 14)));
    }

    /** siw_get_trailer: CRC negotiated and wrong: LLP, MPA, CRC error; no header; the SEND is not placed. */
    @Test
    void badCrcGetsLlpCrcError() throws IOException {
        byte[] u = RawMpaPeer.untagged(SEND, true, 0, 0, 1, 0, new byte[] {9, 9, 9, 9});
        hostile(true, u, true, "term_llp_crc_error", 2, 0, 2, 0, 0, new byte[0]);
    }

    /** siw_get_hdr: DDP version 2: DDP, untagged buffer, invalid DDP version; no header (layout unknown). */
    @Test
    void badDdpVersionGetsVersionError() throws IOException {
        byte[] u = RawMpaPeer.untagged(SEND, true, 0, 0, 1, 0, new byte[4]);
        u[0] = (byte) ((u[0] & ~0x03) | 0x02);
        hostile(false, u, false, "term_ddp_ut_version", 1, 2, 6, 0, 0, new byte[0]);
    }

    /** siw_get_hdr: a reserved opcode: RDMAP, remote operation, invalid opcode; no header. */
    @Test
    void reservedOpcodeGetsOpcodeError() throws IOException {
        byte[] u = RawMpaPeer.untagged(9, true, 0, 0, 1, 0, new byte[4]);
        hostile(false, u, false, "term_rdmap_opcode", 0, 2, 6, 0, 0, new byte[0]);
    }

    /** siw_send_check_ntoh: a SEND with MSN 5 where 1 is due: DDP, untagged buffer, MSN range; header copied. */
    @Test
    void sendOutOfMsnRangeGetsMsnRange() throws IOException {
        byte[] u = RawMpaPeer.untagged(SEND, true, 0, 0, 5, 0, new byte[12]);
        hostile(false, u, false, "term_ddp_ut_msn_range", 1, 2, 3, MF | DF, 20, concat(be16(12), Arrays.copyOf(u, 18)));
    }

    /** A SEND larger than the receive WQE (256 bytes): DDP, untagged buffer, message too long. */
    @Test
    void sendLongerThanTheReceiveBufferIsRefused() throws IOException {
        byte[] u = RawMpaPeer.untagged(SEND, true, 0, 0, 1, 0, new byte[300]);
        hostile(false, u, false, "term_ddp_ut_msg_too_long", 1, 2, 5, MF | DF, 20, concat(be16(300), Arrays.copyOf(u, 18)));
    }

    /**
     * A Read Request whose source STag names nothing: RDMAP, remote protection, invalid STag, with M, D
     * and R and the whole Read Request (46 bytes; DDP Segment Length 0), as siw_send_terminate.
     */
    @Test
    void readRequestOfAnUnknownStagGetsRdmapInvalidStag() throws IOException {
        byte[] rr = ByteBuffer.allocate(28).putInt(0x1234_5600).putLong(0x7000).putInt(64).putInt(0x0bad_0b00)
                .putLong(0x1000).array();
        byte[] u = RawMpaPeer.untagged(READ_REQUEST, true, 0, 1, 1, 0, rr);
        hostile(false, u, false, "term_rdmap_invalid_stag", 0, 1, 0, MF | DF | RF, 48, concat(be16(0), u));
    }
}
