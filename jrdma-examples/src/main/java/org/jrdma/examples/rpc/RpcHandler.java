package org.jrdma.examples.rpc;

/**
 * A method of an RPC server: the response payload for a request payload. Runs in the server's
 * thread for the request's connection, one request at a time per connection; an exception it throws
 * becomes a {@link RpcFrame#HANDLER_ERROR} response.
 */
@FunctionalInterface
public interface RpcHandler {
    byte[] handle(byte[] payload);
}
