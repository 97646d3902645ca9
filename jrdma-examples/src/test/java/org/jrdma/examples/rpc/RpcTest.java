package org.jrdma.examples.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jrdma.app.EndpointConfig;
import org.jrdma.app.EndpointGroup;
import org.junit.jupiter.api.AfterEach;
import org.jrdma.examples.LoopbackDevices;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The RPC example over soft RoCE (jrxe0 server, jrxe1 client), soft iWARP (jsiw0/jsiw1) and TCP:
 * echo and a computing handler, many concurrent calls matched to their requests, an unknown method,
 * a response over the limit, and a close with calls outstanding.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RpcTest {
    static final int LIMIT = 4096;
    static final int CREDITS = 16;
    static final int ECHO = 1;
    static final int SQUARE = 2;
    static final int HUGE = 3;
    static final int BLOCK = 4;
    static String[] ips;
    final List<AutoCloseable> open = new ArrayList<>();
    final CountDownLatch release = new CountDownLatch(1);

    @BeforeAll
    static void devices() {
        ips = LoopbackDevices.configure();
    }

    @AfterEach
    void closeAll() throws Exception {
        release.countDown();
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private RpcHandler[] handlers() {
        return new RpcHandler[] {
            p -> p,
            p -> {
                long x = ByteBuffer.wrap(p).getLong();
                return ByteBuffer.allocate(8).putLong(x * x + 1).array();
            },
            p -> new byte[LIMIT],
            p -> {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return p;
            },
        };
    }

    /** A connected client of a fresh server over {@code kind}: rdma-roce, rdma-iwarp or tcp. */
    private RpcClient client(String kind) throws Exception {
        RpcHandler[] h = handlers();
        if (kind.equals("tcp")) {
            TcpRpcServer s = TcpRpcServer.start(new InetSocketAddress(InetAddress.getByName(ips[0]), 0), LIMIT);
            open.add(s);
            for (int m = 0; m < h.length; m++) {
                s.register(m + 1, h[m]);
            }
            TcpRpcClient c = TcpRpcClient.connect(s.address(), LIMIT, CREDITS);
            open.add(c);
            return c;
        }
        int dev = kind.equals("rdma-roce") ? 0 : 2;
        EndpointGroup g = EndpointGroup.create(new EndpointConfig().recvDepth(CREDITS).recvBufferSize(LIMIT));
        open.add(g);
        RdmaRpcServer s = RdmaRpcServer.start(g, new InetSocketAddress(InetAddress.getByName(ips[dev]), 0), LIMIT);
        open.add(s);
        for (int m = 0; m < h.length; m++) {
            s.register(m + 1, h[m]);
        }
        RdmaRpcClient c = RdmaRpcClient.connect(g, s.address(), new InetSocketAddress(InetAddress.getByName(ips[dev + 1]), 0), LIMIT, CREDITS);
        open.add(c);
        return c;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] num(long x) {
        return ByteBuffer.allocate(8).putLong(x).array();
    }

    private static RpcException failure(CompletableFuture<byte[]> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
        return assertInstanceOf(RpcException.class, e.getCause());
    }

    @ParameterizedTest
    @ValueSource(strings = {"rdma-roce", "rdma-iwarp", "tcp"})
    void echoAndCompute(String kind) throws Exception {
        RpcClient c = client(kind);
        assertArrayEquals(b("hello"), c.call(ECHO, b("hello")).get(20, TimeUnit.SECONDS));
        assertArrayEquals(new byte[0], c.call(ECHO, new byte[0]).get(20, TimeUnit.SECONDS));
        byte[] big = new byte[LIMIT - RpcFrame.HEADER];
        ThreadLocalRandom.current().nextBytes(big);
        assertArrayEquals(big, c.call(ECHO, big).get(20, TimeUnit.SECONDS));
        assertEquals(50L, ByteBuffer.wrap(c.call(SQUARE, num(7)).get(20, TimeUnit.SECONDS)).getLong());
    }

    @ParameterizedTest
    @ValueSource(strings = {"rdma-roce", "rdma-iwarp", "tcp"})
    void manyConcurrentCallsAreMatchedToTheirRequests(String kind) throws Exception {
        RpcClient c = client(kind);
        int n = 400;
        List<Thread> callers = new ArrayList<>();
        @SuppressWarnings("unchecked")
        CompletableFuture<byte[]>[] byX = new CompletableFuture[n];
        for (int t = 0; t < 4; t++) {
            int first = t;
            callers.add(Thread.ofPlatform().start(() -> {
                for (int x = first; x < n; x += 4) {
                    byX[x] = c.call(x % 2 == 0 ? SQUARE : ECHO, num(x));
                }
            }));
        }
        for (Thread t : callers) {
            t.join();
        }
        for (int x = 0; x < n; x++) {
            long got = ByteBuffer.wrap(byX[x].get(20, TimeUnit.SECONDS)).getLong();
            assertEquals(x % 2 == 0 ? (long) x * x + 1 : x, got, "call " + x);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rdma-roce", "rdma-iwarp", "tcp"})
    void anUnknownMethodIsAnExceptionalFuture(String kind) throws Exception {
        RpcClient c = client(kind);
        RpcException e = failure(c.call(99, b("x")));
        assertEquals(RpcFrame.UNKNOWN_METHOD, e.status());
        assertTrue(e.getMessage().contains("unknown method 99"), e.getMessage());
        assertArrayEquals(b("still fine"), c.call(ECHO, b("still fine")).get(20, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @ValueSource(strings = {"rdma-roce", "rdma-iwarp", "tcp"})
    void aResponseOverTheLimitIsRefused(String kind) throws Exception {
        RpcClient c = client(kind);
        RpcException e = failure(c.call(HUGE, new byte[0]));
        assertEquals(RpcFrame.TOO_LARGE, e.status());
        assertTrue(e.getMessage().contains("over the limit of " + (LIMIT - RpcFrame.HEADER)), e.getMessage());
        RpcException local = failure(c.call(ECHO, new byte[LIMIT]));
        assertEquals(RpcException.LOCAL, local.status());
        assertArrayEquals(b("after"), c.call(ECHO, b("after")).get(20, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @ValueSource(strings = {"rdma-roce", "rdma-iwarp", "tcp"})
    void closingTheClientFailsOutstandingFutures(String kind) throws Exception {
        RpcClient c = client(kind);
        List<CompletableFuture<byte[]>> fs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            fs.add(c.call(BLOCK, num(i)));                 // the server's thread waits in the first
        }
        for (CompletableFuture<byte[]> f : fs) {
            assertFalse(f.isDone());
        }
        c.close();
        for (CompletableFuture<byte[]> f : fs) {
            assertEquals(RpcException.LOCAL, failure(f).status());
        }
        assertEquals(RpcException.LOCAL, failure(c.call(ECHO, b("late"))).status());
    }
}
