package org.jrdma.soft;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.ReregMrFlags;
import org.jrdma.verbs.VerbsException;

/**
 * A registered memory region of a software device. lkey and rkey are the same 32-bit value, drawn
 * at random (never 0, unique per device), so that a remote peer cannot guess a valid rkey.
 *
 * <p>What {@code ibv_rereg_mr} may change is held so that a reader sees it whole: the translation
 * (memory, address, length) is one immutable {@link Translation} swapped at once; PD and access are
 * volatile fields. Threads: any thread reads without locks; {@link #rereg} and {@link #close} are
 * control-path calls that take this region's monitor (never under a QP lock).
 */
public final class SoftMr implements MemoryRegion {
    /**
     * A region's memory at one moment, as the data path resolves it ({@link RemoteRange}): an SGE or
     * an rkey checked against one translation is copied with the same one.
     */
    public final class Translation implements RemoteRange {
        private final MemorySegment segment;
        private final long addr;
        private final long length;

        Translation(MemorySegment segment) {
            this.segment = segment;
            this.addr = segment.address();
            this.length = segment.byteSize();
        }

        @Override
        public MemorySegment segment() {
            return segment;
        }

        /** The virtual address of the first byte. */
        public long addr() {
            return addr;
        }

        /** 0: a translation is the region's whole segment. */
        @Override
        public long base() {
            return 0;
        }

        /** The length, bytes. */
        @Override
        public long length() {
            return length;
        }

        @Override
        public long offsetOf(long va, long len) {
            long off = va - addr;
            if (len < 0 || off < 0 || off > length || len > length - off) {
                return -1;
            }
            return off;
        }

        @Override
        public boolean allows(int required) {
            return SoftMr.this.allows(required);
        }

        /** The region is registered with this translation, and its memory is there. */
        @Override
        public boolean isAccessible() {
            return valid && translation == this && segment.scope().isAlive();
        }

        /** The region. */
        public SoftMr region() {
            return SoftMr.this;
        }
    }

    private final int key;
    private volatile SoftPd pd;
    private volatile int access;
    private volatile Translation translation;
    private volatile boolean valid = true;
    /** Memory windows bound to this region (rxe {@code mr->num_mw}). */
    private final AtomicInteger boundWindows = new AtomicInteger();

    SoftMr(SoftPd pd, MemorySegment segment, int access, int key) {
        this.pd = pd;
        this.translation = new Translation(segment);
        this.access = access;
        this.key = key;
    }

    @Override
    public MemorySegment segment() {
        return translation.segment;
    }

    @Override
    public long addr() {
        return translation.addr;
    }

    @Override
    public long length() {
        return translation.length;
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

    /** The current translation: resolve and copy with the same one. Lock-free, any thread. */
    public Translation translation() {
        return translation;
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
        return valid && translation.segment.scope().isAlive();
    }

    /**
     * The offset into {@link #segment()} of [va, va + len), or -1 when that range is not entirely
     * inside the region. {@code len} 0 is inside when va is in [addr, addr + length].
     */
    public long offsetOf(long va, long len) {
        return translation.offsetOf(va, len);
    }

    /** True when every bit of {@code required} ({@link org.jrdma.verbs.AccessFlags}) is granted. */
    public boolean allows(int required) {
        return (access & required) == required;
    }

    /** @throws VerbsException EINVAL while memory windows are bound to the region (rxe {@code rxe_dereg_mr}) */
    @Override
    public synchronized void close() {
        if (valid) {
            if (boundWindows.get() > 0) {
                throw new VerbsException(Errno.EINVAL, "memory region " + this + " has " + boundWindows.get()
                        + " memory windows bound to it (ibv_dereg_mr: rxe refuses with EINVAL)");
            }
            valid = false;
            pd.resources().mrs.remove(key);
            pd.release();
        }
    }

    @Override
    public String toString() {
        return "MR[key=0x" + Integer.toHexString(key) + ", addr=0x" + Long.toHexString(addr()) + ", length=" + length()
                + ", access=0x" + Integer.toHexString(access) + "]";
    }

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    /** The rereg flags the kernel accepts ({@code IB_MR_REREG_SUPPORTED}). */
    private static final int REREG_SUPPORTED = ReregMrFlags.CHANGE_TRANSLATION | ReregMrFlags.CHANGE_PD
            | ReregMrFlags.CHANGE_ACCESS;

    /**
     * {@code ibv_rereg_mr(3)}: checks everything first, then applies translation, access and PD (each
     * visible at once to every thread; a request resolved before keeps what it resolved). Keys stay.
     * Control path, any thread, under this region's monitor; takes the PDs' counters (atomics).
     */
    @Override
    public synchronized void rereg(int flags, ProtectionDomain newPd, MemorySegment segment, int newAccess) {
        if (flags == 0 || (flags & ~REREG_SUPPORTED) != 0) {
            throw new VerbsException(Errno.EINVAL, "rereg flags 0x" + Integer.toHexString(flags)
                    + " not a non-empty combination of CHANGE_TRANSLATION, CHANGE_PD, CHANGE_ACCESS");
        }
        if (!valid) {
            throw new VerbsException(Errno.EINVAL, "memory region is deregistered");
        }
        if (boundWindows.get() > 0) {
            throw new VerbsException(Errno.EINVAL, "memory region has " + boundWindows.get()
                    + " memory windows bound to it (IBTA: a region with bound windows cannot be reregistered)");
        }
        SoftPd target = null;
        if ((flags & ReregMrFlags.CHANGE_PD) != 0) {
            if (!(newPd instanceof SoftPd p) || p.resources() != pd.resources()) {
                throw new VerbsException(Errno.EINVAL, "pd is null or of another device");
            }
            target = p;
        }
        Translation t = null;
        if ((flags & ReregMrFlags.CHANGE_TRANSLATION) != 0) {
            SoftPd.checkSegment(segment);
            t = new Translation(segment);
        }
        if ((flags & ReregMrFlags.CHANGE_ACCESS) != 0) {
            SoftPd.checkAccess(newAccess);
        }
        SoftPd.checkPersistence(t != null ? t.segment() : translation.segment(),
                (flags & ReregMrFlags.CHANGE_ACCESS) != 0 ? newAccess : access);
        if (target != null && target != pd) {
            target.retain(); // EINVAL when the new PD is closed: nothing changed yet
        }
        if (t != null) {
            translation = t;
        }
        if ((flags & ReregMrFlags.CHANGE_ACCESS) != 0) {
            access = newAccess;
        }
        if (target != null && target != pd) {
            SoftPd old = pd;
            pd = target;
            old.release();
        }
    }

    /** A window is being bound to the region; false (and nothing counted) once it is deregistered. */
    boolean windowBound() {
        boundWindows.incrementAndGet();
        if (!valid) {
            boundWindows.decrementAndGet();
            return false;
        }
        return true;
    }

    /** A window bound to the region was unbound, invalidated or deallocated. */
    void windowUnbound() {
        boundWindows.decrementAndGet();
    }

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    // ---- issue 11 (cm): connection manager, QP1 ----
}
