package org.jrdma.ibverbs.bind;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.List;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * rdma-core's {@code librdmacm.so.1} ({@code rdma_cm(7)}), loaded at run time, with a downcall handle
 * for each function the CM transport over it calls ({@code RDMACM_1.0} symbols). Every librdmacm call
 * here returns 0 or -1 with {@code errno} (captured right after the call), or a pointer that is NULL
 * on failure; a failure throws {@link VerbsException} with that errno and the call's name.
 * {@link #getCmEvent} blocks in the kernel until an event comes (its caller is the transport's event
 * thread). Control path only: each wrapper allocates a few bytes. Any thread.
 */
public final class LibRdmacm {
    /** The library's soname. */
    public static final String SONAME = "librdmacm.so.1";
    /** {@code RDMA_PS_TCP}: the port space of connected (RC) IDs. */
    public static final int PS_TCP = 0x0106;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option ERRNO_OPT = Linker.Option.captureCallState("errno");

    /** The symbols the transport needs. */
    static final List<String> SYMBOLS = List.of("rdma_create_event_channel", "rdma_create_id", "rdma_destroy_id",
            "rdma_bind_addr", "rdma_listen", "rdma_resolve_addr", "rdma_resolve_route", "rdma_connect",
            "rdma_accept", "rdma_reject", "rdma_establish", "rdma_disconnect", "rdma_get_cm_event",
            "rdma_ack_cm_event", "rdma_init_qp_attr");

    private final SymbolLookup lookup;
    private final MethodHandle createEventChannel;
    private final MethodHandle createId;
    private final MethodHandle destroyId;
    private final MethodHandle bindAddr;
    private final MethodHandle listen;
    private final MethodHandle resolveAddr;
    private final MethodHandle resolveRoute;
    private final MethodHandle connect;
    private final MethodHandle accept;
    private final MethodHandle reject;
    private final MethodHandle establish;
    private final MethodHandle disconnect;
    private final MethodHandle getCmEvent;
    private final MethodHandle ackCmEvent;
    private final MethodHandle initQpAttr;

