package org.jrdma.soft;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AddressHandle;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
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
        if ((access & ~AccessFlags.SUPPORTED) != 0) {
            throw new VerbsException(Errno.EINVAL, "unsupported access flags 0x" + Integer.toHexString(access & ~AccessFlags.SUPPORTED));
        }
        if ((access & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0 && (access & AccessFlags.LOCAL_WRITE) == 0) {
            throw new VerbsException(Errno.EINVAL, "REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE (ibv_reg_mr(3))");
        }
        if ((access & AccessFlags.FLUSH_PERSISTENT) != 0 && !segment.isMapped()) {
            throw new VerbsException(Errno.EINVAL, "FLUSH_PERSISTENT needs persistent memory: a file-backed segment"
                    + " (MemorySegment.isMapped(), from FileChannel.map), as rxe needs pmem");
        }
        retain();
        SoftResources r = resources();
        for (;;) {
            SoftMr mr = new SoftMr(this, segment, access, r.newKey());
            if (r.mrs.putIfAbsent(mr.lkey(), mr)) {
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

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    // ---- issue 11 (cm): connection manager, QP1 ----
}
