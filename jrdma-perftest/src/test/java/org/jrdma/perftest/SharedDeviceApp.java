package org.jrdma.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;

/**
 * An application on a device another process uses at the same time ({@link SharedDeviceProcessesTest}):
 * two RC QPs of device {@code args[0]} connected to each other, RDMA WRITEs of 64 KiB with a new
 * pattern each, every one checked, until its standard input ends (or {@code args[1]} seconds pass).
 * Prints "app: running" once the first write completed, then "app: N writes, QPNs A B" and exits 0,
 * or prints the failure and exits 1.
 */
public final class SharedDeviceApp {
    private SharedDeviceApp() {
    }

    public static void main(String[] args) {
        long until = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                System.in.readAllBytes();
            } catch (java.io.IOException ignored) {
                // stop as at the end of the input
            }
            stop.set(true);
        });
        int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
        try (Context ctx = Verbs.getDevice(args[0]).open(); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(64, null);
            QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(QpType.RC);
            ia.cap().maxSendWr(16).maxRecvWr(16);
            QueuePair a = pd.createQp(ia);
            QueuePair b = pd.createQp(ia);
            Gid gid = ctx.queryGid(1, 0);
            up(a, b.qpNum(), gid);
            up(b, a.qpNum(), gid);
            MemorySegment src = arena.allocate(65536, 4096);
            MemorySegment dst = arena.allocate(65536, 4096);
            MemoryRegion ms = pd.regMr(src, all);
            MemoryRegion md = pd.regMr(dst, all);
            WorkCompletion[] wc = {new WorkCompletion()};
            long n = 0;
            while (!stop.get() && System.nanoTime() - until < 0) {
                for (int i = 0; i < 65536; i += 8) {
                    src.set(ValueLayout.JAVA_LONG, i, n * 0x9E3779B97F4A7C15L + i);
                }
                a.postSend(new SendWr().wrId(n).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                        .sgList(new Sge(src.address(), 65536, ms.lkey())).rdma(dst.address(), md.rkey()));
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (cq.poll(wc) == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("no completion in 10 s");
                    }
                    Thread.onSpinWait();
                }
                if (wc[0].status() != WcStatus.SUCCESS || src.mismatch(dst) != -1) {
                    throw new IllegalStateException("write " + n + ": " + wc[0]);
                }
                if (n++ == 0) {
                    System.out.println("app: running");
                }
            }
            System.out.println("app: " + n + " writes, QPNs " + a.qpNum() + " " + b.qpNum());
            a.close();
            b.close();
        } catch (RuntimeException e) {
            System.out.println("app failed: " + e);
            System.exit(1);
        }
    }

    private static void up(QueuePair q, int peerQpn, Gid gid) {
        int all = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
        q.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(all),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_4096).destQpNum(peerQpn).rqPsn(0)
                .maxDestRdAtomic(1).minRnrTimer(1);
        rtr.ahAttr().isGlobal(true).portNum(1).grh().dgid(gid).hopLimit(64);
        q.modify(rtr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN
                | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        q.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1),
                QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                        | QpAttrMask.MAX_QP_RD_ATOMIC);
    }
}
