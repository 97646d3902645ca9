package org.jrdma.soft;

import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcStatus;

/**
 * Local memory as the queues see it: lkey resolution and the copies between a WQE's SGEs and a
 * buffer. Memory whose Arena was closed under a live region is treated as a protection error
 * ({@link WcStatus#LOC_PROT_ERR}), also when it closes during a copy.
 */
final class LocalMemory {
    private LocalMemory() {
    }

    /**
     * The region of {@code pd} named by {@code lkey} that holds [addr, addr + length) with the
     * access {@code required}, or null (unknown key, other PD, deregistered, memory freed, out of
     * bounds, missing access).
     */
    static SoftMr lookup(SoftPd pd, int lkey, long addr, int length, int required) {
        SoftMr mr = pd.softContext().resources().mrs.get(lkey);
        if (mr == null || mr.softPd() != pd || !mr.isValid() || !mr.isAccessible()
                || mr.offsetOf(addr, length & 0xFFFFFFFFL) < 0 || !mr.allows(required)) {
            return null;
        }
        return mr;
    }

    /** Resolves {@code n} SGEs into {@code mrs}. @return SUCCESS or LOC_PROT_ERR */
    static WcStatus resolve(SoftPd pd, int n, long[] addr, int[] length, int[] lkey, SoftMr[] mrs, boolean localWrite) {
        int required = localWrite ? AccessFlags.LOCAL_WRITE : 0;
        for (int i = 0; i < n; i++) {
            if (length[i] == 0) {
                continue;
            }
            SoftMr mr = lookup(pd, lkey[i], addr[i], length[i], required);
            if (mr == null) {
                return WcStatus.LOC_PROT_ERR;
            }
            mrs[i] = mr;
        }
        return WcStatus.SUCCESS;
    }

    /**
     * Copies {@code len} bytes of resolved SGEs, from message offset {@code msgOff}, into {@code dst}.
     *
     * @return false when a region's memory was freed (its Arena closed) during the copy, or the region
     *     was reregistered to memory that no longer holds the SGE
     */
    static boolean gather(int n, long[] addr, int[] length, SoftMr[] mrs, long msgOff, MemorySegment dst, long dstOff,
                          int len) {
        return copy(n, addr, length, mrs, msgOff, dst, dstOff, len, false);
    }

    /**
     * Copies {@code len} bytes from {@code src} into resolved SGEs, from message offset {@code msgOff}.
     *
     * @return false when a region's memory was freed (its Arena closed) during the copy
     */
    static boolean scatter(int n, long[] addr, int[] length, SoftMr[] mrs, long msgOff, MemorySegment src, long srcOff,
                           int len) {
        return copy(n, addr, length, mrs, msgOff, src, srcOff, len, true);
    }

    /** Walks the SGEs from message offset {@code msgOff} and copies {@code len} bytes to ({@code intoSges}) or from them. */
    private static boolean copy(int n, long[] addr, int[] length, SoftMr[] mrs, long msgOff, MemorySegment buf,
                                long bufOff, int len, boolean intoSges) {
        try {
            long skip = msgOff;
            for (int i = 0; len > 0 && i < n; i++) {
                long sl = length[i];
                if (skip >= sl) {
                    skip -= sl;
                    continue;
                }
                int k = (int) Math.min(len, sl - skip);
                // one translation for the bounds and the copy: ibv_rereg_mr may swap it at any time
                SoftMr.Translation t = mrs[i].translation();
                long sgeOff = t.offsetOf(addr[i] + skip, k);
                if (sgeOff < 0) {
                    return false; // the region was reregistered elsewhere since the SGE was resolved
                }
                if (intoSges) {
                    MemorySegment.copy(buf, bufOff, t.segment(), sgeOff, k);
                } else {
                    MemorySegment.copy(t.segment(), sgeOff, buf, bufOff, k);
                }
                bufOff += k;
                len -= k;
                skip = 0;
            }
            return true;
        } catch (IllegalStateException closed) {
            return false;
        }
    }

    /**
     * Checks a gather/scatter list at post time: {@code numSge} in 0..min(max, list length) and the
     * total length (each SGE's is 0..2^31-1, {@link Sge#length(int)}) at most {@link SoftLimits#MAX_MSG_SIZE} (IBTA's largest message; rxe's
     * {@code validate_send_wr} and {@code post_one_recv} refuse more with EINVAL).
     *
     * @return the total length, bytes
     * @throws org.jrdma.verbs.VerbsException EINVAL
     */
    static long checkSgList(Sge[] sges, int numSge, int maxSge, String kind) {
        // if statements, not require(...): the messages must not be built on the data path
        if (numSge < 0 || numSge > maxSge || numSge > sges.length) {
            throw new VerbsException(Errno.EINVAL, "num_sge " + numSge + " above max_" + kind + "_sge " + maxSge);
        }
        long total = 0;
        for (int i = 0; i < numSge; i++) {
            total += sges[i].length(); // 0..2^31-1: Sge refuses other lengths
        }
        if (total > SoftLimits.MAX_MSG_SIZE) {
            throw new VerbsException(Errno.EINVAL, "message of " + total + " bytes above the largest message ("
                    + SoftLimits.MAX_MSG_SIZE + " bytes)");
        }
        return total;
    }
}
