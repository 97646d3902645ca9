package org.jrdma.examples.rpc;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
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
    private final int credits;
    private final PendingCalls calls;
    private final Thread receiver;

    private RdmaRpcClient(Endpoint ep, int limit, int credits) {
        this.ep = ep;
        this.credits = credits;
        this.calls = new PendingCalls(limit, credits);
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
        PendingCalls.Call c = calls.open(payload.length);
        CompletableFuture<byte[]> f = c.future();
        if (c.id() < 0) {
            return f;
        }
        byte[] m = new RpcFrame(c.id(), method, payload).encode();
        Lease lease = ep.pool().lease(m.length);
        lease.putBytes(0, m);
        ep.send(lease, 0, m.length).whenComplete((v, t) -> {
            lease.close();
            if (t != null) {
                calls.fail(f, t);
            }
        });
        return f;
    }

    private void receiveLoop() {
        Throwable why = null;
        while (!calls.isClosed()) {
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
            calls.complete(response);
        }
        calls.failAll(why);
    }

    @Override
    public void close() {
        if (!calls.close()) {
            return;
        }
        ep.close();
        try {
            receiver.join(3000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        calls.failAll(null);
    }
}
