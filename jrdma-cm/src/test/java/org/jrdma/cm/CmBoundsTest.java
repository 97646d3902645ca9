package org.jrdma.cm;

import static org.jrdma.cm.CmLoopbackTest.CLIENT;
import static org.jrdma.cm.CmLoopbackTest.SERVER;
import static org.jrdma.cm.CmLoopbackTest.WAIT;
import static org.jrdma.cm.CmLoopbackTest.expect;
import static org.jrdma.cm.CmLoopbackTest.expectNothing;
import static org.jrdma.cm.CmLoopbackTest.poll;
import static org.jrdma.cm.CmLoopbackTest.qp;
import static org.jrdma.cm.CmLoopbackTest.resolved;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.jrdma.mad.Cm;
import org.jrdma.mad.CmApr;
import org.jrdma.mad.CmDrep;
import org.jrdma.mad.CmDreq;
import org.jrdma.mad.CmLap;
import org.jrdma.mad.CmMra;
import org.jrdma.mad.CmRej;
import org.jrdma.mad.CmRep;
import org.jrdma.mad.CmReq;
import org.jrdma.mad.CmRtu;
import org.jrdma.mad.CmaHeader;
import org.jrdma.mad.MadHeader;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AsyncEvent;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WrOpcode;
import org.jrdma.verbs.ext.ManagementDatagrams;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The CM's bounds under bad input and load (issue 11, "Bad input and load"): crafted MADs handed
 * straight to jrxe0's CM (through {@link MadFabric#inject}, as QP1 would hand them over), counted
 * through the public {@link CmStatistics}; the retained objects measured with the JVM's class
 * histogram (after a full GC), not with timing.
 */
class CmBoundsTest {
    private static final Gid SERVER_GID = Gid.of(SERVER);
    private static int port = 30000 + (int) (ProcessHandle.current().pid() % 5000);

    @BeforeAll
    static void fabric() {
        MadFabric.install();
    }

    @BeforeEach
    void reset() {
        MadFabric.INSTANCE.reset();
    }

    private static long stat(String name) {
        return CmStatistics.of("jrxe0").orElseThrow().get(name);
    }

    private static long dropsTotal() {
        long n = 0;
        for (Map.Entry<String, Long> e : CmStatistics.of("jrxe0").orElseThrow().counters().entrySet()) {
            if (e.getKey().startsWith("cm_drop_")) {
                n += e.getValue();
            }
        }
        return n;
    }

