package org.jrdma.ibverbs.bind;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The verbs that {@code verbs.h} defines inline: each calls a function pointer of the provider
 * (rxe's, mlx5's...) that the header reads from the context's {@code ops} table or from the
 * {@code verbs_context} in front of it. Here each is one cached address-less downcall handle per
 * signature (a {@code static final}, so the JIT inlines it), called with the function pointer that
 * the provider object read from the structure once at creation. Allocation-free; any thread (the
 * provider objects serialize what libibverbs requires to be serialized).
 */
public final class OpsCalls {
    private static final Linker LINKER = Linker.nativeLinker();

    /** {@code int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *)}. */
    private static final MethodHandle POLL_CQ =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int solicited_only)}. */
    private static final MethodHandle REQ_NOTIFY_CQ =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)} and post_recv. */
    private static final MethodHandle POST =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** {@code verbs_context.query_port(ctx, port, attr, sizeof attr)}. */
    private static final MethodHandle QUERY_PORT =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG));
    /** {@code verbs_context.query_device_ex(ctx, input, attr, sizeof attr)}. */
    private static final MethodHandle QUERY_DEVICE_EX =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));

    private OpsCalls() {
    }

    /** {@code ibv_poll_cq}: the number of completions written to {@code wc}, or negative on error. */
    public static int pollCq(MemorySegment fn, MemorySegment cq, int n, MemorySegment wc) {
        try {
            return (int) POLL_CQ.invokeExact(fn, cq, n, wc);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code ibv_req_notify_cq}: 0 or an errno. */
    public static int reqNotifyCq(MemorySegment fn, MemorySegment cq, int solicitedOnly) {
        try {
            return (int) REQ_NOTIFY_CQ.invokeExact(fn, cq, solicitedOnly);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code ibv_post_send} / {@code ibv_post_recv}: 0 or an errno; {@code *bad} names the first WR not posted. */
    public static int post(MemorySegment fn, MemorySegment qp, MemorySegment wr, MemorySegment bad) {
        try {
            return (int) POST.invokeExact(fn, qp, wr, bad);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code verbs_context.query_port}: 0 or an errno. */
    public static int queryPort(MemorySegment fn, MemorySegment ctx, int port, MemorySegment attr) {
        try {
            return (int) QUERY_PORT.invokeExact(fn, ctx, (byte) port, attr, IbvLayouts.PORT_ATTR.byteSize());
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code verbs_context.query_device_ex} without input: 0 or an errno. */
    public static int queryDeviceEx(MemorySegment fn, MemorySegment ctx, MemorySegment attr) {
        try {
            return (int) QUERY_DEVICE_EX.invokeExact(fn, ctx, MemorySegment.NULL, attr,
                    IbvLayouts.DEVICE_ATTR_EX.byteSize());
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
