package org.jrdma.examples.rpc;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The same RPC client over TCP (a plain socket): {@link #call} writes the request frame (writes
 * serialize on the socket's stream), the {@code rpc-tcp-recv} thread reads responses and completes
 * the futures by request id. At most {@code maxInFlight} requests outstanding, as over RDMA, so the
 * two compare at equal concurrency.
 */
public final class TcpRpcClient implements RpcClient {
    private final Socket socket;
    private final OutputStream out;
    private final int limit;
    private final int credits;
    private final Semaphore inFlight;
    private final Map<Long, CompletableFuture<byte[]>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Thread receiver;
    private volatile boolean closed;

    private TcpRpcClient(InetSocketAddress server, int limit, int credits) throws IOException {
        this.socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(server, 5000);
        this.out = socket.getOutputStream();
        this.limit = limit;
        this.credits = credits;
        this.inFlight = new Semaphore(credits);
        this.receiver = Thread.ofPlatform().daemon().name("rpc-tcp-recv").start(this::receiveLoop);
    }

    /** Connects to a {@link TcpRpcServer}; {@code limit} bytes a frame at most, {@code credits} calls in flight at most (at least 1). */
    public static TcpRpcClient connect(InetSocketAddress server, int limit, int credits) {
        if (credits < 1) {
            throw new IllegalArgumentException("rpc: credits " + credits + " < 1");
        }
        try {
            return new TcpRpcClient(server, limit, credits);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
        try {
            synchronized (out) {
                out.write(m);
            }
        } catch (IOException e) {
            fail(f, e);
        }
        return f;
    }

    private void fail(CompletableFuture<byte[]> f, Throwable cause) {
        f.completeExceptionally(new RpcException(closed ? "rpc: the client closed" : "rpc: the connection failed", cause));
    }

    private void receiveLoop() {
        Throwable why = null;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()))) {
            RpcFrame response;
            while ((response = TcpRpcServer.read(in, limit)) != null) {
                CompletableFuture<byte[]> f = pending.get(response.requestId());
                if (f != null) {
                    RpcFrame.complete(f, response);
                }
            }
        } catch (IOException e) {
            why = e;
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
        try {
            socket.close();
            receiver.join(3000);
        } catch (IOException e) {
            // closing anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (CompletableFuture<byte[]> f : pending.values()) {
            fail(f, null);
        }
    }
}