    private LibRdmacm(SymbolLookup lookup) {
        this.lookup = lookup;
        createEventChannel = h("rdma_create_event_channel", FunctionDescriptor.of(ADDRESS));
        createId = h("rdma_create_id", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
        destroyId = h("rdma_destroy_id", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        bindAddr = h("rdma_bind_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        listen = h("rdma_listen", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        resolveAddr = h("rdma_resolve_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
        resolveRoute = h("rdma_resolve_route", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        connect = h("rdma_connect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        accept = h("rdma_accept", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        reject = h("rdma_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE));
        establish = h("rdma_establish", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        disconnect = h("rdma_disconnect", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getCmEvent = h("rdma_get_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        ackCmEvent = h("rdma_ack_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        initQpAttr = h("rdma_init_qp_attr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    }

    private MethodHandle h(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(lookup.find(name).orElseThrow(), d, ERRNO_OPT);
    }

    /**
     * Loads {@link #SONAME} from the dynamic linker's search path.
     *
     * @throws LibIbverbs.Unavailable when it is absent or lacks one of the functions
     */
    public static LibRdmacm load() throws LibIbverbs.Unavailable {
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(SONAME, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new LibIbverbs.Unavailable(SONAME + " could not be loaded (rdma-core's librdmacm1 package is not installed?): "
                    + e.getMessage());
        }
        for (String s : SYMBOLS) {
            if (lookup.find(s).isEmpty()) {
                throw new LibIbverbs.Unavailable(SONAME + " has no " + s);
            }
        }
        return new LibRdmacm(lookup);
    }

    private static VerbsException fail(String call, MemorySegment cap) {
        int errno = (int) ERRNO.get(cap, 0L);
        return new VerbsException(errno == 0 ? Errno.EIO : errno, call + " failed: " + Errno.name(errno));
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** {@code rdma_create_event_channel(3)}. */
    public MemorySegment createEventChannel() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment ch = (MemorySegment) createEventChannel.invokeExact(cap);
            if (ch.address() == 0) {
                throw fail("rdma_create_event_channel", cap);
            }
            return ch.reinterpret(RdmaCmLayouts.EVENT_CHANNEL.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_create_id(3)} in port space {@code ps}: the new {@code struct rdma_cm_id *} (its head readable). */
    public MemorySegment createId(MemorySegment channel, int ps) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment out = a.allocate(ADDRESS);
            int rc = (int) createId.invokeExact(cap, channel, out, MemorySegment.NULL, ps);
            if (rc != 0) {
                throw fail("rdma_create_id", cap);
            }
            return out.get(ADDRESS, 0).reinterpret(RdmaCmLayouts.CM_ID_HEAD.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static void check(String call, int rc, MemorySegment cap) {
        if (rc != 0) {
            throw fail(call, cap);
        }
    }

    /** {@code rdma_destroy_id(3)}: waits until every event of the ID is acknowledged. */
    public void destroyId(MemorySegment id) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            check("rdma_destroy_id", (int) destroyId.invokeExact(cap, id), cap);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_bind_addr(3)}; {@code addr} a {@code struct sockaddr_in}/{@code _in6} ({@link SockAddr}). */
    public void bindAddr(MemorySegment id, MemorySegment addr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            check("rdma_bind_addr", (int) bindAddr.invokeExact(cap, id, addr), cap);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_listen(3)}. */
    public void listen(MemorySegment id, int backlog) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            check("rdma_listen", (int) listen.invokeExact(cap, id, backlog), cap);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_resolve_addr(3)}; {@code src} may be NULL. */
    public void resolveAddr(MemorySegment id, MemorySegment src, MemorySegment dst, int timeoutMs) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            check("rdma_resolve_addr", (int) resolveAddr.invokeExact(cap, id, src, dst, timeoutMs), cap);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_resolve_route(3)}. */
    public void resolveRoute(MemorySegment id, int timeoutMs) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            check("rdma_resolve_route", (int) resolveRoute.invokeExact(cap, id, timeoutMs), cap);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_connect(3)} with a {@code struct rdma_conn_param}. */
    public void connect(MemorySegment id, MemorySegment param) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            check("rdma_connect", (int) connect.invokeExact(cap, id, param), cap);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_accept(3)} with a {@code struct rdma_conn_param}. */
    public void accept(MemorySegment id, MemorySegment param) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            check("rdma_accept", (int) accept.invokeExact(cap, id, param), cap);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_reject(3)}. */
    public void reject(MemorySegment id, MemorySegment privateData, int length) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            check("rdma_reject", (int) reject.invokeExact(cap, id, privateData, (byte) length), cap);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_establish(3)}: after CONNECT_RESPONSE on an ID without a librdmacm QP (sends the RTU). */
    public void establish(MemorySegment id) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            check("rdma_establish", (int) establish.invokeExact(cap, id), cap);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_disconnect(3)}. */
    public void disconnect(MemorySegment id) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            check("rdma_disconnect", (int) disconnect.invokeExact(cap, id), cap);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_get_cm_event(3)}: blocks until the next event; the {@code struct rdma_cm_event *} (readable). */
    public MemorySegment getCmEvent(MemorySegment channel) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment out = a.allocate(ADDRESS);
            check("rdma_get_cm_event", (int) getCmEvent.invokeExact(cap, channel, out), cap);
            return out.get(ADDRESS, 0).reinterpret(RdmaCmLayouts.CM_EVENT.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_ack_cm_event(3)}. */
    public void ackCmEvent(MemorySegment event) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            check("rdma_ack_cm_event", (int) ackCmEvent.invokeExact(cap, event), cap);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_init_qp_attr(3)}: fills the {@code struct ibv_qp_attr} for its {@code qp_state}; returns the mask. */
    public int initQpAttr(MemorySegment id, MemorySegment qpAttr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment mask = a.allocate(JAVA_INT);
            check("rdma_init_qp_attr", (int) initQpAttr.invokeExact(cap, id, qpAttr, mask), cap);
            return mask.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
