package org.jrdma.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.junit.jupiter.api.Test;

/**
 * Endpoints over the CM between soft RoCE jrxe0 (server) and jrxe1 (client) in this JVM: every
 * operation with its data checked, bounds checked before posting, error completions, a peer that
 * vanishes, a peer that disconnects, and the application's own progress loop.
 */
class EndpointTest extends SoftRocePairFixture {
    static final Duration WAIT = Duration.ofSeconds(10);
    private static final AtomicInteger PORTS = new AtomicInteger(21000 + (int) (ProcessHandle.current().pid() % 5000));

    /** A connected pair: [0] the server's endpoint, [1] the client's; the server advertises {@code advertise}. */
    static Endpoint[] pair(EndpointGroup g, InetAddress srv, InetAddress cli, java.util.function.Function<EndpointListener, byte[]> advertise,
                           byte[] clientData) throws Exception {
        EndpointListener l = g.listen(new InetSocketAddress(srv, PORTS.incrementAndGet()));
        CompletableFuture<Endpoint> accepted = CompletableFuture.supplyAsync(() -> l.accept(WAIT, advertise.apply(l)));
        Endpoint c = g.connect(l.localAddress(), new InetSocketAddress(cli, 0), clientData);
        Endpoint s = accepted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        return new Endpoint[] {s, c};
    }

    static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    static Throwable failure(CompletableFuture<?> f) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void everyOperationMovesTheRightBytesAndTheRemoteBufferTravelsInThePrivateData() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        MemorySegment table = arena.allocate(4096, 64);
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint[] p = pair(group, server, client, l -> {
            mr[0] = l.pd().regMr(table, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC);
            return RemoteBuffer.of(mr[0]).encode();
        }, "hi".getBytes(StandardCharsets.US_ASCII));
        Endpoint s = p[0];
        Endpoint c = p[1];
        assertEquals("hi", new String(s.peerPrivateData(), 0, 2, StandardCharsets.US_ASCII));
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        assertEquals(RemoteBuffer.of(mr[0]), rb);

