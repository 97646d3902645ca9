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

    /** A fresh random key, not 0 and not in use. */
    synchronized int newKey() {
        int k;
        do {
            k = random.nextInt();
        } while (k == 0 || mrs.containsKey(k));
        return k;
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
