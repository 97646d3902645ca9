package org.jrdma.bench.soak;

/**
 * The work requests posted to one queue (the send queue or the receive queue of one QP) during
 * the QP's life, and the completions seen for each: exactly one completion per signaled WR,
 * success or WR_FLUSH_ERR. A wr_id is {@code serial << 34 | queue << 32 | seq}: the pair's serial
 * number (unique in the run), which of the pair's four queues, and the WR's sequence number in
 * that queue. Used by one worker thread only.
 */
final class Ledger {
    private final long base;
    private byte[] seen = new byte[256];
    private int posted;
    private int completed;
    private long duplicates;

    /** The ledger of queue {@code queue} (0..3) of pair {@code serial}. */
    Ledger(long serial, int queue) {
        this.base = serial << 34 | (long) queue << 32;
    }

    /** The wr_id of the next WR; the WR counts as posted. */
    long next() {
        if (posted == seen.length) {
            seen = java.util.Arrays.copyOf(seen, seen.length * 2);
        }
        return base | posted++;
    }

    /** Forgets the last {@link #next()}: its post failed, so no completion is due. */
    void unpost() {
        posted--;
    }

    /** Whether {@code wrId} names a WR of this queue that was posted. */
    boolean owns(long wrId) {
        return (wrId & ~0xFFFF_FFFFL) == base && (int) wrId >= 0 && (int) wrId < posted;
    }

    /** The sequence number of a wr_id of this queue. */
    static int seq(long wrId) {
        return (int) wrId;
    }

    /**
     * Records a completion of {@code wrId} (which {@link #owns} it).
     *
     * @return true for its first completion, false for a duplicate (counted)
     */
    boolean complete(long wrId) {
        int s = seq(wrId);
        if (seen[s] != 0) {
            duplicates++;
            return false;
        }
        seen[s] = 1;
        completed++;
        return true;
    }

    /** The wr_id of sequence number {@code seq} of this queue. */
    long idOf(int seq) {
        return base | seq;
    }

    /** The first WR posted and not completed, or -1. */
    int firstMissing() {
        for (int i = 0; i < posted; i++) {
            if (seen[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    int posted() {
        return posted;
    }

    /** WRs posted and not completed yet. */
    int outstanding() {
        return posted - completed;
    }

    long duplicates() {
        return duplicates;
    }
}
