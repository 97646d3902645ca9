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
    private final AtomicInteger nextQpn = new AtomicInteger(FIRST_QPN);
    final AtomicInteger pdCount = new AtomicInteger();
    final AtomicInteger cqCount = new AtomicInteger();

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

    /** A fresh random key, not 0 and not in use. */
    synchronized int newKey() {
        int k;
        do {
            k = random.nextInt();
        } while (k == 0 || mrs.containsKey(k));
        return k;
    }

    /** The next free 24-bit QPN (≥ 17). */
    int newQpn() {
        for (;;) {
            int q = nextQpn.getAndIncrement() & 0xFFFFFF;
            if (q >= FIRST_QPN && !qps.containsKey(q)) {
                return q;
            }
            if (q < FIRST_QPN) {
                nextQpn.compareAndSet(q + 1, FIRST_QPN);
            }
        }
    }

    /** A random 24-bit PSN (for tools that want one). */
    public synchronized int randomPsn() {
        return random.nextInt() & 0xFFFFFF;
    }
}
