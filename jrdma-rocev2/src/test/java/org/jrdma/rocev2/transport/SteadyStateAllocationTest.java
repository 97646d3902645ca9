package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.Test;

/**
 * Issue 4: the data path allocates nothing in steady state. Counts the bytes allocated by the posting
 * thread and by both devices' I/O threads over 100,000 mixed operations (RDMA WRITE, SEND/RECV,
 * RDMA READ, FETCH_AND_ADD) after a warm-up, with HotSpot's per-thread allocation counters.
 */
class SteadyStateAllocationTest {
    @Test
    void hundredThousandOperationsAllocateNothing() throws Exception {
        measure(false, false);
    }

    /** Issue 10: the same with the receiving QP on a shared receive queue (the responder takes SRQ WQEs). */
    @Test
    void hundredThousandOperationsOnAnSrqAllocateNothing() throws Exception {
        measure(true, false);
    }

    /**
     * Issue 16: the same with every packet received marked ECN-CE on both devices (the fault shim's
     * {@code ce=1}): both notification points look at every packet and send CNPs (one a second per
     * QP), both reaction points cut and recover their QP's rate and the requesters are paced.
     */
    @Test
    void hundredThousandOperationsUnderDcqcnAllocateNothing() throws Exception {
        measure(false, true);
    }

