package org.jrdma.soft;

import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.MemoryWindow;
import org.jrdma.verbs.MwType;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.WcStatus;

/**
 * A memory window of a software device (rxe: {@code rxe_mw.c}; IBTA Vol 1 §10.6.7). Its rkey is
 * {@code index << 8 | key}: the 24-bit index is drawn at random when it is allocated (never the upper
 * bits of a region's key, so an rkey names a region or a window, not both), the key byte is random
 * too and each bind replaces it with the low byte the bind names. States as rxe's: a type 1 window is
 * VALID from allocation (granting nothing until bound; rebound at will, unbound by a zero-length
 * bind); a type 2 window is FREE until bound, VALID while bound, FREE again once invalidated; both are
 * INVALID once deallocated.
 *
 * <p>Threads and locks: binds and invalidations run under the lock of the QP that executes them (a
 * posting thread, or the device's I/O thread for the requester and the responder) and then take this
 * window's monitor, inside which nothing else is locked (the region's window count is an atomic).
 * {@link #close()} takes the monitor alone. Lookups ({@link #lookup}) are lock-free: the current
 * {@link Binding} is one immutable object behind a volatile field.
 */
public final class SoftMw implements MemoryWindow {
    /** Windows per device (rxe's {@code RXE_MAX_MW}). */
    public static final int MAX_MW = 0x1000;
    /** The rights a bind may give (rxe {@code RXE_ACCESS_SUPPORTED_MW}, without the ODP bits jrdma lacks). */
    static final int SUPPORTED_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC | AccessFlags.MW_BIND | AccessFlags.ZERO_BASED | AccessFlags.RELAXED_ORDERING
            | AccessFlags.FLUSH_GLOBAL | AccessFlags.FLUSH_PERSISTENT;

    /** rxe's {@code enum rxe_mw_state}. */
    enum State { INVALID, FREE, VALID }

    /** What a bound window grants: immutable; replaced whole by each bind. */
    final class Binding implements RemoteRange {
        final int rkey;
        final SoftMr mr;
        final SoftMr.Translation translation;
        final long addr;
        final long length;
        final int access;
        final boolean zeroBased;
        /** Type 2: the QP that bound it (only requests on it may use the window); type 1: null. */
        final SoftQp qp;

        Binding(int rkey, SoftMr mr, long addr, long length, int access, SoftQp qp) {
            this.rkey = rkey;
            this.mr = mr;
            this.translation = mr.translation();
            this.addr = addr;
            this.length = length;
            this.access = access;
            this.zeroBased = (access & AccessFlags.ZERO_BASED) != 0;
            this.qp = qp;
        }

        @Override
        public MemorySegment segment() {
            return translation.segment();
        }

        /** [va, va + len) inside the window (va an offset from 0 when zero-based), as an offset into the region's memory. */
        @Override
        public long offsetOf(long va, long len) {
            long off = zeroBased ? va : va - addr;
            if (len < 0 || off < 0 || off > length || len > length - off) {
                return -1;
            }
            return addr - translation.addr() + off;
        }

        /** Where the window's first byte lies in the region's memory. */
        @Override
        public long base() {
            return addr - translation.addr();
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public boolean allows(int required) {
            return (access & required) == required;
        }

        /** The window is still bound this way and the region's memory is there. */
        @Override
        public boolean isAccessible() {
            return binding == this && translation.isAccessible();
        }
    }

    private final SoftPd pd;
    private final MwType type;
    private final int index;
    /** {@code ibv_mw.rkey}: the key of the last bind posted. */
    private volatile int rkey;
    /** The key the device holds (the binding's, or the last one when unbound). Under the monitor. */
    private int liveKey;
    private volatile Binding binding;
    private volatile State state;

