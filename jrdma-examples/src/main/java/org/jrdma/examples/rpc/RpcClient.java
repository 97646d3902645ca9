package org.jrdma.examples.rpc;

import java.util.concurrent.CompletableFuture;

/** A client of the RPC example, over RDMA ({@link RdmaRpcClient}) or TCP ({@link TcpRpcClient}). */
public interface RpcClient extends AutoCloseable {
    /**
     * Calls {@code method} with {@code payload}: the response's payload, or an exceptional future with
     * an {@link RpcException}. Blocks while the client has its most requests in flight
     * ({@link #maxInFlight()}); any thread may call.
     */
    CompletableFuture<byte[]> call(int method, byte[] payload);

    /** Requests in flight at most (over RDMA: the server's receive credits). */
    int maxInFlight();

    /** Fails every outstanding future with an {@link RpcException} and disconnects; idempotent. */
    @Override
    void close();
}