    private static void measure(boolean onSrq, boolean dcqcn) throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        String a = (onSrq ? "sa" : dcqcn ? "ca" : "aa") + r, b = (onSrq ? "sb" : dcqcn ? "cb" : "ab") + r;
        int host = onSrq ? 3 : dcqcn ? 5 : 1;
        System.setProperty("jrdma.devices", a + "=127.92." + r + "." + host + "," + b + "=127.92." + r + "."
                + (host + 1));
        if (dcqcn) {
            for (String d : new String[] {a, b}) {
                System.setProperty("jrdma.faults." + d, "ce=1");
                System.setProperty("jrdma.cnpMicros." + d, "1000000");
                System.setProperty("jrdma.lineGbps." + d, "10");
            }
        }
        // this test counts allocations; on a loaded machine a thread starved for 8 ACK timeouts (0.54 s)
        // would end the run with RETRY_EXC_ERR under retry_cnt 7's IBTA meaning: retry as rdma_rxe does
        System.setProperty("jrdma.retryCnt7." + a, "unlimited");
        System.setProperty("jrdma.retryCnt7." + b, "unlimited");
        try (Context ca = Verbs.getDevice(a).open(); Context cb = Verbs.getDevice(b).open(); Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(256, null), qb = cb.createCq(256, null);
            QpInitAttr ia = new QpInitAttr().sendCq(qa).recvCq(qa).qpType(QpType.RC);
            ia.cap().maxSendWr(64).maxRecvWr(64);
            SharedReceiveQueue srq = null;
            if (onSrq) {
                SrqInitAttr si = new SrqInitAttr();
                si.attr().maxWr(64).maxSge(1);
                srq = pb.createSrq(si);
            }
            QpInitAttr ib = new QpInitAttr().sendCq(qb).recvCq(qb).qpType(QpType.RC).srq(srq);
            ib.cap().maxSendWr(64).maxRecvWr(64);
            QueuePair qpa = pa.createQp(ia), qpb = pb.createQp(ib);
            FaultToleranceTest.connect(qpa, qpb, cb.queryGid(1, 0), 1, 2);
            FaultToleranceTest.connect(qpb, qpa, ca.queryGid(1, 0), 2, 1);
            int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
            MemorySegment ma = arena.allocate(65536, 4096), mb = arena.allocate(65536, 4096);
            MemoryRegion ra = pa.regMr(ma, all), rb = pb.regMr(mb, all);
            Ops ops = new Ops(qpa, srq != null ? srq::postSrqRecv : qpb::postRecv, qa, qb, ma, mb, ra, rb);
            ops.run(20_000); // warm-up: JIT, lazily created sockets and buffers
            long[] threads = ioThreads(a, b);
            long before = allocated(mx, threads);
            ops.run(100_000);
            long after = allocated(mx, threads);
            long perOp = (after - before) / 100_000;
            System.out.println("allocated over 100,000 operations: " + (after - before) + " bytes");
            if (dcqcn) {
                org.jrdma.rocev2.stats.Counters c = ((org.jrdma.rocev2.RxeContext) ca).counters();
                assertTrue(c.get(org.jrdma.rocev2.stats.Counters.NP_ECN_MARKED_ROCE_PACKETS) > 100_000, c.toString());
                assertTrue(c.get(org.jrdma.rocev2.stats.Counters.NP_CNP_SENT) > 0, c.toString());
                assertTrue(c.get(org.jrdma.rocev2.stats.Counters.RP_CNP_HANDLED) > 0, c.toString());
            }
            assertEquals(0, perOp, "bytes allocated per operation in steady state (total " + (after - before) + ")");
            assertTrue(after - before < 64 * 1024, "at most a few stray allocations: " + (after - before) + " bytes");
        }
    }

    private static long allocated(com.sun.management.ThreadMXBean mx, long[] ioThreads) {
        long sum = mx.getCurrentThreadAllocatedBytes();
        for (long t : ioThreads) {
            sum += mx.getThreadAllocatedBytes(t);
        }
        return sum;
    }

    private static long[] ioThreads(String a, String b) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("jrdma-" + a + "-io") || t.getName().equals("jrdma-" + b + "-io"))
                .mapToLong(Thread::threadId).toArray();
    }

    /** A fixed mix of operations with reused work requests and completions. */
    private static final class Ops {
        final QueuePair qpa;
        /** Posts a receive to the responder's QP or to its SRQ (made once: no allocation per call). */
        final java.util.function.Consumer<RecvWr> postRecv;
        final CompletionQueue qa, qb;
        final WorkCompletion[] wc = new WorkCompletion[16];
        final SendWr write = new SendWr(), send = new SendWr(), read = new SendWr(), fadd = new SendWr();
        final RecvWr recv = new RecvWr();

        Ops(QueuePair qpa, java.util.function.Consumer<RecvWr> postRecv, CompletionQueue qa, CompletionQueue qb, MemorySegment ma, MemorySegment mb,
            MemoryRegion ra, MemoryRegion rb) {
            this.qpa = qpa;
            this.postRecv = postRecv;
            this.qa = qa;
            this.qb = qb;
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            write.opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED).sgList(new Sge(ma.address(), 3000, ra.lkey()))
                    .rdma(mb.address(), rb.rkey());
            send.opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(new Sge(ma.address(), 100, ra.lkey()));
            read.opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address() + 8192, 2000, ra.lkey())).rdma(mb.address() + 8192, rb.rkey());
            fadd.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address() + 16384, 8, ra.lkey())).atomic(mb.address() + 16384, rb.rkey(), 1, 0);
            recv.sgList(new Sge(mb.address() + 32768, 4096, rb.lkey()));
        }

        void run(int n) {
            for (int i = 0; i < n; i++) {
                SendWr w = switch (i & 3) {
                    case 0 -> write;
                    case 1 -> send;
                    case 2 -> read;
                    default -> fadd;
                };
                if (w == send) {
                    postRecv.accept(recv.wrId(i));
                }
                qpa.postSend(w.wrId(i));
                await(qa, WcStatus.SUCCESS);
                if (w == send) {
                    await(qb, WcStatus.SUCCESS);
                }
            }
        }

        private void await(CompletionQueue cq, WcStatus expected) {
            int idle = 0;
            while (cq.poll(wc, 1) == 0) {
                if (++idle > 64) {
                    Thread.yield();
                }
            }
            if (wc[0].status() != expected) {
                throw new AssertionError(wc[0] + "; requester " + ((org.jrdma.rocev2.RxeContext) qpa.pd().context()).counters()
                        + "; responder side's error, QP " + wc[0].qpNum());
            }
        }
    }
}
