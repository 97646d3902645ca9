package org.jrdma.pool;

/**
 * A snapshot of a {@link RegisteredPool}'s counters ({@link RegisteredPool#metrics()}).
 *
 * @param leasesInUse leases handed out and not yet returned (closed with no work request still using them)
 * @param bytesInUse the capacity (size-class bytes) of those leases
 * @param registeredBytes bytes registered now, over all slabs (at most the configured bound)
 * @param slabs memory regions the pool holds
 * @param hits leases served from registered memory (a thread cache or the shared free list)
 * @param threadCacheHits of the hits, those served from the leasing thread's own cache
 * @param misses leases that had to allocate and register a new slab
 * @param exhausted leases refused because a new slab would pass the bound (ENOMEM)
 */
public record PoolMetrics(long leasesInUse, long bytesInUse, long registeredBytes, int slabs, long hits, long threadCacheHits,
                          long misses, long exhausted) {
}
