package org.jrdma.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
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
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * iWARP through the CM between jsiw0 (server) and jsiw1 (client) of this JVM over loopback TCP:
 * MPA exchange with private data both ways, SEND (segmented into FPDUs), RDMA WRITE, RDMA READ,
 * SEND with Invalidate, errors that end in a Terminate, disconnect.
 */
class SiwCmLoopbackTest {
    private static final String[] PAIR = loopbackPair();
    static final InetAddress SERVER = addr(PAIR[0]);
    static final InetAddress CLIENT = addr(PAIR[1]);
    static final Duration WAIT = Duration.ofSeconds(10);
    private static final AtomicInteger PORTS = new AtomicInteger(30000 + (int) (ProcessHandle.current().pid() % 5000));
    private static final int BIG = 300_000; // several FPDUs even at the loopback MSS (~65 KB)

    private static String[] loopbackPair() {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        String net = "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + ".";
        System.setProperty("jrdma.devices", "jsiw0=" + net + "1,jsiw1=" + net + "2");
        return new String[] {net + "1", net + "2"};
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

    /** One connected pair of QPs with a 1 MiB region each (LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ). */
    static final class Pair implements AutoCloseable {
        final EventChannel sch = EventChannel.create();
        final EventChannel cch = EventChannel.create();
        CmId listener;
        CmId server;
        CmId client;
        QueuePair sqp;
        QueuePair cqp;
        CompletionQueue scq;
        CompletionQueue ccq;
        MemoryRegion smr;
        MemoryRegion cmr;
        final Arena arena = Arena.ofShared();
        byte[] serverGotPd;
        byte[] clientGotPd;

        Pair(int recvs) {
            int port = PORTS.incrementAndGet();
            listener = CmId.create(sch, "listener", PortSpace.TCP);
            listener.bind(new InetSocketAddress(SERVER, port));
            listener.listen(4);
            client = CmId.create(cch, "client", PortSpace.TCP);
            client.resolveAddr(new InetSocketAddress(CLIENT, 0), new InetSocketAddress(SERVER, port), WAIT);
            expect(cch, CmEventType.ADDR_RESOLVED);
            assertEquals("jsiw1", client.verbs().device().name());
            client.resolveRoute(WAIT);
            expect(cch, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain cpd = client.verbs().allocPd();
            ccq = client.verbs().createCq(256, null);
            cqp = client.createQp(cpd, attr(ccq));
            cmr = cpd.regMr(arena.allocate(1 << 20, 4096), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            client.connect(new ConnParam().privateData("hello server".getBytes(StandardCharsets.US_ASCII))
                    .responderResources(4).initiatorDepth(4));
            CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
            serverGotPd = req.privateData();
            server = req.id();
            assertEquals("jsiw0", server.verbs().device().name());
            ProtectionDomain spd = server.verbs().allocPd();
            scq = server.verbs().createCq(256, null);
            sqp = server.createQp(spd, attr(scq));
            smr = spd.regMr(arena.allocate(1 << 20, 4096), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            for (int i = 0; i < recvs; i++) {
                sqp.postRecv(new RecvWr().wrId(100 + i).sgList(new Sge(smr.addr() + (long) i * BIG, BIG, smr.lkey())));
            }
            server.accept(new ConnParam().privateData("hello client".getBytes(StandardCharsets.US_ASCII))
                    .responderResources(4).initiatorDepth(4));
            expect(sch, CmEventType.ESTABLISHED);
            CmEvent est = expect(cch, CmEventType.ESTABLISHED);
            clientGotPd = est.privateData();
        }

        static QpInitAttr attr(CompletionQueue cq) {
            QpInitAttr a = new QpInitAttr().sendCq(cq).recvCq(cq);
            a.cap().maxSendWr(32).maxRecvWr(32).maxSendSge(2).maxRecvSge(2);
            return a;
        }

        @Override
        public void close() {
            client.destroy();
            server.destroy();
            listener.destroy();
            cqp.close();
            sqp.close();
        }
    }

    static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            if (cq.poll(wc) == 1) {
                return wc[0];
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within " + WAIT);
    }

    static void fill(MemorySegment s, long off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) (i * 31 + seed));
        }
    }

    static byte[] bytes(MemorySegment s, long off, int len) {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void connectExchangesPrivateDataAndQpsAreRts() {
        try (Pair p = new Pair(1)) {
            assertEquals("hello server", new String(p.serverGotPd, 0, 12, StandardCharsets.US_ASCII));
            assertEquals("hello client", new String(p.clientGotPd, 0, 12, StandardCharsets.US_ASCII));
            assertEquals(QpState.RTS, p.cqp.state());
            assertEquals(QpState.RTS, p.sqp.state());
            assertEquals(org.jrdma.verbs.TransportType.IWARP, p.client.verbs().device().transportType());
        }
    }

    @Test
    void sendSegmentedIntoFpdusArrivesWhole() {
        try (Pair p = new Pair(2)) {
            fill(p.cmr.segment(), 0, BIG, 7);
            p.cqp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED)
                    .sgList(new Sge(p.cmr.addr(), BIG, p.cmr.lkey())));
            WorkCompletion s = poll(p.ccq);
            assertEquals(WcStatus.SUCCESS, s.status());
            assertEquals(WcOpcode.SEND, s.opcode());
            WorkCompletion r = poll(p.scq);
            assertEquals(WcStatus.SUCCESS, r.status());
            assertEquals(WcOpcode.RECV, r.opcode());
            assertEquals(100, r.wrId());
            assertEquals(BIG, r.byteLen());
            assertArrayEquals(bytes(p.cmr.segment(), 0, BIG), bytes(p.smr.segment(), 0, BIG));
            // a zero-length SEND takes the next receive WQE
            p.cqp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED));
            assertEquals(WcStatus.SUCCESS, poll(p.ccq).status());
            WorkCompletion r2 = poll(p.scq);
            assertEquals(101, r2.wrId());
            assertEquals(0, r2.byteLen());
        }
    }

    @Test
    void writeAndReadPlaceStraightIntoTheRegions() {
        try (Pair p = new Pair(0)) {
            fill(p.cmr.segment(), 0, BIG, 3);
            p.cqp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr(), BIG, p.cmr.lkey())).rdma(p.smr.addr() + 1000, p.smr.rkey()));
            assertEquals(WcStatus.SUCCESS, poll(p.ccq).status());
            // the WRITE completed when handed to TCP; a READ behind it on the same stream sees its bytes
            p.cqp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr() + 500_000, BIG, p.cmr.lkey())).rdma(p.smr.addr() + 1000, p.smr.rkey()));
            WorkCompletion rd = poll(p.ccq);
            assertEquals(WcStatus.SUCCESS, rd.status());
            assertEquals(WcOpcode.RDMA_READ, rd.opcode());
            assertEquals(BIG, rd.byteLen());
            assertArrayEquals(bytes(p.cmr.segment(), 0, BIG), bytes(p.smr.segment(), 1000, BIG));
            assertArrayEquals(bytes(p.cmr.segment(), 0, BIG), bytes(p.cmr.segment(), 500_000, BIG));
        }
    }

    @Test
    void sendWithInvalidateInvalidatesTheRegionsStag() {
        try (Pair p = new Pair(1)) {
            // the client's region is the target: the server invalidates it remotely
            p.cqp.postRecv(new RecvWr().wrId(7).sgList(new Sge(p.cmr.addr(), 64, p.cmr.lkey())));
            fill(p.smr.segment(), 0, 16, 1);
            p.sqp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND_WITH_INV).sendFlags(SendFlags.SIGNALED)
                    .invalidateRkey(p.cmr.rkey()).sgList(new Sge(p.smr.addr(), 16, p.smr.lkey())));
            assertEquals(WcStatus.SUCCESS, poll(p.scq).status());
            WorkCompletion r = poll(p.ccq);
            assertEquals(WcStatus.SUCCESS, r.status());
            assertEquals(7, r.wrId());
            assertEquals(16, r.byteLen());
            assertTrue((r.wcFlags() & WcFlags.WITH_INV) != 0);
            assertEquals(p.cmr.rkey(), r.invalidatedRkey());
            // a WRITE to the invalidated STag: Terminate, both QPs to ERR, nothing placed
            MemorySegment target = p.cmr.segment();
            target.asSlice(1000, 16).fill((byte) 0);
            p.sqp.postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.smr.addr(), 16, p.smr.lkey())).rdma(p.cmr.addr() + 1000, p.cmr.rkey()));
            assertEquals(WcStatus.SUCCESS, poll(p.scq).status()); // handed to TCP
            expect(p.cch, CmEventType.DISCONNECTED);
            expect(p.sch, CmEventType.DISCONNECTED);
            assertEquals(QpState.ERR, p.cqp.state());
            assertEquals(QpState.ERR, p.sqp.state());
            assertArrayEquals(new byte[16], bytes(target, 1000, 16));
        }
    }

    @Test
    void writeOutsideTheRegionTerminatesAndTouchesNothing() {
        try (Pair p = new Pair(1)) {
            byte[] before = bytes(p.smr.segment(), (1 << 20) - 64, 64);
            p.cqp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr(), 128, p.cmr.lkey())).rdma(p.smr.addr() + (1 << 20) - 64, p.smr.rkey()));
            assertEquals(WcStatus.SUCCESS, poll(p.ccq).status());
            // the server's receive WQE is flushed when its QP enters ERR after the Terminate it sent
            WorkCompletion flushed = poll(p.scq);
            assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
            expect(p.sch, CmEventType.DISCONNECTED);
            expect(p.cch, CmEventType.DISCONNECTED);
            assertArrayEquals(before, bytes(p.smr.segment(), (1 << 20) - 64, 64));
            assertEquals(QpState.ERR, p.sqp.state());
            assertEquals(QpState.ERR, p.cqp.state());
        }
    }

    @Test
    void readWithABadRkeyFailsTheRead() {
        try (Pair p = new Pair(0)) {
            p.cqp.postSend(new SendWr().wrId(9).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr(), 64, p.cmr.lkey())).rdma(p.smr.addr(), p.smr.rkey() ^ 0x5a5a00));
            WorkCompletion wc = poll(p.ccq);
            assertEquals(9, wc.wrId());
            assertNotEquals(WcStatus.SUCCESS, wc.status());
            expect(p.cch, CmEventType.DISCONNECTED);
            assertEquals(QpState.ERR, p.cqp.state());
        }
    }

    @Test
    void sendWithoutAReceiveWqeTerminates() {
        try (Pair p = new Pair(0)) {
            p.cqp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(p.cmr.addr(), 8, p.cmr.lkey())));
            assertEquals(WcStatus.SUCCESS, poll(p.ccq).status());
            expect(p.cch, CmEventType.DISCONNECTED);
            assertEquals(QpState.ERR, p.sqp.state());
        }
    }

    @Test
    void disconnectFlushesAndBothSidesSeeDisconnected() {
        try (Pair p = new Pair(1)) {
            p.client.disconnect();
            expect(p.sch, CmEventType.DISCONNECTED);
            expect(p.cch, CmEventType.DISCONNECTED);
            WorkCompletion w = poll(p.scq);
            assertEquals(WcStatus.WR_FLUSH_ERR, w.status());
            assertEquals(QpState.ERR, p.cqp.state());
        }
    }

    @Test
    void rejectCarriesPrivateData() {
        EventChannel sch = EventChannel.create();
        EventChannel cch = EventChannel.create();
        int port = PORTS.incrementAndGet();
        CmId listener = CmId.create(sch, null, PortSpace.TCP);
        listener.bind(new InetSocketAddress(SERVER, port));
        listener.listen(4);
        CmId client = CmId.create(cch, null, PortSpace.TCP);
        client.resolveAddr(new InetSocketAddress(CLIENT, 0), new InetSocketAddress(SERVER, port), WAIT);
        expect(cch, CmEventType.ADDR_RESOLVED);
        client.resolveRoute(WAIT);
        expect(cch, CmEventType.ROUTE_RESOLVED);
        client.createQp(client.verbs().allocPd(), Pair.attr(client.verbs().createCq(8, null)));
        client.connect(new ConnParam());
        CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
        req.id().reject("no".getBytes(StandardCharsets.US_ASCII));
        CmEvent rej = expect(cch, CmEventType.REJECTED);
        assertEquals(-Errno.ECONNRESET, rej.status()); // siw: an MPA reject is CONNECT_REPLY -ECONNRESET
        assertEquals("no", new String(rej.privateData(), 0, 2, StandardCharsets.US_ASCII));
        client.destroy();
        listener.destroy();
    }

    @Test
    void connectToAPortNobodyListensOnIsRejected() {
        EventChannel cch = EventChannel.create();
        CmId client = CmId.create(cch, null, PortSpace.TCP);
        client.resolveAddr(new InetSocketAddress(CLIENT, 0), new InetSocketAddress(SERVER, PORTS.incrementAndGet()), WAIT);
        expect(cch, CmEventType.ADDR_RESOLVED);
        client.resolveRoute(WAIT);
        expect(cch, CmEventType.ROUTE_RESOLVED);
        client.createQp(client.verbs().allocPd(), Pair.attr(client.verbs().createCq(8, null)));
        client.connect(new ConnParam());
        CmEvent rej = expect(cch, CmEventType.REJECTED);
        assertEquals(-Errno.ECONNREFUSED, rej.status());
        client.destroy();
    }

    @Test
    void whatIwarpLacksFailsAsSiw() {
        try (Pair p = new Pair(0)) {
            VerbsException imm = assertThrows(VerbsException.class, () -> p.cqp.postSend(new SendWr().opcode(WrOpcode.SEND_WITH_IMM)
                    .sgList(new Sge(p.cmr.addr(), 8, p.cmr.lkey()))));
            assertEquals(Errno.EINVAL, imm.errno());
            VerbsException atomic = assertThrows(VerbsException.class, () -> p.cqp.postSend(new SendWr()
                    .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sgList(new Sge(p.cmr.addr(), 8, p.cmr.lkey()))
                    .rdma(p.smr.addr(), p.smr.rkey())));
            assertEquals(Errno.EINVAL, atomic.errno());
            ProtectionDomain pd = p.client.verbs().allocPd();
            CompletionQueue cq = p.client.verbs().createCq(8, null);
            for (var type : new org.jrdma.verbs.QpType[] {org.jrdma.verbs.QpType.UD, org.jrdma.verbs.QpType.UC}) {
                QpInitAttr a = Pair.attr(cq).qpType(type);
                VerbsException e = assertThrows(VerbsException.class, () -> pd.createQp(a));
                assertEquals(Errno.EOPNOTSUPP, e.errno());
            }
            assertEquals(org.jrdma.verbs.AtomicCap.NONE, p.client.verbs().queryDevice().atomicCap());
            // a user's modify to RTS is refused (siw needs the CM's socket)
            QueuePair q = pd.createQp(Pair.attr(cq).qpType(org.jrdma.verbs.QpType.RC));
            q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                    org.jrdma.verbs.QpAttrMask.STATE | org.jrdma.verbs.QpAttrMask.PKEY_INDEX
                            | org.jrdma.verbs.QpAttrMask.PORT | org.jrdma.verbs.QpAttrMask.ACCESS_FLAGS);
            assertNotNull(q);
            q.close();
        }
    }
}
