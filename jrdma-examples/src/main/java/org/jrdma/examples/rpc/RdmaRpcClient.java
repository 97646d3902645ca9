package org.jrdma.examples.rpc;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jrdma.app.Endpoint;
import org.jrdma.app.EndpointGroup;
import org.jrdma.app.Received;
import org.jrdma.pool.Lease;

/**
 * The RPC client over RDMA SEND/RECV: {@link #call} SENDs a request frame from a pooled, registered
 * buffer and returns a future that the response with the same request id completes. At most
 * {@code credits} requests are in flight (a semaphore; {@code call} blocks for one): the server keeps
 * that many receives posted, so it never answers a SEND with RNR, and this client keeps as many posted
 * for the responses.
 *
 * <p>Threads: callers post from their own thread; the {@code rpc-recv} thread takes responses and
 * completes the futures (so dependent stages run there unless made async). Lock order: none held
 * while completing a future.
 */
public final class RdmaRpcClient implements RpcClient {
    private final Endpoint ep;
    private final int limit;
    private final int credits;
    private final Semaphore inFlight;
    private final Map<Long, CompletableFuture<byte[]>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Thread receiver;
    private volatile boolean closed;

    private RdmaRpcClient(Endpoint ep, int limit, int credits) {
        this.ep = ep;
        this.limit = limit;
        this.credits = credits;
        this.inFlight = new Semaphore(credits);
        this.receiver = Thread.ofPlatform().daemon().name("rpc-recv").start(this::receiveLoop);
    }

    /**
     * Connects to an {@link RdmaRpcServer} at {@code server} from {@code local}'s device (null: routing's
     * choice). {@code limit}: the largest frame in bytes (the receive buffer size, as the server's);
     * {@code credits}: requests in flight at most, 1 to the group's recvDepth (the server's as well).
     */
    public static RdmaRpcClient connect(EndpointGroup group, InetSocketAddress server, InetSocketAddress local, int limit, int credits) {
        if (credits < 1) {
            throw new IllegalArgumentException("rpc: credits " + credits + " < 1");
        }
        return new RdmaRpcClient(group.connect(server, local, null), limit, credits);
    }

    @Override
    public int maxInFlight() {
        return credits;
    }

    @Override
    public CompletableFuture<byte[]> call(int method, byte[] payload) {
        if (RpcFrame.HEADER + payload.length > limit) {
            return CompletableFuture.failedFuture(new RpcException(RpcException.LOCAL, "rpc: a request of " + payload.length
                    + " bytes is over the limit of " + (limit - RpcFrame.HEADER) + " payload bytes"));
        }
        try {
            inFlight.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(new RpcException("rpc: interrupted waiting for a credit", e));
        }
        long id = ids.incrementAndGet();
        CompletableFuture<byte[]> f = new CompletableFuture<>();
        f.whenComplete((v, t) -> {
            if (pending.remove(id) != null) {
                inFlight.release();
            }
        });
        pending.put(id, f);
        if (closed) {
            fail(f, null);
            return f;
        }
        byte[] m = new RpcFrame(id, method, payload).encode();
        Lease lease = ep.pool().lease(m.length);
        lease.putBytes(0, m);
        ep.send(lease, 0, m.length).whenComplete((v, t) -> {
            lease.close();
            if (t != null) {
                fail(f, t);
            }
        });
        return f;
    }

    private void fail(CompletableFuture<byte[]> f, Throwable cause) {
        f.completeExceptionally(new RpcException(closed ? "rpc: the client closed" : "rpc: the connection failed", cause));
    }

    private void receiveLoop() {
        Throwable why = null;
        while (!closed) {
            Received r;
            try {
                r = ep.receive(Duration.ofSeconds(1)).join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof TimeoutException) {
                    continue;
                }
                why = e.getCause();
                break;
            }
            RpcFrame response;
            try (r) {
                response = RpcFrame.decode(r.bytes());
            } catch (IllegalArgumentException e) {
                why = e;
                break;
            }
            CompletableFuture<byte[]> f = pending.get(response.requestId());
            if (f != null) {
                RpcFrame.complete(f, response);
            }
        }
        for (CompletableFuture<byte[]> f : pending.values()) {
            fail(f, why);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ep.close();
        try {
            receiver.join(3000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (CompletableFuture<byte[]> f : pending.values()) {
            fail(f, null);
        }
    }
}
