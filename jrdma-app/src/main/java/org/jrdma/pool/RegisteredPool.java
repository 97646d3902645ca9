package org.jrdma.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.VerbsException;

/**
 * A pool of registered memory on one protection domain: native memory allocated and registered
 * ({@code ibv_reg_mr}) a slab at a time, cut into buffers of fixed size classes, lent as
 * {@link Lease}s and taken back when a lease is closed (and no work request holds it), so that no
 * message pays for a registration (the cost of {@code regMr}/{@code deregMr} per message is what
 * the pool removes: {@code bench/pool} measures it).
 *
 * <p>Where a lease comes from, in order: the leasing thread's cache of its size class (up to
 * {@link PoolConfig#threadCacheSize()} buffers, no lock), the class's shared free list (its
 * monitor), buffers left in the caches of threads that have ended, and last a new slab, allocated and
 * registered under the pool's lock if the bound {@link PoolConfig#maxRegisteredBytes()} allows it.
 * The first three are {@linkplain PoolMetrics#hits() hits}, a new slab a
 * {@linkplain PoolMetrics#misses() miss}; past the bound the lease fails with ENOMEM. A returned
 * buffer goes to the returning thread's cache, or to the shared list when that cache is full. The
 * pool never deregisters memory before it is closed: its registered bytes only grow, up to the bound.
 *
 * <p>Threads: any thread may lease and return; locks: the pool's (slab creation, {@code regMr} under
 * it), each size class's monitor (its free list, taken alone). Neither is held while calling anything
 * but {@code regMr}. Allocation: a lease allocates its {@link Lease} object (24 bytes, usually
 * scalar-replaced away when it does not escape); a hit allocates nothing else.
 */
public final class RegisteredPool implements AutoCloseable {
    private final ProtectionDomain pd;
    private final PoolConfig config;
    private final SizeClass[] classes;
    private final List<Slab> slabs = new ArrayList<>();                       // guarded by this
    private final CopyOnWriteArrayList<ThreadCache> caches = new CopyOnWriteArrayList<>();
    private final ThreadLocal<ThreadCache> cache;
    private final LongAdder hits = new LongAdder();
    private final LongAdder threadCacheHits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder exhausted = new LongAdder();
    private final LongAdder leasesInUse = new LongAdder();
    private final LongAdder bytesInUse = new LongAdder();
    private volatile long registeredBytes;                                    // written under this
    private volatile boolean closed;

    private RegisteredPool(ProtectionDomain pd, PoolConfig config) {
        this.pd = pd;
        this.config = config;
        int[] sizes = config.sizeClasses();
        this.classes = new SizeClass[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            classes[i] = new SizeClass(i, sizes[i]);
        }
        int cap = config.threadCacheSize();
        this.cache = ThreadLocal.withInitial(() -> {
            ThreadCache c = new ThreadCache(Thread.currentThread(), classes.length, cap);
            caches.add(c);
            return c;
        });
    }

    /** A pool on {@code pd} shaped by {@code config} (copied); nothing is registered before the first lease. */
    public static RegisteredPool create(ProtectionDomain pd, PoolConfig config) {
        return new RegisteredPool(pd, (config == null ? new PoolConfig() : config).copy());
    }

    /** The protection domain of the pool's memory regions. */
    public ProtectionDomain pd() {
        return pd;
    }

    /** The largest lease the pool serves, its largest size class, in bytes. */
    public int maxLease() {
        return classes[classes.length - 1].size;
    }

    /**
     * A buffer of at least {@code bytes} bytes (the smallest size class that fits), its contents
     * undefined (what its last lessee left).
     *
     * @param bytes 1 to {@link #maxLease()}
     * @throws VerbsException EINVAL for a size out of range or a closed pool; ENOMEM when every buffer
     *         of the class is lent and a new slab would pass {@link PoolConfig#maxRegisteredBytes()};
     *         the errno of {@code regMr} when registration fails
     */
    public Lease lease(int bytes) {
        Lease l = tryLease(bytes);
        if (l == null) {
            throw new VerbsException(Errno.ENOMEM, "RegisteredPool.lease: " + bytes + " bytes: every buffer of the "
                    + classFor(bytes).size + "-byte class is lent and registering another slab would pass maxRegisteredBytes "
                    + config.maxRegisteredBytes());
        }
        return l;
    }

