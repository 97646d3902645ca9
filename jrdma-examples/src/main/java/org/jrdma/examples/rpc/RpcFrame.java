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
        return put(ByteBuffer.allocate(HEADER + payload.length), requestId, code, payload).array();
    }

    /**
     * Appends this frame to {@code b} (at its position, which advances by {@link #HEADER} + payload bytes).
     *
     * @throws java.nio.BufferOverflowException when {@code b} has less room than that
     */
    public void encodeInto(ByteBuffer b) {
        put(b, requestId, code, payload);
    }

    /** Appends the frame {@code (requestId, code, payload)} to {@code b}; returns {@code b}. */
    static ByteBuffer put(ByteBuffer b, long requestId, int code, byte[] payload) {
        if (b.remaining() < HEADER + payload.length) {
            throw new java.nio.BufferOverflowException();
        }
        return b.putLong(requestId).putInt(code).putInt(payload.length).put(payload);
    }

    /**
     * The payload length of the frame at {@code in}'s position when all of it is in {@code in}, or -1
     * while the rest is still on the way (a stream's reader, TCP); {@code in} does not move.
     *
     * @throws java.io.IOException the length field is negative or the frame is over {@code limit} bytes
     */
    static int completePayload(ByteBuffer in, int limit) throws java.io.IOException {
        if (in.remaining() < HEADER) {
            return -1;
        }
        int len = in.getInt(in.position() + 12);
        if (len < 0 || HEADER + (long) len > limit) {
            throw new java.io.IOException("rpc: a frame of " + len + " payload bytes, over the limit of " + (limit - HEADER));
        }
        return in.remaining() < HEADER + len ? -1 : len;
    }

    /** Takes the frame at {@code in}'s position whose payload is {@code len} bytes; {@code in} moves past it. */
    static RpcFrame take(ByteBuffer in, int len) {
        int p = in.position();
        byte[] payload = new byte[len];
        in.get(p + HEADER, payload).position(p + HEADER + len);
        return new RpcFrame(in.getLong(p), in.getInt(p + 8), payload);
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

    /** An error response with {@code message} as its payload, cut to {@code limit - HEADER} bytes. */
    static RpcFrame error(long requestId, int status, String message, int limit) {
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        if (HEADER + m.length > limit) {
            m = java.util.Arrays.copyOf(m, Math.max(0, limit - HEADER));   // a long exception text
        }
        return new RpcFrame(requestId, status, m);
    }

    /**
     * The response to {@code request} from {@code handlers}, refused with {@link #TOO_LARGE} when its
     * frame would exceed {@code limit} bytes; an error's message is cut to fit, so the response is never
     * over the limit. Runs in the caller's thread (the server's connection or selector thread).
     */
    static RpcFrame answer(RpcFrame request, java.util.Map<Integer, RpcHandler> handlers, int limit) {
        RpcHandler h = handlers.get(request.code());
        if (h == null) {
            return error(request.requestId(), UNKNOWN_METHOD, "rpc: unknown method " + request.code(), limit);
        }
        byte[] result;
        try {
            result = h.handle(request.payload());
        } catch (RuntimeException e) {
            return error(request.requestId(), HANDLER_ERROR, "rpc: method " + request.code() + " failed: " + e, limit);
        }
        if (HEADER + result.length > limit) {
            return error(request.requestId(), TOO_LARGE, "rpc: the response of method " + request.code() + " is "
                    + result.length + " bytes, over the limit of " + (limit - HEADER) + " payload bytes", limit);
        }
        return new RpcFrame(request.requestId(), OK, result);
    }

    /** Completes {@code f} from {@code response}: the payload, or an {@link RpcException} for an error status. */
    static void complete(java.util.concurrent.CompletableFuture<byte[]> f, RpcFrame response) {
        complete(f, response.code(), response.payload());
    }

    /** Completes {@code f} from a response's status {@code code} and {@code payload}. */
    static void complete(java.util.concurrent.CompletableFuture<byte[]> f, int code, byte[] payload) {
        if (code == OK) {
            f.complete(payload);
        } else {
            f.completeExceptionally(new RpcException(code, new String(payload, StandardCharsets.UTF_8)));
        }
    }
}
