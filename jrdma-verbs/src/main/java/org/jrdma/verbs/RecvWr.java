package org.jrdma.verbs;

/**
 * A receive work request, {@code struct ibv_recv_wr} ({@code ibv_post_recv(3)}). Mutable and
 * reusable: posting copies it. Chain several with {@link #next(RecvWr)}.
 */
public final class RecvWr {
    private long wrId;
    private Sge[] sgList = new Sge[0];
    private int numSge;
    private RecvWr next;

    public long wrId() {
        return wrId;
    }

    public RecvWr wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /**
     * The scatter list; only the first {@link #numSge()} entries are used. Their lengths add up to
     * the message length, at most 2^31 bytes (IBTA's largest message): a post with more is refused
     * with {@link VerbsException} EINVAL.
     */
    public Sge[] sgList() {
        return sgList;
    }

    /** Uses all of {@code sges}. */
    public RecvWr sgList(Sge... sges) {
        this.sgList = sges;
        this.numSge = sges.length;
        return this;
    }

    public int numSge() {
        return numSge;
    }

    /** Uses the first {@code n} entries of the scatter list. */
    public RecvWr numSge(int n) {
        this.numSge = n;
        return this;
    }

    /** The next WR of a chain, or null. */
    public RecvWr next() {
        return next;
    }

    public RecvWr next(RecvWr next) {
        this.next = next;
        return this;
    }
}