    /** As {@link #lease(int)}, but null instead of ENOMEM when the bound is reached. */
    public Lease tryLease(int bytes) {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "RegisteredPool.lease: the pool is closed");
        }
        SizeClass c = classFor(bytes);
        PooledBuffer b = null;
        if (config.threadCacheSize() > 0) {
            b = cache.get().pop(c.index);
            if (b != null) {
                threadCacheHits.increment();
            }
        }
        if (b == null) {
            b = c.poll();
        }
        if (b == null) {
            reclaimEndedThreads();
            b = c.poll();
        }
        if (b != null) {
            hits.increment();
        } else {
            b = grow(c);
            if (b == null) {
                exhausted.increment();
                return null;
            }
            misses.increment();
        }
        leasesInUse.increment();
        bytesInUse.add(c.size);
        return new Lease(this, b, bytes);
    }

    /** The counters now. */
    public PoolMetrics metrics() {
        int n;
        synchronized (this) {
            n = slabs.size();
        }
        return new PoolMetrics(leasesInUse.sum(), bytesInUse.sum(), registeredBytes, n, hits.sum(), threadCacheHits.sum(),
                misses.sum(), exhausted.sum());
    }

    /**
     * Deregisters and frees every slab. Leases still out (or held by work requests) make it fail,
     * as {@code ibv_dealloc_pd} fails while the PD has resources. Idempotent once it succeeded.
     *
     * @throws VerbsException EBUSY while leases are in use (the pool stays usable)
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        long inUse = leasesInUse.sum();
        if (inUse != 0) {
            throw new VerbsException(Errno.EBUSY, "RegisteredPool.close: " + inUse + " leases are still in use");
        }
        closed = true;
        for (ThreadCache c : caches) {
            c.drainTo(classes);
        }
        caches.clear();
        RuntimeException first = null;
        for (Slab s : slabs) {
            try {
                s.close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        slabs.clear();
        registeredBytes = 0;
        if (first != null) {
            throw first;
        }
    }

    /** Called by the last reference of a lease (any thread). */
    void giveBack(PooledBuffer b) {
        leasesInUse.decrement();
        bytesInUse.add(-b.sizeClass.size);
        if (config.threadCacheSize() > 0 && !closed && cache.get().push(b)) {
            return;
        }
        b.sizeClass.push(b);
    }

    private SizeClass classFor(int bytes) {
        if (bytes < 1 || bytes > maxLease()) {
            throw new VerbsException(Errno.EINVAL, "RegisteredPool.lease: bytes " + bytes + " not in [1, " + maxLease() + "]");
        }
        for (SizeClass c : classes) {
            if (c.size >= bytes) {
                return c;
            }
        }
        throw new AssertionError();
    }

    private void reclaimEndedThreads() {
        for (ThreadCache c : caches) {
            if (c.ownerGone() && caches.remove(c)) {
                c.drainTo(classes);
            }
        }
    }

    /** A new slab for {@code c}; returns one of its buffers, the rest go to the free list. Null past the bound. */
    private synchronized PooledBuffer grow(SizeClass c) {
        PooledBuffer b = c.poll();      // another thread may have grown the class meanwhile
        if (b != null) {
            return b;
        }
        long bytes = Math.max(c.size, config.slabBytes() / c.size * c.size);
        if (registeredBytes + bytes > config.maxRegisteredBytes()) {
            bytes = (config.maxRegisteredBytes() - registeredBytes) / c.size * c.size;   // what still fits
            if (bytes < c.size) {
                return null;
            }
        }
        Slab s = new Slab(pd, bytes, Math.min(c.size, 4096), config.access());
        slabs.add(s);
        registeredBytes += bytes;
        PooledBuffer first = null;
        for (long off = 0; off + c.size <= bytes; off += c.size) {
            PooledBuffer pb = new PooledBuffer(c, s, s.segment.asSlice(off, c.size));
            if (first == null) {
                first = pb;
            } else {
                c.push(pb);
            }
        }
        return first;
    }
}
