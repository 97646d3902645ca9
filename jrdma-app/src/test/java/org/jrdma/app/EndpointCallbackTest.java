package org.jrdma.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The callback form of the endpoint's operations ({@link EndpointCompletionHandler}) between soft RoCE
 * jrxe0 (server) and jrxe1 (client): values and bytes of every kind, an error completion, close and a
 * vanished peer failing what is outstanding exactly once, refusals at post.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EndpointCallbackTest extends SoftRocePairFixture {
    /** Waits until {@code calls[id]} counts a call, at most {@link EndpointTest#WAIT}. */
    static void awaitCall(AtomicIntegerArray calls, int id, String what) throws InterruptedException {
        long end = System.nanoTime() + EndpointTest.WAIT.toNanos();
        while (calls.get(id) == 0) {
            assertTrue(System.nanoTime() - end < 0, what + " " + id + " was not told within " + EndpointTest.WAIT);
            Thread.sleep(1);
        }
    }

    /** Records every call with its attachment (an Integer id) and counts calls per id. */
    static final class Recorder implements EndpointCompletionHandler<Integer> {
        final AtomicIntegerArray calls;
        final ConcurrentLinkedQueue<Object> outcomes = new ConcurrentLinkedQueue<>();   // Long value or Throwable
        final long[] values;

        Recorder(int n) {
            calls = new AtomicIntegerArray(n);
            values = new long[n];
        }

        @Override
        public void completed(long value, Integer id) {
            values[id] = value;
            outcomes.add(value);
            calls.incrementAndGet(id);
        }

        @Override
        public void failed(Throwable exc, Integer id) {
            outcomes.add(exc);
            calls.incrementAndGet(id);
        }

        void await(int id) throws InterruptedException {
            awaitCall(calls, id, "operation");
        }

        int total() {
            int t = 0;
            for (int i = 0; i < calls.length(); i++) {
                t += calls.get(i);
            }
            return t;
        }
    }

    private Endpoint[] pair(int access, MemorySegment table, MemoryRegion[] mr) throws Exception {
        return EndpointTest.pair(group, server, client, l -> {
            mr[0] = l.pd().regMr(table, access);
            return RemoteBuffer.of(mr[0]).encode();
        }, null);
    }

    @Test
    void everyKindTellsItsHandlerOnceWithTheRightValueAndBytes() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        MemorySegment table = arena.allocate(4096, 64);
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint[] p = pair(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC, table, mr);
        Endpoint s = p[0];
        Endpoint c = p[1];
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        Recorder r = new Recorder(8);
        CompletableFuture<Received> incoming = s.receive();
        try (Lease l = c.pool().lease(256)) {
            l.putBytes(0, "callback".getBytes());
            c.send(l, 0, 8, 0, r);
            r.await(0);
            try (Received m = EndpointTest.get(incoming)) {
                assertEquals("callback", new String(m.bytes()));
            }
            c.write(l, 0, 8, rb, 100, 1, r);
            r.await(1);
            CompletableFuture<Received> imm = s.receive();
            c.writeWithImm(l, 0, 8, rb, 200, 0x1234, 2, r);
            r.await(2);
            try (Received m = EndpointTest.get(imm)) {
                assertEquals(0x1234, m.immData());
            }
            table.set(ValueLayout.JAVA_LONG_UNALIGNED, 512, 41);
            c.fetchAndAdd(rb, 512, 1, 3, r);
            r.await(3);
            c.compareAndSwap(rb, 512, 42, 7, 4, r);
            r.await(4);
            c.read(l, 64, 8, rb, 100, 5, r);
            r.await(5);
            assertEquals("callback", new String(l.getBytes(64, 8)), "the READ brought back what the WRITE put there");
        }
        assertEquals(41, r.values[3], "fetch-and-add: the value before");
        assertEquals(42, r.values[4], "compare-and-swap: the value before (it equalled expect, so it swapped)");
        assertEquals(7, table.get(ValueLayout.JAVA_LONG_UNALIGNED, 512));
        byte[] there = new byte[8];
        MemorySegment.copy(table, ValueLayout.JAVA_BYTE, 200, there, 0, 8);
        assertEquals("callback", new String(there));
        Thread.sleep(50);
        for (int i = 0; i < 6; i++) {
            assertEquals(1, r.calls.get(i), "operation " + i + " told once");
        }
        for (Object o : r.outcomes) {
            assertFalse(o instanceof Throwable, String.valueOf(o));
        }
        c.close();
        s.close();
        mr[0].close();
        assertEquals(0, c.pool().metrics().leasesInUse(), "the atomics' result lease came back with the endpoint");
    }

    @Test
    void aForgedRkeyFailsTheHandlerOnceAndABrokenEndpointFailsTheNextPostInTheCallingThread() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        MemorySegment table = arena.allocate(4096, 64);
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint c = pair(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, table, mr)[1];
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        RemoteBuffer forged = new RemoteBuffer(rb.address(), rb.rkey() + 0x100, rb.length());
        Recorder r = new Recorder(2);
        try (Lease l = c.pool().lease(64)) {
            c.read(l, 0, 64, forged, 0, 0, r);
            r.await(0);
            Object o = r.outcomes.peek();
            if (o instanceof WorkRequestException w) {
                assertEquals(WcStatus.REM_ACCESS_ERR, w.status());
            } else {
                assertInstanceOf(EndpointClosedException.class, o, "the READ with a forged rkey fails");
            }
            long end = System.nanoTime() + EndpointTest.WAIT.toNanos();
            while (c.isConnected() && System.nanoTime() - end < 0) {
                Thread.sleep(1);
            }
            assertFalse(c.isConnected());
            Thread[] caller = new Thread[1];
            c.read(l, 0, 64, rb, 0, 1, new EndpointCompletionHandler<Integer>() {
                @Override
                public void completed(long value, Integer a) {
                    r.completed(value, a);
                }

                @Override
                public void failed(Throwable exc, Integer a) {
                    caller[0] = Thread.currentThread();
                    r.failed(exc, a);
                }
            });
            assertEquals(Thread.currentThread(), caller[0], "a post on a broken endpoint fails in the posting thread, at once");
        }
        Thread.sleep(50);
        assertEquals(1, r.calls.get(0));
        assertEquals(1, r.calls.get(1));
        c.close();
        mr[0].close();
    }

    @Test
    void closeFailsEveryOutstandingHandlerExactlyOnce() throws Exception {
        group = EndpointGroup.create(new EndpointConfig().sendDepth(64));
        MemorySegment table = arena.allocate(1 << 16, 64);
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint[] p = pair(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, table, mr);
        Endpoint c = p[1];
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        int n = 64;
        Recorder r = new Recorder(n);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Lease l = c.pool().lease(1024);
            leases.add(l);
            c.read(l, 0, 1024, rb, i * 1024L, i, r);
        }
        c.close();                              // most are still outstanding: failed by close, once
        int told = r.total();
        assertEquals(n, told, "every operation was told by the time close returned");
        Thread.sleep(200);                       // any late (flushed) completion must tell nothing more
        for (int i = 0; i < n; i++) {
            assertEquals(1, r.calls.get(i), "operation " + i);
        }
        int failedClosed = 0;
        for (Object o : r.outcomes) {
            if (o instanceof Throwable t) {
                assertTrue(t instanceof EndpointClosedException || t instanceof WorkRequestException, t.toString());
                failedClosed++;
            }
        }
        assertTrue(failedClosed + (n - failedClosed) == n);
        leases.forEach(Lease::close);
        p[0].close();
        mr[0].close();
        assertEquals(0, c.pool().metrics().leasesInUse());
    }

    @Test
    void aVanishedPeerFailsEveryOutstandingHandlerOnceWithinTheTimeout() throws Exception {
        group = EndpointGroup.create(new EndpointConfig().timeout(Duration.ofSeconds(4)));
        MemorySegment table = arena.allocate(4096, 64);
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint[] p = pair(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, table, mr);
        Endpoint c = p[1];
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        p[0].qp().close();                       // the server's QP is gone without a word
        int n = 8;
        Recorder r = new Recorder(n);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Lease l = c.pool().lease(512);
            leases.add(l);
            c.write(l, 0, 512, rb, i * 512L, i, r);
        }
        for (int i = 0; i < n; i++) {
            r.await(i);
        }
        boolean timedOut = false;
        for (Object o : r.outcomes) {
            assertInstanceOf(Throwable.class, o);
            timedOut |= o instanceof TimeoutException;
            assertTrue(o instanceof TimeoutException || o instanceof EndpointClosedException || o instanceof WorkRequestException, o.toString());
        }
        assertFalse(c.isConnected());
        assertTrue(timedOut || c.failure() instanceof WorkRequestException, "the first failure was the timeout (or RETRY_EXC_ERR)");
        c.close();
        Thread.sleep(100);
        for (int i = 0; i < n; i++) {
            assertEquals(1, r.calls.get(i), "operation " + i);
        }
        leases.forEach(Lease::close);
        p[0].close();
        mr[0].close();
    }

    @Test
    void refusedPostsThrowAndTellNothing() throws Exception {
        group = EndpointGroup.create(new EndpointConfig().sendDepth(1));
        MemorySegment table = arena.allocate(4096, 64);
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint[] p = pair(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, table, mr);
        Endpoint c = p[1];
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        Recorder r = new Recorder(4);
        try (Lease l = c.pool().lease(64)) {
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.read(l, 0, 65, rb, 0, 0, r)).errno());
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.read(l, 0, 8, rb, 4090, 0, r)).errno());
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> c.fetchAndAdd(rb, 4, 1, 0, r)).errno());
            assertThrows(NullPointerException.class, () -> c.read(l, 0, 8, rb, 0, 0, null));
            assertEquals(0, r.total(), "nothing posted, nothing told");
            assertTrue(c.isConnected());
            assertNull(r.outcomes.peek());
        }
        c.close();
        p[0].close();
        mr[0].close();
    }

    // ---- receive with a handler ----

    /** Records each receive's outcome per id: the message's bytes (copied in the handler) or the exception. */
    static final class Receipts implements EndpointReceiveHandler<Integer> {
        final AtomicIntegerArray calls;
        final Object[] outcome;
        final Thread[] thread;
        final ReceivedView[] views;
        volatile boolean retain;

        Receipts(int n) {
            calls = new AtomicIntegerArray(n);
            outcome = new Object[n];
            thread = new Thread[n];
            views = new ReceivedView[n];
        }

        @Override
        public void received(ReceivedView m, Integer id) {
            outcome[id] = m.hasImm() && m.length() == 0 ? (Object) ("imm " + m.immData() + " len " + m.byteLen()) : new String(m.bytes());
            views[id] = retain ? m.retain() : m;
            thread[id] = Thread.currentThread();
            calls.incrementAndGet(id);
        }

        @Override
        public void failed(Throwable exc, Integer id) {
            outcome[id] = exc;
            thread[id] = Thread.currentThread();
            calls.incrementAndGet(id);
        }

        void await(int id) throws InterruptedException {
            awaitCall(calls, id, "receive");
        }

        void assertEachOnce() {
            for (int i = 0; i < calls.length(); i++) {
                assertEquals(1, calls.get(i), "receive " + i + " told once");
            }
        }
    }

    private static void send(Endpoint c, String text) throws Exception {
        try (Lease l = c.pool().lease(64)) {
            l.putBytes(0, text.getBytes());
            EndpointTest.get(c.send(l, 0, text.length()));
        }
    }

    @Test
    void receiveHandlersAreToldTheMessagesInOrderOnceEachInTheirOwnBufferWhichIsPostedAgain() throws Exception {
        group = EndpointGroup.create(new EndpointConfig().recvDepth(4));
        MemorySegment table = arena.allocate(4096, 64);
        MemoryRegion[] mr = new MemoryRegion[1];
        Endpoint[] p = pair(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, table, mr);
        Endpoint s = p[0];
        Endpoint c = p[1];
        RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
        long leased = s.pool().metrics().hits() + s.pool().metrics().misses();
        int n = 12;                                        // three times recvDepth: every buffer is posted again, twice
        Receipts r = new Receipts(n + 1);
        for (int i = 0; i < n; i++) {
            s.receive(i, r);
        }
        for (int i = 0; i < n; i++) {
            send(c, "message " + i);
            r.await(i);
        }
        try (Lease l = c.pool().lease(64)) {
            s.receive(n, r);
            EndpointTest.get(c.writeWithImm(l, 0, 16, rb, 0, 0xbeef));
            r.await(n);
        }
        Thread.sleep(50);
        r.assertEachOnce();
        for (int i = 0; i < n; i++) {
            assertEquals("message " + i, r.outcome[i], "receives are served in order");
        }
        assertEquals("imm 48879 len 16", r.outcome[n], "a WRITE with immediate: the view has its immediate and length, no bytes");
        assertEquals(leased, s.pool().metrics().hits() + s.pool().metrics().misses(),
                "no buffer was leased for a message: the slots' own were posted again");
        ReceivedView stale = r.views[0];
        assertThrows(IllegalStateException.class, stale::length, "a view is no longer valid once its handler returned");
        assertThrows(IllegalStateException.class, () -> stale.getBytes(0, new byte[4], 0, 4));
        assertThrows(IllegalStateException.class, stale::retain);
        assertTrue(s.isConnected());
        c.close();
        s.close();
        mr[0].close();
    }

    @Test
    void aRetainedViewStaysValidUntilReleasedAndItsBufferIsPostedOnlyThen() throws Exception {
        group = EndpointGroup.create(new EndpointConfig().recvDepth(2));
        Endpoint[] p = EndpointTest.pair(group, server, client, l -> null, null);
        Endpoint s = p[0];
        Endpoint c = p[1];
        Receipts r = new Receipts(3);
        r.retain = true;
        s.receive(0, r);
        send(c, "kept");
        r.await(0);
        ReceivedView v = r.views[0];
        Thread.sleep(20);
        assertEquals(4, v.length(), "valid after its handler returned");
        byte[] b = new byte[4];
        v.getBytes(0, b, 0, 4);
        assertEquals("kept", new String(b));
        assertThrows(IndexOutOfBoundsException.class, () -> v.getBytes(1, b, 0, 4), "past the message's bytes");
        assertThrows(IndexOutOfBoundsException.class, () -> v.getLong(0), "8 bytes of a 4-byte message");
        r.retain = false;
        s.receive(1, r);
        send(c, "next");                                   // the other buffer (recvDepth 2, one retained)
        r.await(1);
        assertEquals("next", r.outcome[1]);
        assertEquals("kept", new String(v.bytes()), "a later message did not land in the retained buffer");
        v.release();
        assertThrows(IllegalStateException.class, v::length, "released");
        assertThrows(IllegalStateException.class, v::release, "released twice");
        s.receive(2, r);
        send(c, "again");
        r.await(2);
        assertEquals("again", r.outcome[2]);
        r.assertEachOnce();
        c.close();
        s.close();
    }

    @Test
    void aMessageThatCameBeforeItsReceiveIsToldToTheNextHandlerAndItsLeaseGoesBack() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        Endpoint[] p = EndpointTest.pair(group, server, client, l -> null, null);
        Endpoint s = p[0];
        Endpoint c = p[1];
        send(c, "early");
        Thread.sleep(50);                                  // arrived, nobody asked yet
        Receipts r = new Receipts(2);
        s.receive(0, r);
        r.await(0);
        assertEquals("early", r.outcome[0]);
        CompletableFuture<Received> f = s.receive();       // the future form after it: served in order, the next message
        s.receive(1, r);
        send(c, "one");
        send(c, "two");
        try (Received m = EndpointTest.get(f)) {
            assertEquals("one", new String(m.bytes()));
        }
        r.await(1);
        assertEquals("two", r.outcome[1]);
        Thread.sleep(20);
        r.assertEachOnce();
        c.close();
        s.close();
        assertEquals(0, s.pool().metrics().leasesInUse(), "every buffer went back, the early message's own included");
    }

    @Test
    void aReceiveThatTimesOutIsToldOnceAndTakesNoMessage() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        Endpoint[] p = EndpointTest.pair(group, server, client, l -> null, null);
        Endpoint s = p[0];
        Endpoint c = p[1];
        Receipts r = new Receipts(2);
        s.receive(Duration.ofMillis(50), 0, r);
        r.await(0);
        assertInstanceOf(TimeoutException.class, r.outcome[0]);
        assertTrue(s.isConnected(), "a receive's timeout does not break the endpoint");
        s.receive(1, r);
        send(c, "after");
        r.await(1);
        assertEquals("after", r.outcome[1]);
        Thread.sleep(20);
        r.assertEachOnce();
        c.close();
        s.close();
    }

    @Test
    void closeFailsEveryWaitingReceiveOnceAndALaterReceiveInTheCallingThread() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        Endpoint[] p = EndpointTest.pair(group, server, client, l -> null, null);
        Endpoint s = p[0];
        int n = 16;
        Receipts r = new Receipts(n + 1);
        List<CompletableFuture<Received>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            s.receive(i, r);
            futures.add(s.receive());
        }
        s.close();
        for (int i = 0; i < n; i++) {
            assertEquals(1, r.calls.get(i), "receive " + i + " was told by the time close returned");
            assertInstanceOf(EndpointClosedException.class, r.outcome[i]);
            assertInstanceOf(EndpointClosedException.class, EndpointTest.failure(futures.get(i)));
        }
        s.receive(n, r);
        assertEquals(Thread.currentThread(), r.thread[n], "a receive on a closed endpoint is told in the calling thread, at once");
        assertInstanceOf(EndpointClosedException.class, r.outcome[n]);
        Thread.sleep(100);
        r.assertEachOnce();
        assertThrows(NullPointerException.class, () -> s.receive(0, null));
        p[1].close();
    }

    @Test
    void aPeerThatDisconnectsFailsEveryWaitingReceiveOnceAndARetainedViewEndsWithTheEndpoint() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        Endpoint[] p = EndpointTest.pair(group, server, client, l -> null, null);
        Endpoint s = p[0];
        Endpoint c = p[1];
        int n = 8;
        Receipts r = new Receipts(n + 1);
        r.retain = true;
        s.receive(n, r);
        send(c, "held");
        r.await(n);
        ReceivedView held = r.views[n];
        for (int i = 0; i < n; i++) {
            s.receive(i, r);
        }
        c.close();                                         // DISCONNECTED at the server
        for (int i = 0; i < n; i++) {
            r.await(i);
            assertInstanceOf(EndpointClosedException.class, r.outcome[i], "receive " + i);
        }
        assertFalse(s.isConnected());
        assertEquals("held", new String(held.bytes()), "broken, not closed: a retained view is still valid");
        s.close();
        assertThrows(IllegalStateException.class, held::length, "closed: its buffer went back to the pool");
        held.release();                                    // a no-op now, not an error
        Thread.sleep(100);
        r.assertEachOnce();
        assertEquals(0, s.pool().metrics().leasesInUse(), "every buffer went back, the retained one included");
    }

    @Test
    void aPeerThatVanishesSilentlyTimesOutEveryWaitingReceiveOnce() throws Exception {
        group = EndpointGroup.create(new EndpointConfig());
        Endpoint[] p = EndpointTest.pair(group, server, client, l -> null, null);
        Endpoint s = p[0];
        p[1].qp().close();                                 // the client's QP is gone without a word
        int n = 8;
        Receipts r = new Receipts(n);
        for (int i = 0; i < n; i++) {
            s.receive(Duration.ofMillis(300), i, r);
        }
        for (int i = 0; i < n; i++) {
            r.await(i);
            assertInstanceOf(TimeoutException.class, r.outcome[i], "receive " + i + ": RDMA has no keep-alive, the timeout tells");
        }
        Thread.sleep(50);
        r.assertEachOnce();
        s.close();
        p[1].close();
    }
}
