package org.jrdma.examples.rpc;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jrdma.app.Endpoint;
import org.jrdma.app.EndpointGroup;
import org.jrdma.app.EndpointListener;
import org.jrdma.app.Received;
import org.jrdma.examples.server.ConnectionThreads;
import org.jrdma.pool.Lease;

/**
 * The RPC server over RDMA SEND/RECV: takes each request ({@link RpcFrame}) from a posted receive
 * buffer, runs the handler registered for its method id and SENDs the response (same request id) from
 * a pooled, registered buffer. Frames are at most the group's receive buffer size ({@code limit}, bytes);
 * a response over it is replaced by a {@link RpcFrame#TOO_LARGE} error. The server keeps
 * {@code recvDepth} receives posted per connection, which is the credit count its clients respect.
 *
 * <p>Threads: {@code rpc-accept} accepts; one {@code rpc-conn} thread per connection answers its
 * requests in order ({@link ConnectionThreads}). {@link #register} may be called from any thread at any time (a concurrent map).
 */
public final class RdmaRpcServer implements AutoCloseable {
    private final EndpointListener listener;
    private final int limit;
    private final Map<Integer, RpcHandler> handlers = new ConcurrentHashMap<>();
    private final ConnectionThreads threads;

    private RdmaRpcServer(EndpointGroup group, InetSocketAddress address, int limit) {
        this.listener = group.listen(address);
        this.limit = limit;
        this.threads = new ConnectionThreads(listener, null, "rpc");
        threads.start(this::serve);
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

    private void serve(Endpoint ep) {
        try (Lease reply = ep.pool().lease(limit)) {
            while (true) {
                Received r = threads.next(ep);
                if (r == null) {
                    return;                                  // the connection ended, or the server closed
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
        }
    }

    @Override
    public void close() {
        threads.close();
    }
}
