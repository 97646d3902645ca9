package org.jrdma.soft;

import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;

/**
 * A registered memory region of a software device. lkey and rkey are the same 32-bit value, drawn
 * at random (never 0, unique per device), so that a remote peer cannot guess a valid rkey.
 */
public final class SoftMr implements MemoryRegion {
    private final SoftPd pd;
    private final MemorySegment segment;
    private final long addr;
    private final long length;
    private final int access;
    private final int key;
    private volatile boolean valid = true;

    SoftMr(SoftPd pd, MemorySegment segment, int access, int key) {
        this.pd = pd;
        this.segment = segment;
        this.addr = segment.address();
        this.length = segment.byteSize();
        this.access = access;
        this.key = key;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long addr() {
        return addr;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int lkey() {
        return key;
    }

    @Override
    public int rkey() {
        return key;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    /** The PD as the soft core type. */
    public SoftPd softPd() {
        return pd;
    }

    /** False once deregistered. */
    public boolean isValid() {
        return valid;
    }

    /**
     * True while the region's memory can be read and written: the region is registered and the
     * Arena of its segment is not closed ({@code segment().scope().isAlive()}). Memory freed under
     * a live region makes a local access complete with LOC_PROT_ERR and a remote one get a NAK
     * remote access error. The memory can still be freed right after this returns: a copy must
     * also catch the {@link IllegalStateException} a closed scope throws. Lock-free, any thread.
     */
    public boolean isAccessible() {
        return valid && segment.scope().isAlive();
    }

    /**
     * The offset into {@link #segment()} of [va, va + len), or -1 when that range is not entirely
     * inside the region. {@code len} 0 is inside when va is in [addr, addr + length].
     */
    public long offsetOf(long va, long len) {
        long off = va - addr;
        if (len < 0 || off < 0 || off > length || len > length - off) {
            return -1;
        }
        return off;
    }

    /** True when every bit of {@code required} ({@link org.jrdma.verbs.AccessFlags}) is granted. */
    public boolean allows(int required) {
        return (access & required) == required;
    }

    @Override
    public void close() {
        if (valid) {
            valid = false;
            pd.resources().mrs.remove(key);
            pd.release();
        }
    }

    @Override
    public String toString() {
        return "MR[key=0x" + Integer.toHexString(key) + ", addr=0x" + Long.toHexString(addr) + ", length=" + length
                + ", access=0x" + Integer.toHexString(access) + "]";
    }

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    // ---- issue 11 (cm): connection manager, QP1 ----
}
