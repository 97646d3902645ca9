package org.jrdma.examples.rpc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The same RPC server over TCP (java.nio, one {@link Selector}): the same {@link RpcFrame}s back to back
 * on a stream, the same {@code limit} on a frame's bytes (a request over it drops the connection; a
 * response over it becomes {@link RpcFrame#TOO_LARGE}). TCP_NODELAY on.
 *
 * <p>Why a selector: a TCP RPC server is built this way in practice (an event loop over non-blocking
 * channels, as Netty or gRPC do), so it is the fair baseline for the RDMA server, and one thread serves
 * every connection. Each connection has a direct read buffer and a direct write buffer of
 * {@code max(limit, 64 KiB)} bytes, allocated when it is accepted and reused: a read takes every byte
 * the kernel has, every complete request in it is answered into the write buffer, and the responses go
 * out in one write when no complete request is left (several pipelined calls cost one read and one
 * write). In steady state the server allocates per call only what {@link RpcHandler}'s byte-array
 * contract needs: the request's payload, the request and response {@link RpcFrame}s and the handler's
 * result. Back-pressure: when a response does not fit behind unsent ones (the client is not reading),
 * the connection stops reading until its write buffer drains ({@code OP_WRITE}).
 *
 * <p>Threads: {@code rpc-tcp-select} accepts, reads, runs the handlers and writes, for every connection;
 * a handler that blocks therefore stalls all of them (handlers here are short and CPU-bound; over RDMA
 * each connection has its own thread). {@link #register} and {@link #close} may be called from any
 * thread; no lock is taken (the handlers are in a concurrent map, the channels in a concurrent set).
 */
public final class TcpRpcServer implements AutoCloseable {
    private static final int MIN_BUFFER = 64 * 1024;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final int limit;
    private final int bufferSize;
    private final Map<Integer, RpcHandler> handlers = new ConcurrentHashMap<>();
    private final Set<SocketChannel> connections = ConcurrentHashMap.newKeySet();
    private final Consumer<SelectionKey> onReady = this::ready;
    private final Thread loop;
    private volatile boolean closed;
    /** Times a connection stopped reading because its responses did not go out (written by the selector thread). */
    private volatile long stalls;

    private TcpRpcServer(InetSocketAddress address, int limit) throws IOException {
        this.limit = limit;
        this.bufferSize = Math.max(limit, MIN_BUFFER);
        this.selector = Selector.open();
        this.server = ServerSocketChannel.open();
        try {
            server.bind(address);
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            server.close();
            selector.close();
            throw e;
        }
        this.loop = Thread.ofPlatform().daemon().name("rpc-tcp-select").start(this::selectLoop);
    }

    /**
     * Listens on {@code address} (port 0: any) with frames of at most {@code limit} bytes (at least
     * {@link RpcFrame#HEADER}).
     *
     * @throws UncheckedIOException when the address cannot be bound
     */
    public static TcpRpcServer start(InetSocketAddress address, int limit) {
        if (limit < RpcFrame.HEADER) {
            throw new IllegalArgumentException("rpc: limit " + limit + " < header " + RpcFrame.HEADER);
        }
        try {
            return new TcpRpcServer(address, limit);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Registers (or replaces) the handler of {@code method}; returns this. */
    public TcpRpcServer register(int method, RpcHandler handler) {
        handlers.put(method, handler);
        return this;
    }

    /** How often a connection stopped reading until its unsent responses drained (back-pressure); for tests. */
    long stalls() {
        return stalls;
    }

    /** The bound address. */
    public InetSocketAddress address() {
        try {
            return (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs in {@code rpc-tcp-select} until {@link #close}; then closes every channel and the selector. */
    private void selectLoop() {
        try {
            while (!closed) {
                selector.select(onReady);
            }
        } catch (IOException | java.nio.channels.ClosedSelectorException e) {
            // closing
        } finally {
            for (SelectionKey k : selector.keys()) {
                closeQuietly(k);
            }
            connections.clear();
            try {
                selector.close();
            } catch (IOException e) {
                // closed anyway
            }
        }
    }

    /** A ready key, in {@code rpc-tcp-select}. */
    private void ready(SelectionKey k) {
        if (k.attachment() instanceof Connection c) {
            try {
                if (k.isWritable()) {
                    c.writable();
                }
                if (k.isValid() && k.isReadable()) {
                    c.readable();
                }
            } catch (IOException | RuntimeException e) {
                closeQuietly(k);                                // the client went away, or broke the framing
            }
        } else if (k.isAcceptable()) {
            accept();
        }
    }

    private void accept() {
        SocketChannel ch = null;
        try {
            while ((ch = server.accept()) != null) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.configureBlocking(false);
                SelectionKey k = ch.register(selector, SelectionKey.OP_READ);
                k.attach(new Connection(ch, k));
                connections.add(ch);
                if (closed) {
                    closeQuietly(k);
                }
            }
        } catch (IOException e) {
            if (ch != null) {
                connections.remove(ch);
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // gone
                }
            }
        }
    }

    private void closeQuietly(SelectionKey k) {
        k.cancel();
        try {
            k.channel().close();
        } catch (IOException e) {
            // closed anyway
        }
        if (k.channel() instanceof SocketChannel ch) {
            connections.remove(ch);
        }
    }

    /**
     * One client's connection; every method runs in {@code rpc-tcp-select}. {@code in} and {@code out}
     * stay in fill mode (position = end of the bytes held) between calls.
     */
    private final class Connection {
        final SocketChannel ch;
        final SelectionKey key;
        final ByteBuffer in = ByteBuffer.allocateDirect(bufferSize);
        final ByteBuffer out = ByteBuffer.allocateDirect(bufferSize);

        Connection(SocketChannel ch, SelectionKey key) {
            this.ch = ch;
            this.key = key;
        }

        void readable() throws IOException {
            if (ch.read(in) < 0) {
                throw new java.io.EOFException("rpc: the client closed");
            }
            answer();
        }

        void writable() throws IOException {
            flush();
            if (out.position() == 0) {
                answer();                                     // the requests left while the responses waited
            }
        }

        /**
         * Answers every complete request in {@code in} while the responses fit in {@code out}, writes
         * them, and waits for OP_READ (all sent) or OP_WRITE (some left: stop reading meanwhile).
         */
        private void answer() throws IOException {
            in.flip();
            try {
                for (int len; (len = RpcFrame.completePayload(in, limit)) >= 0; ) {
                    if (out.remaining() < limit) {
                        flush();
                        if (out.remaining() < limit) {
                            break;                            // the client is not reading: wait for OP_WRITE
                        }
                    }
                    RpcFrame.answer(RpcFrame.take(in, len), handlers, limit).encodeInto(out);
                }
            } finally {
                in.compact();
            }
            flush();
            if (out.position() == 0) {
                key.interestOps(SelectionKey.OP_READ);
            } else {
                key.interestOps(SelectionKey.OP_WRITE);
                stalls++;                                     // only this thread writes it
            }
        }

        /** Writes what the kernel takes of {@code out} now (non-blocking). */
        private void flush() throws IOException {
            if (out.position() == 0) {
                return;
            }
            out.flip();
            try {
                while (out.hasRemaining() && ch.write(out) > 0) {
                    // the kernel took some; offer the rest
                }
            } finally {
                out.compact();
            }
        }
    }

    /** Stops accepting, closes every connection and waits (at most 2 s) for {@code rpc-tcp-select} to end. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (SocketChannel ch : connections) {
            try {
                ch.close();                                   // also when the selector thread is in a handler
            } catch (IOException e) {
                // closed anyway
            }
        }
        selector.wakeup();
        try {
            loop.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
