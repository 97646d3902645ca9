package org.jrdma.soft;

import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.Sge;

/** A receive queue entry: a copy of a posted {@link RecvWr}. Pre-allocated per slot; reused. */
public final class RecvWqe {
    public long wrId;
    public int numSge;
    public final long[] sgeAddr;
    public final int[] sgeLength;
    public final int[] sgeLkey;
    public final SoftMr[] sgeMr;
    /** Total capacity, bytes. */
    public long length;
    public boolean resolved;

    public RecvWqe(int maxSge) {
        sgeAddr = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeLkey = new int[maxSge];
        sgeMr = new SoftMr[maxSge];
    }

    public void copyFrom(RecvWr wr) {
        wrId = wr.wrId();
        numSge = wr.numSge();
        Sge[] sges = wr.sgList();
        long total = 0;
        for (int i = 0; i < numSge; i++) {
            sgeAddr[i] = sges[i].addr();
            sgeLength[i] = sges[i].length();
            sgeLkey[i] = sges[i].lkey();
            sgeMr[i] = null;
            total += sges[i].length() & 0xFFFFFFFFL;
        }
        length = total;
        resolved = false;
    }

    /** Copies another WQE (an SRQ's, taken by a QP, or moved into a resized SRQ); unresolved again. */
    public void copyFrom(RecvWqe w) {
        wrId = w.wrId;
        numSge = w.numSge;
        System.arraycopy(w.sgeAddr, 0, sgeAddr, 0, numSge);
        System.arraycopy(w.sgeLength, 0, sgeLength, 0, numSge);
        System.arraycopy(w.sgeLkey, 0, sgeLkey, 0, numSge);
        java.util.Arrays.fill(sgeMr, 0, numSge, null);
        length = w.length;
        resolved = false;
    }
}
