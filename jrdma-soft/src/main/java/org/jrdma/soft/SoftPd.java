package org.jrdma.soft;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AddressHandle;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.MemoryWindow;
import org.jrdma.verbs.MwType;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.VerbsException;

/** A protection domain of a software device. */
public final class SoftPd implements ProtectionDomain {
    /** A thread that is not the caller: a confined segment is not accessible by it. */
    private static final Thread ACCESS_PROBE = Thread.ofPlatform().unstarted(() -> { });
    private final SoftContext context;
    private final AtomicInteger users = new AtomicInteger();
    private volatile boolean closed;

    SoftPd(SoftContext context) {
        this.context = context;
    }

    @Override
    public Context context() {
        return context;
    }

    /** The soft context. */
    public SoftContext softContext() {
        return context;
    }

    SoftResources resources() {
        return context.resources();
    }

    void retain() {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "protection domain is closed");
        }
        users.incrementAndGet();
    }

    void release() {
        users.decrementAndGet();
    }

    @Override
    public MemoryRegion regMr(MemorySegment segment, int access) {
        checkSegment(segment);
        checkAccess(access);
        checkPersistence(segment, access);
        retain();
        SoftResources r = resources();
        for (;;) {
            SoftMr mr = new SoftMr(this, segment, access, r.newKey());
            if (r.addMr(mr)) {
                return mr;
            }
        }
    }

    @Override
    public QueuePair createQp(QpInitAttr attr) {
        retain();
        try {
            return context.createQp(this, attr);
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    @Override
    public AddressHandle createAh(AhAttr attr) {
        if (attr.portNum() != 1) {
            throw new VerbsException(Errno.EINVAL, "port " + attr.portNum() + " does not exist (only port 1)");
        }
        context.checkAhAttr(attr);
        retain();
        return new SoftAh(this, attr);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (users.get() != 0) {
            throw new VerbsException(Errno.EBUSY, "protection domain still has " + users.get() + " MRs, QPs or AHs");
        }
        closed = true;
        context.resources().pdCount.decrementAndGet();
    }

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    /** {@code ibv_create_srq(3)}: see {@link ProtectionDomain#createSrq}; the SRQ holds a reference on the PD. */
    @Override
    public org.jrdma.verbs.SharedReceiveQueue createSrq(org.jrdma.verbs.SrqInitAttr attr) {
        retain();
        try {
            return context.createSrq(this, attr);
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    /** The memory of {@code ibv_reg_mr} / {@code ibv_rereg_mr}: native, shared, not empty. @throws VerbsException EINVAL */
    static void checkSegment(MemorySegment segment) {
        if (segment == null || !segment.isNative()) {
            throw new VerbsException(Errno.EINVAL, "a memory region must be native memory (MemorySegment.isNative())");
        }
        if (!segment.isAccessibleBy(ACCESS_PROBE)) {
            throw new VerbsException(Errno.EINVAL, "a memory region must be accessible from every thread (Arena.ofShared(),"
                    + " Arena.ofAuto() or Arena.global()): the device's I/O thread reads and writes it");
        }
        if (segment.byteSize() == 0) {
            throw new VerbsException(Errno.EINVAL, "a memory region cannot be empty");
        }
    }

    /** A region's access flags ({@code ib_check_mr_access}). @throws VerbsException EINVAL */
    static void checkAccess(int access) {
        if ((access & ~AccessFlags.SUPPORTED) != 0) {
            throw new VerbsException(Errno.EINVAL, "unsupported access flags 0x" + Integer.toHexString(access & ~AccessFlags.SUPPORTED));
        }
        if ((access & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0 && (access & AccessFlags.LOCAL_WRITE) == 0) {
            throw new VerbsException(Errno.EINVAL, "REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE (ibv_reg_mr(3))");
        }
    }

    /**
     * FLUSH_PERSISTENT needs persistent memory (rxe refuses it without pmem): here a file-backed
     * segment. Checked at registration and for the translation and access a rereg leaves.
     * @throws VerbsException EINVAL
     */
    static void checkPersistence(MemorySegment segment, int access) {
        if ((access & AccessFlags.FLUSH_PERSISTENT) != 0 && !segment.isMapped()) {
            throw new VerbsException(Errno.EINVAL, "FLUSH_PERSISTENT needs persistent memory: a file-backed segment"
                    + " (MemorySegment.isMapped(), from FileChannel.map), as rxe needs pmem");
        }
    }

    /**
     * {@code ibv_alloc_mw(3)}: a window with a fresh random 24-bit index (the rkey's upper bits, never
     * shared with a region's key) and a random key byte. Control path, any thread.
     */
    @Override
    public MemoryWindow allocMw(MwType type) {
        if (type == null) {
            throw new VerbsException(Errno.EINVAL, "mw_type missing");
        }
        context.checkAllocMw(type);
        SoftResources r = resources();
        if (r.mws.size() >= SoftMw.MAX_MW) {
            throw new VerbsException(Errno.ENOMEM, "too many memory windows (max_mw " + SoftMw.MAX_MW + ")");
        }
        retain();
        for (;;) {
            SoftMw mw = new SoftMw(this, type, r.newMwRkey());
            if (r.addMw(mw)) {
                return mw;
            }
        }
    }

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    // ---- issue 11 (cm): connection manager, QP1 ----
}
