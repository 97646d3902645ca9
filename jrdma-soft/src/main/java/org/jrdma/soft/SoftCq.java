package org.jrdma.soft;

import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.verbs.AsyncEventType;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;

/**
 * A completion queue of a software device: a ring of pre-allocated completions. Producers (the
 * QPs, under their lock, any thread) and consumers ({@link #poll}, any thread) synchronize on the
 * CQ (lock order: a QP's lock, then its CQ's); nothing is allocated per completion.
 *
 * <p>Overrun (IBTA Vol 1 chapter 11: CQ overrun is an error): a completion that finds the ring
 * full puts the CQ into its error state. From then on the CQ takes no completion (each one is
 * counted in {@link #overruns()}), the QPs that complete to it are moved to ERR
 * ({@link SoftQp#raiseCqErrors()}), {@link #poll} still returns the completions the CQ holds and
 * then throws {@link VerbsException} EIO. The CQ stays in error until it is destroyed.
 */
public final class SoftCq implements CompletionQueue {
    private static final int ARM_NONE = 0;
    private static final int ARM_SOLICITED = 1;
    private static final int ARM_ALL = 2;

    /** The ring, its index mask and size: replaced by {@link #resize} (under this CQ's lock). */
    private WorkCompletion[] ring;
    private int mask;
    private volatile int cqe;
    private volatile long head;
    private volatile long tail;
    private long overruns;
    private int armed;
    private final SoftCompChannel channel;
    private final AtomicInteger eventsDelivered = new AtomicInteger();
    private final AtomicInteger eventsAcked = new AtomicInteger();
    /** The QPs that complete to this CQ (control path; guarded by this). */
    private final java.util.List<SoftQp> qps = new java.util.ArrayList<>();
    private final SoftContext context;
    private volatile boolean closed;
    /** Set once, on the first overrun. */
    private volatile boolean error;

    SoftCq(SoftContext context, int cqe, SoftCompChannel channel) {
        this.context = context;
        int size = ringSize(cqe);
        this.ring = new WorkCompletion[size];
        for (int i = 0; i < size; i++) {
            ring[i] = new WorkCompletion();
        }
        this.mask = size - 1;
        this.cqe = size;
        this.channel = channel;
        if (channel != null) {
            channel.users.incrementAndGet();
        }
    }

    @Override
    public int cqe() {
        return cqe;
    }

    /**
     * Adds a completion. When the ring is full, or the CQ is already in error, the completion is
     * not stored: it is counted as an overrun and the CQ is (now) in its error state; the caller
     * must then move its QP's CQs' QPs to ERR ({@link SoftQp#raiseCqErrors()} does).
     *
     * @param solicited the completion is the receive of a solicited message
     * @return false on overrun
     */
    boolean push(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int immData, int qpNum, int srcQp,
                 int wcFlags, int vendorErr, boolean solicited) {
        boolean fire = false;
        synchronized (this) {
            if (error || tail - head == ring.length) {
                overruns++;
                if (!error) {
                    error = true;
                    context.asyncEvents().raise(AsyncEventType.CQ_ERR, this, eventAcks);
                }
                return false;
            }
            WorkCompletion wc = ring[(int) (tail & mask)].set(wrId, status, opcode, byteLen, immData, qpNum, srcQp,
                    wcFlags, vendorErr);
            if (timestamps) {
                wc.completionTs(System.nanoTime());
            }
            tail++;
            if (armed == ARM_ALL || (armed == ARM_SOLICITED && (solicited || status != WcStatus.SUCCESS))) {
                armed = ARM_NONE;
                fire = true;
            }
        }
        if (fire && channel != null) {
            channel.signal(this);
        }
        return true;
    }

    /** True once the CQ overran (it stays in error until destroyed). */
    public boolean inError() {
        return error;
    }

    synchronized void attach(SoftQp qp) {
        qps.add(qp);
    }

    synchronized void detach(SoftQp qp) {
        qps.remove(qp);
    }

    /**
     * Moves every QP of this CQ to ERR when the CQ is in error. Called without any QP lock (it takes
     * each QP's lock in turn, never two at once, and not this CQ's lock meanwhile).
     */
    void failQps() {
        if (!error) {
            return;
        }
        SoftQp[] snapshot;
        synchronized (this) {
            snapshot = qps.toArray(new SoftQp[0]);
        }
        for (SoftQp qp : snapshot) {
            qp.cqFailed(); // raises IBV_EVENT_QP_FATAL for a QP it moves to ERR
        }
    }

    @Override
    public int poll(WorkCompletion[] wc) {
        return poll(wc, wc.length);
    }

