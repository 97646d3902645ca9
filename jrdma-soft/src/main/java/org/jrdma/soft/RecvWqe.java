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
}
