package org.jrdma.perftest;

/**
 * The busy-wait of the tools' polling loops (on a CQ or on memory, as perftest polls): a few
 * {@link Thread#onSpinWait()} rounds, then {@link Thread#yield()} so that the device's I/O thread —
 * which must run for the awaited completion to arrive — gets the core at once when the machine has
 * fewer cores than busy threads.
 */
final class Spin {
    /**
     * Rounds of pure spinning before the loop starts to yield: a few tens of µs when each round polls
     * the socket (progress in poll). A thread that yields after a few µs stays "cache hot" to the
     * scheduler, and when it shares a core with the peer's spinning thread (as a loopback wakeup can
     * leave them) the two stay together for tenths of a second while the other core idles:
     * ib_send_lat -n 5000 on two cores ran at 18-23 µs typical in half the runs with 32 rounds, in
     * none with 256.
     */
    private static final int SPINS_BEFORE_YIELD = 256;

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
