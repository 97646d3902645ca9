package org.jrdma.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * jsiw's data path allocates nothing in steady state, as the RoCE provider's
 * ({@code AllocationFreeTest}): SEND (into a posted receive), RDMA WRITE and RDMA READ between two
 * devices of this JVM over loopback TCP, posted and polled with reused WRs and completions. The
 * bytes the application thread allocates around N operations do not grow with N (ThreadMXBean's
 * per-thread allocation counter, by reflection since the test module does not read
 * jdk.management), and both devices' I/O threads (socket reads, FPDU placement, Read Responses,
 * resumed writes) allocate less than one byte per operation on average.
 */
class SiwAllocationFreeTest {
    private static final Object MX;
    private static final Method ALLOCATED;

    static {
        try {
            MX = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean").getMethod("getThreadAllocatedBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static long allocated(long tid) {
        try {
            return (Long) ALLOCATED.invoke(MX, tid);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static long[] ioThreads(String... devices) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> java.util.Arrays.stream(devices).anyMatch(d -> t.getName().equals("jrdma-" + d + "-io")))
                .mapToLong(Thread::threadId).toArray();
    }

    private static long sum(long[] tids) {
        long s = 0;
        for (long t : tids) {
            s += allocated(t);
        }
        return s;
    }

    /** Two connected RC QPs with a region each. */
    private static final class Pair {
        static final int FLAGS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
        final QueuePair qa;
        final QueuePair qb;
        final CompletionQueue cqa;
        final CompletionQueue cqb;
        final MemoryRegion ra;
        final MemoryRegion rb;
        final RecvWr recv = new RecvWr();
        final SendWr send = new SendWr();
        final SendWr write = new SendWr();
        final SendWr read = new SendWr();
        final WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        long operations;

        Pair(Context ca, Context cb, Arena arena) {
            ProtectionDomain pa = ca.allocPd();
            ProtectionDomain pb = cb.allocPd();
            cqa = ca.createCq(64, null);
            cqb = cb.createCq(64, null);
            qa = pa.createQp(attr(cqa));
            qb = pb.createQp(attr(cqb));
            for (QueuePair q : new QueuePair[] {qa, qb}) {
                q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(FLAGS),
                        QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
            }
            SiwDirectConnect.connect(qb, qa, 16);
            MemorySegment ma = arena.allocate(65536, 4096);
            MemorySegment mb = arena.allocate(65536, 4096);
            ra = pa.regMr(ma, FLAGS);
            rb = pb.regMr(mb, FLAGS);
            recv.sgList(new Sge(rb.addr() + 32768, 4096, rb.lkey()));
            send.opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(new Sge(ra.addr(), 256, ra.lkey()));
            write.opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED).sgList(new Sge(ra.addr(), 256, ra.lkey()))
                    .rdma(rb.addr(), rb.rkey());
            read.opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED).sgList(new Sge(ra.addr() + 8192, 256, ra.lkey()))
                    .rdma(rb.addr() + 1024, rb.rkey());
        }

        static QpInitAttr attr(CompletionQueue cq) {
            QpInitAttr a = new QpInitAttr().sendCq(cq).recvCq(cq);
            a.cap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1);
            return a;
        }

        void run(int n) {
            for (int i = 0; i < n; i += 3) {
                qb.postRecv(recv.wrId(i));
                qa.postSend(send.wrId(i));
                qa.postSend(write.wrId(i + 1));
                qa.postSend(read.wrId(i + 2));
                drain(cqa, 3);
                drain(cqb, 1);
                operations += 3;
            }
        }

        private void drain(CompletionQueue cq, int n) {
            int got = 0;
            int idle = 0;
            while (got < n) {
                int k = cq.poll(wc);
                if (k == 0) {
                    if (++idle > 64) {
                        Thread.yield();
                    }
                    continue;
                }
                for (int j = 0; j < k; j++) {
                    if (wc[j].status() != WcStatus.SUCCESS) {
                        throw new AssertionError("completion " + wc[j].wrId() + ": " + wc[j].status());
                    }
                }
                got += k;
            }
        }
    }

    private static long during(Pair p, int n) {
        long tid = Thread.currentThread().threadId();
        long before = allocated(tid);
        p.run(n);
        return allocated(tid) - before;
    }

    @Test
    void sendWriteReadAllocateNothingInSteadyState() {
        int r = java.util.concurrent.ThreadLocalRandom.current().nextInt(1, 250);
        String a = "jsiwxa" + r;
        String b = "jsiwxb" + r;
        System.setProperty("jrdma.devices", a + "=127.94." + r + ".1," + b + "=127.94." + r + ".2");
        try (Context ca = Verbs.getDevice(a).open(); Context cb = Verbs.getDevice(b).open(); Arena arena = Arena.ofShared()) {
            Pair p = new Pair(ca, cb, arena);
            p.run(30_000);
            for (int round = 0; round < 40 && during(p, 9_000) > 1024; round++) {
                Thread.onSpinWait();
            }
            long[] io = ioThreads(a, b);
            assertEquals(2, io.length, "the two devices' I/O threads");
            long ioBefore = sum(io);
            long opsBefore = p.operations;
            long small = 0;
            long large = 0;
            for (int attempt = 0; attempt < 5; attempt++) {
                small = during(p, 9_000);
                large = during(p, 90_000);
                if (large <= small + 1024) {
                    break;
                }
            }
            long ioBytes = sum(io) - ioBefore;
            long ops = p.operations - opsBefore;
            System.out.println("jsiw: application thread " + small + " B / 9,000 and " + large + " B / 90,000 operations;"
                    + " I/O threads " + ioBytes + " B over " + ops + " operations");
            assertTrue(large <= small + 1024, "the application thread allocated " + small + " bytes in 9,000 operations but "
                    + large + " in 90,000");
            assertEquals(0, ioBytes / ops, "bytes per operation in the I/O threads (" + ioBytes + " over " + ops + ")");
        }
    }
}
