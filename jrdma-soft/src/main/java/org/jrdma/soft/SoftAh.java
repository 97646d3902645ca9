package org.jrdma.soft;

import org.jrdma.verbs.AddressHandle;
import org.jrdma.verbs.AhAttr;

/** An address handle of a software device: a copy of the address vector. */
public final class SoftAh implements AddressHandle {
    private final SoftPd pd;
    private final AhAttr attr = new AhAttr();
    private boolean closed;

    SoftAh(SoftPd pd, AhAttr attr) {
        this.pd = pd;
        this.attr.copyFrom(attr);
    }

    @Override
    public AhAttr attr() {
        return new AhAttr().copyFrom(attr);
    }

    /** The address vector itself (not a copy; do not modify). */
    public AhAttr av() {
        return attr;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            pd.release();
        }
    }
}
