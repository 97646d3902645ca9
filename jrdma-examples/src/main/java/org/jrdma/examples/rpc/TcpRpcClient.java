package org.jrdma.examples.rpc;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;

/**
 * The same RPC client over TCP (java.nio, one blocking {@link SocketChannel}): {@link #call} encodes the
 * request frame into a direct buffer and writes it (callers take turns on that buffer's lock); the
 * {@code rpc-tcp-recv} thread reads responses into its own direct buffer and completes the futures by
 * request id. At most {@code maxInFlight} requests outstanding, as over RDMA, so the two compare at equal
 * concurrency. TCP_NODELAY on.
 *
 * <p>Why blocking: the client has one connection and one thread that waits for responses, so a
 * selector would add a system call per wake-up and save no thread. Both buffers ({@code limit} bytes to
 * send, {@code max(limit, 64 KiB)} to receive) are allocated at connect and reused; per call the client
 * allocates only what {@link RpcClient#call}'s contract needs (the future, the response's payload).
 *
 * <p>Threads: callers' threads write, holding the send buffer's lock for one frame's write (the only
 * lock); {@code rpc-tcp-recv} reads and completes futures, holding no lock; {@link #close} on any thread.
 */
public final class TcpRpcClient implements RpcClient {
    private final SocketChannel channel;
    private final ByteBuffer send;
    private final int limit;
    private final int credits;
    private final PendingCalls calls;
    private final Thread receiver;
    /** Set by {@code rpc-tcp-recv} before it fails the calls left: a call opened later fails itself. */
    private volatile Throwable dead;

    private TcpRpcClient(InetSocketAddress server, int limit, int credits) throws IOException {
        this.channel = SocketChannel.open();
        try {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.socket().connect(server, 5000);
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        this.send = ByteBuffer.allocateDirect(limit);
        this.limit = limit;
        this.credits = credits;
        this.calls = new PendingCalls(limit, credits);
        this.receiver = Thread.ofPlatform().daemon().name("rpc-tcp-recv").start(this::receiveLoop);
    }

    /**
     * Connects (within 5 s) to a {@link TcpRpcServer}; {@code limit} bytes a frame at most (at least
     * {@link RpcFrame#HEADER}), {@code credits} calls in flight at most (at least 1).
     *
     * @throws UncheckedIOException when the connection fails
     */
    public static TcpRpcClient connect(InetSocketAddress server, int limit, int credits) {
        if (credits < 1) {
            throw new IllegalArgumentException("rpc: credits " + credits + " < 1");
        }
        if (limit < RpcFrame.HEADER) {
            throw new IllegalArgumentException("rpc: limit " + limit + " < header " + RpcFrame.HEADER);
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
        Throwable gone = dead;
        if (gone != null) {
            calls.fail(f, gone);                              // no reader left to complete it
            return f;
        }
        try {
            synchronized (send) {
                send.clear();
                RpcFrame.put(send, c.id(), method, payload).flip();
                while (send.hasRemaining()) {
                    channel.write(send);
                }
            }
        } catch (IOException e) {
            calls.fail(f, e);
        }
        return f;
    }

    /** Runs in {@code rpc-tcp-recv}: reads responses until the stream ends or fails, then fails what is left. */
    private void receiveLoop() {
        Throwable why = null;
        ByteBuffer in = ByteBuffer.allocateDirect(Math.max(limit, 64 * 1024));
        try {
            while (true) {
                if (channel.read(in) < 0) {
                    throw new EOFException("rpc: the server closed the connection");
                }
                in.flip();
                for (int len; (len = RpcFrame.completePayload(in, limit)) >= 0; ) {
                    calls.complete(RpcFrame.take(in, len));
                }
                in.compact();
            }
        } catch (IOException e) {
            why = calls.isClosed() ? null : e;                 // closing ends the read with AsynchronousCloseException
        }
        dead = why != null ? why : new EOFException("rpc: the connection ended");
        calls.failAll(why);
    }

    @Override
    public void close() {
        if (!calls.close()) {
            return;
        }
        try {
            channel.close();
            receiver.join(3000);
        } catch (IOException e) {
            // closing anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        calls.failAll(null);
    }
}
