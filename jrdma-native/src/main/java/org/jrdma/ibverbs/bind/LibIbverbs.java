package org.jrdma.ibverbs.bind;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * rdma-core's {@code libibverbs.so.1}, loaded at run time ({@code dlopen} through
 * {@link SymbolLookup#libraryLookup}), with a downcall handle for each exported function the provider
 * calls (the default version of each symbol, as a C program linked today gets it: {@code IBVERBS_1.1}
 * for the original verbs). {@link #load()} checks the ABI first ({@link AbiCheck}) and refuses a library
 * it does not match. The data-path functions that {@code verbs.h} defines inline (they call through
 * the context's ops table) are in {@link OpsCalls}.
 *
 * <p>The wrappers turn libibverbs' failures into {@link VerbsException} with the errno and the call's
 * name: a NULL pointer result with {@code errno} (captured right after the call), a non-zero int
 * result as the errno itself where the man page says so, -1 with {@code errno} where it says that.
 * Control path: each wrapper that captures errno allocates a few bytes. Any thread.
 */
public final class LibIbverbs {
    /** The library's soname. */
    public static final String SONAME = "libibverbs.so.1";
    /** A system property naming another file to load instead (a test of the ABI check uses it). */
    public static final String LIBRARY_PROPERTY = "jrdma.ibverbs.library";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option ERRNO_OPT = Linker.Option.captureCallState("errno");

    private final SymbolLookup lookup;
    private final Path file;
    private final Set<String> versions;

    private final MethodHandle getDeviceList;
    private final MethodHandle getDeviceName;
    private final MethodHandle getDeviceGuid;
    private final MethodHandle openDevice;
    private final MethodHandle closeDevice;
    private final MethodHandle queryDevice;
    private final MethodHandle queryPort;
    private final MethodHandle queryGid;
    private final MethodHandle queryGidEx;
    private final MethodHandle queryPkey;
    private final MethodHandle getPkeyIndex;
    private final MethodHandle allocPd;
    private final MethodHandle deallocPd;
    private final MethodHandle regMr;
    private final MethodHandle deregMr;
    private final MethodHandle createCompChannel;
    private final MethodHandle destroyCompChannel;
    private final MethodHandle createCq;
    private final MethodHandle destroyCq;
    private final MethodHandle resizeCq;
    private final MethodHandle getCqEvent;
    private final MethodHandle ackCqEvents;
    private final MethodHandle createQp;
    private final MethodHandle modifyQp;
    private final MethodHandle queryQp;
    private final MethodHandle destroyQp;
    private final MethodHandle createAh;
    private final MethodHandle destroyAh;
    private final MethodHandle getAsyncEvent;
    private final MethodHandle ackAsyncEvent;
    private final MethodHandle poll;

    /** The symbols the provider needs; {@link AbiCheck} requires each. */
    static final List<String> SYMBOLS = List.of("ibv_get_device_list", "ibv_get_device_name", "ibv_get_device_guid",
            "ibv_open_device", "ibv_close_device", "ibv_query_device", "ibv_query_port", "ibv_query_gid",
            "_ibv_query_gid_ex", "ibv_query_pkey", "ibv_get_pkey_index", "ibv_alloc_pd", "ibv_dealloc_pd",
            "ibv_reg_mr", "ibv_dereg_mr", "ibv_create_comp_channel", "ibv_destroy_comp_channel", "ibv_create_cq",
            "ibv_destroy_cq", "ibv_resize_cq", "ibv_get_cq_event", "ibv_ack_cq_events", "ibv_create_qp",
            "ibv_modify_qp", "ibv_query_qp", "ibv_destroy_qp", "ibv_create_ah", "ibv_destroy_ah",
            "ibv_get_async_event", "ibv_ack_async_event");

    private LibIbverbs(SymbolLookup lookup, Path file, Set<String> versions) {
        this.lookup = lookup;
        this.file = file;
        this.versions = versions;
        getDeviceList = h("ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        getDeviceName = h("ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS), false);
        getDeviceGuid = h("ibv_get_device_guid", FunctionDescriptor.of(JAVA_LONG, ADDRESS), false);
        openDevice = h("ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        closeDevice = h("ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS), true);
        queryDevice = h("ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), false);
        queryPort = h("ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS), false);
        queryGid = h("ibv_query_gid", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS), true);
        queryGidEx = h("_ibv_query_gid_ex",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG), false);
        queryPkey = h("ibv_query_pkey", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS), true);
        getPkeyIndex = h("ibv_get_pkey_index", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_SHORT), false);
        allocPd = h("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        deallocPd = h("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        regMr = h("ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT), true);
        deregMr = h("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        createCompChannel = h("ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        destroyCompChannel = h("ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, ADDRESS), true);
        createCq = h("ibv_create_cq",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), true);
        destroyCq = h("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        resizeCq = h("ibv_resize_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), false);
        getCqEvent = h("ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), true);
        ackCqEvents = h("ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT), false);
        createQp = h("ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
        modifyQp = h("ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), false);
        queryQp = h("ibv_query_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS), false);
        destroyQp = h("ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        createAh = h("ibv_create_ah", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
        destroyAh = h("ibv_destroy_ah", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        getAsyncEvent = h("ibv_get_async_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), true);
        ackAsyncEvent = h("ibv_ack_async_event", FunctionDescriptor.ofVoid(ADDRESS), false);
        poll = LINKER.downcallHandle(LINKER.defaultLookup().find("poll").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), ERRNO_OPT);
    }

    private MethodHandle h(String name, FunctionDescriptor d, boolean errno) {
        MemorySegment sym = lookup.find(name).orElseThrow();
        return errno ? LINKER.downcallHandle(sym, d, ERRNO_OPT) : LINKER.downcallHandle(sym, d);
    }

    /**
     * Loads and checks the library ({@link #LIBRARY_PROPERTY} or {@link #SONAME} from the dynamic
     * linker's search path).
     *
     * @throws Unavailable when it is absent, or present with an ABI this provider does not match (the
     *                     message says which and why)
     */
    public static LibIbverbs load() throws Unavailable {
        String name = System.getProperty(LIBRARY_PROPERTY, SONAME);
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(name, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new Unavailable(name + " could not be loaded (rdma-core's libibverbs1 package is not installed?): "
                    + e.getMessage());
        }
        Path file = name.contains("/") ? Path.of(name) : loadedFile(lookup, name);
        Set<String> versions;
        try {
            versions = ElfVersions.definitions(file);
        } catch (IOException e) {
            throw new Unavailable("cannot read the symbol versions of " + file + ": " + e.getMessage());
        }
        AbiCheck.check(file, versions, s -> lookup.find(s).isPresent());
        return new LibIbverbs(lookup, file, versions);
    }

    /** The file {@code dlopen} mapped for the library: the mapping that holds one of its symbols. */
    private static Path loadedFile(SymbolLookup lookup, String name) throws Unavailable {
        Optional<MemorySegment> sym = lookup.find("ibv_get_device_list");
        if (sym.isEmpty()) {
            throw new Unavailable(name + " has no ibv_get_device_list: not libibverbs");
        }
        long addr = sym.get().address();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 6) {
                    continue;
                }
                String[] range = f[0].split("-");
                long lo = Long.parseUnsignedLong(range[0], 16);
                long hi = Long.parseUnsignedLong(range[1], 16);
                if (Long.compareUnsigned(addr, lo) >= 0 && Long.compareUnsigned(addr, hi) < 0) {
                    return Path.of(f[5]);
                }
            }
        } catch (IOException e) {
            throw new Unavailable("cannot read /proc/self/maps to find " + name + ": " + e.getMessage());
        }
        throw new Unavailable("cannot find the file of " + name + " in /proc/self/maps");
    }

    /** The library file loaded. */
    public Path file() {
        return file;
    }

    /** The symbol versions it defines. */
    public Set<String> versions() {
        return versions;
    }

    /** The library is absent or its ABI is not the one this provider was written for. */
    public static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        public Unavailable(String message) {
            super(message);
        }
    }

    // ---------------------------------------------------------------- wrappers

    private static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    private static VerbsException fail(String call, int errno) {
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

    /** {@code ibv_get_device_list(&n)}: the NULL-terminated array, {@code n} entries long. */
    public MemorySegment getDeviceList(MemorySegment numDevices) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment r = (MemorySegment) getDeviceList.invokeExact(cap, numDevices);
            if (r.address() == 0) {
                throw fail("ibv_get_device_list", errno(cap));
            }
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_get_device_name(device)}. */
    public MemorySegment getDeviceName(MemorySegment device) {
        try {
            return (MemorySegment) getDeviceName.invokeExact(device);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_get_device_guid(device)}: in network byte order as it returns it. */
    public long getDeviceGuid(MemorySegment device) {
        try {
            return (long) getDeviceGuid.invokeExact(device);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private MemorySegment ptrCall(String call, MethodHandle h, MemorySegment arg) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment r = (MemorySegment) h.invokeExact(cap, arg);
            if (r.address() == 0) {
                throw fail(call, errno(cap));
            }
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static void intCall(String call, MethodHandle h, MemorySegment arg) {
        int rc;
        try {
            rc = (int) h.invokeExact(arg);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (rc != 0) {
            throw fail(call, rc < 0 ? -rc : rc);
        }
    }

    /** {@code ibv_open_device(3)}. */
    public MemorySegment openDevice(MemorySegment device) {
        return ptrCall("ibv_open_device", openDevice, device);
    }

    /** {@code ibv_close_device(3)}: returns 0 or -1 with errno. */
    public void closeDevice(MemorySegment ctx) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            int rc = (int) closeDevice.invokeExact(cap, ctx);
            if (rc != 0) {
                throw fail("ibv_close_device", errno(cap));
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_query_device(3)}: returns 0 or the errno. */
    public void queryDevice(MemorySegment ctx, MemorySegment attr) {
        int rc;
        try {
            rc = (int) queryDevice.invokeExact(ctx, attr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (rc != 0) {
            throw fail("ibv_query_device", rc);
        }
    }

    /** The exported {@code ibv_query_port} (for a context that is not a {@code verbs_context}). */
    public void queryPortCompat(MemorySegment ctx, int port, MemorySegment attr) {
        int rc;
        try {
            rc = (int) queryPort.invokeExact(ctx, (byte) port, attr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (rc != 0) {
            throw fail("ibv_query_port", rc);
        }
    }

    /** {@code ibv_query_gid(3)}: 0, or -1 with errno. */
    public void queryGid(MemorySegment ctx, int port, int index, MemorySegment gid) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            int rc = (int) queryGid.invokeExact(cap, ctx, (byte) port, index, gid);
            if (rc != 0) {
                throw fail("ibv_query_gid", errno(cap) == 0 ? Errno.EINVAL : errno(cap));
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_query_gid_ex(3)} ({@code _ibv_query_gid_ex} with the entry's size): 0 or the errno. */
    public void queryGidEx(MemorySegment ctx, int port, int index, MemorySegment entry) {
        int rc;
        try {
            rc = (int) queryGidEx.invokeExact(ctx, port, index, entry, 0, IbvLayouts.GID_ENTRY.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (rc != 0) {
            throw fail("ibv_query_gid_ex", rc < 0 ? -rc : rc);
        }
    }

    /** {@code ibv_query_pkey(3)}: the P_Key in host order; 0, or -1 with errno. */
    public int queryPkey(MemorySegment ctx, int port, int index) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment pkey = a.allocate(2);
            int rc = (int) queryPkey.invokeExact(cap, ctx, (byte) port, index, pkey);
            if (rc != 0) {
                throw fail("ibv_query_pkey", errno(cap) == 0 ? Errno.EINVAL : errno(cap));
            }
            return Short.toUnsignedInt(Short.reverseBytes(pkey.get(JAVA_SHORT, 0)));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_get_pkey_index(3)}: the index, or -1 when the table does not hold it. */
    public int getPkeyIndex(MemorySegment ctx, int port, int pkey) {
        try {
            return (int) getPkeyIndex.invokeExact(ctx, (byte) port, Short.reverseBytes((short) pkey));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_alloc_pd(3)}. */
    public MemorySegment allocPd(MemorySegment ctx) {
        return ptrCall("ibv_alloc_pd", allocPd, ctx);
    }

    /** {@code ibv_dealloc_pd(3)}: 0 or the errno. */
    public void deallocPd(MemorySegment pd) {
        intCall("ibv_dealloc_pd", deallocPd, pd);
    }

    /** {@code ibv_reg_mr(3)} on {@code [addr, addr + length)}. */
    public MemorySegment regMr(MemorySegment pd, MemorySegment addr, long length, int access) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment r = (MemorySegment) regMr.invokeExact(cap, pd, addr, length, access);
            if (r.address() == 0) {
                throw fail("ibv_reg_mr", errno(cap));
            }
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_dereg_mr(3)}: 0 or the errno. */
    public void deregMr(MemorySegment mr) {
        intCall("ibv_dereg_mr", deregMr, mr);
    }

    /** {@code ibv_create_comp_channel(3)}. */
    public MemorySegment createCompChannel(MemorySegment ctx) {
        return ptrCall("ibv_create_comp_channel", createCompChannel, ctx);
    }

    /** {@code ibv_destroy_comp_channel(3)}: 0, or -1 with errno (EBUSY while CQs use it). */
    public void destroyCompChannel(MemorySegment ch) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            int rc = (int) destroyCompChannel.invokeExact(cap, ch);
            if (rc != 0) {
                throw fail("ibv_destroy_comp_channel", errno(cap));
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_create_cq(3)}. */
    public MemorySegment createCq(MemorySegment ctx, int cqe, MemorySegment cqContext, MemorySegment channel,
                                  int compVector) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment r = (MemorySegment) createCq.invokeExact(cap, ctx, cqe, cqContext, channel, compVector);
            if (r.address() == 0) {
                throw fail("ibv_create_cq", errno(cap));
            }
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_destroy_cq(3)}: 0 or the errno. */
    public void destroyCq(MemorySegment cq) {
        intCall("ibv_destroy_cq", destroyCq, cq);
    }

    /** {@code ibv_resize_cq(3)}: 0 or the errno. */
    public void resizeCq(MemorySegment cq, int cqe) {
        int rc;
        try {
            rc = (int) resizeCq.invokeExact(cq, cqe);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (rc != 0) {
            throw fail("ibv_resize_cq", rc < 0 ? -rc : rc);
        }
    }

    /**
     * {@code ibv_get_cq_event(3)} into {@code out} (two pointers: the CQ, its cq_context); blocks until
     * the channel's fd is readable: call it after {@link #poll} said so.
     */
    public void getCqEvent(MemorySegment channel, MemorySegment out) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            int rc = (int) getCqEvent.invokeExact(cap, channel, out, out.asSlice(8));
            if (rc != 0) {
                throw fail("ibv_get_cq_event", errno(cap));
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_ack_cq_events(3)}. */
    public void ackCqEvents(MemorySegment cq, int n) {
        try {
            ackCqEvents.invokeExact(cq, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_create_qp(3)}; the kernel writes the actual capabilities back into {@code initAttr}. */
    public MemorySegment createQp(MemorySegment pd, MemorySegment initAttr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment r = (MemorySegment) createQp.invokeExact(cap, pd, initAttr);
            if (r.address() == 0) {
                throw fail("ibv_create_qp", errno(cap));
            }
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_modify_qp(3)}: 0 or the errno. */
    public void modifyQp(MemorySegment qp, MemorySegment attr, int mask) {
        int rc;
        try {
            rc = (int) modifyQp.invokeExact(qp, attr, mask);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (rc != 0) {
            throw fail("ibv_modify_qp", rc < 0 ? -rc : rc);
        }
    }

    /** {@code ibv_query_qp(3)}: 0 or the errno. */
    public void queryQp(MemorySegment qp, MemorySegment attr, int mask, MemorySegment initAttr) {
        int rc;
        try {
            rc = (int) queryQp.invokeExact(qp, attr, mask, initAttr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (rc != 0) {
            throw fail("ibv_query_qp", rc < 0 ? -rc : rc);
        }
    }

    /** {@code ibv_destroy_qp(3)}: 0 or the errno. */
    public void destroyQp(MemorySegment qp) {
        intCall("ibv_destroy_qp", destroyQp, qp);
    }

    /** {@code ibv_create_ah(3)}. */
    public MemorySegment createAh(MemorySegment pd, MemorySegment attr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment r = (MemorySegment) createAh.invokeExact(cap, pd, attr);
            if (r.address() == 0) {
                throw fail("ibv_create_ah", errno(cap));
            }
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_destroy_ah(3)}: 0 or the errno. */
    public void destroyAh(MemorySegment ah) {
        intCall("ibv_destroy_ah", destroyAh, ah);
    }

    /**
     * {@code ibv_get_async_event(3)} into {@code event} ({@code struct ibv_async_event}); blocks until
     * the context's async_fd is readable: call it after {@link #pollIn} said so.
     */
    public void getAsyncEvent(MemorySegment ctx, MemorySegment event) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            int rc = (int) getAsyncEvent.invokeExact(cap, ctx, event);
            if (rc != 0) {
                throw fail("ibv_get_async_event", errno(cap));
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_ack_async_event(3)}. */
    public void ackAsyncEvent(MemorySegment event) {
        try {
            ackAsyncEvent.invokeExact(event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * libc's {@code poll(2)} on one fd for POLLIN.
     *
     * @return true when the fd is readable, false on timeout or EINTR
     */
    public boolean pollIn(int fd, int timeoutMillis) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            MemorySegment pfd = a.allocate(8, 4);
            pfd.set(JAVA_INT, 0, fd);
            pfd.set(JAVA_SHORT, 4, (short) 1); // POLLIN
            int rc = (int) poll.invokeExact(cap, pfd, 1L, timeoutMillis);
            if (rc < 0) {
                int e = errno(cap);
                if (e == 4) { // EINTR
                    return false;
                }
                throw fail("poll", e);
            }
            return rc > 0 && (pfd.get(JAVA_SHORT, 6) & 1) != 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
