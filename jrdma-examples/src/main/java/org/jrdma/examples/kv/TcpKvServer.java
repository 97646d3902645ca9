package org.jrdma.examples.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The same key-value store over TCP (NIO, blocking channels), for comparison with
 * {@link RdmaKvServer}: the same table in memory, but every GET costs the server a request to parse and
 * a reply to send. Request: {@code [op][keyLen][valLen][key][value]} with op 1 PUT, 2 GET (no value);
 * answer to PUT {@code [status]}, to GET {@code [found 0|1][valLen][value]}.
 *
 * <p>Threads: {@code kv-tcp-accept}, and a {@code kv-tcp-conn} thread per connection.
 */
public final class TcpKvServer implements AutoCloseable {
    private final ServerSocketChannel server;
    private final Arena arena = Arena.ofShared();
    private final KvTable table;
    private final CopyOnWriteArrayList<SocketChannel> connections = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    private TcpKvServer(InetSocketAddress address, int buckets) throws IOException {
        this.server = ServerSocketChannel.open().bind(address);
        this.table = new KvTable(arena.allocate((long) buckets * KvLayout.SLOT, 4096), buckets);
        this.acceptor = Thread.ofPlatform().daemon().name("kv-tcp-accept").start(this::acceptLoop);
    }

    public static TcpKvServer start(InetSocketAddress address, int buckets) {
        try {
            return new TcpKvServer(address, buckets);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public InetSocketAddress address() {
        try {
            return (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            try {
                SocketChannel c = server.accept();
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                connections.add(c);
                Thread.ofPlatform().daemon().name("kv-tcp-conn").start(() -> serve(c));
            } catch (IOException e) {
                return;                                      // closed
            }
        }
    }

    private void serve(SocketChannel c) {
        ByteBuffer head = ByteBuffer.allocate(3);
        ByteBuffer body = ByteBuffer.allocate(KvLayout.MAX_KEY + 255);
        ByteBuffer out = ByteBuffer.allocate(2 + 255);
        try (c) {
            while (true) {
                head.clear();
                if (!readFully(c, head)) {
                    return;
                }
                int op = head.get(0);
                int kl = head.get(1) & 0xff;
                int vl = head.get(2) & 0xff;
                body.clear().limit(kl + vl);
                if (!readFully(c, body)) {
                    return;
                }
                byte[] key = Arrays.copyOfRange(body.array(), 0, kl);
                out.clear();
                if (op == 1) {
                    out.put(table.put(key, Arrays.copyOfRange(body.array(), kl, kl + vl)));
                } else {
                    byte[] v = table.get(key);
                    out.put((byte) (v == null ? 0 : 1)).put((byte) (v == null ? 0 : v.length));
                    if (v != null) {
                        out.put(v);
                    }
                }
                out.flip();
                while (out.hasRemaining()) {
                    c.write(out);
                }
            }
        } catch (IOException e) {
            // the client went away
        } finally {
            connections.remove(c);
        }
    }

    static boolean readFully(SocketChannel c, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        try {
            server.close();
            for (SocketChannel c : connections) {
                c.close();
            }
            acceptor.join(2000);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        arena.close();
    }
}
