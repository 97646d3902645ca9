package org.jrdma.soft;

import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;

/**
 * A QP's receive queue: a ring of pre-allocated {@link RecvWqe}s between {@link #head()} (the
 * oldest WQE not yet completed) and {@link #tail()}. Checks and copies posted WRs
 * ({@code ibv_post_recv(3)}), resolves their lkeys and scatters received bytes into them.
 * Nothing is allocated after construction.
 *
 * <p>Threads: under the QP's lock ({@link SoftQp#lock()}).
 */
public final class RecvQueue {
    private final SoftPd pd;
    private final RecvWqe[] ring;
    private final int mask;
    private final int maxWr;
    private final int maxSge;
    private long head;
    private long tail;

    RecvQueue(SoftPd pd, int maxWr, int maxSge) {
        this.pd = pd;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        int size = Integer.highestOneBit(Math.max(1, maxWr) * 2 - 1);
        this.ring = new RecvWqe[size];
        for (int i = 0; i < size; i++) {
            ring[i] = new RecvWqe(maxSge);
        }
        this.mask = size - 1;
    }

    /** max_recv_wr. */
    public int maxWr() {
        return maxWr;
    }

    /** max_recv_sge. */
    public int maxSge() {
        return maxSge;
    }

    public long head() {
        return head;
    }

    public long tail() {
        return tail;
    }

    public boolean isEmpty() {
        return head == tail;
    }

    /** The WQE at {@code index} (between head and tail). */
    public RecvWqe entry(long index) {
        return ring[(int) (index & mask)];
    }

    /** Frees the head slot (its completion was generated); returns the WQE that was there. */
    RecvWqe retireHead() {
        RecvWqe r = ring[(int) (head & mask)];
        head++;
        return r;
    }

    void clear() {
        head = tail;
    }

    /**
     * Checks {@code w} (not its chain) and copies it into the tail slot.
     *
     * @throws VerbsException EINVAL for num_sge above max_recv_sge or a total length above 2^31;
     *     ENOMEM when max_recv_wr WRs are outstanding
     */
    void post(RecvWr w) {
        LocalMemory.checkSgList(w.sgList(), w.numSge(), maxSge, "recv");
        if (tail - head >= maxWr) {
            throw new VerbsException(Errno.ENOMEM, "receive queue full (" + maxWr + " WRs outstanding)");
        }
        ring[(int) (tail & mask)].copyFrom(w);
        tail++;
    }

    /**
     * Resolves a WQE's SGEs (once); they need LOCAL_WRITE.
     *
     * @return SUCCESS or LOC_PROT_ERR (bad key, other PD, deregistered, memory freed, out of bounds,
     *     no LOCAL_WRITE)
     */
    public WcStatus resolve(RecvWqe r) {
        if (r.resolved) {
            return WcStatus.SUCCESS;
        }
        WcStatus st = LocalMemory.resolve(pd, r.numSge, r.sgeAddr, r.sgeLength, r.sgeLkey, r.sgeMr, true);
        r.resolved = st == WcStatus.SUCCESS;
        return st;
    }

    /**
     * Copies {@code len} bytes from {@code src} into a resolved WQE's SGEs at message offset {@code msgOff}.
     *
     * @return false when the memory of one of its regions was freed (the WQE must then complete with
     *     LOC_PROT_ERR)
     */
    public boolean scatter(RecvWqe r, long msgOff, MemorySegment src, long srcOff, int len) {
        return LocalMemory.scatter(r.numSge, r.sgeAddr, r.sgeLength, r.sgeMr, msgOff, src, srcOff, len);
    }
}
