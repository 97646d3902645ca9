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

    /**
     * Warms up until the JIT has compiled the loop (a 10,000-iteration run allocates at most 1 KiB,
     * or 40 rounds passed: on 2 shared cores C2 may take a while), then asserts that 100,000
     * iterations allocate no more than 10,000 do, plus a slack of 1 KiB.
     */
    static void assertAllocationFree(Loop loop) {
        loop.run(20_000);
        for (int round = 0; round < 40 && allocatedDuring(loop, 10_000) > 1024; round++) {
            Thread.onSpinWait();
        }
        // steady state means after the JIT: on a loaded machine C2 may still be compiling during the
        // first measurement (the interpreter's and C1's downcalls allocate), so measure up to 5 times
        long small = 0;
        long large = 0;
        for (int attempt = 0; attempt < 5; attempt++) {
            small = allocatedDuring(loop, 10_000);
            large = allocatedDuring(loop, 100_000);
            if (large <= small + 1024) {
                return;
            }
        }
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

    @Test
    void batchSendAndReceiveAllocateNothing() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(UdpSocketTest.LO1, 0, null);
             UdpSocket s2 = UdpSocket.open(UdpSocketTest.LO2, 0, null)) {
            MemorySegment tx = a.allocate(8 * 256);
            MemorySegment rx = a.allocate(8 * 2048);
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000002, s2.localPort());
            UdpBatch out = new UdpBatch(8);
            UdpBatch in = new UdpBatch(8);
            for (int i = 0; i < 8; i++) {
                out.setSend(i, tx, i * 256L, 200, dst);
                in.setReceive(i, rx, i * 2048L, 2048);
            }
            assertAllocationFree(n -> {
                for (int i = 0; i < n / 8; i++) {
                    if (s1.sendBatch(out, 0, 8) != 8) {
                        throw new AssertionError("sendBatch");
                    }
                    int got = 0;
                    while (got < 8) {
                        int r = s2.receiveBatch(in, 8 - got);
                        if (r < 0) {
                            throw new AssertionError("receiveBatch " + r);
                        }
                        got += r;
                    }
                }
            });
        }
    }

    @Test
    void gsoSendAndGroReceiveAllocateNothing() {
        try (Arena a = Arena.ofConfined();
             UdpSocket s1 = UdpSocket.open(UdpSocketTest.LO1, 0, null);
             UdpSocket s2 = UdpSocket.open(UdpSocketTest.LO2, 0, new UdpSocket.Options().gro(true))) {
            org.junit.jupiter.api.Assumptions.assumeTrue(s1.supportsGso());
            MemorySegment tx = a.allocate(16 * 1024);
            MemorySegment rx = a.allocate(65_536);
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000002, s2.localPort());
            SockAddr from = new SockAddr(a);
            assertAllocationFree(n -> {
                for (int i = 0; i < n / 4; i++) {
                    if (s1.sendGso(tx, 0, 16 * 1024, 1024, dst) != 16 * 1024) {
                        throw new AssertionError("sendGso");
                    }
                    int got = 0;
                    while (got < 16 * 1024) {
                        int r = s2.receive(rx, 0, 65_536, from);
                        if (r < 0) {
                            throw new AssertionError("receive " + r);
                        }
                        got += r;
                    }
                }
            });
        }
    }

    @Test
    void rawSendAndReceiveAllocateNothing() {
        org.junit.jupiter.api.Assumptions.assumeTrue(RawIpv4Socket.permitted(), "needs CAP_NET_RAW");
        int port = RawIpv4SocketTest.freePort();
        try (Arena a = Arena.ofConfined();
             RawIpv4Socket raw = RawIpv4Socket.open((java.net.Inet4Address) UdpSocketTest.LO2, port);
             UdpSocket sink = UdpSocket.open(UdpSocketTest.LO2, port, null)) {
            sink.discardAll();
            MemorySegment pkt = a.allocate(128);
            MemorySegment rx = a.allocate(2048);
            SockAddr dst = new SockAddr(a).setIpv4(0x7f000002, 0);
            UdpHeader.write(pkt, 20, 0xc000, port, 8 + 64, 0);
            assertAllocationFree(n -> {
                for (int i = 0; i < n; i++) {
                    Ipv4Header.write(pkt, 0, 0, 92, 1 + (i & 0x7fff), true, 64, 17, 0x7f000001, 0x7f000002);
                    if (raw.send(pkt, 0, 92, dst) != 92) {
                        throw new AssertionError("raw send");
                    }
                    int r;
                    while ((r = raw.receive(rx, 0, 2048, null)) == 0) {
                        raw.awaitReadable(1_000_000L);
                    }
                    if (r != 92) {
                        throw new AssertionError("raw receive " + r);
                    }
                }
            });
        }
    }

    @Test
    void awaitReadableAndWakeupAllocateNothing() {
        try (UdpSocket s = UdpSocket.open(UdpSocketTest.LO1, 0, null)) {
            assertAllocationFree(n -> {
                for (int i = 0; i < n; i++) {
                    s.wakeup();
                    if (s.awaitReadable(1_000_000_000L)) {
                        throw new AssertionError("nothing was sent");
                    }
                }
            });
        }
    }
}
