package org.jrdma.nvmeof.target;

import java.util.UUID;
import org.jrdma.nvmeof.wire.Properties;

/**
 * One controller of the target (the dynamic model: each admin Connect with CNTLID FFFFh gets a new
 * one): its ID, host, properties (CC, CSTS), the I/O queues granted and connected, its keep alive
 * timeout. The admin queue's thread changes CC and the queue table; the I/O queues' threads install
 * themselves; the target's CM thread enforces KATO: all under the object's monitor, except
 * {@link #lastCommand}, a volatile every queue of the controller writes on each command (NVMe Base
 * 2.0 §3.9 with CTRATT.TBKAS: any command restarts the keep alive timer).
 */
final class TargetController {
    final int cntlid;
    final boolean discovery;
    final String hostNqn;
    final UUID hostId;
    /** KATO, ms (0: no keep alive timer). */
    volatile int katoMs;
    int cc;
    volatile int csts;
    final TargetQueue[] queues;
    volatile long lastCommand = System.nanoTime();
    /** Asynchronous Event Requests held (each keeps a response context of the admin queue). */
    int aersHeld;
    volatile boolean dead;

    TargetController(int cntlid, boolean discovery, String hostNqn, UUID hostId, int katoMs, int maxIoQueues) {
        this.cntlid = cntlid;
        this.discovery = discovery;
        this.hostNqn = hostNqn;
        this.hostId = hostId;
        this.katoMs = katoMs;
        this.queues = new TargetQueue[maxIoQueues + 1];
    }

    boolean ready() {
        return (csts & Properties.CSTS_RDY) != 0 && !dead;
    }

    /**
     * Property Set CC (NVMe Base 2.0 §3.5): EN 0 → 1 makes the controller ready if IOSQES and IOCQES
     * are 6 and 4 (else CSTS.CFS, as Linux's {@code nvmet_start_ctrl}); EN 1 → 0 resets it; SHN ≠ 0
     * completes a shutdown at once (CSTS.SHST 10b).
     */
    synchronized void setCc(int v) {
        int old = cc;
        cc = v;
        int s = csts;
        if ((v & Properties.CC_EN) != 0 && (old & Properties.CC_EN) == 0) {
            boolean sizes = (v >>> 16 & 0xf) == 6 && (v >>> 20 & 0xf) == 4;
            s = sizes ? s | Properties.CSTS_RDY : s | Properties.CSTS_CFS;
        } else if ((v & Properties.CC_EN) == 0 && (old & Properties.CC_EN) != 0) {
            s &= ~(Properties.CSTS_RDY | Properties.CSTS_SHST_MASK);
        }
        if ((v & Properties.CC_SHN_MASK) != 0 && (old & Properties.CC_SHN_MASK) == 0) {
            s = (s & ~Properties.CSTS_SHST_MASK) | Properties.CSTS_SHST_CMPLT;
        } else if ((v & Properties.CC_SHN_MASK) == 0) {
            s &= ~Properties.CSTS_SHST_MASK;
        }
        csts = s;
    }

    synchronized int cc() {
        return cc;
    }

    /** Installs I/O queue {@code q}; false when its QID is out of range or taken. */
    synchronized boolean install(TargetQueue q) {
        if (dead || q.qid < 1 || q.qid >= queues.length || queues[q.qid] != null) {
            return false;
        }
        queues[q.qid] = q;
        return true;
    }

    synchronized void remove(TargetQueue q) {
        if (q.qid < queues.length && queues[q.qid] == q) {
            queues[q.qid] = null;
        }
    }

    /** Ends the controller: CSTS.CFS, every queue disconnected (the CM thread frees them on DISCONNECTED). */
    void fatal(String why) {
        TargetQueue[] qs;
        synchronized (this) {
            if (dead) {
                return;
            }
            dead = true;
            csts |= Properties.CSTS_CFS;
            qs = queues.clone();
        }
        for (TargetQueue q : qs) {
            if (q != null) {
                q.fail(why, false);
            }
        }
    }
}
