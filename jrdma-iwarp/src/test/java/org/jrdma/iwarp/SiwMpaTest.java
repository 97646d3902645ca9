package org.jrdma.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.jrdma.verbs.ext.HardwareCounters;
import org.junit.jupiter.api.Test;

/**
 * The MPA exchange against a raw peer ({@link RawMpaPeer}) and between jsiw devices: siw's reject
 * frames ({@code siw_proc_mpareq}'s reject_conn for markers and for Enhanced without IRD/ORD;
 * {@code siw_reject} for the listener's reject, with the negotiated IRD/ORD block and the private
 * data), silent close for a wrong key, peer-to-peer mode with the zero-length RTR (RFC 6581 §5,
 * {@code siw_accept}'s wait_for_peer_rts, {@code siw_qp_mpa_rts}), and the private data limits of
 * rdma_cm over iWARP (librdmacm's {@code uint8_t private_data_len}; siw_accept's 256 - 4).
 */
class SiwMpaTest {
    private static final AtomicInteger PORTS = new AtomicInteger(40000 + (int) (ProcessHandle.current().pid() % 4000));
    private static final Duration QUIET = Duration.ofMillis(300);

    /** A jsiw0 listener. */
    static final class Listener implements AutoCloseable {
        final EventChannel ch = EventChannel.create();
        final CmId id = CmId.create(ch, "mpa-listener", PortSpace.TCP);
        final int port = PORTS.incrementAndGet();
        final InetSocketAddress at = new InetSocketAddress(SiwCmLoopbackTest.SERVER, port);

        Listener() {
            id.bind(at);
            id.listen(4);
        }

        @Override
        public void close() {
            id.destroy();
        }
    }

    private static HardwareCounters counters(CmId id) {
        return id.verbs().extension(HardwareCounters.class).orElseThrow();
    }

    private static void assertNoEvent(EventChannel ch) {
        ch.getEvent(QUIET).ifPresent(e -> {
            e.ack();
            throw new AssertionError("unexpected event " + e);
        });
    }

    private static byte[] header(int flags, int revision, int pdLen) {
        return Arrays.copyOf(RawMpaPeer.frame(RawMpaPeer.REP_KEY, flags, revision, new byte[pdLen]), 20);
    }

    @Test
    void markersAreRefusedWithSiwsRejectFrame() throws IOException {
        try (Listener l = new Listener(); RawMpaPeer p = new RawMpaPeer(l.at)) {
            p.write(RawMpaPeer.frame(RawMpaPeer.REQ_KEY, RawMpaPeer.M | RawMpaPeer.ENHANCED, 2,
                    RawMpaPeer.irdOrd(4, 0, 4, 0, "pd".getBytes(StandardCharsets.US_ASCII))));
            byte[] rej = p.readFrame();
            // the request's header: reply key, M cleared, R set, Enhanced and revision 2 kept; a zero IRD/ORD block, no private data
            assertArrayEquals(header(RawMpaPeer.ENHANCED | RawMpaPeer.R, 2, 4), Arrays.copyOf(rej, 20));
            assertArrayEquals(new byte[4], Arrays.copyOfRange(rej, 20, 24));
            assertTrue(p.closedByPeer());
            assertNoEvent(l.ch);
        }
    }

    @Test
    void enhancedWithoutIrdOrdIsRefused() throws IOException {
        try (Listener l = new Listener(); RawMpaPeer p = new RawMpaPeer(l.at)) {
            p.write(RawMpaPeer.frame(RawMpaPeer.REQ_KEY, RawMpaPeer.ENHANCED | RawMpaPeer.C, 2, new byte[2]));
            byte[] rej = p.readFrame();
            assertArrayEquals(header(RawMpaPeer.ENHANCED | RawMpaPeer.C | RawMpaPeer.R, 2, 0), rej);
            assertTrue(p.closedByPeer());
            assertNoEvent(l.ch);
        }
    }

