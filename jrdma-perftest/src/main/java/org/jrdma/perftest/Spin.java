package org.jrdma.perftest;

/**
 * The busy-wait of the tools' polling loops (on a CQ or on memory, as perftest polls):
 * {@link Thread#onSpinWait()} rounds, and after about a millisecond an occasional
 * {@link Thread#yield()}, so that on a machine with fewer cores than busy threads the device's I/O
 * thread (or the peer) still gets a core.
 */
final class Spin {
    /**
     * Rounds of pure spinning before the loop starts to yield, about a millisecond when each round
     * polls the socket (progress in poll), and then a yield every {@link #YIELD_EVERY} rounds. A
     * ping-pong's hop is microseconds, so a loop on its own core never yields. When the two sides'
     * threads share a core (a sync wakeup of the TCP exchange can leave them so), a thread that
     * yields often stays "cache hot" and the scheduler does not move either to the idle core: each hop
     * then costs the other side's spin before its yield (32 rounds: 18-23 µs typical, 256: ~100 µs,
     * in half the runs of ib_send_lat / ib_write_lat -n 1000). Spinning about a millisecond lets the
     * waiting thread go cold, and the balancer separates them within a few ms (6 of 6 runs at 4.5-7
     * µs). Yielding at all is for machines with fewer cores than busy threads.
     */
    private static final int SPINS_BEFORE_YIELD = 4096;
    /** Past {@link #SPINS_BEFORE_YIELD}, one round in this many yields. */
    private static final int YIELD_EVERY = 64;

    private Spin() {
    }

    /** One idle round of a loop that has waited {@code idleRounds} rounds so far. */
    static void idle(int idleRounds) {
        if (idleRounds < SPINS_BEFORE_YIELD || idleRounds % YIELD_EVERY != 0) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }
}
