package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.jrdma.ibverbs.bind.IbvLayouts.RECV_WR;
import static org.jrdma.ibverbs.bind.IbvLayouts.RWR_NEXT_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.RWR_NUM_SGE_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.RWR_SG_LIST_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.RWR_WR_ID_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SGE;
import static org.jrdma.ibverbs.bind.IbvLayouts.SGE_ADDR_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SGE_LENGTH_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SGE_LKEY_OFF;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;

/**
 * Preallocated {@code struct ibv_recv_wr}s and their SGE lists ({@link NativeSendWrs}' counterpart for
 * {@code post_recv}): each SGE is checked against its MR, nothing is allocated per post. Not
 * thread-safe: its QP's receive lock guards it.
 */
final class NativeRecvWrs {
    final MemorySegment wrs;
    private final MemorySegment sges;
    private final int maxWr;
    private final int maxSge;
    private final MrTable mrs;

    NativeRecvWrs(Arena arena, int maxWr, int maxSge, MrTable mrs) {
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.mrs = mrs;
        this.wrs = arena.allocate(RECV_WR.byteSize() * maxWr, RECV_WR.byteAlignment());
        this.sges = arena.allocate(SGE.byteSize() * (long) maxWr * maxSge, SGE.byteAlignment());
    }

    int capacity() {
        return maxWr;
    }

    /** As {@link NativeSendWrs#write}, for a receive chain. */
    int write(RecvWr head) {
        int n = 0;
        for (RecvWr wr = head; wr != null && n < maxWr; wr = wr.next(), n++) {
            long w = RECV_WR.byteSize() * n;
            int numSge = wr.numSge();
            if (numSge < 0 || numSge > maxSge) {
                throw new VerbsException(Errno.EINVAL, "ibv_post_recv: wr " + n + " num_sge " + numSge
                        + " is above the QP's max_recv_sge " + maxSge);
            }
            Sge[] list = wr.sgList();
            long sgeBase = SGE.byteSize() * ((long) n * maxSge);
            for (int i = 0; i < numSge; i++) {
                Sge sge = list[i];
                if (sge == null) {
                    throw new VerbsException(Errno.EINVAL, "ibv_post_recv: wr " + n + " sg_list[" + i + "] is null");
                }
                mrs.check(sge.addr(), sge.length(), sge.lkey(), "ibv_post_recv", n, i);
                long s = sgeBase + SGE.byteSize() * i;
                sges.set(JAVA_LONG, s + SGE_ADDR_OFF, sge.addr());
                sges.set(JAVA_INT, s + SGE_LENGTH_OFF, sge.length());
                sges.set(JAVA_INT, s + SGE_LKEY_OFF, sge.lkey());
            }
            wrs.set(JAVA_LONG, w + RWR_WR_ID_OFF, wr.wrId());
            wrs.set(JAVA_LONG, w + RWR_SG_LIST_OFF, numSge == 0 ? 0L : sges.address() + sgeBase);
            wrs.set(JAVA_INT, w + RWR_NUM_SGE_OFF, numSge);
            wrs.set(JAVA_LONG, w + RWR_NEXT_OFF, 0L);
            if (n > 0) {
                wrs.set(JAVA_LONG, w - RECV_WR.byteSize() + RWR_NEXT_OFF, wrs.address() + w);
            }
        }
        return n;
    }

    /** The index of the WR {@code bad} points at, or -1. */
    int indexOf(long bad) {
        long off = bad - wrs.address();
        return off < 0 || off >= wrs.byteSize() ? -1 : (int) (off / RECV_WR.byteSize());
    }
}
