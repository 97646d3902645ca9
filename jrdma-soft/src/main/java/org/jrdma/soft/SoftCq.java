package org.jrdma.soft;

import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;

/**
 * A completion queue of a software device: a ring of pre-allocated completions. Producers (the
 * transport, any thread) and consumers ({@link #poll}, any thread) synchronize on the CQ; nothing
 * is allocated per completion.
 */
public final class SoftCq implements CompletionQueue {
    private static final int ARM_NONE = 0;
    private static final int ARM_SOLICITED = 1;
    private static final int ARM_ALL = 2;

    private final WorkCompletion[] ring;
    private final int mask;
    private final int cqe;
    private volatile long head;
    private volatile long tail;
    private long overruns;
    private int armed;
    private final SoftCompChannel channel;
    private final AtomicInteger eventsDelivered = new AtomicInteger();
    private final AtomicInteger eventsAcked = new AtomicInteger();
    final AtomicInteger users = new AtomicInteger();
    private final SoftContext context;
    private volatile boolean closed;

    SoftCq(SoftContext context, int cqe, SoftCompChannel channel) {
        this.context = context;
        int size = Integer.highestOneBit(Math.max(cqe, 1) * 2 - 1);
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
     * Adds a completion. When the ring is full the completion is dropped and counted as an overrun
     * (IBTA: CQ overrun is an affiliated asynchronous error).
     *
     * @param solicited the completion is the receive of a solicited message
     * @return false on overrun
     */
    public boolean push(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int immData, int qpNum, int srcQp,
                        int wcFlags, int vendorErr, boolean solicited) {
        boolean fire = false;
        synchronized (this) {
            if (tail - head == ring.length) {
                overruns++;
                return false;
            }
            ring[(int) (tail & mask)].set(wrId, status, opcode, byteLen, immData, qpNum, srcQp, wcFlags, vendorErr);
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

    /** Adds a successful completion without immediate data. */
    public boolean pushSuccess(long wrId, WcOpcode opcode, int byteLen, int qpNum) {
        return push(wrId, WcStatus.SUCCESS, opcode, byteLen, 0, qpNum, 0, 0, 0, false);
    }

    /** Adds a completion with immediate data. */
    public boolean pushWithImm(long wrId, WcOpcode opcode, int byteLen, int imm, int qpNum, boolean solicited) {
        return push(wrId, WcStatus.SUCCESS, opcode, byteLen, imm, qpNum, 0, WcFlags.WITH_IMM, 0, solicited);
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

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (users.get() != 0) {
            throw new VerbsException(Errno.EBUSY, "CQ still used by " + users.get() + " QPs");
        }
        closed = true;
        if (channel != null) {
            channel.users.decrementAndGet();
        }
        context.cqClosed(this);
    }
}
