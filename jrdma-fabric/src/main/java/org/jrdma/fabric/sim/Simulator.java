package org.jrdma.fabric.sim;

import java.util.SplittableRandom;

/**
 * The discrete-event simulator: the virtual clock (a {@code long} count of picoseconds from 0), the
 * {@link EventQueue}, the run's seed and its budgets. One thread runs it, start to end; nothing in
 * it reads a wall clock, so the same inputs and seed give the same run.
 *
 * <p>Budgets: a run stops, with {@link StopReason#EVENT_BUDGET} or {@link StopReason#MEMORY_BUDGET},
 * when it has run {@code eventBudget} events or when the JVM heap in use exceeds
 * {@code memoryBudgetBytes} (checked every 2^16 events; it reads
 * {@link Runtime}, so garbage not yet collected counts). The caller writes the partial outputs.
 */
public final class Simulator {
    /** Why {@link #run(long)} returned. */
    public enum StopReason {
        /** No event left before the end time. */
        END_TIME,
        /** The event queue ran empty. */
        IDLE,
        /** The event budget was spent. */
        EVENT_BUDGET,
        /** The heap in use passed the memory budget. */
        MEMORY_BUDGET
    }

    /** Picoseconds per nanosecond, microsecond, millisecond, second. */
    public static final long NS = 1_000, US = 1_000_000, MS = 1_000_000_000, S = 1_000_000_000_000L;

    private final EventQueue queue = new EventQueue(1 << 12);
    private final long seed;
    private final long eventBudget;
    private final long memoryBudgetBytes;
    private long now;
    private long events;
    private int maxPending;

    /**
     * @param seed              the run's seed (every component's RNG derives from it)
     * @param eventBudget       the most events the run may take (&gt; 0)
     * @param memoryBudgetBytes the most heap in use the run may reach (&gt; 0)
     */
    public Simulator(long seed, long eventBudget, long memoryBudgetBytes) {
        if (eventBudget <= 0 || memoryBudgetBytes <= 0) {
            throw new IllegalArgumentException("budgets must be positive");
        }
        this.seed = seed;
        this.eventBudget = eventBudget;
        this.memoryBudgetBytes = memoryBudgetBytes;
    }

    /** The current virtual time in ps. */
    public long now() {
        return now;
    }

    /** Events run so far. */
    public long events() {
        return events;
    }

    /** Events waiting. */
    public int pending() {
        return queue.size();
    }

    /** The most events that waited at once. */
    public int maxPending() {
        return maxPending;
    }

    /** Schedules {@code h} to run {@code kind} at absolute time {@code timePs} (not before now). */
    public void at(long timePs, EventHandler h, int kind, Object payload) {
        if (timePs < now) {
            throw new IllegalArgumentException("event in the past: " + timePs + " < " + now);
        }
        queue.schedule(timePs, h, kind, payload);
        if (queue.size() > maxPending) {
            maxPending = queue.size();
        }
    }

    /** Schedules {@code h} to run {@code kind} after {@code delayPs}. */
    public void after(long delayPs, EventHandler h, int kind, Object payload) {
        at(now + delayPs, h, kind, payload);
    }

    /**
     * A random-number stream for one component, derived from the run's seed and the component's
     * stable id (so adding a component does not change the others' streams).
     */
    public SplittableRandom random(long componentId) {
        return new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (componentId + 1)));
    }

    /**
     * Runs events in (time, sequence) order until none is left at or before {@code endPs}, or a
     * budget is spent. The clock ends at {@code endPs} on {@link StopReason#END_TIME} and
     * {@link StopReason#IDLE}, at the last event's time otherwise.
     */
    public StopReason run(long endPs) {
        Runtime rt = Runtime.getRuntime();
        while (true) {
            if (queue.isEmpty()) {
                now = Math.max(now, endPs);
                return StopReason.IDLE;
            }
            if (queue.peekTime() > endPs) {
                now = endPs;
                return StopReason.END_TIME;
            }
            if (events >= eventBudget) {
                return StopReason.EVENT_BUDGET;
            }
            if ((events & 0xFFFF) == 0 && rt.totalMemory() - rt.freeMemory() > memoryBudgetBytes) {
                return StopReason.MEMORY_BUDGET;
            }
            now = queue.take();
            events++;
            queue.takenHandler().onEvent(queue.takenKind(), queue.takenPayload());
        }
    }
}
