package org.jrdma.examples.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the NIO TCP twin's server does beyond {@link RpcTest}'s TCP cases: one selector thread serves
 * many connections at once; a client that pipelines 1,000,000 requests (24 MB, more than loopback's
 * socket buffers hold) and reads nothing for a while gets every response in order (the server stops
 * reading while its write buffer is full, and resumes); a request over the limit drops only its own
 * connection.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpRpcServerTest {
    static final int LIMIT = 4096;
    static final int ECHO = 1;

    private static TcpRpcServer server() {
        return TcpRpcServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), LIMIT)
                .register(ECHO, p -> p);
    }

    private static byte[] num(long x) {
        return ByteBuffer.allocate(8).putLong(x).array();
    }

    @Test
    void oneSelectorThreadServesManyConnections() throws Exception {
        try (TcpRpcServer s = server()) {
            List<TcpRpcClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) {
                    clients.add(TcpRpcClient.connect(s.address(), LIMIT, 4));
                }
                List<CompletableFuture<byte[]>> fs = new ArrayList<>();
                for (int x = 0; x < 400; x++) {
                    fs.add(clients.get(x % clients.size()).call(ECHO, num(x)));
                }
                for (int x = 0; x < fs.size(); x++) {
                    assertArrayEquals(num(x), fs.get(x).get(30, TimeUnit.SECONDS), "call " + x);
                }
            } finally {
                for (TcpRpcClient c : clients) {
                    c.close();
                }
            }
        }
    }

    @Test
    void aClientThatDoesNotReadGetsEveryPipelinedResponseInOrder() throws Exception {
        int n = 1_000_000;                                   // 24 MB each way: more than the socket buffers hold
        try (TcpRpcServer s = server(); SocketChannel c = SocketChannel.open()) {
            c.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 64 * 1024);   // small: the responses back up
            c.connect(s.address());
            CompletableFuture<Void> written = CompletableFuture.runAsync(() -> {
                ByteBuffer b = ByteBuffer.allocate(64 * 1024);
                try {
                    for (long id = 1; id <= n; ) {
                        b.clear();
                        for (; id <= n && b.remaining() >= RpcFrame.HEADER + 8; id++) {
                            RpcFrame.put(b, id, ECHO, num(id * 3));
                        }
                        b.flip();
                        while (b.hasRemaining()) {
                            c.write(b);
                        }
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try {
                written.get(3, TimeUnit.SECONDS);            // read nothing while the writer goes as far as the buffers let it
            } catch (java.util.concurrent.TimeoutException stillWriting) {
                // the buffers filled: the server stopped reading; reading now lets the rest through
            }
            int frame = RpcFrame.HEADER + 8;
            ByteBuffer in = ByteBuffer.allocate(frame * 4096);
            for (long id = 1; id <= n; ) {
                if (c.read(in) < 0) {
                    throw new AssertionError("the server closed after " + (id - 1) + " responses");
                }
                in.flip();
                for (; in.remaining() >= frame; id++) {
                    int p = in.position();
                    assertEquals(id, in.getLong(p));
                    assertEquals(RpcFrame.OK, in.getInt(p + 8));
                    assertEquals(8, in.getInt(p + 12));
                    assertEquals(id * 3, in.getLong(p + 16));
                    in.position(p + frame);
                }
                in.compact();
            }
            written.get(60, TimeUnit.SECONDS);
            assertTrue(s.stalls() > 0, "the server's write buffer filled at least once");
        }
    }

    @Test
    void aRequestOverTheLimitDropsOnlyItsConnection() throws Exception {
        try (TcpRpcServer s = server();
             TcpRpcClient good = TcpRpcClient.connect(s.address(), LIMIT, 4);
             SocketChannel bad = SocketChannel.open(s.address())) {
            ByteBuffer h = ByteBuffer.allocate(RpcFrame.HEADER).putLong(1).putInt(ECHO).putInt(LIMIT).flip();
            while (h.hasRemaining()) {
                bad.write(h);
            }
            assertEquals(-1, bad.read(ByteBuffer.allocate(16)), "the server closed the connection");
            assertArrayEquals(num(5), good.call(ECHO, num(5)).get(30, TimeUnit.SECONDS));
        }
    }
}
