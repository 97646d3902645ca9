package org.jrdma.perftest;

/**
 * The busy-wait of the tools' polling loops (on a CQ or on memory, as perftest polls): a few
 * {@link Thread#onSpinWait()} rounds, then {@link Thread#yield()} so that the device's I/O thread —
 * which must run for the awaited completion to arrive — gets the core at once when the machine has
 * fewer cores than busy threads.
 */
final class Spin {
    private static final int SPINS_BEFORE_YIELD = 32;

    private Spin() {
    }

    /** One idle round of a loop that has waited {@code idleRounds} rounds so far. */
    static void idle(int idleRounds) {
        if (idleRounds < SPINS_BEFORE_YIELD) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }
}
