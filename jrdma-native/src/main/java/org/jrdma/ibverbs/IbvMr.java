package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;

/**
 * A memory region, {@code struct ibv_mr}: the application's segment registered as it is. It keeps a
 * reference to the segment, so an automatic arena's memory stays alive while registered. Immutable
 * apart from close; any thread.
 */
final class IbvMr implements MemoryRegion {
    private final IbvPd pd;
    private final MemorySegment mr;
    private final MemorySegment segment;
    private final int access;
    private final int lkey;
    private final int rkey;
    private boolean closed; // guarded by pd.context.lock

    IbvMr(IbvPd pd, MemorySegment mr, MemorySegment segment, int access) {
        this.pd = pd;
        this.mr = mr;
        this.segment = segment;
        this.access = access;
        this.lkey = mr.get(JAVA_INT, IbvLayouts.MR_LKEY_OFF);
        this.rkey = mr.get(JAVA_INT, IbvLayouts.MR_RKEY_OFF);
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long addr() {
        return segment.address();
    }

    @Override
    public long length() {
        return segment.byteSize();
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    /** {@code ibv_dereg_mr(3)}. */
    @Override
    public void close() {
        synchronized (pd.context.lock) {
            if (closed) {
                return;
            }
            pd.context.lib.deregMr(mr);
            closed = true;
        }
        pd.context.removed(this);
    }
}
