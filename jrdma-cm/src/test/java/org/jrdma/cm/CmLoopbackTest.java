package org.jrdma.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.mad.CmMra;
import org.jrdma.mad.CmRep;
import org.jrdma.mad.CmReq;
import org.jrdma.mad.CmRtu;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * rdma_cm semantics between two jrdma devices of this JVM (jrxe0 = 127.X.Y.1 server, jrxe1 =
 * 127.X.Y.2 client): the CM's MADs go through {@link MadFabric} (a QP1 double that can drop and
 * duplicate), the QPs it connects carry real RoCE v2 traffic over loopback.
 */
class CmLoopbackTest {
    /** jrxe0 and jrxe1 on a random loopback pair 127.X.Y.1/2 (so that runs at the same time on this machine do not meet). */
    private static final String[] PAIR = loopbackPair();
    static final InetAddress SERVER = addr(PAIR[0]);
    static final InetAddress CLIENT = addr(PAIR[1]);
    static final Duration WAIT = Duration.ofSeconds(10);
    private static final AtomicInteger PORTS = new AtomicInteger(20000 + (int) (ProcessHandle.current().pid() % 5000));

    @BeforeAll
    static void fabric() {
        MadFabric.install();
    }

    @BeforeEach
    void reset() {
        MadFabric.INSTANCE.reset();
    }

    /** Picks the pair and configures the devices with it, before any device is looked at (a JVM per test class). */
    private static String[] loopbackPair() {
        for (int attempt = 0; attempt < 50; attempt++) {
            java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
            String net = "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + ".";
            if (free(net + "1") && free(net + "2")) {
                System.setProperty("jrdma.devices", "jrxe0=" + net + "1,jrxe1=" + net + "2");
                return new String[] {net + "1", net + "2"};
            }
        }
        throw new AssertionError("no free loopback address pair for UDP 4791");
    }

