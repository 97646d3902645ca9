package org.jrdma.bench.soak;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;

/**
 * Churn beside the traffic, on its own thread ({@code soak-churn}): memory regions of 4 KiB to
 * 1 MiB, each over its own shared arena, registered and deregistered at random on a PD of each
 * device (up to 24 live); and every so often a QP of a random type with its CQ, taken from RESET
 * to INIT, to ERR, to RESET and destroyed, without traffic. Everything is released when it stops.
 */
final class ObjectChurn implements Runnable {
    private static final int MAX_LIVE = 24;
    private final Context[] ctx;
    private final Stats stats;
    private final Live live;
    private final SplittableRandom rnd;
    private final java.util.function.BooleanSupplier stop;
    private final List<MemoryRegion> mrs = new ArrayList<>();
    private final List<Arena> arenas = new ArrayList<>();

    ObjectChurn(Context[] ctx, Stats stats, Live live, SplittableRandom rnd, java.util.function.BooleanSupplier stop) {
        this.ctx = ctx;
        this.stats = stats;
        this.live = live;
        this.rnd = rnd;
        this.stop = stop;
    }

    @Override
    public void run() {
        ProtectionDomain[] pds = new ProtectionDomain[ctx.length];
        try {
            for (int i = 0; i < ctx.length; i++) {
                pds[i] = ctx[i].allocPd();
                live.pds.incrementAndGet();
            }
            long round = 0;
            while (!stop.getAsBoolean()) {
                ProtectionDomain pd = pds[rnd.nextInt(pds.length)];
                if (mrs.size() < MAX_LIVE && (mrs.isEmpty() || rnd.nextBoolean())) {
                    Arena arena = Arena.ofShared();
                    int size = 4096 << rnd.nextInt(9);
                    int access = rnd.nextBoolean() ? AccessFlags.LOCAL_WRITE
                            : AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
                    mrs.add(pd.regMr(arena.allocate(size, 4096), access));
                    arenas.add(arena);
                    live.mrs.incrementAndGet();
                    stats.mrsRegistered.increment();
                } else {
                    deregister(rnd.nextInt(mrs.size()));
                }
                if (++round % 40 == 0) {
                    qpWithoutTraffic(pd);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
            }
        } catch (RuntimeException e) {
            stats.fail("object churn: " + e);
        } finally {
            while (!mrs.isEmpty()) {
                deregister(mrs.size() - 1);
            }
            for (ProtectionDomain pd : pds) {
                if (pd != null) {
                    try {
                        pd.close();
                        live.pds.decrementAndGet();
                    } catch (RuntimeException e) {
                        stats.fail("object churn: closing its PD: " + e);
                    }
                }
            }
        }
    }

    private void deregister(int i) {
        MemoryRegion mr = mrs.remove(i);
        Arena arena = arenas.remove(i);
        try {
            mr.close();
            live.mrs.decrementAndGet();
        } catch (RuntimeException e) {
            stats.fail("object churn: deregistering an MR: " + e);
        }
        arena.close();
    }

    private void qpWithoutTraffic(ProtectionDomain pd) {
        QpType type = QpType.values()[rnd.nextInt(3)];
        CompletionQueue cq = pd.context().createCq(8, null);
        live.cqs.incrementAndGet();
        try {
            QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq).qpType(type);
            ia.cap().maxSendWr(4).maxRecvWr(4);
            QueuePair qp = pd.createQp(ia);
            live.qps.incrementAndGet();
            stats.qpsCreated.increment();
            try {
                if (type == QpType.UD) {
                    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x1234),
                            QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
                } else {
                    qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(AccessFlags.LOCAL_WRITE),
                            QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
                }
                qp.modify(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE);
                qp.modify(new QpAttr().qpState(QpState.RESET), QpAttrMask.STATE);
            } finally {
                qp.close();
                live.qps.decrementAndGet();
            }
        } finally {
            cq.close();
            live.cqs.decrementAndGet();
        }
    }
}
