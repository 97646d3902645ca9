package org.jrdma.bench.soak;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The soak's own count of the verbs objects it holds (created and not yet closed), the fallback
 * when a provider has no {@link org.jrdma.verbs.ext.ResourceCounts}, and the figure the provider's
 * counts are compared with. Any thread.
 */
final class Live {
    final AtomicInteger pds = new AtomicInteger();
    final AtomicInteger cqs = new AtomicInteger();
    final AtomicInteger qps = new AtomicInteger();
    final AtomicInteger mrs = new AtomicInteger();
    final AtomicInteger ahs = new AtomicInteger();

    @Override
    public String toString() {
        return "pd " + pds.get() + " cq " + cqs.get() + " qp " + qps.get() + " mr " + mrs.get() + " ah " + ahs.get();
    }
}
