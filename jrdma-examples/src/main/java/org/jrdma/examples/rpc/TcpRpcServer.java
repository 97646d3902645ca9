package org.jrdma.examples.rpc;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The same RPC server over TCP (plain sockets): the same {@link RpcFrame}s back to back on a stream,
 * the same {@code limit} on a frame's bytes (a request over it drops the connection; a response over
 * it becomes {@link RpcFrame#TOO_LARGE}). TCP_NODELAY on.
 *
 * <p>Threads: {@code rpc-tcp-accept} accepts; one {@code rpc-tcp-conn} thread per connection reads,
 * runs the handler and writes each response in order.
 */
public final class TcpRpcServer implements AutoCloseable {
    private final ServerSocket socket;
    private final int limit;
    private final Map<Integer, RpcHandler> handlers = new ConcurrentHashMap<>();
    private final CopyOnWriteArrayList<Socket> connections = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile boolean closed;

    private TcpRpcServer(InetSocketAddress address, int limit) throws IOException {
        this.socket = new ServerSocket();
        socket.bind(address);
        this.limit = limit;
        this.acceptor = Thread.ofPlatform().daemon().name("rpc-tcp-accept").start(this::acceptLoop);
    }

    /** Listens on {@code address} (port 0: any) with frames of at most {@code limit} bytes. */
    public static TcpRpcServer start(InetSocketAddress address, int limit) {
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

    public InetSocketAddress address() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = socket.accept();
                s.setTcpNoDelay(true);
                connections.add(s);
                Thread.ofPlatform().daemon().name("rpc-tcp-conn").start(() -> serve(s));
            } catch (IOException e) {
                // closed
            }
        }
    }

    /** Reads one frame from {@code in}, refusing one over {@code limit} bytes; null at a clean end of stream. */
    static RpcFrame read(DataInputStream in, int limit) throws IOException {
        long id;
        try {
            id = in.readLong();
        } catch (java.io.EOFException e) {
            return null;
        }
        int code = in.readInt();
        int len = in.readInt();
        if (len < 0 || RpcFrame.HEADER + (long) len > limit) {
            throw new IOException("rpc: a frame of " + len + " payload bytes, over the limit of " + (limit - RpcFrame.HEADER));
        }
        byte[] p = new byte[len];
        in.readFully(p);
        return new RpcFrame(id, code, p);
    }

    private void serve(Socket s) {
        try (s;
             DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
             DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()))) {
            RpcFrame request;
            while ((request = read(in, limit)) != null) {
                out.write(RpcFrame.answer(request, handlers, limit).encode());
                if (in.available() == 0) {
                    out.flush();                              // flush when no further request is buffered
                }
            }
        } catch (IOException e) {
            // the client went away
        } finally {
            connections.remove(s);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            socket.close();
            for (Socket s : connections) {
                s.close();
            }
            acceptor.join(2000);
        } catch (IOException e) {
            // closing anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
