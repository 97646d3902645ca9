package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.jrdma.ibverbs.bind.IbvLayouts.SEND_WR;
import static org.jrdma.ibverbs.bind.IbvLayouts.SGE;
import static org.jrdma.ibverbs.bind.IbvLayouts.SGE_ADDR_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SGE_LENGTH_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SGE_LKEY_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_ATOMIC_COMPARE_ADD_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_ATOMIC_REMOTE_ADDR_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_ATOMIC_RKEY_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_ATOMIC_SWAP_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_IMM_DATA_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_NEXT_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_NUM_SGE_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_OPCODE_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_RDMA_REMOTE_ADDR_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_RDMA_RKEY_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_SEND_FLAGS_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_SG_LIST_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_UD_AH_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_UD_REMOTE_QKEY_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_UD_REMOTE_QPN_OFF;
import static org.jrdma.ibverbs.bind.IbvLayouts.SWR_WR_ID_OFF;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;

/**
 * Preallocated {@code struct ibv_send_wr}s with their {@code struct ibv_sge} lists: a chain of
 * {@link SendWr}s is written into them (each SGE checked against its MR first) and handed to the
 * provider's {@code post_send} as one linked list. Nothing is allocated per post. Not thread-safe: its
 * QP's send lock guards it.
 */
final class NativeSendWrs {
    final MemorySegment wrs;
    private final MemorySegment sges;
    private final int maxWr;
    private final int maxSge;
    private final MrTable mrs;
    private final int qpType;

    /** {@code qpType}: IBV_QPT_* ({@code QpType.value()}); UD work requests carry an AH. */
    NativeSendWrs(Arena arena, int maxWr, int maxSge, MrTable mrs, int qpType) {
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.mrs = mrs;
        this.qpType = qpType;
        this.wrs = arena.allocate(SEND_WR.byteSize() * maxWr, SEND_WR.byteAlignment());
        this.sges = arena.allocate(SGE.byteSize() * (long) maxWr * maxSge, SGE.byteAlignment());
    }

    int capacity() {
        return maxWr;
    }

    /**
     * Writes {@code head} and up to {@code capacity() - 1} WRs linked after it.
     *
     * @return the number written; the last one's {@code next} is NULL
     * @throws VerbsException EINVAL for a WR the driver must not see (too many SGEs, an SGE outside its
     *                        MR, a UD WR without a native AH), EOPNOTSUPP for an opcode only the extended
     *                        API carries
     */
    int write(SendWr head) {
        int n = 0;
        for (SendWr wr = head; wr != null && n < maxWr; wr = wr.next(), n++) {
            long w = SEND_WR.byteSize() * n;
            int numSge = wr.numSge();
            if (numSge < 0 || numSge > maxSge) {
                throw new VerbsException(Errno.EINVAL, "ibv_post_send: wr " + n + " num_sge " + numSge
                        + " is above the QP's max_send_sge " + maxSge);
            }
            Sge[] list = wr.sgList();
            long sgeBase = SGE.byteSize() * ((long) n * maxSge);
            for (int i = 0; i < numSge; i++) {
                Sge sge = list[i];
                if (sge == null) {
                    throw new VerbsException(Errno.EINVAL, "ibv_post_send: wr " + n + " sg_list[" + i + "] is null");
                }
                mrs.check(sge.addr(), sge.length(), sge.lkey(), "ibv_post_send", n, i);
                long s = sgeBase + SGE.byteSize() * i;
                sges.set(JAVA_LONG, s + SGE_ADDR_OFF, sge.addr());
                sges.set(JAVA_INT, s + SGE_LENGTH_OFF, sge.length());
                sges.set(JAVA_INT, s + SGE_LKEY_OFF, sge.lkey());
            }
            wrs.set(JAVA_LONG, w + SWR_WR_ID_OFF, wr.wrId());
            wrs.set(JAVA_LONG, w + SWR_SG_LIST_OFF, numSge == 0 ? 0L : sges.address() + sgeBase);
            wrs.set(JAVA_INT, w + SWR_NUM_SGE_OFF, numSge);
            wrs.set(JAVA_INT, w + SWR_SEND_FLAGS_OFF, wr.sendFlags());
            wrs.set(JAVA_LONG, w + SWR_NEXT_OFF, 0L);
            if (n > 0) {
                wrs.set(JAVA_LONG, w - SEND_WR.byteSize() + SWR_NEXT_OFF, wrs.address() + w);
            }
            if (wr.opcode() == null) {
                throw new VerbsException(Errno.EINVAL, "ibv_post_send: wr " + n + " has no opcode");
            }
            wrs.set(JAVA_INT, w + SWR_OPCODE_OFF, wr.opcode().value());
            switch (wr.opcode()) {
                case RDMA_WRITE, RDMA_READ -> rdma(w, wr);
                case RDMA_WRITE_WITH_IMM -> {
                    rdma(w, wr);
                    wrs.set(JAVA_INT, w + SWR_IMM_DATA_OFF, Integer.reverseBytes(wr.immData()));
                }
                case SEND -> wrs.set(JAVA_INT, w + SWR_IMM_DATA_OFF, 0);
                case SEND_WITH_IMM -> wrs.set(JAVA_INT, w + SWR_IMM_DATA_OFF, Integer.reverseBytes(wr.immData()));
                case SEND_WITH_INV, LOCAL_INV -> wrs.set(JAVA_INT, w + SWR_IMM_DATA_OFF, wr.invalidateRkey());
                case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> {
                    wrs.set(JAVA_LONG, w + SWR_ATOMIC_REMOTE_ADDR_OFF, wr.remoteAddr());
                    wrs.set(JAVA_LONG, w + SWR_ATOMIC_COMPARE_ADD_OFF, wr.compareAdd());
                    wrs.set(JAVA_LONG, w + SWR_ATOMIC_SWAP_OFF, wr.swap());
                    wrs.set(JAVA_INT, w + SWR_ATOMIC_RKEY_OFF, wr.rkey());
                }
                default -> throw new VerbsException(Errno.EOPNOTSUPP, "ibv_post_send: wr " + n + " opcode "
                        + wr.opcode() + " is not offered by the native provider through ibv_post_send");
            }
            if (qpType == org.jrdma.verbs.QpType.UD.value()) {
                if (!(wr.ah() instanceof IbvAh ah)) {
                    throw new VerbsException(Errno.EINVAL, "ibv_post_send: UD wr " + n
                            + " has no address handle of the native provider (wr.ud.ah)");
                }
                wrs.set(JAVA_LONG, w + SWR_UD_AH_OFF, ah.ah.address());
                wrs.set(JAVA_INT, w + SWR_UD_REMOTE_QPN_OFF, wr.remoteQpn());
                wrs.set(JAVA_INT, w + SWR_UD_REMOTE_QKEY_OFF, wr.remoteQkey());
            }
        }
        return n;
    }

    private void rdma(long w, SendWr wr) {
        wrs.set(JAVA_LONG, w + SWR_RDMA_REMOTE_ADDR_OFF, wr.remoteAddr());
        wrs.set(JAVA_INT, w + SWR_RDMA_RKEY_OFF, wr.rkey());
    }

    /** The index of the WR {@code bad} points at ({@code *bad_wr}), or -1. */
    int indexOf(long bad) {
        long off = bad - wrs.address();
        return off < 0 || off >= wrs.byteSize() ? -1 : (int) (off / SEND_WR.byteSize());
    }
}
