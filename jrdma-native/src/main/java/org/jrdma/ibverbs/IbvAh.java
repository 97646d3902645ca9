package org.jrdma.ibverbs;

import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.AddressHandle;
import org.jrdma.verbs.AhAttr;

/** An address handle, {@code struct ibv_ah} ({@code ibv_create_ah(3)}). Any thread. */
final class IbvAh implements AddressHandle {
    private final IbvPd pd;
    final MemorySegment ah;
    private final AhAttr attr;
    private boolean closed; // guarded by pd.context.lock

    IbvAh(IbvPd pd, MemorySegment ah, AhAttr attr) {
        this.pd = pd;
        this.ah = ah;
        this.attr = new AhAttr().copyFrom(attr);
    }

    @Override
    public AhAttr attr() {
        return new AhAttr().copyFrom(attr);
    }

    /** {@code ibv_destroy_ah(3)}. */
    @Override
    public void close() {
        synchronized (pd.context.lock) {
            if (closed) {
                return;
            }
            pd.context.lib.destroyAh(ah);
            closed = true;
        }
        pd.context.removed(this);
    }
}
