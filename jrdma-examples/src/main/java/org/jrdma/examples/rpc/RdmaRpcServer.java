package org.jrdma.examples.rpc;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import org.jrdma.app.Endpoint;
import org.jrdma.app.EndpointGroup;
import org.jrdma.app.EndpointListener;
import org.jrdma.app.Received;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.VerbsException;

/**
 * The RPC server over RDMA SEND/RECV: takes each request ({@link RpcFrame}) from a posted receive
 * buffer, runs the handler registered for its method id and SENDs the response (same request id) from
 * a pooled, registered buffer. Frames are at most the group's receive buffer size ({@code limit}, bytes);
 * a response over it is replaced by a {@link RpcFrame#TOO_LARGE} error. The server keeps
 * {@code recvDepth} receives posted per connection, which is the credit count its clients respect.
 *
 * <p>Threads: {@code rpc-accept} accepts; one {@code rpc-conn} thread per connection answers its
 * requests in order. {@link #register} may be called from any thread at any time (a concurrent map).
 */
public final class RdmaRpcServer implements AutoCloseable {
    private final EndpointListener listener;
    private final int limit;
    private final Map<Integer, RpcHandler> handlers = new ConcurrentHashMap<>();
    private final CopyOnWriteArrayList<Endpoint> connections = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Thread> servers = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile boolean closed;

    private RdmaRpcServer(EndpointGroup group, InetSocketAddress address, int limit) {
        this.listener = group.listen(address);
        this.limit = limit;
        this.acceptor = Thread.ofPlatform().daemon().name("rpc-accept").start(this::acceptLoop);
    }

    /**
     * Listens on {@code address} (a jrdma device's address; port 0: any). {@code limit} is the largest
     * frame in bytes, the receive buffer size of {@code group}'s config (at least {@link RpcFrame#HEADER}).
     */
    public static RdmaRpcServer start(EndpointGroup group, InetSocketAddress address, int limit) {
        if (limit < RpcFrame.HEADER) {
            throw new IllegalArgumentException("rpc: limit " + limit + " < header " + RpcFrame.HEADER);
        }
        return new RdmaRpcServer(group, address, limit);
    }

    /** Registers (or replaces) the handler of {@code method}; returns this. */
    public RdmaRpcServer register(int method, RpcHandler handler) {
        handlers.put(method, handler);
        return this;
    }

    public InetSocketAddress address() {
        return listener.localAddress();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Endpoint ep = listener.accept(Duration.ofMillis(200), null);
                connections.add(ep);
                servers.add(Thread.ofPlatform().daemon().name("rpc-conn").start(() -> serve(ep)));
            } catch (VerbsException e) {
                // no request within 200 ms, or the listener closed: look at closed again
            }
        }
    }

    private void serve(Endpoint ep) {
        try (Lease reply = ep.pool().lease(limit)) {
            while (!closed && ep.isConnected()) {
                Received r;
                try {
                    r = ep.receive(Duration.ofSeconds(1)).join();
                } catch (CompletionException e) {
                    if (e.getCause() instanceof TimeoutException) {
                        continue;
                    }
                    return;                                  // the connection ended
                }
                RpcFrame response;
                try (r) {
                    RpcFrame request;
                    try {
                        request = RpcFrame.decode(r.bytes());
                    } catch (IllegalArgumentException bad) {
                        return;                              // not our protocol: drop the connection
                    }
                    response = RpcFrame.answer(request, handlers, limit);
                }
                byte[] m = response.encode();
                reply.putBytes(0, m);
                ep.send(reply, 0, m.length).join();          // one reply buffer: the next waits for this SEND
            }
        } catch (RuntimeException e) {
            // the client went away
        } finally {
            connections.remove(ep);
            ep.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        listener.close();
        try {
            acceptor.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Endpoint ep : connections) {
            ep.close();
        }
        for (Thread t : servers) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
