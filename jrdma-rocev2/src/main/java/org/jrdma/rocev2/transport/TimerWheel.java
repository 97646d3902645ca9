package org.jrdma.rocev2.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.ErrorHandler;

/**
 * A hashed timer wheel for the retransmission and RNR timers of a device's QPs: 512 slots of one
 * tick ({@link #TICK_NANOS}, 2^20 ns ≈ 1.05 ms) each, one pre-allocated {@link Timer} per QP.
 * A QP without a deadline is not in the wheel at all, so idle QPs cost nothing per tick; a tick
 * costs the timers hashed to its slot (those due, and those due a multiple of 512 ticks later).
 * A timer fires at the first {@link #poll} at or after its deadline's tick ends, that is at most
 * one tick after its deadline when the owner polls every tick.
 *
 * <p>Thread rule: {@link #set} and {@link #cancel} may be called from any thread (for a QP: under
 * that QP's lock, so that one timer's changes come in order); they only store the deadline and,
 * when the wheel does not already hold the timer at or before it, push it onto a lock-free stack
 * of changed timers (a CAS; no lock, no allocation). Everything else, the slots included, belongs
 * to one thread, the owner (the device's I/O agent thread), which calls {@link #poll}: it takes the
 * changed timers, moves them to their slots, and runs the expired ones, holding no lock while it
 * calls {@link Expiry#onTimer} (which takes the QP's lock). A deadline moved later stays in its
 * earlier slot and is moved when that slot comes up (no stack push per ACK). Allocation-free
 * after {@link #register}.
 */
final class TimerWheel {
    /** log2 of the tick in ns. */
    static final int TICK_SHIFT = 20;
    /** One tick, ns (1,048,576 ns). */
    static final long TICK_NANOS = 1L << TICK_SHIFT;
    private static final int SLOTS = 512;
    private static final int MASK = SLOTS - 1;
    private static final VarHandle QUEUED;

