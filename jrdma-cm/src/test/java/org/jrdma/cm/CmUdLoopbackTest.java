package org.jrdma.cm;

import static org.jrdma.cm.CmLoopbackTest.CLIENT;
import static org.jrdma.cm.CmLoopbackTest.SERVER;
import static org.jrdma.cm.CmLoopbackTest.WAIT;
import static org.jrdma.cm.CmLoopbackTest.expect;
import static org.jrdma.cm.CmLoopbackTest.expectNothing;
import static org.jrdma.cm.CmLoopbackTest.poll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.mad.CmSidrRep;
import org.jrdma.mad.CmSidrReq;
import org.jrdma.mad.CmaHeader;
import org.jrdma.mad.MadHeader;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AddressHandle;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SIDR (PS_UDP IDs) between two jrdma devices of this JVM, the MADs through {@link MadFabric}: the
 * SIDR_REQ/SIDR_REP on the wire as Linux's cm.c and cma.c form them (service ID
 * {@code RDMA_PS_UDP << 16 | port}, the rdma_cm IP header in the private data, Q_Key
 * {@code RDMA_UDP_QKEY}), the events as librdmacm gives them ({@code rdma_ud_param}), and real UD
 * datagrams between the QPs the CM set up.
 */
class CmUdLoopbackTest {
    private static final AtomicInteger PORTS = new AtomicInteger(30000 + (int) (ProcessHandle.current().pid() % 5000));

    @BeforeAll
    static void fabric() {
        MadFabric.install();
    }

    @BeforeEach
    void reset() {
        MadFabric.INSTANCE.reset();
    }

    private static CmId listen(EventChannel ch, int port) {
        return CmLoopbackTest.listen(ch, port, PortSpace.UDP);
    }

    private static CmId resolved(EventChannel ch, int port) {
        return CmLoopbackTest.resolved(ch, port, PortSpace.UDP);
    }

    /** A QP on a UD ID (the ID's port space makes it UD, as rdma_create_qp does). */
    private static QueuePair udQp(CmId id, ProtectionDomain pd) {
        return CmLoopbackTest.qp(id, pd);
    }

    private static CmSidrReq sidrReq(MadFabric.Sent s) {
        return new CmSidrReq().wrap(MemorySegment.ofArray(s.mad()), 0);
    }

    private static CmSidrRep sidrRep(MadFabric.Sent s) {
        return new CmSidrRep().wrap(MemorySegment.ofArray(s.mad()), 0);
    }

    private static long tid(MadFabric.Sent s) {
        return new MadHeader().wrap(MemorySegment.ofArray(s.mad()), 0).transactionId();
    }