    @Override
    public int poll(WorkCompletion[] wc, int max) {
        int n = 0;
        int limit = Math.min(max, wc.length);
        if (tail == head) {
            if (error) {
                throw new VerbsException(Errno.EIO, "CQ overrun: " + overruns() + " completions did not fit (cqe " + cqe
                        + "); the CQ is in error and its QPs are in ERR");
            }
            // nothing yet: help the device along in this thread (receive what has arrived) rather than
            // wait for its I/O thread to be scheduled
            context.progress();
            if (tail == head) {
                return 0;
            }
        }
        synchronized (this) {
            while (n < limit && head != tail) {
                wc[n++].copyFrom(ring[(int) (head & mask)]);
                head++;
            }
        }
        return n;
    }

    /** The number of completions waiting. */
    public synchronized int size() {
        return (int) (tail - head);
    }

    @Override
    public void reqNotify(boolean solicitedOnly) {
        if (channel == null) {
            throw new VerbsException(Errno.EINVAL, "CQ has no completion channel");
        }
        synchronized (this) {
            armed = solicitedOnly ? Math.max(armed, ARM_SOLICITED) : ARM_ALL;
        }
    }

    void eventDelivered() {
        eventsDelivered.incrementAndGet();
    }

    @Override
    public void ackEvents(int n) {
        eventsAcked.addAndGet(n);
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    @Override
    public synchronized long overruns() {
        return overruns;
    }

    /**
     * {@code ibv_destroy_cq(3)}. Waits up to a second for the asynchronous events of this CQ that
     * were taken to be acknowledged (libibverbs waits without limit).
     *
     * @throws VerbsException EBUSY while a QP still uses it or when an event is still unacknowledged
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        synchronized (this) {
            if (!qps.isEmpty()) {
                throw new VerbsException(Errno.EBUSY, "CQ still used by " + qps.size() + " QPs");
            }
        }
        eventAcks.awaitAcknowledged(EventAcks.DESTROY_WAIT_NANOS, "CQ");
        context.asyncEvents().drop(this);
        closed = true;
        if (channel != null) {
            channel.users.decrementAndGet();
        }
        context.cqClosed(this);
    }

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    /** This CQ's asynchronous events (CQ_ERR) taken and not yet acknowledged. */
    private final EventAcks eventAcks = new EventAcks();

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    /** The ring for at least {@code cqe} entries: the next power of two. */
    private static int ringSize(int cqe) {
        return Integer.highestOneBit(Math.max(cqe, 1) * 2 - 1);
    }

    /**
     * {@code ibv_resize_cq}: a new ring of the next power of two at or above {@code cqe}, the
     * waiting completions copied into it in order (their slots keep their sequence numbers, so
     * {@code head} and {@code tail} stay). Control path: allocates the new ring. Any thread; holds
     * this CQ's lock while it checks and copies, so a producer (under its QP's lock, then this one)
     * or a poller waits for it, and no completion is lost or reordered.
     */
    @Override
    public void resize(int cqe) {
        if (cqe < 1 || cqe > SoftLimits.MAX_CQE) {
            throw new VerbsException(Errno.EINVAL, "cqe " + cqe + " not in 1.." + SoftLimits.MAX_CQE);
        }
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "CQ is destroyed");
        }
        int size = ringSize(cqe);
        WorkCompletion[] next = new WorkCompletion[size];
        for (int i = 0; i < size; i++) {
            next[i] = new WorkCompletion();
        }
        synchronized (this) {
            int waiting = (int) (tail - head);
            if (cqe < waiting) {
                throw new VerbsException(Errno.EINVAL, "cqe " + cqe + " is below the " + waiting
                        + " completions the CQ holds");
            }
            int nextMask = size - 1;
            for (long i = head; i != tail; i++) {
                next[(int) (i & nextMask)].copyFrom(ring[(int) (i & mask)]);
            }
            ring = next;
            mask = nextMask;
            this.cqe = size;
        }
    }

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    /** Completions are stamped with System.nanoTime() when pushed (set before the CQ is published). */
    private boolean timestamps;
    /** Wall clock (ns since the epoch) and System.nanoTime() read together when timestamps were enabled. */
    private long wallBaseNs;
    private long nanoBase;

    /** Stamps every completion from now on ({@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP*}); before any QP uses the CQ. */
    synchronized void enableTimestamps() {
        java.time.Instant now = java.time.Instant.now();
        nanoBase = System.nanoTime();
        wallBaseNs = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        timestamps = true;
    }

    /** The wall-clock time (ns since the epoch) of a completion stamped {@code ts} (System.nanoTime). */
    long wallclockNs(long ts) {
        return wallBaseNs + (ts - nanoBase);
    }

    // ---- issue 11 (cm): connection manager, QP1 ----
}
