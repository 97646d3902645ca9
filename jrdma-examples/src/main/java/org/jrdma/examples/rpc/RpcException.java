package org.jrdma.examples.rpc;

/**
 * An RPC that failed: the server's error status ({@link RpcFrame#UNKNOWN_METHOD},
 * {@link RpcFrame#HANDLER_ERROR}, {@link RpcFrame#TOO_LARGE}) or, with status -1, the client's side
 * (closed, connection lost, request too large).
 */
public final class RpcException extends RuntimeException {
    /** Status -1: the call failed at the client (closed, connection lost, request over the limit). */
    public static final int LOCAL = -1;
    private final int status;

    public RpcException(int status, String message) {
        super(message);
        this.status = status;
    }

    public RpcException(String message, Throwable cause) {
        super(message, cause);
        this.status = LOCAL;
    }

    /** The response's status, or {@link #LOCAL}. */
    public int status() {
        return status;
    }
}
