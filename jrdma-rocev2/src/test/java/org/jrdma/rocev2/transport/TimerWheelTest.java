package org.jrdma.rocev2.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The timer wheel: a timer fires within the tick after its deadline; idle timers (no deadline)
 * cost nothing per tick however many there are; moved, cleared and cancelled deadlines; changes
 * from other threads while the owner polls are never lost. Time is simulated (the wheel takes
 * {@code now} as an argument).
 */
class TimerWheelTest {
    private static final long T0 = 1L << 40;
    private static final long TICK = TimerWheel.TICK_NANOS;

    private static TimerWheel wheel() {
        return new TimerWheel(T0, e -> {
            throw new AssertionError(e);
        });
    }

    @Test
    void aTimerFiresWithinItsTick() {
        for (long delay : new long[] {1, 8_192, 999_999, 1_000_000, 5_300_000, 67_108_864, 700_000_000}) {
            TimerWheel w = wheel();
            AtomicLong firedAt = new AtomicLong();
            TimerWheel.Timer t = w.register(now -> firedAt.compareAndSet(0, now));
            long deadline = T0 + delay;
            w.set(t, deadline);
            for (long now = T0; now < deadline + 3 * TICK && firedAt.get() == 0; now += 50_000) {
                w.poll(now);
            }
            assertTrue(firedAt.get() >= deadline, "delay " + delay + ": fired before its deadline");
            assertTrue(firedAt.get() - deadline <= TICK + 50_000,
                    "delay " + delay + ": fired " + (firedAt.get() - deadline) + " ns after its deadline");
        }
    }

    @Test
    void idleTimersCostNothingPerTick() {
        long perTickFew = visitsPerTick(10);
        long perTickMany = visitsPerTick(2000);
        assertEquals(perTickFew, perTickMany, "timer work per tick grew with the number of idle QPs");
    }

    /** Visits per tick over 1000 ticks with {@code idle} timers without a deadline and one timer re-armed each tick. */
    private static long visitsPerTick(int idle) {
        TimerWheel w = wheel();
        for (int i = 0; i < idle; i++) {
            w.register(now -> {
                throw new AssertionError("an idle timer fired");
            });
        }
        int[] fired = new int[1];
        TimerWheel.Timer busy = w.register(now -> fired[0]++);
        long now = T0;
        long before = w.visited();
        for (int i = 0; i < 1000; i++) {
            w.set(busy, now + TICK / 2);
            now += TICK;
            w.poll(now);
        }
        assertEquals(1000, fired[0]);
        return (w.visited() - before) / 1000;
    }

    @Test
    void aDeadlineMovedLaterFiresAtTheLaterOne() {
        TimerWheel w = wheel();
        List<Long> fired = new ArrayList<>();
        TimerWheel.Timer[] self = new TimerWheel.Timer[1];
        TimerWheel.Timer t = w.register(now -> {
            fired.add(now);
            w.set(self[0], 0); // as a QP does: the expired deadline is cleared
        });
        self[0] = t;
        w.set(t, T0 + 2 * TICK);
        w.poll(T0 + TICK / 2);
        w.set(t, T0 + 10 * TICK); // later: no queueing, the wheel finds it at its old slot
        for (long now = T0; now <= T0 + 12 * TICK; now += TICK / 4) {
            w.poll(now);
        }
        assertEquals(1, fired.size());
        assertTrue(fired.get(0) >= T0 + 10 * TICK && fired.get(0) <= T0 + 11 * TICK + TICK / 4, fired.toString());
    }

    @Test
    void aClearedOrCancelledTimerDoesNotFire() {
        TimerWheel w = wheel();
        TimerWheel.Timer a = w.register(now -> {
            throw new AssertionError("cleared timer fired");
        });
        TimerWheel.Timer b = w.register(now -> {
            throw new AssertionError("cancelled timer fired");
        });
        w.set(a, T0 + TICK);
        w.set(b, T0 + TICK);
        w.poll(T0 + 10);
        w.set(a, 0);
        w.cancel(b);
        w.set(b, T0 + 2 * TICK); // a QP's last change after its destruction
        for (long now = T0; now <= T0 + 5 * TICK; now += TICK / 2) {
            w.poll(now);
        }
        assertEquals(0, w.armedCount());
    }

    @Test
    void aDeadlineLeftDueFiresAgainNextTick() {
        // the old per-millisecond scan ran a due timer again until the QP cleared or moved it
        TimerWheel w = wheel();
        int[] fired = new int[1];
        TimerWheel.Timer t = w.register(now -> fired[0]++);
        w.set(t, T0 + TICK);
        for (int i = 1; i <= 6; i++) {
            w.poll(T0 + i * TICK + 1);
        }
        assertEquals(6, fired[0]);
    }

    @Test
    void changesFromOtherThreadsAreNeverLost() throws Exception {
        // owners set and clear deadlines from their threads (as QPs do under their locks) while the
        // owner thread polls; every timer's last deadline must fire once the owners stop
        TimerWheel w = new TimerWheel(System.nanoTime(), e -> {
            throw new AssertionError(e);
        });
        int n = 64;
        AtomicLong[] firedAt = new AtomicLong[n];
        TimerWheel.Timer[] timers = new TimerWheel.Timer[n];
        for (int i = 0; i < n; i++) {
            AtomicLong f = firedAt[i] = new AtomicLong();
            timers[i] = w.register(f::set);
        }
        long[] last = new long[n];
        Thread[] owners = new Thread[4];
        long end = System.nanoTime() + 300_000_000;
        for (int k = 0; k < owners.length; k++) {
            int first = k;
            owners[k] = Thread.ofPlatform().start(() -> {
                java.util.SplittableRandom r = new java.util.SplittableRandom(first);
                while (System.nanoTime() < end) {
                    for (int i = first; i < n; i += owners.length) {
                        synchronized (timers[i]) {
                            long d = r.nextInt(4) == 0 ? 0 : System.nanoTime() + r.nextLong(100_000, 5_000_000);
                            w.set(timers[i], d);
                            last[i] = d;
                        }
                    }
                }
                for (int i = first; i < n; i += owners.length) {
                    synchronized (timers[i]) {
                        long d = System.nanoTime() + 2_000_000;
                        w.set(timers[i], d);
                        last[i] = d;
                        firedAt[i].set(0);
                    }
                }
            });
        }
        while (System.nanoTime() < end + 50_000_000) {
            w.poll(System.nanoTime());
        }
        for (Thread o : owners) {
            o.join();
        }
        long stop = System.nanoTime() + 50_000_000;
        while (System.nanoTime() < stop) {
            w.poll(System.nanoTime());
        }
        for (int i = 0; i < n; i++) {
            synchronized (timers[i]) {
                assertTrue(firedAt[i].get() >= last[i], "timer " + i + "'s last deadline did not fire");
            }
        }
    }
}
