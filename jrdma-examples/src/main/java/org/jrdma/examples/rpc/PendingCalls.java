package org.jrdma.examples.rpc;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client's calls in flight, the same over RDMA and TCP: the frame limit, the credits (a semaphore of
 * {@code credits} permits; a call holds one until its future completes), request ids (1, 2, ...) and the
 * futures by id.
 *
 * <p>Threads: {@link #open} on the caller's thread (it may block for a credit); {@link #complete} on the
 * client's receiver thread; {@link #close} and {@link #failAll} on any. No lock is held while a future
 * completes.
 */
final class PendingCalls {
    /** A call opened by {@link #open}: {@code id} is -1 when {@code future} has already failed. */
    record Call(long id, CompletableFuture<byte[]> future) {
    }

    private final int limit;
    private final Semaphore inFlight;
    private final Map<Long, CompletableFuture<byte[]>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile boolean closed;

    PendingCalls(int limit, int credits) {
        this.limit = limit;
        this.inFlight = new Semaphore(credits);
    }

    /**
     * Opens a call with a payload of {@code payloadLength} bytes: fails it at once with status
     * {@link RpcException#LOCAL} when header + payload exceed the limit, or when interrupted waiting for a
     * credit, or when closed; otherwise registers a new id whose completion returns the credit.
     */
    Call open(int payloadLength) {
        if (RpcFrame.HEADER + payloadLength > limit) {
            return new Call(-1, CompletableFuture.failedFuture(new RpcException(RpcException.LOCAL, "rpc: a request of " + payloadLength
                    + " bytes is over the limit of " + (limit - RpcFrame.HEADER) + " payload bytes")));
        }
        try {
            inFlight.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Call(-1, CompletableFuture.failedFuture(new RpcException("rpc: interrupted waiting for a credit", e)));
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
            return new Call(-1, f);
        }
        return new Call(id, f);
    }

    /** Completes the call that {@code response} answers; a response to no pending call is ignored. */
    void complete(RpcFrame response) {
        CompletableFuture<byte[]> f = pending.get(response.requestId());
        if (f != null) {
            RpcFrame.complete(f, response.code(), response.payload());
        }
    }

    /** Fails one call: "the client closed" after {@link #close}, else "the connection failed" (cause may be null). */
    void fail(CompletableFuture<byte[]> f, Throwable cause) {
        f.completeExceptionally(new RpcException(closed ? "rpc: the client closed" : "rpc: the connection failed", cause));
    }

    /** Fails every call still pending, as {@link #fail}. */
    void failAll(Throwable cause) {
        for (CompletableFuture<byte[]> f : pending.values()) {
            fail(f, cause);
        }
    }

    /** Marks the client closed; returns false when it already was. */
    boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    boolean isClosed() {
        return closed;
    }
}
