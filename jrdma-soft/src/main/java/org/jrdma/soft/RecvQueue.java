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
    private final WqeRing<RecvWqe> ring;
    private final int maxWr;
    private final int maxSge;

    RecvQueue(SoftPd pd, int maxWr, int maxSge) {
        this.pd = pd;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.ring = new WqeRing<>(maxWr, i -> new RecvWqe(maxSge));
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
        return ring.head();
    }

    public long tail() {
        return ring.tail();
    }

    public boolean isEmpty() {
        return ring.isEmpty();
    }

    /** The WQE at {@code index} (between head and tail). */
    public RecvWqe entry(long index) {
        return ring.entry(index);
    }

    /** Frees the head slot (its completion was generated); returns the WQE that was there. */
    RecvWqe retireHead() {
        return ring.retireHead();
    }

    void clear() {
        ring.clear();
    }

    /**
     * Checks {@code w} (not its chain) and copies it into the tail slot.
     *
     * @throws VerbsException EINVAL for num_sge above max_recv_sge or a total length above 2^31;
     *     ENOMEM when max_recv_wr WRs are outstanding
     */
    void post(RecvWr w) {
        LocalMemory.checkSgList(w.sgList(), w.numSge(), maxSge, "recv");
        if (ring.outstanding() >= maxWr) {
            throw new VerbsException(Errno.ENOMEM, "receive queue full (" + maxWr + " WRs outstanding)");
        }
        ring.atTail().copyFrom(w);
        ring.advanceTail();
    }

    /** Appends a copy of {@code w} (an SRQ moving its WQEs into a resized ring); the caller checked the room. */
    void postCopy(RecvWqe w) {
        ring.atTail().copyFrom(w);
        ring.advanceTail();
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