    /** Waits (bounded) until {@code v} reaches {@code want}; the assertion after it says what it got. */
    private static void await(LongSupplier v, long want) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (v.getAsLong() != want && System.nanoTime() < end) {
            Thread.sleep(20);
        }
    }

    /** A forged GID, as a storm from many hosts would carry. */
    static Gid forged(int i) {
        try {
            return Gid.of(InetAddress.getByAddress(new byte[] {10, 99, (byte) (i >> 8), (byte) i}));
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** A REQ as rdma_cm sends it to SERVER:port, with the given timeouts (REQ fields: remote CM response timeout, max CM retries). */
    static byte[] req(int commId, long caGuid, Gid from, int port, int responseTimeout, int retries) {
        byte[] b = new byte[ManagementDatagrams.MAD_SIZE];
        MemorySegment seg = MemorySegment.ofArray(b);
        CmReq r = new CmReq().wrap(seg, 0).clear(IbTimeouts.formTid(commId))
                .localCommId(commId).serviceId(PortSpace.TCP.serviceId(port)).localCaGuid(caGuid)
                .localQpn(0x100 + (commId & 0xff)).responderResources(1).initiatorDepth(1)
                .remoteCmResponseTimeout(responseTimeout).localCmResponseTimeout(responseTimeout)
                .maxCmRetries(retries).transportServiceType(Cm.TRANSPORT_RC).startingPsn(commId & 0xffffff)
                .retryCount(7).rnrRetryCount(7).partitionKey(0xffff).pathPacketPayloadMtu(3)
                .primaryLocalPortLid(0xffff).primaryRemotePortLid(0xffff)
                .primaryLocalPortGid(from.raw()).primaryRemotePortGid(SERVER_GID.raw()).primaryHopLimit(64)
                .primaryLocalAckTimeout(19);
        byte[] pd = new byte[CmReq.PRIVATE_DATA_LENGTH];
        new CmaHeader().wrap(MemorySegment.ofArray(pd), 0).set(from.toInetAddress(), 40000 + (commId & 0x3fff), SERVER);
        r.privateData(pd);
        return b;
    }

    /** Live instances per class (a full GC first: {@code jcmd GC.class_histogram}). */
    static Map<String, Long> liveInstances(String... classes) throws Exception {
        String h = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, Long> m = new TreeMap<>();
        for (String c : classes) {
            m.put(c, 0L);
        }
        Matcher x = Pattern.compile("(?m)^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)").matcher(h);
        while (x.find()) {
            if (m.containsKey(x.group(3))) {
                m.put(x.group(3), Long.parseLong(x.group(1)));
            }
        }
        Matcher total = Pattern.compile("(?m)^Total\\s+(\\d+)\\s+(\\d+)").matcher(h);
        if (total.find()) {
            m.put("Total bytes", Long.parseLong(total.group(2)));
        }
        return m;
    }

    static final String[] CM_CLASSES = {"org.jrdma.cm.IbConnection", "org.jrdma.cm.CmId", "org.jrdma.cm.CmEvent"};

    @Test
    void malformedTruncatedAndUnsolicitedMadsAreDroppedAndCountedOneEachNeverThrown() throws Exception {
        try (CmId running = CmLoopbackTest.serverCmRunning()) {
            long drops0 = dropsTotal();
            long rej0 = stat("cm_tx_rej_invalid_service_id");
            long unknown0 = stat("cm_drop_unknown_comm_id");
            long notCm0 = stat("cm_drop_not_cm_send");
            long unsupported0 = stat("cm_drop_unsupported_attribute");
            long malformed0 = stat("cm_drop_malformed");
            Random rnd = new Random(11);
            Gid from = forged(1);
            int n = 0;
            // unsolicited: answers and messages of connections nobody has
            int[] unsolicited = {CmRep.ATTRIBUTE_ID, CmRtu.ATTRIBUTE_ID, CmMra.ATTRIBUTE_ID, CmRej.ATTRIBUTE_ID,
                CmDrep.ATTRIBUTE_ID, CmDreq.ATTRIBUTE_ID};
            for (int attr : unsolicited) {
                for (int i = 0; i < 20; i++) {
                    byte[] b = new byte[ManagementDatagrams.MAD_SIZE];
                    rnd.nextBytes(b);
                    cmHeader(b, attr, rnd.nextLong());
                    MadFabric.INSTANCE.inject(from, SERVER_GID, b);
                    n++;
                }
            }
            // not class CM version 2 method Send (a Get, a class version 1), LAP/APR
            byte[] get = new byte[ManagementDatagrams.MAD_SIZE];
            cmHeader(get, CmReq.ATTRIBUTE_ID, 1);
            get[3] = (byte) MadHeader.METHOD_GET;
            byte[] v1 = new byte[ManagementDatagrams.MAD_SIZE];
            cmHeader(v1, CmReq.ATTRIBUTE_ID, 2);
            v1[2] = 1;
            byte[] lap = new byte[ManagementDatagrams.MAD_SIZE];
            cmHeader(lap, CmLap.ATTRIBUTE_ID, 3);
            byte[] apr = new byte[ManagementDatagrams.MAD_SIZE];
            cmHeader(apr, CmApr.ATTRIBUTE_ID, 4);
            for (byte[] b : List.of(get, v1, lap, apr)) {
                MadFabric.INSTANCE.inject(from, SERVER_GID, b);
                n++;
            }
            // truncated: a MAD shorter than 256 bytes, and REQs cut short (zeros after the header: no rdma_cm IP header)
            MadFabric.INSTANCE.inject(from, SERVER_GID, new byte[100]);
            n++;
            for (int cut : new int[] {24, 40, 100, 120}) {
                byte[] b = req(rnd.nextInt(), rnd.nextLong(), from, port, 20, 15);
                java.util.Arrays.fill(b, cut, b.length, (byte) 0);
                MadFabric.INSTANCE.inject(from, SERVER_GID, b);
                n++;
            }
            // random fields in every message the CM reads, REQs included (SIDR left to the SIDR tests)
            int[] attrs = {CmReq.ATTRIBUTE_ID, CmMra.ATTRIBUTE_ID, CmRej.ATTRIBUTE_ID, CmRep.ATTRIBUTE_ID,
                CmRtu.ATTRIBUTE_ID, CmDreq.ATTRIBUTE_ID, CmDrep.ATTRIBUTE_ID, CmLap.ATTRIBUTE_ID, 0x0020, 0xff10};
            for (int i = 0; i < 3000; i++) {
                byte[] b = new byte[ManagementDatagrams.MAD_SIZE];
                rnd.nextBytes(b);
                cmHeader(b, attrs[rnd.nextInt(attrs.length)], rnd.nextLong());
                MadFabric.INSTANCE.inject(from, SERVER_GID, b);
                n++;
            }
            int total = n;
            MadFabric.INSTANCE.drain();
            await(() -> dropsTotal() - drops0 + stat("cm_tx_rej_invalid_service_id") - rej0, total);
            assertEquals(total, dropsTotal() - drops0 + stat("cm_tx_rej_invalid_service_id") - rej0,
                    "every MAD counted once: dropped by reason or (a REQ to nobody) answered REJ 8");
            assertTrue(stat("cm_drop_unknown_comm_id") - unknown0 >= 120, "the 120 unsolicited messages");
            assertTrue(stat("cm_drop_not_cm_send") - notCm0 >= 2, "the Get and the class version 1");
            assertTrue(stat("cm_drop_unsupported_attribute") - unsupported0 >= 2, "LAP and APR");
            assertTrue(stat("cm_drop_malformed") - malformed0 >= 1, "the 100-byte MAD");
            assertEquals(0, stat("cm_pending_requests"), "no random REQ made a connection request");
        }
        // and the CM goes on serving
        connectOnce(port++);
    }

    private static void cmHeader(byte[] b, int attributeId, long tid) {
        MemorySegment seg = MemorySegment.ofArray(b);
        new CmRtu().wrap(seg, 0).clear(tid);
        seg.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 16,
                (short) attributeId);
    }

    @Test
    void aStormOf10000ReqsToBacklog16StaysBoundedItsStaleRequestsTimeOutAndALegitimateClientConnects() throws Exception {
        int p = port++;
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = CmId.create(sch, "listener", PortSpace.TCP);
            listener.bind(new InetSocketAddress(SERVER, p));
            listener.listen(16);
            Map<String, Long> before = liveInstances(CM_CLASSES);
            long full0 = stat("cm_drop_backlog_full");
            long stale0 = stat("cm_drop_stale_request");
            Random rnd = new Random(10_000);
            // every REQ from another forged host and CM ID; response timeout 0, 2 retries: its sender
            // gives up after 3 tries of 2049 ms, and jrdma one try later (8.2 s)
            // in bursts of 256, each taken by the CM before the next (the receive queue's bound is the next test's)
            LongSupplier seen = () -> stat("cm_drop_backlog_full") - full0 + stat("cm_pending_requests")
                    + stat("cm_drop_stale_request") - stale0;
            for (int i = 0; i < 10_000; i++) {
                MadFabric.INSTANCE.inject(forged(i), SERVER_GID, req(rnd.nextInt() | 1, rnd.nextLong(), forged(i), p, 0, 2));
                if (i % 256 == 255) {
                    int sent = i + 1;
                    MadFabric.INSTANCE.drain();
                    await(seen, sent);
                }
            }
            MadFabric.INSTANCE.drain();
            await(seen, 10_000);
            assertEquals(10_000, seen.getAsLong(), "each REQ pending, dropped past the backlog, or timed out");
            long pendingNow = stat("cm_pending_requests");
            assertTrue(pendingNow <= 16, "the backlog's 16 requests pending at most: " + pendingNow);
            assertTrue(stat("cm_connections") <= 16, "connections held: " + stat("cm_connections"));
            Map<String, Long> during = liveInstances(CM_CLASSES);
            assertTrue(during.get("org.jrdma.cm.IbConnection") - before.get("org.jrdma.cm.IbConnection") <= 16,
                    "connections held during the storm: " + during);

            // their senders have given up: jrdma times them out, withdraws their unseen CONNECT_REQUESTs
            await(() -> stat("cm_pending_requests"), 0);
            assertEquals(0, stat("cm_pending_requests"));
            long stale = stat("cm_drop_stale_request") - stale0;
            assertEquals(10_000 - (stat("cm_drop_backlog_full") - full0), stale, "every admitted REQ timed out");
            assertTrue(stale >= 16);
            await(() -> stat("cm_connections"), 0);
            assertEquals(0, stat("cm_connections"));
            assertEquals(stale, MadFabric.INSTANCE.sent(CmRej.ATTRIBUTE_ID).size(), "a REJ (timeout) for each, as a destroyed passive ID");
            Map<String, Long> after = liveInstances(CM_CLASSES);
            for (String c : CM_CLASSES) {
                assertEquals(before.get(c), after.get(c), c + " instances retained after the storm: before " + before + ", after " + after);
            }
            long grown = after.get("Total bytes") - before.get("Total bytes");
            System.out.println("CmBoundsTest storm: live heap before " + before + ", during " + during + ", after " + after
                    + " (grown " + grown + " B)");
            assertTrue(grown < 2_000_000, "live heap grew " + grown + " B over the storm");

            // the listener's channel holds nothing of the storm; a legitimate client connects
            expectNothing(sch, Duration.ofMillis(100));
            CmId client = resolved(cch, p);
            qp(client, client.verbs().allocPd());
            client.connect(new ConnParam());
            CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
            assertEquals(CLIENT, req.id().peerAddress().getAddress());
            qp(req.id(), req.id().verbs().allocPd());
            req.id().accept(null);
            expect(cch, CmEventType.ESTABLISHED);
            expect(sch, CmEventType.ESTABLISHED);
            client.destroy();
            req.id().destroy();
            listener.destroy();
        }
    }

    @Test
    void madsBeyondTheReceiveQueueWaitingForTheCmAreDroppedAndCounted() throws Exception {
        try (CmId running = CmLoopbackTest.serverCmRunning()) {
            long full0 = stat("cm_drop_recv_queue_full");
            long rej0 = stat("cm_tx_rej_invalid_service_id");
            Random rnd = new Random(512);
            // the CM thread is held (the test takes the CM lock): what arrives meanwhile waits, up to 512
            CmService.get().lock.lock();
            try {
                for (int i = 0; i < 2000; i++) {
                    MadFabric.INSTANCE.inject(forged(i), SERVER_GID, req(rnd.nextInt() | 1, rnd.nextLong(), forged(i), port, 20, 15));
                }
                MadFabric.INSTANCE.drain();
            } finally {
                CmService.get().lock.unlock();
            }
            assertEquals(2000 - IbCm.RECV_QUEUE, stat("cm_drop_recv_queue_full") - full0);
            await(() -> stat("cm_tx_rej_invalid_service_id") - rej0, IbCm.RECV_QUEUE);
            assertEquals(IbCm.RECV_QUEUE, stat("cm_tx_rej_invalid_service_id") - rej0, "the 512 that waited, each answered REJ 8");
        }
    }

    @Test
    void aRequestTakenButNeitherAcceptedNorRejectedTimesOutWithUnreachable() throws Exception {
        int p = port++;
        try (EventChannel sch = EventChannel.create()) {
            CmId listener = CmId.create(sch, "listener", PortSpace.TCP);
            listener.bind(new InetSocketAddress(SERVER, p));
            listener.listen(1);
            long stale0 = stat("cm_drop_stale_request");
            MadFabric.INSTANCE.inject(forged(7), SERVER_GID, req(0x1234567, 0x77, forged(7), p, 0, 0));
            CmId pendingId = expect(sch, CmEventType.CONNECT_REQUEST).id();
            assertEquals(1, stat("cm_pending_requests"));
            CmEvent e = sch.getEvent(Duration.ofSeconds(30)).orElseThrow(() -> new AssertionError("no UNREACHABLE"));
            e.ack();
            assertEquals(CmEventType.UNREACHABLE, e.type());
            assertEquals(pendingId, e.id());
            assertEquals(-Errno.ETIMEDOUT, e.status());
            assertEquals(1, stat("cm_drop_stale_request") - stale0);
            assertEquals(0, stat("cm_pending_requests"));
            List<MadFabric.Sent> rej = MadFabric.INSTANCE.sent(CmRej.ATTRIBUTE_ID);
            assertEquals(1, rej.size());
            CmRej r = new CmRej().wrap(MemorySegment.ofArray(rej.get(0).mad()), 0);
            assertEquals(0x1234567, r.remoteCommId());
            assertEquals(4, r.reason(), "IBTA table 112: timeout");
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> pendingId.accept(null)).errno());
            pendingId.destroy();
            listener.destroy();
        }
    }

    @Test
    void commEstBeforeTheRtuEstablishesThePassiveSideAndTheLateRtuIsHarmless() throws Exception {
        int p = port++;
        MadFabric.INSTANCE.dropIf = s -> s.attributeId() == CmRtu.ATTRIBUTE_ID;
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create(); Arena arena = Arena.ofShared()) {
            CmId listener = CmId.create(sch, "listener", PortSpace.TCP);
            listener.bind(new InetSocketAddress(SERVER, p));
            listener.listen(1);
            CmId client = resolved(cch, p);
            client.setCmTimeouts(8, 3);    // the server's REP is resent every 2049 ms
            ProtectionDomain cpd = client.verbs().allocPd();
            QueuePair cqp = qp(client, cpd);
            client.connect(new ConnParam());
            CmId server = expect(sch, CmEventType.CONNECT_REQUEST).id();
            // the server drives its own QP (rdma_accept with qp_num): INIT and RTR now, RTS once established
            ProtectionDomain spd = server.verbs().allocPd();
            org.jrdma.verbs.CompletionQueue scq = server.verbs().createCq(16, null);
            QpInitAttr ia = new QpInitAttr().sendCq(scq).recvCq(scq);
            ia.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
            QueuePair sqp = spd.createQp(ia);
            moveTo(server, sqp, QpState.INIT);
            moveTo(server, sqp, QpState.RTR);
            MemorySegment sbuf = arena.allocate(64, 64);
            MemoryRegion smr = spd.regMr(sbuf, AccessFlags.LOCAL_WRITE);
            sqp.postRecv(new RecvWr().wrId(1).sgList(new Sge(sbuf.address(), 64, smr.lkey())));
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> server.notify(AsyncEventType.COMM_EST)).errno(),
                    "no REP sent yet");
            server.accept(new ConnParam().qpNum(sqp.qpNum()));
            expect(cch, CmEventType.ESTABLISHED);
            // the client's RTU is lost; its first SEND reaches the server's QP in RTR first
            MemorySegment cbuf = arena.allocate(64, 64);
            MemoryRegion cmr = cpd.regMr(cbuf, 0);
            cqp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(cbuf.address(), 8, cmr.lkey())));
            assertEquals(WcStatus.SUCCESS, poll(sqp.recvCq()).status());
            AsyncEvent ae = server.verbs().getAsyncEvent(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(ae, "COMM_EST on the server's QP");
            assertEquals(AsyncEventType.COMM_EST, ae.type());
            assertEquals(sqp, ae.qp());
            ae.ack();
            long byCommEst = stat("cm_established_by_comm_est");
            server.notify(AsyncEventType.COMM_EST);   // what rdma_notify(3) asks of the application
            expect(sch, CmEventType.ESTABLISHED);
            moveTo(server, sqp, QpState.RTS);
            assertEquals(WcStatus.SUCCESS, poll(cqp.sendCq()).status());
            assertEquals(byCommEst + 1, stat("cm_established_by_comm_est"));
            int reps = MadFabric.INSTANCE.sent(CmRep.ATTRIBUTE_ID).size();
            // the REP is no longer resent; the late RTU is dropped as WRONG_STATE, no second ESTABLISHED
            long wrongState = stat("cm_drop_wrong_state");
            List<MadFabric.Sent> rtus = MadFabric.INSTANCE.sent(CmRtu.ATTRIBUTE_ID);
            assertTrue(rtus.size() >= 1, "the client sent its RTU (lost)");
            MadFabric.INSTANCE.inject(rtus.get(0).from(), SERVER_GID, rtus.get(0).mad().clone());
            MadFabric.INSTANCE.drain();
            await(() -> stat("cm_drop_wrong_state"), wrongState + 1);
            assertEquals(wrongState + 1, stat("cm_drop_wrong_state"));
            expectNothing(sch, Duration.ofMillis(2500));
            assertEquals(reps, MadFabric.INSTANCE.sent(CmRep.ATTRIBUTE_ID).size(), "no REP resent after COMM_EST");
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> server.notify(AsyncEventType.COMM_EST)).errno(),
                    "established already");
            client.destroy();
            server.destroy();
            sqp.close();
            listener.destroy();
        }
    }

    private static void moveTo(CmId id, QueuePair qp, QpState state) {
        QpAttr a = new QpAttr().qpState(state);
        qp.modify(a, id.initQpAttr(a));
    }

    @Test
    void aRepNobodyAnswersGivesThePassiveSideUnreachableAndAnUnansweredDreqStillEndsTheConnection() throws Exception {
        int p = port++;
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = CmId.create(sch, "listener", PortSpace.TCP);
            listener.bind(new InetSocketAddress(SERVER, p));
            listener.listen(2);
            // 1: the client vanishes after its REQ (its RTU and everything after are lost): the
            // server's REP goes unanswered through its retries, IB_CM_REP_ERROR → UNREACHABLE
            CmId lost = resolved(cch, p);
            lost.setCmTimeouts(8, 1);        // the REQ asks for 2 tries of 2049 ms
            qp(lost, lost.verbs().allocPd());
            MadFabric.INSTANCE.dropIf = s -> s.to().equals(Gid.of(CLIENT));
            lost.connect(new ConnParam());
            CmId server = expect(sch, CmEventType.CONNECT_REQUEST).id();
            qp(server, server.verbs().allocPd());
            server.accept(null);
            CmEvent e = sch.getEvent(Duration.ofSeconds(30)).orElseThrow(() -> new AssertionError("no UNREACHABLE"));
            e.ack();
            assertEquals(CmEventType.UNREACHABLE, e.type());
            assertEquals(-Errno.ETIMEDOUT, e.status());
            assertEquals(2, MadFabric.INSTANCE.sent(CmRep.ATTRIBUTE_ID).size(), "the REP and one retry");
            server.destroy();
            lost.destroy();
            cch.getEvent(Duration.ofSeconds(30));   // the client's own UNREACHABLE (its REQ unanswered)

            // 2: a connection whose peer stops answering before the DREP: the DREQ's retries end in
            // DISCONNECTED -ETIMEDOUT (IB_CM_DREQ_ERROR), then the timewait
            MadFabric.INSTANCE.dropIf = s -> false;
            CmId client = resolved(cch, p);
            client.setCmTimeouts(8, 1);
            qp(client, client.verbs().allocPd());
            client.connect(new ConnParam());
            CmId server2 = expect(sch, CmEventType.CONNECT_REQUEST).id();
            qp(server2, server2.verbs().allocPd());
            server2.accept(null);
            expect(cch, CmEventType.ESTABLISHED);
            expect(sch, CmEventType.ESTABLISHED);
            MadFabric.INSTANCE.dropIf = s -> s.to().equals(SERVER_GID);
            client.disconnect();
            CmEvent d = cch.getEvent(Duration.ofSeconds(30)).orElseThrow(() -> new AssertionError("no DISCONNECTED"));
            d.ack();
            assertEquals(CmEventType.DISCONNECTED, d.type());
            assertEquals(-Errno.ETIMEDOUT, d.status());
            assertEquals(2, MadFabric.INSTANCE.sent(CmDreq.ATTRIBUTE_ID).size(), "the DREQ and one retry");
            expect(cch, CmEventType.TIMEWAIT_EXIT);
            client.destroy();
            server2.destroy();
            listener.destroy();
        }
    }

    /** A plain connection on {@code p}: the CM still works. */
    private static void connectOnce(int p) {
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = CmId.create(sch, "listener", PortSpace.TCP);
            listener.bind(new InetSocketAddress(SERVER, p));
            listener.listen(1);
            CmId client = resolved(cch, p);
            qp(client, client.verbs().allocPd());
            client.connect(new ConnParam());
            CmId server = expect(sch, CmEventType.CONNECT_REQUEST).id();
            qp(server, server.verbs().allocPd());
            server.accept(null);
            expect(cch, CmEventType.ESTABLISHED);
            expect(sch, CmEventType.ESTABLISHED);
            client.destroy();
            server.destroy();
            listener.destroy();
        }
    }
}