    @Test
    void aWrongKeyIsClosedWithoutAnAnswer() throws IOException {
        try (Listener l = new Listener(); RawMpaPeer p = new RawMpaPeer(l.at)) {
            p.write(RawMpaPeer.frame(RawMpaPeer.REP_KEY, RawMpaPeer.ENHANCED, 2, RawMpaPeer.irdOrd(4, 0, 4, 0, new byte[0])));
            assertTrue(p.closedByPeer(), "closed, and no byte came back");
            assertNoEvent(l.ch);
        }
    }

    @Test
    void theListenersRejectCarriesIrdOrdAndPrivateData() throws IOException {
        try (Listener l = new Listener(); RawMpaPeer p = new RawMpaPeer(l.at)) {
            p.write(RawMpaPeer.frame(RawMpaPeer.REQ_KEY, RawMpaPeer.ENHANCED | RawMpaPeer.C, 2,
                    RawMpaPeer.irdOrd(8, 0, 16, 0, "req".getBytes(StandardCharsets.US_ASCII))));
            CmEvent req = SiwCmLoopbackTest.expect(l.ch, CmEventType.CONNECT_REQUEST);
            assertEquals("req", new String(req.privateData(), StandardCharsets.US_ASCII));
            long sent = counters(req.id()).get("mpa_rejects_sent");
            req.id().reject("no thanks".getBytes(StandardCharsets.US_ASCII));
            byte[] rej = p.readFrame();
            // siw_reject: R on the reply to the request (C honoured), IRD = the request's ORD, ORD = its IRD
            byte[] pd = RawMpaPeer.irdOrd(16, 0, 8, 0, "no thanks".getBytes(StandardCharsets.US_ASCII));
            assertArrayEquals(RawMpaPeer.frame(RawMpaPeer.REP_KEY, RawMpaPeer.ENHANCED | RawMpaPeer.C | RawMpaPeer.R, 2, pd), rej);
            assertTrue(p.closedByPeer());
            assertEquals(sent + 1, counters(req.id()).get("mpa_rejects_sent"));
            req.id().destroy();
        }
    }

    /** The passive side of peer-to-peer mode: the reply grants it and names the RTR; ESTABLISHED waits for the RTR frame. */
    private static void peerToPeer(int offered, int granted, boolean sendWrite) throws IOException {
        try (Listener l = new Listener(); RawMpaPeer p = new RawMpaPeer(l.at); Arena arena = Arena.ofConfined()) {
            p.write(RawMpaPeer.frame(RawMpaPeer.REQ_KEY, RawMpaPeer.ENHANCED, 2, RawMpaPeer.irdOrd(4, 0x8000, 4, offered, new byte[0])));
            CmEvent req = SiwCmLoopbackTest.expect(l.ch, CmEventType.CONNECT_REQUEST);
            CmId id = req.id();
            ProtectionDomain pd = id.verbs().allocPd();
            var cq = id.verbs().createCq(8, null);
            QueuePair qp = id.createQp(pd, SiwCmLoopbackTest.Pair.attr(cq));
            id.accept(new ConnParam().responderResources(4).initiatorDepth(4));
            byte[] rep = p.readFrame();
            assertArrayEquals(RawMpaPeer.frame(RawMpaPeer.REP_KEY, RawMpaPeer.ENHANCED, 2,
                    RawMpaPeer.irdOrd(4, 0x8000, 4, granted, new byte[0])), rep);
            assertNoEvent(l.ch); // no ESTABLISHED before the RTR frame
            long terms = counters(id).get("sent_terminates");
            if (sendWrite) {
                p.write(p.fpdu(RawMpaPeer.tagged(0, true, 1, 0, new byte[0]), false)); // zero-length WRITE, STag 1, TO 0
            } else {
                byte[] rr = ByteBuffer.allocate(28).putInt(0).putLong(0).putInt(0).putInt(1).putLong(0).array();
                p.write(p.fpdu(RawMpaPeer.untagged(1, true, 0, 1, 1, 0, rr), false)); // zero-length READ
                byte[] resp = p.readFpdu();
                // a zero-length Read Response to sink STag 0, TO 0: tagged, Last, opcode 2
                assertArrayEquals(p.fpdu(RawMpaPeer.tagged(2, true, 0, 0, new byte[0]), false), resp);
            }
            SiwCmLoopbackTest.expect(l.ch, CmEventType.ESTABLISHED);
            assertEquals(QpState.RTS, qp.state());
            assertEquals(terms, counters(id).get("sent_terminates"), "the RTR frame is not checked against any STag");
            id.destroy();
            qp.close();
        }
    }

