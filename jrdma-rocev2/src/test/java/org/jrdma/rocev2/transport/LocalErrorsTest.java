package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Local errors of issue 9 on the RoCE v2 transport: memory freed under a live MR (its Arena
 * closed) completes the WR with LOC_PROT_ERR instead of an IllegalStateException or a silent drop;
 * a CQ overrun puts the QP that completes to the CQ into ERR (IBTA Vol 1 chapter 11); a message
 * above 2^31 bytes is EINVAL at post time and the QP stays usable.
 */
class LocalErrorsTest {
    static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.REMOTE_ATOMIC;
    static Context ca, cb;

    @BeforeAll
    static void open() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        System.setProperty("jrdma.devices", "le" + r + "=127.94." + r + ".1,lf" + r + "=127.94." + r + ".2");
        ca = Verbs.getDevice("le" + r).open();
        cb = Verbs.getDevice("lf" + r).open();
    }

    @AfterAll
    static void close() {
        ca.close();
        cb.close();
    }

    static QueuePair[] connect(ProtectionDomain pa, ProtectionDomain pb, CompletionQueue cqa, CompletionQueue cqb) {
        QpInitAttr ia = new QpInitAttr().sendCq(cqa).recvCq(cqa).qpType(QpType.RC);
        ia.cap().maxSendWr(16).maxRecvWr(16).maxSendSge(2).maxRecvSge(2);
        QueuePair a = pa.createQp(ia);
        QpInitAttr ib = new QpInitAttr().sendCq(cqb).recvCq(cqb).qpType(QpType.RC);
        ib.cap().maxSendWr(16).maxRecvWr(16).maxSendSge(2).maxRecvSge(2);
        QueuePair b = pb.createQp(ib);
        RcLoopbackTest.up(a, b, cb.queryGid(1, 0), Mtu.MTU_1024, 100, 200);
        RcLoopbackTest.up(b, a, ca.queryGid(1, 0), Mtu.MTU_1024, 200, 100);
        return new QueuePair[] {a, b};
    }

    /** Closes a shared arena, also while the I/O thread happens to be copying from it. */
    static void free(Arena arena) {
        for (;;) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException inUse) {
                Thread.onSpinWait();
            }
        }
    }

    static void awaitState(QueuePair q, QpState s) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (q.state() != s) {
            assertTrue(System.nanoTime() < deadline, "QP still " + q.state() + ", expected " + s);
            Thread.onSpinWait();
        }
    }

    @Test
    void aWriteFromFreedMemoryCompletesWithLocProtErr() {
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(64, null), qb = cb.createCq(64, null);
            QueuePair[] qp = connect(pa, pb, qa, qb);
            MemorySegment mb = arena.allocate(4096, 4096);
            MemoryRegion rb = pb.regMr(mb, ALL);
            Arena doomed = Arena.ofShared();
            MemorySegment ma = doomed.allocate(4096, 4096);
            MemoryRegion ra = pa.regMr(ma, ALL);
            free(doomed); // the MR is still registered
            qp[0].postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 4096, ra.lkey())).rdma(mb.address(), rb.rkey()));
            WorkCompletion wc = RcLoopbackTest.pollOne(qa);
            assertEquals(1, wc.wrId());
            assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), wc.toString());
            assertEquals(QpState.ERR, qp[0].state());
        }
    }

    @Test
    void memoryFreedWhileALongWriteIsOnTheWireCompletesWithLocProtErr() {
        int size = 16 << 20; // 16384 packets at MTU 1024: the window of 128 PSNs leaves most to the I/O thread
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(64, null), qb = cb.createCq(64, null);
            QueuePair[] qp = connect(pa, pb, qa, qb);
            MemorySegment mb = arena.allocate(size, 4096);
            MemoryRegion rb = pb.regMr(mb, ALL);
            Arena doomed = Arena.ofShared();
            MemorySegment ma = doomed.allocate(size, 4096);
            MemoryRegion ra = pa.regMr(ma, ALL);
            qp[0].postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), size, ra.lkey())).rdma(mb.address(), rb.rkey()));
            free(doomed); // while the message is being sent
            WorkCompletion wc = RcLoopbackTest.pollOne(qa);
            assertEquals(2, wc.wrId());
            assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), wc.toString());
        }
    }

    @Test
    void aSendIntoAFreedReceiveBufferCompletesTheReceiveWithLocProtErr() {
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(64, null), qb = cb.createCq(64, null);
            QueuePair[] qp = connect(pa, pb, qa, qb);
            MemorySegment ma = arena.allocate(4096, 4096);
            MemoryRegion ra = pa.regMr(ma, ALL);
            Arena doomed = Arena.ofShared();
            MemorySegment mb = doomed.allocate(4096, 4096);
            MemoryRegion rb = pb.regMr(mb, ALL);
            qp[1].postRecv(new RecvWr().wrId(3).sgList(new Sge(mb.address(), 4096, rb.lkey())));
            free(doomed);
            qp[0].postSend(new SendWr().wrId(4).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 2048, ra.lkey())));
            WorkCompletion r = RcLoopbackTest.pollOne(qb);
            assertEquals(3, r.wrId());
            assertEquals(WcStatus.LOC_PROT_ERR, r.status(), r.toString());
            WorkCompletion s = RcLoopbackTest.pollOne(qa);
            assertEquals(4, s.wrId());
            assertEquals(WcStatus.REM_OP_ERR, s.status(), "the responder NAKs (remote operational error): " + s);
        }
    }

    @Test
    void aCqOverrunMovesTheQpThatCompletesToItToErr() {
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(64, null), qb = cb.createCq(1, null);
            QueuePair[] qp = connect(pa, pb, qa, qb);
            MemorySegment ma = arena.allocate(4096, 4096), mb = arena.allocate(4096, 4096);
            MemoryRegion ra = pa.regMr(ma, ALL), rb = pb.regMr(mb, ALL);
            for (int i = 0; i < 2; i++) {
                qp[1].postRecv(new RecvWr().wrId(10 + i).sgList(new Sge(mb.address(), 64, rb.lkey())));
            }
            for (int i = 0; i < 2; i++) {
                qp[0].postSend(new SendWr().wrId(20 + i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sgList(new Sge(ma.address(), 64, ra.lkey())));
            }
            awaitState(qp[1], QpState.ERR);
            assertEquals(1, qb.overruns(), "the second receive completion did not fit");
            WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
            assertEquals(1, qb.poll(wc), "the CQ still returns what it holds");
            assertEquals(10, wc[0].wrId());
            assertEquals(Errno.EIO, assertThrows(VerbsException.class, () -> qb.poll(wc)).errno());
        }
    }

    @Test
    void aMessageAbove2To31IsEinvalAtPostAndTheQpStaysUsable() {
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(64, null), qb = cb.createCq(64, null);
            QueuePair[] qp = connect(pa, pb, qa, qb);
            MemorySegment ma = arena.allocate(4096, 4096), mb = arena.allocate(4096, 4096);
            MemoryRegion ra = pa.regMr(ma, ALL), rb = pb.regMr(mb, ALL);
            int big = (1 << 30) + 1;
            SendWr tooLong = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), big, ra.lkey()), new Sge(ma.address(), big, ra.lkey()))
                    .rdma(mb.address(), rb.rkey());
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> qp[0].postSend(tooLong)).errno());
            qp[0].postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 4096, ra.lkey())).rdma(mb.address(), rb.rkey()));
            WorkCompletion wc = RcLoopbackTest.pollOne(qa);
            assertEquals(2, wc.wrId());
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        }
    }
}