    private static boolean free(String ip) {
        try (java.net.DatagramSocket s = new java.net.DatagramSocket(new InetSocketAddress(ip, 4791))) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    static InetAddress addr(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    static CmEvent expect(EventChannel ch, CmEventType type) {
        CmEvent e = ch.getEvent(WAIT).orElseThrow(() -> new AssertionError("no " + type + " within " + WAIT));
        e.ack();
        assertEquals(type, e.type(), "event " + e);
        return e;
    }

    static void expectNothing(EventChannel ch, Duration d) {
        Optional<CmEvent> e = ch.getEvent(d);
        assertTrue(e.isEmpty(), () -> "unexpected " + e.get());
    }

    /**
     * An ID bound to SERVER: the CM of the server's device is running in this process (as the kernel's
     * always is), so that a REQ to a port nobody listens on is answered.
     */
    static CmId serverCmRunning() {
        CmId id = CmId.create(EventChannel.create(), null, PortSpace.TCP);
        id.bind(new InetSocketAddress(SERVER, 0));
        return id;
    }

    /** A listener on SERVER:port. */
    static CmId listen(EventChannel ch, int port) {
        return listen(ch, port, PortSpace.TCP);
    }

    /** A listener of port space {@code ps} on SERVER:port. */
    static CmId listen(EventChannel ch, int port, PortSpace ps) {
        CmId l = CmId.create(ch, "listener", ps);
        l.bind(new InetSocketAddress(SERVER, port));
        l.listen(4);
        return l;
    }

    /** A client ID with address and route resolved to SERVER:port from CLIENT. */
    static CmId resolved(EventChannel ch, int port) {
        return resolved(ch, port, PortSpace.TCP);
    }

    /** A client ID of port space {@code ps} with address and route resolved to SERVER:port from CLIENT. */
    static CmId resolved(EventChannel ch, int port, PortSpace ps) {
        CmId c = CmId.create(ch, "client", ps);
        c.resolveAddr(new InetSocketAddress(CLIENT, 0), new InetSocketAddress(SERVER, port), WAIT);
        expect(ch, CmEventType.ADDR_RESOLVED);
        assertEquals("jrxe1", c.verbs().device().name());
        c.resolveRoute(WAIT);
        expect(ch, CmEventType.ROUTE_RESOLVED);
        return c;
    }

    static QueuePair qp(CmId id, ProtectionDomain pd) {
        CompletionQueue cq = id.verbs().createCq(64, null);
        QpInitAttr a = new QpInitAttr().sendCq(cq).recvCq(cq);
        a.cap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1);
        return id.createQp(pd, a);
    }

    static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long end = System.nanoTime() + WAIT.toNanos();
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > end) {
                throw new AssertionError("no completion within " + WAIT);
            }
            Thread.onSpinWait();
        }
        return wc[0];
    }

    @Test
    void connectAcceptEstablishedCarriesDataThenDisconnectEndsInTimewaitExitOnBothSides() {
        int port = PORTS.incrementAndGet();
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create(); Arena arena = Arena.ofShared()) {
            CmId listener = listen(sch, port);
            CmId client = resolved(cch, port);
            ProtectionDomain cpd = client.verbs().allocPd();
            QueuePair cqp = qp(client, cpd);
            assertEquals(QpState.INIT, cqp.state());
            byte[] hello = "hello from the client".getBytes(StandardCharsets.US_ASCII);
            client.connect(new ConnParam().privateData(hello).responderResources(1).initiatorDepth(1)
                    .retryCount(7).rnrRetryCount(7));

            CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
            assertEquals(listener, req.listenId());
            CmId server = req.id();
            assertEquals(56, req.privateData().length, "the REQ's 92 bytes less the 36-byte rdma_cm IP header");
            assertArrayEquals(hello, Arrays.copyOf(req.privateData(), hello.length));
            assertEquals(1, req.connParam().responderResources());
            assertEquals(1, req.connParam().initiatorDepth());
            assertEquals(cqp.qpNum(), req.connParam().qpNum());
            assertEquals(CLIENT, server.peerAddress().getAddress());
            assertEquals(client.localAddress().getPort(), server.peerAddress().getPort());
            assertEquals(new InetSocketAddress(SERVER, port), server.localAddress());
            assertEquals("jrxe0", server.verbs().device().name());

            ProtectionDomain spd = server.verbs().allocPd();
            QueuePair sqp = qp(server, spd);
            MemorySegment sbuf = arena.allocate(4096, 64);
            MemoryRegion smr = spd.regMr(sbuf, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            sqp.postRecv(new RecvWr().wrId(7).sgList(new Sge(sbuf.address(), 64, smr.lkey())));
            byte[] welcome = "welcome".getBytes(StandardCharsets.US_ASCII);
            server.accept(new ConnParam().privateData(welcome).responderResources(1).initiatorDepth(1).rnrRetryCount(7));

            CmEvent est = expect(cch, CmEventType.ESTABLISHED);
            assertEquals(196, est.privateData().length);
            assertArrayEquals(welcome, Arrays.copyOf(est.privateData(), welcome.length));
            assertEquals(sqp.qpNum(), est.connParam().qpNum());
            expect(sch, CmEventType.ESTABLISHED);
            assertEquals(QpState.RTS, cqp.state());
            assertEquals(QpState.RTS, sqp.state());

            // the QPs the CM connected carry a SEND
            MemorySegment cbuf = arena.allocate(4096, 64);
            MemoryRegion cmr = cpd.regMr(cbuf, AccessFlags.LOCAL_WRITE);
            cbuf.setString(0, "ping over the CM", StandardCharsets.US_ASCII);
            cqp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(cbuf.address(), 64, cmr.lkey())));
            assertEquals(WcStatus.SUCCESS, poll(cqp.sendCq()).status());
            WorkCompletion wc = poll(sqp.recvCq());
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals("ping over the CM", sbuf.getString(0, StandardCharsets.US_ASCII));

            // DREQ: the server learns of it at once, the client when the server answers (DREP), as in rping
            client.disconnect();
            assertEquals(QpState.ERR, cqp.state());
            expect(sch, CmEventType.DISCONNECTED);
            expectNothing(cch, Duration.ofMillis(200));
            server.disconnect();
            assertEquals(QpState.ERR, sqp.state());
            expect(cch, CmEventType.DISCONNECTED);
            expect(cch, CmEventType.TIMEWAIT_EXIT);
            expect(sch, CmEventType.TIMEWAIT_EXIT);
            client.destroy();
            server.destroy();
            listener.destroy();
        }
    }

    @Test
    void rejectWithPrivateDataGivesRejectedReason28AndTheData() {
        int port = PORTS.incrementAndGet();
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = listen(sch, port);
            CmId client = resolved(cch, port);
            qp(client, client.verbs().allocPd());
            client.connect(new ConnParam());
            CmId server = expect(sch, CmEventType.CONNECT_REQUEST).id();
            byte[] no = "not today".getBytes(StandardCharsets.US_ASCII);
            server.reject(no);
            CmEvent e = expect(cch, CmEventType.REJECTED);
            assertEquals(28, e.status(), "IBTA table 112: consumer reject");
            assertEquals(148, e.privateData().length);
            assertArrayEquals(no, Arrays.copyOf(e.privateData(), no.length));
            assertEquals(QpState.ERR, client.qp().state());
            server.destroy();
            client.destroy();
            listener.destroy();
        }
    }

    @Test
    void connectToAPortNobodyListensOnIsRejectedWithInvalidServiceId() {
        int port = PORTS.incrementAndGet();
        try (EventChannel cch = EventChannel.create(); CmId bound = serverCmRunning()) {
            CmId client = resolved(cch, port);
            qp(client, client.verbs().allocPd());
            client.connect(new ConnParam());
            CmEvent e = expect(cch, CmEventType.REJECTED);
            assertEquals(8, e.status(), "IBTA table 112: invalid service ID");
            client.destroy();
        }
    }

    @Test
    void aPeerThatNeverAnswersGivesUnreachableAfterTheRetries() {
        int port = PORTS.incrementAndGet();
        MadFabric.INSTANCE.dropIf = s -> true;
        try (EventChannel cch = EventChannel.create()) {
            CmId client = resolved(cch, port);
            qp(client, client.verbs().allocPd());
            client.setCmTimeouts(8, 1);   // per try 2 × 2^(18-8) + 2^0 ms = 2049 ms, two tries
            long t0 = System.nanoTime();
            client.connect(new ConnParam());
            CmEvent e = expect(cch, CmEventType.UNREACHABLE);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(-Errno.ETIMEDOUT, e.status());
            assertEquals(2, MadFabric.INSTANCE.sent(CmReq.ATTRIBUTE_ID).size(), "the REQ and one retry");
            assertTrue(ms >= 4000 && ms < 9000, "UNREACHABLE after two tries of 2049 ms, took " + ms + " ms");
            client.destroy();
        }
    }

    @Test
    void aDuplicateReqMakesNoSecondConnectionAndIsAnsweredWithTheOwedMra() {
        int port = PORTS.incrementAndGet();
        MadFabric.INSTANCE.duplicateIf = s -> s.attributeId() == CmReq.ATTRIBUTE_ID;
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = listen(sch, port);
            CmId client = resolved(cch, port);
            qp(client, client.verbs().allocPd());
            client.connect(new ConnParam().responderResources(1).initiatorDepth(1));
            CmId server = expect(sch, CmEventType.CONNECT_REQUEST).id();
            expectNothing(sch, Duration.ofMillis(500));
            assertEquals(1, MadFabric.INSTANCE.sent(CmMra.ATTRIBUTE_ID).size(), "the MRA rdma_cm owes a repeated REQ");
            qp(server, server.verbs().allocPd());
            server.accept(null);
            expect(cch, CmEventType.ESTABLISHED);
            expect(sch, CmEventType.ESTABLISHED);
            assertEquals(1, MadFabric.INSTANCE.sent(CmRep.ATTRIBUTE_ID).size());
            assertEquals(1, MadFabric.INSTANCE.sent(CmRtu.ATTRIBUTE_ID).size());
            expectNothing(sch, Duration.ofMillis(300));
            client.destroy();
            server.destroy();
            listener.destroy();
        }
    }

    /**
     * An MRA extends the active side's wait (IBTA 12.6.6, {@code cm_mra_handler}): with two tries of
     * 2049 ms the client would give up after about 4.1 s (UNREACHABLE, as
     * {@link #aPeerThatNeverAnswersGivesUnreachableAfterTheRetries}); the server holds the request
     * for 6 s, its CM answers the client's retry with the MRA it owes (service timeout 24, 68.7 s),
     * so the late accept still connects.
     */
    @Test
    void anMraExtendsTheActiveSidesWaitPastItsRetries() throws Exception {
        int port = PORTS.incrementAndGet();
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = listen(sch, port);
            CmId client = resolved(cch, port);
            qp(client, client.verbs().allocPd());
            client.setCmTimeouts(8, 1);   // per try 2 × 2^(18-8) + 2^0 ms = 2049 ms, two tries
            long t0 = System.nanoTime();
            client.connect(new ConnParam());
            CmId server = expect(sch, CmEventType.CONNECT_REQUEST).id();
            expectNothing(cch, Duration.ofMillis(6000 - (System.nanoTime() - t0) / 1_000_000));
            assertEquals(2, MadFabric.INSTANCE.sent(CmReq.ATTRIBUTE_ID).size(), "the REQ and its one retry");
            assertEquals(1, MadFabric.INSTANCE.sent(CmMra.ATTRIBUTE_ID).size(), "the MRA answering the retry");
            qp(server, server.verbs().allocPd());
            server.accept(null);
            expect(cch, CmEventType.ESTABLISHED);
            expect(sch, CmEventType.ESTABLISHED);
            client.destroy();
            server.destroy();
            listener.destroy();
        }
    }

    /** The CM's counter {@code cm_drop_<why>} of {@code device} (its public statistics). */
    static long drops(String device, CmCounters.Drop why) {
        return CmStatistics.of(device).orElseThrow().get("cm_drop_" + why.name().toLowerCase(java.util.Locale.ROOT));
    }

    @Test
    void requestsBeyondTheBacklogAreDroppedUnansweredAndGetInOnTheirRetry() {
        int port = PORTS.incrementAndGet();
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = CmId.create(sch, null, PortSpace.TCP);
            listener.bind(new InetSocketAddress(SERVER, port));
            listener.listen(2);
            long before = drops("jrxe0", CmCounters.Drop.BACKLOG_FULL);
            CmId[] clients = new CmId[3];
            for (int i = 0; i < 3; i++) {
                clients[i] = resolved(cch, port);
                qp(clients[i], clients[i].verbs().allocPd());
                clients[i].setCmTimeouts(8, 3);    // a retry every 2049 ms
                clients[i].connect(new ConnParam());
            }
            long end = System.nanoTime() + WAIT.toNanos();
            while (drops("jrxe0", CmCounters.Drop.BACKLOG_FULL) == before && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            assertEquals(before + 1, drops("jrxe0", CmCounters.Drop.BACKLOG_FULL), "the third REQ, beyond backlog 2");
            // take the two requests (their backlog slots free up) and refuse them
            expect(sch, CmEventType.CONNECT_REQUEST).id().reject(null);
            expect(sch, CmEventType.CONNECT_REQUEST).id().reject(null);
            // the third comes again with its retry and is served
            CmEvent third = expect(sch, CmEventType.CONNECT_REQUEST);
            qp(third.id(), third.id().verbs().allocPd());
            third.id().accept(null);
            int rejected = 0;
            int established = 0;
            for (int i = 0; i < 3; i++) {
                CmEvent e = cch.getEvent(WAIT).orElseThrow();
                e.ack();
                rejected += e.type() == CmEventType.REJECTED ? 1 : 0;
                established += e.type() == CmEventType.ESTABLISHED ? 1 : 0;
            }
            assertEquals(2, rejected);
            assertEquals(1, established);
            for (CmId c : clients) {
                c.destroy();
            }
            third.id().destroy();
            listener.destroy();
        }
    }

    @Test
    void privateDataLimitsAre56OnConnect196OnAccept148OnReject() {
        int port = PORTS.incrementAndGet();
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = listen(sch, port);
            CmId client = resolved(cch, port);
            qp(client, client.verbs().allocPd());
            VerbsException e = assertThrows(VerbsException.class, () -> client.connect(new ConnParam().privateData(new byte[57])));
            assertEquals(Errno.EINVAL, e.errno());
            client.connect(new ConnParam().privateData(new byte[56]));
            CmId server = expect(sch, CmEventType.CONNECT_REQUEST).id();
            qp(server, server.verbs().allocPd());
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                    () -> server.accept(new ConnParam().privateData(new byte[197]))).errno());
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> server.reject(new byte[149])).errno());
            server.accept(new ConnParam().privateData(new byte[196]));
            expect(cch, CmEventType.ESTABLISHED);
            client.destroy();
            server.destroy();
            listener.destroy();
        }
    }

    @Test
    void synchronousEndpointsConnectWithoutEventChannels() throws Exception {
        int port = PORTS.incrementAndGet();
        CmId listener = CmId.createEp(new InetSocketAddress(SERVER, port), null, PortSpace.TCP, null, null, WAIT);
        listener.listen(1);
        Thread serverSide = Thread.ofPlatform().start(() -> {
            CmId s = listener.getRequest(WAIT).orElseThrow();
            qp(s, s.verbs().allocPd());
            s.accept(null);
        });
        QpInitAttr a = new QpInitAttr();
        a.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
        a.sendCq(null);
        CmId client = CmId.createEp(new InetSocketAddress(CLIENT, 0), new InetSocketAddress(SERVER, port), PortSpace.TCP,
                null, withCq(a), WAIT);
        client.connect(new ConnParam().responderResources(1).initiatorDepth(1));
        serverSide.join(WAIT.toMillis());
        assertEquals(QpState.RTS, client.qp().state());
        client.destroy();
        listener.destroy();
        // a synchronous connect to nobody throws ECONNREFUSED
        CmId lonely = CmId.createEp(new InetSocketAddress(CLIENT, 0), new InetSocketAddress(SERVER, PORTS.incrementAndGet()),
                PortSpace.TCP, null, withCq(a), WAIT);
        assertEquals(Errno.ECONNREFUSED, assertThrows(VerbsException.class, () -> lonely.connect(new ConnParam())).errno());
        lonely.destroy();
    }

    private static QpInitAttr withCq(QpInitAttr a) {
        // createEp's QP needs CQs on the device it resolves to: made on first use through jrxe1's CM context
        CompletionQueue cq = org.jrdma.verbs.Verbs.getDevice("jrxe1").open().createCq(16, null);
        return a.sendCq(cq).recvCq(cq);
    }

    @Test
    void eventTypesHaveLibrdmacmsValues() {
        // rdma_cma.h: enum rdma_cm_event_type
        assertEquals(0, CmEventType.ADDR_RESOLVED.value());
        assertEquals(4, CmEventType.CONNECT_REQUEST.value());
        assertEquals(7, CmEventType.UNREACHABLE.value());
        assertEquals(8, CmEventType.REJECTED.value());
        assertEquals(9, CmEventType.ESTABLISHED.value());
        assertEquals(10, CmEventType.DISCONNECTED.value());
        assertEquals(14, CmEventType.ADDR_CHANGE.value());
        assertEquals(15, CmEventType.TIMEWAIT_EXIT.value());
        assertEquals("RDMA_CM_EVENT_ESTABLISHED", CmEventType.ESTABLISHED.eventStr());
        assertNotNull(PortSpace.valueOf("TCP"));
        assertEquals(0x0000000001061c06L, PortSpace.TCP.serviceId(7174), "rxe-cm-rping.pcap's REQ");
    }
}