        // SEND -> receive
        CompletableFuture<Received> incoming = s.receive();
        try (Lease m = c.pool().lease(100)) {
            m.putBytes(0, "ping".getBytes(StandardCharsets.US_ASCII));
            get(c.send(m, 0, 4));
        }
        try (Received r = get(incoming)) {
            assertEquals(WcOpcode.RECV, r.opcode());
            assertEquals("ping", new String(r.bytes(), StandardCharsets.US_ASCII));
            assertFalse(r.hasImm());
        }
        // WRITE, then READ it back
        byte[] data = new byte[1000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7);
        }
        try (Lease w = c.pool().lease(1000); Lease rd = c.pool().lease(1000)) {
            w.putBytes(0, data);
            get(c.write(w, 0, 1000, rb, 96));
            byte[] there = new byte[1000];
            MemorySegment.copy(table, ValueLayout.JAVA_BYTE, 96, there, 0, 1000);
            assertArrayEquals(data, there);
            table.set(ValueLayout.JAVA_BYTE, 100, (byte) 0x55);
            get(c.read(rd, 10, 500, rb, 96));
            assertEquals(0x55, rd.getBytes(14, 1)[0]);
            assertEquals(data[499], rd.getBytes(10 + 499, 1)[0]);
        }
        // WRITE_WITH_IMM: data at the target, the immediate in the peer's receive
        CompletableFuture<Received> note = s.receive();
        try (Lease w = c.pool().lease(8)) {
            w.putLong(0, 0x1122334455667788L);
            get(c.writeWithImm(w, 0, 8, rb, 2048, 0xCAFE));
        }
        try (Received r = get(note)) {
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
            assertTrue(r.hasImm());
            assertEquals(0xCAFE, r.immData());
            assertEquals(8, r.byteLen());
        }
        assertEquals(0x1122334455667788L, table.get(ValueLayout.JAVA_LONG_UNALIGNED, 2048));
        // atomics on an 8-byte aligned word
        table.set(ValueLayout.JAVA_LONG, 3000, 41);
        assertEquals(41L, get(c.fetchAndAdd(rb, 3000, 1)));
        assertEquals(42L, table.get(ValueLayout.JAVA_LONG, 3000));
        assertEquals(42L, get(c.compareAndSwap(rb, 3000, 42, 7)));
        assertEquals(7L, table.get(ValueLayout.JAVA_LONG, 3000));
        assertEquals(7L, get(c.compareAndSwap(rb, 3000, 42, 9)), "no swap: the value differs");
        assertEquals(7L, table.get(ValueLayout.JAVA_LONG, 3000));
        // the server answers by SEND too
        CompletableFuture<Received> back = c.receive();
        try (Lease m = s.pool().lease(3)) {
            m.putBytes(0, "ok!".getBytes(StandardCharsets.US_ASCII));
            get(s.send(m));
        }
        try (Received r = get(back)) {
            assertEquals("ok!", new String(r.bytes(), StandardCharsets.US_ASCII));
        }
        assertTrue(c.isConnected() && s.isConnected());
        c.close();
        s.close();
        mr[0].close();
        assertEquals(0, c.pool().metrics().leasesInUse(), "every lease came back, the receive buffers too");
        assertEquals(0, s.pool().metrics().leasesInUse());
    }

    @Test
    void badRangesClosedLeasesAndMisalignedAtomicsAreRefusedBeforeAnythingIsPosted() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        MemorySegment table = arena.allocate(4096, 64);
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint[] p = pair(group, server, client, l -> {
            mr[0] = l.pd().regMr(table, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC);
            return RemoteBuffer.of(mr[0]).encode();
        }, null);
        Endpoint c = p[1];
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        try (Lease l = c.pool().lease(256)) {
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.read(l, 0, 256, rb, 4096 - 255)).errno(), "past the remote end");
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.write(l, 0, 16, rb, -1)).errno());
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.write(l, 0, 16, rb, Long.MAX_VALUE)).errno(), "overflow");
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.write(l, 250, 16, rb, 0)).errno(), "past the lease");
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.fetchAndAdd(rb, 3, 1)).errno(), "misaligned");
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.fetchAndAdd(rb, 4092, 1)).errno(), "8 bytes past the end");
        }
        Lease closed = c.pool().lease(64);
        closed.close();
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.send(closed, 0, 8)).errno());
        assertEquals(0, c.progress() + c.pool().metrics().leasesInUse() - c.pool().metrics().leasesInUse(), "nothing was posted");
        assertTrue(c.isConnected(), "refused calls leave the endpoint as it was");
        try (Lease l = c.pool().lease(8)) {
            get(c.write(l, 0, 8, rb, 4088));                                  // the last 8 bytes are fine
        }
        mr[0].close();
    }

    @Test
    void aForgedRkeyFailsWithRemAccessErrAndBreaksTheEndpointFailingTheRest() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        MemorySegment table = arena.allocate(4096, 64);
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint[] p = pair(group, server, client, l -> {
            mr[0] = l.pd().regMr(table, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
            return RemoteBuffer.of(mr[0]).encode();
        }, null);
        Endpoint c = p[1];
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        RemoteBuffer forged = new RemoteBuffer(rb.address(), rb.rkey() + 0x100, rb.length());
        CompletableFuture<Received> waiting = c.receive(WAIT);
        try (Lease l = c.pool().lease(64)) {
            // the responder's QP goes to ERR too (as rxe's responder does after its NAK for a bad rkey), so
            // the server's endpoint breaks and disconnects: its DREQ may reach the client's CM thread before
            // the NAK's completion reaches the client's CQ, and then the READ fails with the endpoint
            Throwable t = failure(c.read(l, 0, 64, forged, 0));
            if (t instanceof WorkRequestException w) {
                assertEquals(WcStatus.REM_ACCESS_ERR, w.status());
            } else {
                assertInstanceOf(EndpointClosedException.class, t, "the READ with a forged rkey fails");
            }
        }
        assertInstanceOf(EndpointClosedException.class, failure(waiting), "the waiting receive fails with the endpoint");
        assertFalse(c.isConnected());
        try (Lease l = c.pool().lease(64)) {
            assertInstanceOf(EndpointClosedException.class, failure(c.read(l, 0, 64, rb, 0)), "a broken endpoint posts nothing");
        }
        mr[0].close();
    }

    @Test
    void aPeerThatVanishesFailsEveryOutstandingFutureWithinTheTimeout() throws Exception {
        Duration timeout = Duration.ofMillis(1500);
        group = EndpointGroup.create(new EndpointConfig().timeout(timeout));
        MemorySegment table = arena.allocate(4096, 64);
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint[] p = pair(group, server, client, l -> {
            mr[0] = l.pd().regMr(table, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            return RemoteBuffer.of(mr[0]).encode();
        }, null);
        Endpoint s = p[0];
        Endpoint c = p[1];
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        s.qp().close();                       // the server's QP is gone without a word (no DREQ): its packets go nowhere
        List<CompletableFuture<?>> out = new ArrayList<>();
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Lease l = c.pool().lease(512);
            leases.add(l);
            out.add(c.write(l, 0, 512, rb, i * 512L));
        }
        out.add(c.receive(Duration.ofSeconds(60)));
        leases.forEach(Lease::close);         // closed early: their buffers stay pinned until the WRs are flushed
        long t0 = System.nanoTime();
        for (CompletableFuture<?> f : out) {
            Throwable t = failure(f);
            assertTrue(t instanceof TimeoutException || t instanceof EndpointClosedException || t instanceof WorkRequestException, t.toString());
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < WAIT.toMillis(), "all failed in " + ms + " ms");
        assertFalse(c.isConnected());
        assertTrue(c.failure() instanceof TimeoutException || c.failure() instanceof WorkRequestException, String.valueOf(c.failure()));
        c.close();
        assertEquals(0, c.pool().metrics().leasesInUse(), "flushed work requests gave their pinned buffers back");
        mr[0].close();
    }

    @Test
    void aPeerThatDisconnectsFailsTheWaitingReceiveAndAReceiveTimeoutLeavesTheEndpointUp() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        Endpoint[] p = pair(group, server, client, l -> null, null);
        Endpoint s = p[0];
        Endpoint c = p[1];
        assertInstanceOf(TimeoutException.class, failure(c.receive(Duration.ofMillis(50))));
        assertTrue(c.isConnected(), "a receive that timed out takes nothing and breaks nothing");
        CompletableFuture<Received> waiting = c.receive(Duration.ofSeconds(60));
        s.close();
        Throwable t = failure(waiting);
        assertInstanceOf(EndpointClosedException.class, t);
        assertFalse(c.isConnected());
        assertTrue(c.failure().getMessage().contains("disconnected"), c.failure().getMessage());
    }

    @Test
    void aCancelledReceiveTakesNoMessage() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        Endpoint[] p = pair(group, server, client, l -> null, null);
        CompletableFuture<Received> cancelled = p[0].receive();
        assertTrue(cancelled.cancel(false));
        CompletableFuture<Received> next = p[0].receive();
        try (Lease m = p[1].pool().lease(16)) {
            m.putBytes(0, "kept".getBytes(StandardCharsets.US_ASCII));
            get(p[1].send(m, 0, 4));
        }
        try (Received r = get(next)) {
            assertEquals("kept", new String(r.bytes(), StandardCharsets.US_ASCII), "the message went to the next receive, not to the cancelled one");
        }
        p[1].close();
        p[0].close();
    }

    @Test
    void withoutTheProgressThreadTheApplicationsLoopCompletesTheFutures() throws Exception {
        group = EndpointGroup.create(new EndpointConfig().progressThread(false));
        EndpointListener l = group.listen(new InetSocketAddress(server, PORTS.incrementAndGet()));
        CompletableFuture<Endpoint> accepted = CompletableFuture.supplyAsync(() -> l.accept(WAIT));
        Endpoint c = group.connect(l.localAddress(), new InetSocketAddress(client, 0), null);
        Endpoint s = get(accepted);
        CompletableFuture<Received> in = s.receive();
        CompletableFuture<Void> sent;
        try (Lease m = c.pool().lease(16)) {
            m.putLong(0, 99);
            sent = c.send(m, 0, 8);
        }
        long end = System.nanoTime() + WAIT.toNanos();
        while (!(sent.isDone() && in.isDone()) && System.nanoTime() < end) {
            group.progress();
        }
        assertTrue(sent.isDone() && !sent.isCompletedExceptionally());
        try (Received r = in.join()) {
            assertEquals(99, r.lease().getLong(0));
        }
    }

    @Test
    void nobodyListeningIsEconnrefused() {
        group = EndpointGroup.create(new EndpointConfig());
        group.listen(new InetSocketAddress(server, PORTS.incrementAndGet())).close();   // the server's CM runs, nobody on the port
        VerbsException e = assertThrows(VerbsException.class,
                () -> group.connect(new InetSocketAddress(server, PORTS.incrementAndGet()), new InetSocketAddress(client, 0), null));
        assertEquals(Errno.ECONNREFUSED, e.errno(), e.getMessage());
    }
}
