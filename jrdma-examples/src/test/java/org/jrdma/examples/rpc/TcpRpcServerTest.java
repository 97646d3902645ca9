package org.jrdma.examples.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * many connections at once; a client that pipelines far more requests than the buffers hold, reading
 * nothing meanwhile, gets every response in order (the server stops reading while its write buffer is
 * full); a request over the limit drops only its own connection.
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
        int n = 200_000;                                     // 4.8 MB each way: more than the socket buffers hold
        try (TcpRpcServer s = server(); SocketChannel c = SocketChannel.open(s.address())) {
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
            written.get(60, TimeUnit.SECONDS);               // all sent before any response is read
            ByteBuffer in = ByteBuffer.allocate(RpcFrame.HEADER + 8);
            for (long id = 1; id <= n; id++) {
                in.clear();
                while (in.hasRemaining()) {
                    if (c.read(in) < 0) {
                        throw new AssertionError("the server closed after " + (id - 1) + " responses");
                    }
                }
                assertEquals(id, in.getLong(0));
                assertEquals(RpcFrame.OK, in.getInt(8));
                assertEquals(8, in.getInt(12));
                assertEquals(id * 3, in.getLong(16));
            }
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
