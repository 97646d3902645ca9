package org.jrdma.examples.rpc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The framing of the RPC example, the same over RDMA SEND/RECV and over TCP: a 16-byte big-endian
 * header, then the payload.
 *
 * <pre>
 * offset 0  u64 request id   (chosen by the client, echoed by the server)
 * offset 8  u32 method id (request) or status (response: {@link #OK}, {@link #UNKNOWN_METHOD}, ...)
 * offset 12 u32 payload length in bytes
 * offset 16 payload
 * </pre>
 *
 * A frame is at most the message limit (over RDMA: the endpoint's receive buffer size, default 4096
 * bytes), so a payload is at most limit - {@link #HEADER} bytes. An error response's payload is its
 * message in UTF-8.
 */
public record RpcFrame(long requestId, int code, byte[] payload) {
    /** Bytes of the header. */
    public static final int HEADER = 16;
    /** Response status: the handler's result is the payload. */
    public static final int OK = 0;
    /** Response status: no handler is registered for the request's method id. */
    public static final int UNKNOWN_METHOD = 1;
    /** Response status: the handler threw; the payload is its message. */
    public static final int HANDLER_ERROR = 2;
    /** Response status: the handler's result exceeds the message limit; it was not sent. */
    public static final int TOO_LARGE = 3;

    /** The whole frame, header and payload. */
    public byte[] encode() {
        return ByteBuffer.allocate(HEADER + payload.length).putLong(requestId).putInt(code).putInt(payload.length).put(payload).array();
    }

    /**
     * The frame in {@code m}.
     *
     * @throws IllegalArgumentException when {@code m} is shorter than its header says
     */
    public static RpcFrame decode(byte[] m) {
        if (m.length < HEADER) {
            throw new IllegalArgumentException("rpc: a frame of " + m.length + " bytes, shorter than its header");
        }
        ByteBuffer b = ByteBuffer.wrap(m);
        long id = b.getLong();
        int code = b.getInt();
        int len = b.getInt();
        if (len < 0 || len != m.length - HEADER) {
            throw new IllegalArgumentException("rpc: payload length " + len + " in a frame of " + m.length + " bytes");
        }
        byte[] p = new byte[len];
        b.get(p);
        return new RpcFrame(id, code, p);
    }

    /** An error response with {@code message} as its payload. */
    static RpcFrame error(long requestId, int status, String message) {
        return new RpcFrame(requestId, status, message.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The response to {@code request} from {@code handlers}, refused with {@link #TOO_LARGE} when its
     * frame would exceed {@code limit} bytes. Runs in the caller's thread (the server's connection thread).
     */
    static RpcFrame answer(RpcFrame request, java.util.Map<Integer, RpcHandler> handlers, int limit) {
        RpcHandler h = handlers.get(request.code());
        if (h == null) {
            return error(request.requestId(), UNKNOWN_METHOD, "rpc: unknown method " + request.code());
        }
        byte[] result;
        try {
            result = h.handle(request.payload());
        } catch (RuntimeException e) {
            return error(request.requestId(), HANDLER_ERROR, "rpc: method " + request.code() + " failed: " + e);
        }
        if (HEADER + result.length > limit) {
            return error(request.requestId(), TOO_LARGE, "rpc: the response of method " + request.code() + " is "
                    + result.length + " bytes, over the limit of " + (limit - HEADER) + " payload bytes");
        }
        return new RpcFrame(request.requestId(), OK, result);
    }

    /** Completes {@code f} from {@code response}: the payload, or an {@link RpcException} for an error status. */
    static void complete(java.util.concurrent.CompletableFuture<byte[]> f, RpcFrame response) {
        if (response.code() == OK) {
            f.complete(response.payload());
        } else {
            f.completeExceptionally(new RpcException(response.code(), new String(response.payload(), StandardCharsets.UTF_8)));
        }
    }
}
