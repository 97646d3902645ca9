package org.jrdma.soft;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.verbs.ext.ResourceCounts;

/**
 * The resource tables of one software device, shared by all contexts opened on it: memory regions
 * by key and queue pairs by QPN. Lookups are lock-free and allocation-free (the data path);
 * additions and removals are control-path. It counts the device's live objects
 * ({@link ResourceCounts}, any thread).
 */
public final class SoftResources implements ResourceCounts {
    /** Memory regions by lkey (= rkey). */
    public final KeyTable<SoftMr> mrs = new KeyTable<>();
    /** Memory windows by index (the upper 24 bits of their rkeys, never those of a region's key). */
    public final KeyTable<SoftMw> mws = new KeyTable<>();
    /** Queue pairs by QPN. */
    public final KeyTable<SoftQp> qps = new KeyTable<>();
    private final SecureRandom random = new SecureRandom();
    /** The first QPN handed out; 0 and 1 are the special QPs (SMI, GSI), rxe starts at 17. */
    public static final int FIRST_QPN = 17;
    private final int firstQpn;
    private final int lastQpn;
    private final AtomicInteger nextQpn;
    final AtomicInteger pdCount = new AtomicInteger();
    final AtomicInteger cqCount = new AtomicInteger();
    final AtomicInteger srqCount = new AtomicInteger();
    /** The event queues of the contexts open on the device (device and port events go to each). */
    private final java.util.concurrent.CopyOnWriteArrayList<AsyncEventQueue> eventQueues =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    void contextOpened(AsyncEventQueue q) {
        eventQueues.add(q);
    }

    void contextClosed(AsyncEventQueue q) {
        eventQueues.remove(q);
    }

    /**
     * Raises a device event ({@code portNum} 0, e.g. DEVICE_FATAL) or a port event to every context
     * open on the device ({@code ibv_get_async_event(3)}). Any thread; never waits.
     */
    public void raiseDeviceEvent(org.jrdma.verbs.AsyncEventType type, int portNum) {
        for (AsyncEventQueue q : eventQueues) {
            q.raisePort(type, portNum);
        }
    }

    @Override
    public int pds() {
        return pdCount.get();
    }

    @Override
    public int cqs() {
        return cqCount.get();
    }

    @Override
    public int qps() {
        return qps.size();
    }

    @Override
    public int mrs() {
        return mrs.size();
    }

    /** Tables handing out QPNs 17..2^24-1. */
    public SoftResources() {
        this(FIRST_QPN, 0xFFFFFF);
    }

    /**
     * Tables handing out QPNs {@code firstQpn..lastQpn} only (a device shared by several processes
     * gives each its own range, so QPNs stay unique on the device).
     *
     * @throws IllegalArgumentException unless {@code 17 <= firstQpn <= lastQpn <= 2^24-1}
     */
    public SoftResources(int firstQpn, int lastQpn) {
        if (firstQpn < FIRST_QPN || firstQpn > lastQpn || lastQpn > 0xFFFFFF) {
            throw new IllegalArgumentException("QPN range " + firstQpn + ".." + lastQpn + " is not within 17..16777215");
        }
        this.firstQpn = firstQpn;
        this.lastQpn = lastQpn;
        this.nextQpn = new AtomicInteger(firstQpn);
    }

    /** A fresh random region key, not 0, not in use, and not in a memory window's index range. */
    synchronized int newKey() {
        int k;
        do {
            k = random.nextInt();
        } while (k == 0 || mrs.containsKey(k) || mws.containsKey(k >>> 8));
        return k;
    }

    /**
     * A fresh random memory window rkey: its index (upper 24 bits) is not 0, no window's and no region
     * key's upper 24 bits; its key byte is random (rxe: {@code index << 8 | rxe_get_next_key}).
     */
    synchronized int newMwRkey() {
        for (;;) {
            int k = random.nextInt();
            int index = k >>> 8;
            if (index != 0 && !mws.containsKey(index) && !anyRegionKeyWithIndex(index)) {
                return k;
            }
        }
    }

    /**
     * Adds a region under its key unless the key is taken or lies in a window's index range: one step
     * with {@link #addMw}, so a region and a window allocated at once never share an rkey's upper bits.
     */
    synchronized boolean addMr(SoftMr mr) {
        return !mws.containsKey(mr.lkey() >>> 8) && mrs.putIfAbsent(mr.lkey(), mr);
    }

    /** Adds a window under its index unless it is taken or a region's key has those upper bits (see {@link #addMr}). */
    synchronized boolean addMw(SoftMw mw) {
        return !anyRegionKeyWithIndex(mw.index()) && mws.putIfAbsent(mw.index(), mw);
    }

    private boolean anyRegionKeyWithIndex(int index) {
        for (int b = 0; b < 256; b++) {
            if (mrs.containsKey(index << 8 | b)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The memory an rkey arriving on {@code qp} grants with {@code access}: a region of the QP's PD, or
     * a window bound in the QP's PD (type 2: bound through this QP, IBTA type 2B), with the access and
     * its memory there; null otherwise (the responder NAKs remote access error). Lock-free,
     * allocation-free, any thread.
     */
    public RemoteRange remote(SoftQp qp, int rkey, int access) {
        SoftMw mw = mws.get(rkey >>> 8);
        if (mw != null) {
            return mw.lookup(qp, rkey, access);
        }
        SoftMr mr = mrs.get(rkey);
        if (mr == null || mr.softPd() != qp.softPd() || !mr.allows(access)) {
            return null;
        }
        SoftMr.Translation t = mr.translation();
        return t.isAccessible() ? t : null;
    }

    /**
     * Invalidates {@code rkey} for {@code qp}: a LOCAL_INV ({@code remote} false) or a SEND_WITH_INV's
     * IETH ({@code remote} true). Only a bound type 2 window can be invalidated (rxe
     * {@code rxe_invalidate_mw}; a type 1 window: o10-37.2.26); a region's key cannot (jrdma has no
     * fast-register regions, and rxe's {@code rxe_invalidate_mr} refuses user regions). The window must
     * be of the QP's PD and, remotely, bound through this QP (IBTA type 2B; rxe checks neither).
     *
     * @return false when the key cannot be invalidated (LOCAL_INV completes with LOC_QP_OP_ERR, a
     *     SEND_WITH_INV's receive with REM_INV_REQ_ERR)
     */
    public boolean invalidate(SoftQp qp, int rkey, boolean remote) {
        SoftMw mw = mws.get(rkey >>> 8);
        return mw != null && mw.invalidate(qp, rkey, remote);
    }

    /** The next free QPN of the range (wrapping around from its last to its first). */
    int newQpn() {
        for (;;) {
            int q = nextQpn.getAndIncrement();
            if (q >= firstQpn && q <= lastQpn && !qps.containsKey(q)) {
                return q;
            }
            if (q < firstQpn || q > lastQpn) {
                nextQpn.compareAndSet(q + 1, firstQpn);
            }
        }
    }

    /** A random 24-bit PSN (for tools that want one). */
    public synchronized int randomPsn() {
        return random.nextInt() & 0xFFFFFF;
    }
}