    static {
        try {
            QUEUED = MethodHandles.lookup().findVarHandle(Timer.class, "queued", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What a timer runs when it expires. */
    @FunctionalInterface
    interface Expiry {
        /** The timer's deadline passed; {@code now} is System.nanoTime. Runs on the owner thread. */
        void onTimer(long now);
    }

    /** One timer (one per QP), reused for every deadline it ever has. */
    static final class Timer {
        final Expiry expiry;
        /** The deadline, System.nanoTime ns, 0 = none (written by {@link #set}, any thread). */
        volatile long deadline;
        /** The deadline the wheel holds this timer for, 0 when it is in no slot (written by the owner). */
        volatile long armedFor;
        volatile boolean cancelled;
        /** 1 while on the changed stack. */
        volatile int queued;
        Timer nextChanged;
        // owner thread only
        Timer prev, next;
        int slot = -1;
        long armedTick;

        Timer(Expiry expiry) {
            this.expiry = expiry;
        }
    }

    private final Timer[] slots = new Timer[SLOTS];
    private final AtomicReference<Timer> changed = new AtomicReference<>();
    private final ErrorHandler errors;
    /** The last tick processed. */
    private long currentTick;
    private int armedCount;
    /** Timers looked at by {@link #poll} so far (for tests of the per-tick cost). */
    private long visited;

    /**
     * An empty wheel whose time starts at {@code now} (System.nanoTime); an exception thrown by an
     * {@link Expiry} goes to {@code errors} and the other timers still run.
     */
    TimerWheel(long now, ErrorHandler errors) {
        this.currentTick = now >> TICK_SHIFT;
        this.errors = errors;
    }

    /** A new timer without a deadline; any thread (control path: allocates). */
    Timer register(Expiry expiry) {
        return new Timer(expiry);
    }

    /**
     * Sets {@code t}'s deadline ({@code System.nanoTime} ns; 0 = none). Any thread, one at a time
     * per timer (a QP's: under its lock). Allocation-free.
     */
    void set(Timer t, long deadline) {
        t.deadline = deadline;
        if (deadline != 0) {
            long a = t.armedFor;
            // the wheel holds it for an earlier (or the same) deadline: that slot will move it
            if (a == 0 || deadline - a < 0) {
                enqueue(t);
            }
        }
    }

    /** Ends {@code t} for good (its QP is destroyed); any thread. The owner unlinks it at its next poll. */
    void cancel(Timer t) {
        t.cancelled = true;
        t.deadline = 0;
        enqueue(t);
    }

    private void enqueue(Timer t) {
        if ((int) QUEUED.getVolatile(t) == 0 && QUEUED.compareAndSet(t, 0, 1)) {
            Timer h;
            do {
                h = changed.get();
                t.nextChanged = h;
            } while (!changed.compareAndSet(h, t));
        }
    }

    /**
     * Owner thread: takes the changed timers, then runs those expired by {@code now}.
     *
     * @return the number of timers that fired
     */
    int poll(long now) {
        Timer c = changed.get() == null ? null : changed.getAndSet(null); // a plain read when nothing changed
        while (c != null) {
            Timer nx = c.nextChanged;
            c.nextChanged = null;
            c.queued = 0; // before the deadline is read: a change from now on queues it again
            visited++;
            arm(c);
            c = nx;
        }
        long nowTick = now >> TICK_SHIFT;
        if (nowTick - currentTick <= 0) {
            return 0;
        }
        long from = Math.max(currentTick + 1, nowTick - MASK);
        currentTick = nowTick;
        int fired = 0;
        for (long tick = from; tick <= nowTick; tick++) {
            if (armedCount != 0) {
                fired += expire(tick, now);
            }
        }
        return fired;
    }

    /** Owner thread: whether any timer is in the wheel or waiting to be put there. */
    boolean anyArmed() {
        return armedCount != 0 || changed.get() != null;
    }

    /** Owner thread: ns from {@code now} to the end of the current tick, when the next poll may fire a timer (≥ 1). */
    long nanosToNextTick(long now) {
        return Math.max(1, ((currentTick + 1) << TICK_SHIFT) - now);
    }

    long visited() {
        return visited;
    }

    int armedCount() {
        return armedCount;
    }

    private int expire(long tick, long now) {
        int fired = 0;
        Timer t = slots[(int) (tick & MASK)];
        while (t != null) {
            Timer nx = t.next;
            visited++;
            if (t.armedTick - tick <= 0) { // not a later round of the wheel
                long d = t.deadline;
                if (d != 0 && !t.cancelled && d - now <= 0) {
                    unlink(t);
                    t.armedFor = 0;
                    fired++;
                    try {
                        t.expiry.onTimer(now);
                    } catch (RuntimeException e) {
                        errors.onError(e);
                    }
                }
                arm(t); // a deadline moved later, cleared, or left due by the expiry (fires next tick)
            }
            t = nx;
        }
        return fired;
    }

    /** Puts {@code t} where its current deadline says (or out of the wheel); owner thread. */
    private void arm(Timer t) {
        for (;;) {
            long d = t.deadline;
            if (d == 0 || t.cancelled) {
                if (t.slot >= 0) {
                    unlink(t);
                }
                t.armedFor = 0;
                // a set() that saw the old armedFor did not queue the timer: look again
                if (t.deadline == 0 || t.cancelled) {
                    return;
                }
                continue;
            }
            if (t.slot >= 0 && t.armedFor == d) {
                return;
            }
            long tick = ((d - 1) >> TICK_SHIFT) + 1; // the first tick that ends at or after d
            if (tick - currentTick <= 0) {
                tick = currentTick + 1;
            }
            if (t.slot >= 0) {
                unlink(t);
            }
            link(t, tick);
            t.armedFor = d;
            if (t.deadline == d) {
                return;
            }
        }
    }

    private void link(Timer t, long tick) {
        int s = (int) (tick & MASK);
        Timer h = slots[s];
        t.prev = null;
        t.next = h;
        if (h != null) {
            h.prev = t;
        }
        slots[s] = t;
        t.slot = s;
        t.armedTick = tick;
        armedCount++;
    }

    private void unlink(Timer t) {
        if (t.prev != null) {
            t.prev.next = t.next;
        } else {
            slots[t.slot] = t.next;
        }
        if (t.next != null) {
            t.next.prev = t.prev;
        }
        t.prev = null;
        t.next = null;
        t.slot = -1;
        armedCount--;
    }
}
