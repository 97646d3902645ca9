package org.jrdma.rocev2.transport;

import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.ext.ManagementDatagrams.MadAddress;
import org.jrdma.verbs.ext.ManagementDatagrams.MadAgent;
import org.jrdma.verbs.ext.ManagementDatagrams.MadHandler;

/**
 * A registered MAD agent of QP1 ({@code ib_mad_agent}): its class, class version and request methods,
 * and its handler; every call goes to its {@link Gsi}. Any thread.
 */
final class GsiAgent implements MadAgent {
    private final Gsi gsi;
    final int mgmtClass;
    final int classVersion;
    /** Bit m of the two longs: request method m (0..127) goes to this agent. */
    private final long methodsLo, methodsHi;
    final MadHandler handler;
    volatile boolean closed;

    GsiAgent(Gsi gsi, int mgmtClass, int classVersion, long methodsLo, long methodsHi, MadHandler handler) {
        this.gsi = gsi;
        this.mgmtClass = mgmtClass;
        this.classVersion = classVersion;
        this.methodsLo = methodsLo;
        this.methodsHi = methodsHi;
        this.handler = handler;
    }

    /** Whether request method {@code m} (0..127) of its class and version goes to this agent. */
    boolean serves(int m) {
        return ((m < 64 ? methodsLo >>> m : methodsHi >>> (m - 64)) & 1) != 0;
    }

    /** Whether this agent and {@code o} would both take some request. */
    boolean overlaps(GsiAgent o) {
        return mgmtClass == o.mgmtClass && classVersion == o.classVersion
            && ((methodsLo & o.methodsLo) != 0 || (methodsHi & o.methodsHi) != 0);
    }

    @Override
    public void send(MadAddress to, MemorySegment mad, int timeoutMs, int retries) {
        gsi.send(this, to, mad, timeoutMs, retries);
    }

    @Override
    public void cancel(long transactionId) {
        gsi.modify(this, transactionId, 0);
    }

    @Override
    public void modify(long transactionId, int timeoutMs) {
        gsi.modify(this, transactionId, timeoutMs);
    }

    @Override
    public void close() {
        gsi.unregister(this);
    }

    @Override
    public String toString() {
        return "MadAgent[class 0x" + Integer.toHexString(mgmtClass) + " version " + classVersion + "]";
    }
}
