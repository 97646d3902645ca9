package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.jrdma.fabric.sim.EventQueue;
import org.jrdma.fabric.sim.Simulator;
import org.junit.jupiter.api.Test;

/** The event list runs events in (time, scheduling order): equal times keep their order. */
class EventQueueTest {
    @Property(tries = 200)
    void takesEventsInTimeThenSchedulingOrder(@ForAll @Size(max = 300) List<@LongRange(min = 0, max = 20) Long> times) {
        EventQueue q = new EventQueue(1);
        List<long[]> expected = new ArrayList<>();
        for (int i = 0; i < times.size(); i++) {
            q.schedule(times.get(i), null, i, null);
            expected.add(new long[] {times.get(i), i});
        }
        expected.sort(Comparator.<long[]>comparingLong(a -> a[0]).thenComparingLong(a -> a[1]));
        for (long[] e : expected) {
            assertEquals(e[0], q.take());
            assertEquals(e[1], q.takenKind());
        }
        assertTrue(q.isEmpty());
    }

    @Test
    void eventsScheduledWhileRunningInterleaveByTimeAndOrder() {
        Simulator sim = new Simulator(1, 1_000, 1L << 40);
        StringBuilder log = new StringBuilder();
        sim.at(10, (k, p) -> {
            log.append("a");
            sim.after(0, (k2, p2) -> log.append("c"), 0, null); // same time, scheduled later: after b
        }, 0, null);
        sim.at(10, (k, p) -> log.append("b"), 0, null);
        sim.at(5, (k, p) -> log.append("0"), 0, null);
        assertEquals(Simulator.StopReason.IDLE, sim.run(100));
        assertEquals("0abc", log.toString());
        assertEquals(100, sim.now());
    }

    @Test
    void theEventBudgetStopsTheRun() {
        Simulator sim = new Simulator(1, 10, 1L << 40);
        Runnable[] again = new Runnable[1];
        org.jrdma.fabric.sim.EventHandler h = (k, p) -> again[0].run();
        again[0] = () -> sim.after(1, h, 0, null);
        sim.at(0, h, 0, null);
        assertEquals(Simulator.StopReason.EVENT_BUDGET, sim.run(Long.MAX_VALUE));
        assertEquals(10, sim.events());
        assertEquals(9, sim.now());
    }
}