    @Test
    void connectAcceptGivesEstablishedWithTheUdParamAndTheQpsCarryDatagrams() {
        int port = PORTS.incrementAndGet();
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create(); Arena arena = Arena.ofShared()) {
            CmId listener = listen(sch, port);
            CmId client = resolved(cch, port);
            ProtectionDomain cpd = client.verbs().allocPd();
            QueuePair cqp = udQp(client, cpd);
            assertEquals(QpType.UD, cqp.qpType());
            assertEquals(QpState.RTS, cqp.state(), "rdma_create_qp moves a UD QP to RTS (ucma_init_ud_qp)");
            byte[] hello = "udaddy hello".getBytes(StandardCharsets.US_ASCII);
            client.connect(new ConnParam().privateData(hello));

            // the SIDR_REQ as cma_resolve_ib_udp forms it
            List<MadFabric.Sent> reqs = MadFabric.INSTANCE.sent(CmSidrReq.ATTRIBUTE_ID);
            assertEquals(1, reqs.size());
            CmSidrReq m = sidrReq(reqs.get(0));
            assertEquals(0x0000000001110000L | port, m.serviceId(), "RDMA_PS_UDP << 16 | port");
            assertEquals(0xffff, m.partitionKey());
            CmaHeader h = new CmaHeader().wrap(m.privateDataSegment(), 0);
            assertEquals(0, h.cmaVersion());
            assertEquals(4, h.ipVersion());
            assertEquals(client.localAddress().getPort(), h.port());
            assertEquals(CLIENT, h.srcAddress());
            assertEquals(SERVER, h.dstAddress());
            assertArrayEquals(hello, Arrays.copyOfRange(m.privateData(), CmaHeader.LENGTH, CmaHeader.LENGTH + hello.length));

            CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
            assertEquals(listener, req.listenId());
            assertNull(req.connParam());
            UdParam rq = req.udParam();
            assertEquals(180, rq.privateData().length, "the SIDR_REQ's 216 bytes less the 36-byte IP header");
            assertArrayEquals(hello, Arrays.copyOf(rq.privateData(), hello.length));
            assertEquals(0, rq.qpNum());
            assertEquals(0, rq.qkey());
            CmId server = req.id();
            assertEquals(CLIENT, server.peerAddress().getAddress());
            assertEquals(client.localAddress().getPort(), server.peerAddress().getPort());

            ProtectionDomain spd = server.verbs().allocPd();
            QueuePair sqp = udQp(server, spd);
            MemorySegment sbuf = arena.allocate(4096, 64);
            MemoryRegion smr = spd.regMr(sbuf, AccessFlags.LOCAL_WRITE);
            sqp.postRecv(new RecvWr().wrId(7).sgList(new Sge(sbuf.address(), 40 + 256, smr.lkey())));
            byte[] welcome = "welcome".getBytes(StandardCharsets.US_ASCII);
            server.accept(new ConnParam().privateData(welcome));
            expectNothing(sch, Duration.ofMillis(100));   // no ESTABLISHED on the passive side of SIDR

            List<MadFabric.Sent> reps = MadFabric.INSTANCE.sent(CmSidrRep.ATTRIBUTE_ID);
            assertEquals(1, reps.size());
            CmSidrRep r = sidrRep(reps.get(0));
            assertEquals(tid(reqs.get(0)), tid(reps.get(0)), "the SIDR_REP answers with the SIDR_REQ's TID");
            assertEquals(m.requestId(), r.requestId());
            assertEquals(0, r.status());
            assertEquals(sqp.qpNum(), r.qpn());
            assertEquals(0x01234567, r.qKey(), "RDMA_UDP_QKEY");
            assertEquals(m.serviceId(), r.serviceId());

            CmEvent est = expect(cch, CmEventType.ESTABLISHED);
            UdParam ud = est.udParam();
            assertEquals(sqp.qpNum(), ud.qpNum());
            assertEquals(CmId.UDP_QKEY, ud.qkey());
            assertEquals(136, ud.privateData().length);
            assertArrayEquals(welcome, Arrays.copyOf(ud.privateData(), welcome.length));
            assertTrue(ud.ahAttr().isGlobal());
            assertEquals(Gid.of(SERVER), ud.ahAttr().grh().dgid());
            assertEquals(IbCm.roceFlowLabel(client.localAddress().getPort(), port), ud.ahAttr().grh().flowLabel());

            // a datagram from the client's QP to the server's, addressed with the event's ud param, as udaddy does
            MemorySegment cbuf = arena.allocate(4096, 64);
            MemoryRegion cmr = cpd.regMr(cbuf, AccessFlags.LOCAL_WRITE);
            cbuf.setString(0, "ping over SIDR", StandardCharsets.US_ASCII);
            AddressHandle ah = cpd.createAh(ud.ahAttr());
            cqp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(cqp.qpNum())
                    .sendFlags(SendFlags.SIGNALED).sgList(new Sge(cbuf.address(), 100, cmr.lkey()))
                    .ud(ah, ud.qpNum(), ud.qkey()));
            assertEquals(WcStatus.SUCCESS, poll(cqp.sendCq()).status());
            WorkCompletion wc = poll(sqp.recvCq());
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(WcOpcode.RECV, wc.opcode());
            assertEquals(140, wc.byteLen(), "40-byte GRH area + 100");
            assertEquals(cqp.qpNum(), wc.srcQp());
            assertEquals(cqp.qpNum(), wc.immData());
            assertTrue((wc.wcFlags() & WcFlags.GRH) != 0);
            assertEquals("ping over SIDR", sbuf.getString(40, StandardCharsets.US_ASCII));

