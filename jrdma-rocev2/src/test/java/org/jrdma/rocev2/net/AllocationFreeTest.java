package org.jrdma.rocev2.net;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data path allocates nothing: the bytes this thread allocates around N send+receive pairs do
 * not grow with N (measured with com.sun.management.ThreadMXBean#getThreadAllocatedBytes, reached
 * by reflection because the test sources compile inside module org.jrdma.rocev2, which does not
 * read jdk.management; the reflective call costs the same constant in every measurement).
 */
class AllocationFreeTest {
    private static final Object MX;
    private static final Method ALLOCATED;

    static {
        try {
            MX = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean")
                    .getMethod("getThreadAllocatedBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static long threadAllocatedBytes(long tid) {
        try {
            return (Long) ALLOCATED.invoke(MX, tid);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    interface Loop {
        void run(int iterations);
    }

    private static long allocatedDuring(Loop loop, int iterations) {
        long tid = Thread.currentThread().threadId();
        long before = threadAllocatedBytes(tid);
        loop.run(iterations);
        return threadAllocatedBytes(tid) - before;
    }

    /** Warms up, then asserts that 100,000 iterations allocate no more than 10,000 do (plus slack of 1 KiB). */
    static void assertAllocationFree(Loop loop) {
        loop.run(30_000);
        loop.run(30_000);
        long small = allocatedDuring(loop, 10_000);
        long large = allocatedDuring(loop, 100_000);
        assertTrue(large <= small + 1024,
                "allocated " + small + " bytes in 10,000 iterations but " + large + " in 100,000");
    }

    @Test
    void sendToAndReceiveAllocateNothing() {
        assertTrue(threadAllocatedBytes(Thread.currentThread().threadId()) > 0);
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(UdpSocketTest.LO1, 0, null);
             UdpSocket s2 = UdpSocket.open(UdpSocketTest.LO2, 0, null)) {
            MemorySegment tx = a.allocate(256);
            MemorySegment rx = a.allocate(2048);
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000002, s2.localPort());
            SockAddr from = new SockAddr(a);
            assertAllocationFree(n -> {
                for (int i = 0; i < n; i++) {
                    if (s1.sendTo(tx, 0, 64, dst) != 64) {
                        throw new AssertionError("send");
                    }
                    int r;
                    while ((r = s2.receive(rx, 0, 2048, from)) == 0) {
                        s2.awaitReadable(1_000_000L);
                    }
                    if (r != 64) {
                        throw new AssertionError("receive " + r);
                    }
                }
            });
            assertEquals(s1.localPort(), from.port());
        }
    }
}
