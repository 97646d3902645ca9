package org.jrdma.examples.rpc;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;

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
    private final PendingCalls calls;
    private final Thread receiver;

    private TcpRpcClient(InetSocketAddress server, int limit, int credits) throws IOException {
        this.socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(server, 5000);
        this.out = socket.getOutputStream();
        this.limit = limit;
        this.credits = credits;
        this.calls = new PendingCalls(limit, credits);
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
        PendingCalls.Call c = calls.open(payload.length);
        CompletableFuture<byte[]> f = c.future();
        if (c.id() < 0) {
            return f;
        }
        byte[] m = new RpcFrame(c.id(), method, payload).encode();
        try {
            synchronized (out) {
                out.write(m);
            }
        } catch (IOException e) {
            calls.fail(f, e);
        }
        return f;
    }

    private void receiveLoop() {
        Throwable why = null;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()))) {
            RpcFrame response;
            while ((response = TcpRpcServer.read(in, limit)) != null) {
                calls.complete(response);
            }
        } catch (IOException e) {
            why = e;
        }
        calls.failAll(why);
    }

    @Override
    public void close() {
        if (!calls.close()) {
            return;
        }
        try {
            socket.close();
            receiver.join(3000);
        } catch (IOException e) {
            // closing anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        calls.failAll(null);
    }
}