            // rdma_disconnect on a UD ID: the QP goes to ERR, nothing on the wire, no event
            int sent = MadFabric.INSTANCE.sent.size();
            client.disconnect();
            assertEquals(QpState.ERR, cqp.state());
            expectNothing(cch, Duration.ofMillis(100));
            assertEquals(sent, MadFabric.INSTANCE.sent.size());
            ah.close();
            client.destroy();
            server.destroy();
            listener.destroy();
            assertEquals(sent, MadFabric.INSTANCE.sent.size(), "destroying answered UD IDs sends nothing");
        }
    }

    @Test
    void aPortNobodyListensOnGivesUnreachableStatus1ServiceIdNotSupported() {
        int port = PORTS.incrementAndGet();
        try (EventChannel cch = EventChannel.create(); CmId bound = CmLoopbackTest.serverCmRunning()) {
            CmId tcp = CmId.create(EventChannel.create(), null, PortSpace.TCP);
            tcp.bind(new InetSocketAddress(SERVER, port));
            tcp.listen(1);                       // the port in PS_TCP is another service ID
            CmId client = resolved(cch, port);
            udQp(client, client.verbs().allocPd());
            client.connect(new ConnParam());
            CmEvent e = expect(cch, CmEventType.UNREACHABLE);
            assertEquals(1, e.status(), "IBTA Vol 1 table 119 (SIDR_REP status): 1 ServiceID not supported");
            assertEquals(1, sidrRep(MadFabric.INSTANCE.sent(CmSidrRep.ATTRIBUTE_ID).get(0)).status());
            assertEquals(136, e.udParam().privateData().length);
            assertEquals(0, e.udParam().qpNum());
            client.destroy();
            tcp.destroy();
        }
    }

    @Test
    void rejectGivesUnreachableStatus2WithThePrivateData() {
        int port = PORTS.incrementAndGet();
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = listen(sch, port);
            CmId client = resolved(cch, port);
            udQp(client, client.verbs().allocPd());
            client.connect(new ConnParam());
            CmId server = expect(sch, CmEventType.CONNECT_REQUEST).id();
            byte[] no = "not today".getBytes(StandardCharsets.US_ASCII);
            assertThrows(VerbsException.class, () -> server.reject(new byte[137]), "136 bytes of a SIDR_REP at most");
            server.reject(no);
            CmEvent e = expect(cch, CmEventType.UNREACHABLE);
            assertEquals(2, e.status(), "IBTA Vol 1 table 119: 2 rejected by the service provider");
            assertArrayEquals(no, Arrays.copyOf(e.privateData(), no.length));
            assertArrayEquals(no, Arrays.copyOf(e.udParam().privateData(), no.length));
            VerbsException again = assertThrows(VerbsException.class, () -> server.accept(null));
            assertEquals(Errno.EINVAL, again.errno(), "answered once: no accept after the reject");
            server.destroy();
            client.destroy();
            listener.destroy();
        }
    }

    @Test
    void destroyingAnUnansweredRequestRejectsIt() {
        int port = PORTS.incrementAndGet();
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = listen(sch, port);
            CmId client = resolved(cch, port);
            udQp(client, client.verbs().allocPd());
            client.connect(new ConnParam());
            expect(sch, CmEventType.CONNECT_REQUEST).id().destroy();
            assertEquals(2, expect(cch, CmEventType.UNREACHABLE).status(), "cm_destroy_id: SIDR_REP status 2");
            client.destroy();
            listener.destroy();
        }
    }

    @Test
    void anUnansweredSidrReqIsRetriedWithItsTidThenUnreachable() {
        int port = PORTS.incrementAndGet();
        MadFabric.INSTANCE.dropIf = s -> true;
        try (EventChannel cch = EventChannel.create()) {
            CmId client = resolved(cch, port);
            udQp(client, client.verbs().allocPd());
            client.setCmTimeouts(10, 2);   // 2^(10-8) = 4 ms a try (cma_resolve_ib_udp), three tries
            client.connect(new ConnParam());
            CmEvent e = expect(cch, CmEventType.UNREACHABLE);
            assertEquals(-Errno.ETIMEDOUT, e.status());
            List<MadFabric.Sent> reqs = MadFabric.INSTANCE.sent(CmSidrReq.ATTRIBUTE_ID);
            assertEquals(3, reqs.size(), "the SIDR_REQ and two retries");
            assertEquals(tid(reqs.get(0)), tid(reqs.get(2)));
            assertArrayEquals(reqs.get(0).mad(), reqs.get(2).mad());
            expectNothing(cch, Duration.ofMillis(100));
            client.destroy();
        }
    }

    @Test
    void duplicateSidrReqsMakeOneRequestAndGetOneAnswer() {
        int port = PORTS.incrementAndGet();
        MadFabric.INSTANCE.duplicateIf = s -> s.attributeId() == CmSidrReq.ATTRIBUTE_ID;
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = listen(sch, port);
            CmId client = resolved(cch, port);
            // the devices' CMs live as long as the JVM: count from here
            long dupsBefore = ((IbCm) listener.device().provider).sidr().drops().getOrDefault(Sidr.Drop.DUPLICATE_SIDR_REQ, 0L);
            long unknownBefore = ((IbCm) client.device().provider).sidr().drops().getOrDefault(Sidr.Drop.UNKNOWN_REQUEST_ID, 0L);
            udQp(client, client.verbs().allocPd());
            client.connect(new ConnParam());
            CmId server = expect(sch, CmEventType.CONNECT_REQUEST).id();
            expectNothing(sch, Duration.ofMillis(200));
            Sidr sidr = ((IbCm) server.device().provider).sidr();
            assertEquals(1L, sidr.drops().getOrDefault(Sidr.Drop.DUPLICATE_SIDR_REQ, 0L) - dupsBefore);
            QueuePair sqp = udQp(server, server.verbs().allocPd());
            server.accept(null);
            assertEquals(sqp.qpNum(), expect(cch, CmEventType.ESTABLISHED).udParam().qpNum());
            assertEquals(1, MadFabric.INSTANCE.sent(CmSidrRep.ATTRIBUTE_ID).size());

            // a retry that crossed the answer: the same SIDR_REP again, no second request
            MadFabric.INSTANCE.duplicateIf = s -> false;
            MadFabric.INSTANCE.inject(MadFabric.INSTANCE.sent(CmSidrReq.ATTRIBUTE_ID).get(0));
            long end = System.nanoTime() + WAIT.toNanos();
            while (MadFabric.INSTANCE.sent(CmSidrRep.ATTRIBUTE_ID).size() < 2 && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            List<MadFabric.Sent> reps = MadFabric.INSTANCE.sent(CmSidrRep.ATTRIBUTE_ID);
            assertEquals(2, reps.size());
            assertArrayEquals(reps.get(0).mad(), reps.get(1).mad());
            expectNothing(sch, Duration.ofMillis(100));
            expectNothing(cch, Duration.ofMillis(100));   // the late SIDR_REP is dropped by the client
            assertEquals(1L, ((IbCm) client.device().provider).sidr().drops().get(Sidr.Drop.UNKNOWN_REQUEST_ID) - unknownBefore);
            // and the application sees both drops among the device's CM counters
            String clientDev = client.verbs().device().name();
            String serverDev = server.verbs().device().name();
            assertEquals(1L + unknownBefore, CmStatistics.of(clientDev).orElseThrow().get("cm_drop_sidr_unknown_request_id"));
            assertEquals(1L + dupsBefore, CmStatistics.of(serverDev).orElseThrow().get("cm_drop_sidr_duplicate_sidr_req"));
            server.destroy();
            client.destroy();
            listener.destroy();
        }
    }

    @Test
    void aSidrReqBeyondTheBacklogIsDroppedUnansweredAndGetsInOnItsRetry() {
        int port = PORTS.incrementAndGet();
        try (EventChannel sch = EventChannel.create(); EventChannel ach = EventChannel.create();
             EventChannel bch = EventChannel.create()) {
            CmId listener = CmId.create(sch, "listener", PortSpace.UDP);
            listener.bind(new InetSocketAddress(SERVER, port));
            listener.listen(1);
            Sidr sidr = ((IbCm) listener.device().provider).sidr();
            long before = sidr.drops().getOrDefault(Sidr.Drop.BACKLOG_FULL, 0L);
            CmId a = resolved(ach, port);
            a.connect(new ConnParam());
            // a's CONNECT_REQUEST waits in the channel, untaken: it fills the backlog of 1
            long end = System.nanoTime() + WAIT.toNanos();
            while (MadFabric.INSTANCE.sent(CmSidrReq.ATTRIBUTE_ID).isEmpty() && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            CmId b = resolved(bch, port);
            b.setCmTimeouts(16, 15);   // 256 ms a try: time enough to take a's request meanwhile
            b.connect(new ConnParam());
            while (sidr.drops().getOrDefault(Sidr.Drop.BACKLOG_FULL, 0L) == before && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            assertEquals(before + 1, sidr.drops().getOrDefault(Sidr.Drop.BACKLOG_FULL, 0L), "b's SIDR_REQ dropped");
            assertEquals(0, MadFabric.INSTANCE.sent(CmSidrRep.ATTRIBUTE_ID).size(), "and not answered");
            CmId ra = expect(sch, CmEventType.CONNECT_REQUEST).id();
            CmId rb = expect(sch, CmEventType.CONNECT_REQUEST).id();   // b's retry got in
            assertEquals(b.localAddress().getPort(), rb.peerAddress().getPort());
            ra.accept(new ConnParam().qpNum(0x11));
            rb.accept(new ConnParam().qpNum(0x22));
            assertEquals(0x11, expect(ach, CmEventType.ESTABLISHED).udParam().qpNum());
            assertEquals(0x22, expect(bch, CmEventType.ESTABLISHED).udParam().qpNum());
            a.destroy();
            b.destroy();
            ra.destroy();
            rb.destroy();
            listener.destroy();
        }
    }

    @Test
    void initQpAttrOfAUdIdGivesQkeyAndPkeyIndexThenRtrAndRts() {
        int port = PORTS.incrementAndGet();
        try (EventChannel cch = EventChannel.create()) {
            CmId client = resolved(cch, port);
            QpAttr a = new QpAttr().qpState(QpState.INIT);
            int mask = client.initQpAttr(a);
            assertEquals(QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY, mask);
            assertEquals(0x01234567, a.qkey());
            assertEquals(0, a.pkeyIndex());
            assertEquals(1, a.portNum());
            assertEquals(QpAttrMask.STATE, client.initQpAttr(new QpAttr().qpState(QpState.RTR)));
            QpAttr rts = new QpAttr().qpState(QpState.RTS);
            assertEquals(QpAttrMask.STATE | QpAttrMask.SQ_PSN, client.initQpAttr(rts));
            assertEquals(0, rts.sqPsn());
            client.destroy();
        }
    }

    @Test
    void synchronousUdIdsConnectAndAcceptWithoutEventChannels() throws Exception {
        int port = PORTS.incrementAndGet();
        CmId listener = CmId.createEp(new InetSocketAddress(SERVER, port), null, PortSpace.UDP, null, null, WAIT);
        listener.listen(1);
        CmId client = CmId.createEp(new InetSocketAddress(CLIENT, 0), new InetSocketAddress(SERVER, port), PortSpace.UDP,
                null, null, WAIT);
        client.setCmTimeouts(16, 3);    // 256 ms a try: a failure shows in about a second
        Thread t = Thread.ofVirtual().start(() -> {
            CmId s = listener.getRequest(WAIT).orElseThrow();
            ProtectionDomain pd = s.verbs().allocPd();
            CompletionQueue cq = s.verbs().createCq(8, null);
            QpInitAttr a = new QpInitAttr().sendCq(cq).recvCq(cq);
            a.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
            s.createQp(pd, a);
            s.accept(null);       // returns at once: no ESTABLISHED on a SIDR's passive side
        });
        client.connect(new ConnParam());     // no QP and no qp_num: a SIDR_REQ names none
        t.join(WAIT.toMillis());
        client.destroy();
        listener.destroy();

        CmId nobody = CmId.createEp(new InetSocketAddress(CLIENT, 0), new InetSocketAddress(SERVER, port), PortSpace.UDP,
                null, null, WAIT);
        nobody.setCmTimeouts(16, 3);
        VerbsException e = assertThrows(VerbsException.class, () -> nobody.connect(new ConnParam()));
        assertEquals(1, e.errno(), "librdmacm's ucma_complete: the SIDR_REP status as errno");
        nobody.destroy();
    }
}