    SoftMw(SoftPd pd, MwType type, int rkey) {
        this.pd = pd;
        this.type = type;
        this.index = rkey >>> 8;
        this.rkey = rkey;
        this.liveKey = rkey;
        this.state = type == MwType.TYPE_2 ? State.FREE : State.VALID;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public MwType type() {
        return type;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    /** The upper 24 bits of every rkey the window has: its key in {@link SoftResources#mws}. */
    int index() {
        return index;
    }

    /** A bind naming {@code newKey} was posted: {@code ibv_mw.rkey} takes its key byte (as libibverbs after {@code ibv_bind_mw}). */
    void bindPosted(int newKey) {
        rkey = (rkey & 0xFFFFFF00) | (newKey & 0xFF);
    }

    /** True when this is a window of the device whose tables are {@code r}. */
    boolean belongsTo(SoftResources r) {
        return pd.resources() == r;
    }

    /**
     * Executes a bind WQE of {@code qp} (rxe {@code rxe_bind_mw}, {@code rxe_check_bind_mw}): on success
     * the window's rkey takes the WQE's key byte and the new binding is visible to lookups at once.
     * jrdma also refuses a region of another PD than the window's (IBTA C10-72; rxe checks that only
     * in libibverbs, for type 1). Under {@code qp}'s lock.
     *
     * @return SUCCESS, or MW_BIND_ERR with nothing changed
     */
    synchronized WcStatus bind(SoftQp qp, SendWqe w) {
        if (state == State.INVALID) {
            return WcStatus.MW_BIND_ERR; // deallocated (rxe: the index no longer resolves)
        }
        SoftMr mr = null;
        if (w.bindLength != 0) {
            mr = w.bindMr;
            if (mr == null || !mr.isValid()) {
                return WcStatus.MW_BIND_ERR;
            }
        }
        int access = w.bindAccess;
        if ((access & ~SUPPORTED_ACCESS) != 0) {
            return WcStatus.MW_BIND_ERR; // rxe: EOPNOTSUPP
        }
        if (type == MwType.TYPE_1) {
            if (state != State.VALID || (access & AccessFlags.ZERO_BASED) != 0) {
                return WcStatus.MW_BIND_ERR; // o10-36.2.2
            }
        } else if (state != State.FREE || qp.softPd() != pd || mr == null) {
            return WcStatus.MW_BIND_ERR; // o10-37.2.30, C10-72, o10-37.2.40
        }
        if (mr != null && !checkRegion(mr, w, access)) {
            return WcStatus.MW_BIND_ERR;
        }
        if (mr != null && !mr.windowBound()) {
            return WcStatus.MW_BIND_ERR;
        }
        Binding old = binding;
        int key = (liveKey & 0xFFFFFF00) | (w.bindRkey & 0xFF);
        liveKey = key;
        binding = mr == null ? null : new Binding(key, mr, w.bindAddr, w.bindLength, access,
                type == MwType.TYPE_2 ? qp : null);
        state = State.VALID;
        if (old != null) {
            old.mr.windowUnbound();
        }
        return WcStatus.SUCCESS;
    }

    /** C10-73 (MW_BIND), C10-74 (LOCAL_WRITE for a writable window), C10-75 (inside the region), same PD (C10-72). */
    private boolean checkRegion(SoftMr mr, SendWqe w, int access) {
        if (mr.softPd() != pd || !mr.allows(AccessFlags.MW_BIND)) {
            return false;
        }
        if ((access & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0 && !mr.allows(AccessFlags.LOCAL_WRITE)) {
            return false;
        }
        // also for a zero-based window (rxe checks only its length against the region's there): its
        // bytes are [addr, addr + length) of the region, whatever the remote addresses look like
        return mr.translation().offsetOf(w.bindAddr, w.bindLength) >= 0;
    }

    /** See {@link SoftResources#invalidate}. Under {@code qp}'s lock. */
    synchronized boolean invalidate(SoftQp qp, int key, boolean remote) {
        Binding b = binding;
        if (type != MwType.TYPE_2 || state != State.VALID || b == null || b.rkey != key || qp.softPd() != pd
                || (remote && b.qp != qp)) {
            return false;
        }
        binding = null;
        state = State.FREE;
        b.mr.windowUnbound();
        return true;
    }

    /**
     * The binding {@code key} names for a request arriving on {@code qp} with {@code access}, or null
     * (rxe {@code rxe_lookup_mw}: key, PD, type 2 QP, length, rights, state). Lock-free.
     */
    RemoteRange lookup(SoftQp qp, int key, int access) {
        Binding b = binding;
        if (b == null || b.rkey != key || qp.softPd() != pd || (b.qp != null && b.qp != qp) || !b.allows(access)
                || !b.isAccessible()) {
            return null;
        }
        return b;
    }

    /** {@code ibv_dealloc_mw(3)} (rxe {@code rxe_mw_cleanup}): unbinds and frees the index. Control path, any thread. */
    @Override
    public synchronized void close() {
        if (state == State.INVALID) {
            return;
        }
        state = State.INVALID;
        Binding b = binding;
        binding = null;
        if (b != null) {
            b.mr.windowUnbound();
        }
        pd.resources().mws.remove(index);
        pd.release();
    }

    @Override
    public String toString() {
        return "MW[" + type + ", rkey=0x" + Integer.toHexString(rkey) + ", " + state + "]";
    }
}
