package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ThreadLocalRandom;
import org.jrdma.verbs.*;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RcLoopbackTest {
    static Context ca, cb;

    @BeforeAll
    static void open() {
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        System.setProperty("jrdma.devices", "ta=127.88." + r + ".1,tb=127.88." + r + ".2");
        ca = Verbs.getDevice("ta").open();
        cb = Verbs.getDevice("tb").open();
    }

    @AfterAll
    static void close() {
        ca.close();
        cb.close();
    }

    static QueuePair[] connect(ProtectionDomain pa, ProtectionDomain pb, CompletionQueue cqa, CompletionQueue cqb, Mtu mtu) {
        QpInitAttr ia = new QpInitAttr().sendCq(cqa).recvCq(cqa).qpType(QpType.RC);
        ia.cap().maxSendWr(256).maxRecvWr(256).maxSendSge(4).maxRecvSge(4);
        QueuePair a = pa.createQp(ia);
        QpInitAttr ib = new QpInitAttr().sendCq(cqb).recvCq(cqb).qpType(QpType.RC);
        ib.cap().maxSendWr(256).maxRecvWr(256).maxSendSge(4).maxRecvSge(4);
        QueuePair b = pb.createQp(ib);
        up(a, b, cb.queryGid(1, 0), mtu, 100, 200);
        up(b, a, ca.queryGid(1, 0), mtu, 200, 100);
        return new QueuePair[] {a, b};
    }

    static void up(QueuePair q, QueuePair peer, Gid peerGid, Mtu mtu, int sq, int rq) {
        int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
        q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(all),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(peer.qpNum()).rqPsn(rq)
                .maxDestRdAtomic(16).minRnrTimer(1);
        rtr.ahAttr().isGlobal(true).portNum(1).grh().dgid(peerGid).hopLimit(64);
        q.modify(rtr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN
                | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sq).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(16),
                QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                        | QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    static WorkCompletion pollOne(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within 5 s; a=" + ((org.jrdma.rocev2.RxeContext) ca).counters().snapshot() + " b=" + ((org.jrdma.rocev2.RxeContext) cb).counters().snapshot());
            }
            Thread.onSpinWait();
        }
        return wc[0];
    }

    @Test
    void writeSendReadAtomic() {
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(512, null), qb = cb.createCq(512, null);
            QueuePair[] qp = connect(pa, pb, qa, qb, Mtu.MTU_1024);
            int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
            MemorySegment ma = arena.allocate(65536, 4096), mb = arena.allocate(65536, 4096);
            MemoryRegion ra = pa.regMr(ma, all), rb = pb.regMr(mb, all);
            for (int i = 0; i < 65536; i++) {
                ma.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
            }
            // RDMA WRITE 10000 bytes (10 packets) a -> b
            SendWr w = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 10000, ra.lkey())).rdma(mb.address() + 100, rb.rkey());
            qp[0].postSend(w);
            WorkCompletion c = pollOne(qa);
            assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
            assertEquals(WcOpcode.RDMA_WRITE, c.opcode());
            assertEquals(-1L, ma.asSlice(0, 10000).mismatch(mb.asSlice(100, 10000)));
            // SEND 3000 bytes b -> a into a posted receive
            qp[0].postRecv(new RecvWr().wrId(7).sgList(new Sge(ma.address() + 32768, 4096, ra.lkey())));
            qp[1].postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(0x11223344)
                    .sendFlags(SendFlags.SIGNALED).sgList(new Sge(mb.address(), 3000, rb.lkey())));
            WorkCompletion s = pollOne(qb);
            assertEquals(WcStatus.SUCCESS, s.status(), s.toString());
            WorkCompletion rcv = pollOne(qa);
            assertEquals(WcStatus.SUCCESS, rcv.status(), rcv.toString());
            assertEquals(WcOpcode.RECV, rcv.opcode());
            assertEquals(3000, rcv.byteLen());
            assertEquals(7, rcv.wrId());
            assertEquals(0x11223344, rcv.immData());
            assertEquals(-1L, mb.asSlice(0, 3000).mismatch(ma.asSlice(32768, 3000)));
            // READ 5000 bytes from b into a
            qp[0].postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address() + 40000, 5000, ra.lkey())).rdma(mb.address() + 20000, rb.rkey()));
            c = pollOne(qa);
            assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
            assertEquals(WcOpcode.RDMA_READ, c.opcode());
            assertEquals(5000, c.byteLen());
            assertEquals(-1L, mb.asSlice(20000, 5000).mismatch(ma.asSlice(40000, 5000)));
            // atomics on b's word at 60000
            mb.set(ValueLayout.JAVA_LONG, 60000, 41L);
            qp[0].postSend(new SendWr().wrId(4).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address() + 60000, 8, ra.lkey())).atomic(mb.address() + 60000, rb.rkey(), 1, 0));
            c = pollOne(qa);
            assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
            assertEquals(41L, ma.get(ValueLayout.JAVA_LONG, 60000));
            assertEquals(42L, mb.get(ValueLayout.JAVA_LONG, 60000));
            qp[0].postSend(new SendWr().wrId(5).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address() + 60008, 8, ra.lkey())).atomic(mb.address() + 60000, rb.rkey(), 42, 99));
            c = pollOne(qa);
            assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
            assertEquals(42L, ma.get(ValueLayout.JAVA_LONG, 60008));
            assertEquals(99L, mb.get(ValueLayout.JAVA_LONG, 60000));
            // a bad rkey: REM_ACCESS_ERR and the QP goes to ERR
            qp[0].postSend(new SendWr().wrId(6).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 8, ra.lkey())).rdma(mb.address(), rb.rkey() ^ 0x5a5a));
            c = pollOne(qa);
            assertEquals(WcStatus.REM_ACCESS_ERR, c.status(), c.toString());
            assertEquals(QpState.ERR, qp[0].state());
            qp[0].close();
            qp[1].close();
            ra.close();
            rb.close();
            qa.close();
            qb.close();
        }
    }

    @Test
    void streamOfWrites() {
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pa = ca.allocPd(), pb = cb.allocPd();
            CompletionQueue qa = ca.createCq(512, null), qb = cb.createCq(512, null);
            QueuePair[] qp = connect(pa, pb, qa, qb, Mtu.MTU_4096);
            MemorySegment ma = arena.allocate(1 << 20, 4096), mb = arena.allocate(1 << 20, 4096);
            MemoryRegion ra = pa.regMr(ma, AccessFlags.LOCAL_WRITE), rb = pb.regMr(mb, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            SendWr w = new SendWr().opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sgList(new Sge(ma.address(), 65536, ra.lkey()));
            WorkCompletion[] wc = new WorkCompletion[16];
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            int posted = 0, done = 0, total = 2000;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (done < total) {
                while (posted < total && posted - done < 64) {
                    w.wrId(posted).rdma(mb.address() + (posted % 16) * 65536L, rb.rkey());
                    qp[0].postSend(w);
                    posted++;
                }
                int n = qa.poll(wc);
                for (int i = 0; i < n; i++) {
                    assertEquals(WcStatus.SUCCESS, wc[i].status(), wc[i].toString());
                    assertEquals(done, wc[i].wrId());
                    done++;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("stuck at " + done + " of " + total);
                }
            }
            qp[0].close();
            qp[1].close();
            ra.close();
            rb.close();
        }
    }
}
