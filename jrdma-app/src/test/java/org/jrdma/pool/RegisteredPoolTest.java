package org.jrdma.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.ResourceCounts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The pool on a soft RoCE device's PD: size classes, hits and misses, the bound, leases after close. */
class RegisteredPoolTest {
    private static Context ctx;
    private static ProtectionDomain pd;

    @BeforeAll
    static void open() {
        TestDevices.configure();
        ctx = Verbs.getDevice("jrxe0").open();
        pd = ctx.allocPd();
    }

    @AfterAll
    static void close() {
        pd.close();
        ctx.close();
    }

    private static long mrs() {
        return ctx.extension(ResourceCounts.class).orElseThrow().mrs();
    }

    @Test
    void aLeaseGetsTheSmallestClassThatFitsAndOneSlabServesManyLeases() {
        long mrsBefore = mrs();
        RegisteredPool pool = RegisteredPool.create(pd, new PoolConfig().sizeClasses(64, 4096).slabBytes(64 * 1024));
        java.util.List<Lease> out = new java.util.ArrayList<>();
        Lease a = pool.lease(1);
        Lease b = pool.lease(65);
        out.add(a);
        out.add(b);
        assertEquals(64, a.capacity());
        assertEquals(1, a.length());
        assertEquals(4096, b.capacity());
        assertEquals(2, pool.metrics().misses(), "one slab per class");
        assertEquals(mrsBefore + 2, mrs(), "a memory region per slab");
        Set<Long> addresses = new HashSet<>();
        addresses.add(b.address());
        for (int i = 1; i < 16; i++) {                           // the rest of the 64 KiB slab of 4 KiB buffers
            Lease l = pool.lease(4096);
            out.add(l);
            assertTrue(addresses.add(l.address()), "no buffer lent twice at once");
            assertEquals(b.lkey(), l.lkey());
        }
        PoolMetrics m = pool.metrics();
        assertEquals(15, m.hits());
        assertEquals(2, m.misses());
        assertEquals(17, m.leasesInUse());
        assertEquals(64 + 16 * 4096, m.bytesInUse());
        assertEquals(2 * 64 * 1024, m.registeredBytes());
        out.add(pool.lease(4096));                                    // a 17th: a second slab
        assertEquals(3, pool.metrics().misses());
        assertEquals(mrsBefore + 3, mrs());
        assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, pool::close, "leases are out").errno());
        out.forEach(Lease::close);
        pool.close();
        assertEquals(mrsBefore, mrs(), "close deregisters every slab");
        assertEquals(0, pool.metrics().registeredBytes());
    }

    @Test
    void aClosedLeaseReturnsItsBufferAndTheNextLeaseOfThatThreadIsAHitOnTheSameBuffer() {
        try (RegisteredPool pool = RegisteredPool.create(pd, new PoolConfig())) {
            Lease a = pool.lease(100);
            long addr = a.address();
            a.close();
            assertEquals(0, pool.metrics().leasesInUse());
            Lease b = pool.lease(200);
            assertEquals(addr, b.address(), "the thread cache gives the buffer back");
            assertEquals(1, pool.metrics().threadCacheHits());
            assertEquals(1, pool.metrics().misses());
            b.close();
            long mrsBefore = mrs();
            for (int i = 0; i < 1000; i++) {
                pool.lease(256).close();
            }
            assertEquals(mrsBefore, mrs(), "no registration per lease");
            assertEquals(1, pool.metrics().misses());
            assertEquals(1001, pool.metrics().hits());
        }
    }

    @Test
    void pastTheBoundALeaseFailsWithEnomemAndTryLeaseGivesNull() {
        try (RegisteredPool pool = RegisteredPool.create(pd, new PoolConfig().sizeClasses(4096).slabBytes(8192).maxRegisteredBytes(16384))) {
            Lease[] l = new Lease[4];
            for (int i = 0; i < 4; i++) {
                l[i] = pool.lease(4096);
            }
            VerbsException e = assertThrows(VerbsException.class, () -> pool.lease(4096));
            assertEquals(Errno.ENOMEM, e.errno());
            assertNull(pool.tryLease(1));
            assertEquals(2, pool.metrics().exhausted());
            assertEquals(16384, pool.metrics().registeredBytes());
            l[2].close();
            pool.lease(10).close();                                        // room again, without a new slab
            assertEquals(2, pool.metrics().misses());
            for (Lease x : l) {
                x.close();
            }
        }
    }

    @Test
    void aLeaseUsedAfterCloseThrowsAndItsSegmentViewIsClosedWithIt() {
        try (RegisteredPool pool = RegisteredPool.create(pd, new PoolConfig().threadCacheSize(0))) {
            Lease a = pool.lease(64);
            MemorySegment view = a.segment();
            view.set(ValueLayout.JAVA_LONG, 0, 42);
            assertEquals(42, a.getLong(0));
            a.close();
            a.close();                                                     // idempotent
            Lease b = pool.lease(64);                                      // the same buffer, now someone else's
            b.putLong(0, 7);
            assertThrows(IllegalStateException.class, () -> view.set(ValueLayout.JAVA_LONG, 0, 99));
            assertThrows(IllegalStateException.class, () -> a.putLong(0, 99));
            assertThrows(IllegalStateException.class, () -> a.putBytes(0, new byte[8]));
            assertThrows(IllegalStateException.class, a::address);
            assertThrows(IllegalStateException.class, a::lkey);
            assertThrows(IllegalStateException.class, a::pin);
            assertThrows(IllegalStateException.class, a::segment);
            assertEquals(7, b.getLong(0), "the new lessee's memory is untouched");
            assertThrows(IndexOutOfBoundsException.class, () -> b.putLong(60, 1), "past the buffer");
            b.close();
        }
    }

    @Test
    void aPinnedLeaseKeepsItsBufferUntilUnpinnedEvenAfterClose() {
        try (RegisteredPool pool = RegisteredPool.create(pd, new PoolConfig().sizeClasses(64).slabBytes(4096).maxRegisteredBytes(4096)
                .threadCacheSize(0))) {
            Lease a = pool.lease(64);
            long addr = a.address();
            a.pin();                                                       // as a posted work request does
            a.close();
            assertEquals(1, pool.metrics().leasesInUse());
            Set<Long> others = new HashSet<>();
            Lease[] rest = new Lease[63];
            for (int i = 0; i < 63; i++) {
                rest[i] = pool.lease(64);
                others.add(rest[i].address());
            }
            assertTrue(!others.contains(addr), "the pinned buffer is not lent again");
            assertNull(pool.tryLease(64), "all 64 buffers are taken");
            a.unpin();
            Lease again = pool.lease(64);
            assertEquals(addr, again.address());
            again.close();
            for (Lease l : rest) {
                l.close();
            }
            assertThrows(IllegalStateException.class, a::unpin, "an unpin without a pin");
        }
    }

    @Test
    void buffersCachedByAThreadThatEndedGoBackToTheOthers() throws InterruptedException {
        try (RegisteredPool pool = RegisteredPool.create(pd, new PoolConfig().sizeClasses(64).slabBytes(4096).maxRegisteredBytes(4096))) {
            Thread t = new Thread(() -> {
                Lease[] l = new Lease[32];
                for (int i = 0; i < 32; i++) {
                    l[i] = pool.lease(64);
                }
                for (Lease x : l) {
                    x.close();                                             // into this thread's cache (32)
                }
            });
            t.start();
            t.join();
            Lease[] all = new Lease[64];
            for (int i = 0; i < 64; i++) {
                all[i] = pool.lease(64);                                   // 32 from the free list, 32 reclaimed
            }
            assertEquals(1, pool.metrics().misses());
            for (Lease x : all) {
                x.close();
            }
        }
    }

    @Test
    void badSizesAreEinval() {
        try (RegisteredPool pool = RegisteredPool.create(pd, new PoolConfig().sizeClasses(64, 128))) {
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> pool.lease(0)).errno());
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> pool.lease(129)).errno());
        }
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> new PoolConfig().sizeClasses(100)).errno());
        RegisteredPool p = RegisteredPool.create(pd, null);
        p.close();
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> p.lease(1)).errno());
        assertNotEquals(0, p.maxLease());
    }
}
