package org.jrdma.ibverbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.AddressHandle;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.VerbsException;

/** A protection domain, {@code struct ibv_pd} ({@code ibv_alloc_pd(3)}). Thread-safe (the context's lock). */
final class IbvPd implements ProtectionDomain {
    final IbvContext context;
    final MemorySegment pd;
    private boolean closed; // guarded by context.lock

    IbvPd(IbvContext context, MemorySegment pd) {
        this.context = context;
        this.pd = pd;
    }

    @Override
    public IbvContext context() {
        return context;
    }

    /**
     * {@code ibv_reg_mr(3)} on the application's segment itself (zero copy: the device reads and writes
     * that memory).
     *
     * @throws VerbsException EINVAL for a heap or empty segment or unknown access bits; the kernel's
     *                        errno from ibv_reg_mr otherwise (e.g. ENOMEM past the memlock limit)
     */
    @Override
    public MemoryRegion regMr(MemorySegment segment, int access) {
        if (!segment.isNative()) {
            throw new VerbsException(Errno.EINVAL, "ibv_reg_mr: the segment is on the Java heap; register native memory");
        }
        if (segment.byteSize() == 0) {
            throw new VerbsException(Errno.EINVAL, "ibv_reg_mr: the segment is empty");
        }
        if ((access & ~AccessFlags.SUPPORTED) != 0) {
            throw new VerbsException(Errno.EINVAL, "ibv_reg_mr: access 0x" + Integer.toHexString(access)
                    + " has unknown bits");
        }
        synchronized (context.lock) {
            check();
            MemorySegment mr = context.lib.regMr(pd, segment, segment.byteSize(), access)
                    .reinterpret(IbvLayouts.MR.byteSize());
            IbvMr m = new IbvMr(this, mr, segment, access);
            context.added(m);
            return m;
        }
    }

    @Override
    public QueuePair createQp(QpInitAttr attr) {
        synchronized (context.lock) {
            check();
            IbvQp qp = IbvQp.create(this, attr);
            context.added(qp);
            return qp;
        }
    }

    @Override
    public AddressHandle createAh(AhAttr attr) {
        synchronized (context.lock) {
            check();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment s = a.allocate(IbvLayouts.AH_ATTR);
                Structs.writeAhAttr(s, 0, attr);
                IbvAh ah = new IbvAh(this, context.lib.createAh(pd, s), attr);
                context.added(ah);
                return ah;
            }
        }
    }

    private void check() {
        context.checkOpen();
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "the protection domain is deallocated");
        }
    }

    /** {@code ibv_dealloc_pd(3)}: EBUSY while MRs, QPs or AHs of it are alive. */
    @Override
    public void close() {
        synchronized (context.lock) {
            if (closed) {
                return;
            }
            context.lib.deallocPd(pd);
            closed = true;
        }
        context.removed(this);
    }
}