    @Test
    void peerToPeerWithWriteRtrEstablishesOnTheZeroLengthWrite() throws IOException {
        peerToPeer(0x8000 | 0x4000, 0x8000, true);
    }

    @Test
    void peerToPeerWithOnlyReadRtrGetsTheReadAndAnswersIt() throws IOException {
        peerToPeer(0x4000, 0x4000, false);
    }

    @Test
    void jsiwAsPeerToPeerInitiatorSendsTheRtrWrite() {
        System.setProperty("jrdma.iwarp.peerToPeer", "true");
        SiwCmLoopbackTest.Pair pair;
        try {
            pair = new SiwCmLoopbackTest.Pair(1);
        } finally {
            System.clearProperty("jrdma.iwarp.peerToPeer");
        }
        try (SiwCmLoopbackTest.Pair p = pair) {
            assertTrue(counters(p.client).get("sent_rtr") >= 1);
            assertEquals(QpState.RTS, p.sqp.state());
            p.cqp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr(), 64, p.cmr.lkey())));
            assertEquals(WcStatus.SUCCESS, SiwCmLoopbackTest.poll(p.ccq).status());
            assertEquals(WcStatus.SUCCESS, SiwCmLoopbackTest.poll(p.scq).status());
        }
    }

    @Test
    void privateDataLimitsAreIwarps() throws IOException {
        try (Listener l = new Listener()) {
            EventChannel cch = EventChannel.create();
            CmId client = CmId.create(cch, null, PortSpace.TCP);
            client.resolveAddr(new InetSocketAddress(SiwCmLoopbackTest.CLIENT, 0), l.at, SiwCmLoopbackTest.WAIT);
            SiwCmLoopbackTest.expect(cch, CmEventType.ADDR_RESOLVED);
            client.resolveRoute(SiwCmLoopbackTest.WAIT);
            SiwCmLoopbackTest.expect(cch, CmEventType.ROUTE_RESOLVED);
            QueuePair cqp = client.createQp(client.verbs().allocPd(), SiwCmLoopbackTest.Pair.attr(client.verbs().createCq(8, null)));
            VerbsException big = assertThrows(VerbsException.class, () -> client.connect(new ConnParam().privateData(new byte[256])));
            assertEquals(Errno.EINVAL, big.errno());
            byte[] pd = new byte[255];
            Arrays.fill(pd, (byte) 7);
            client.connect(new ConnParam().privateData(pd)); // more than the IB CM's 56
            CmEvent req = SiwCmLoopbackTest.expect(l.ch, CmEventType.CONNECT_REQUEST);
            assertArrayEquals(pd, req.privateData());
            VerbsException acc = assertThrows(VerbsException.class, () -> req.id().accept(new ConnParam().privateData(new byte[253])));
            assertEquals(Errno.EINVAL, acc.errno());
            VerbsException rej = assertThrows(VerbsException.class, () -> req.id().reject(new byte[256]));
            assertEquals(Errno.EINVAL, rej.errno());
            req.id().reject(pd);
            CmEvent r = SiwCmLoopbackTest.expect(cch, CmEventType.REJECTED);
            assertArrayEquals(pd, r.privateData());
            req.id().destroy();
            client.destroy();
            cqp.close();
        }
    }
}
