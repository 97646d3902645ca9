package org.jrdma.soft;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jrdma.verbs.AhAttr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.WrOpcode;

/**
 * A send queue entry: a copy of a posted {@link SendWr} (the WR itself may be reused at once) and
 * the execution state a transport keeps for it. Pre-allocated per queue slot; reused.
 */
public class SendWqe {
    /** Creates the WQE of one send queue slot (a transport may add its execution state in a subclass). */
    @FunctionalInterface
    public interface Factory {
        SendWqe create(int maxSge, int maxInlineData);
    }

    public long wrId;
    public WrOpcode opcode;
    public int sendFlags;
    public int numSge;
    public final long[] sgeAddr;
    public final int[] sgeLength;
    public final int[] sgeLkey;
    /** The regions of the SGEs, resolved when the WQE starts executing. */
    public final SoftMr[] sgeMr;
    public int immData;
    public long remoteAddr;
    public int rkey;
    public long compareAdd;
    public long swap;
    /** ATOMIC_WRITE: the 8 bytes to write, in host byte order ({@link SendWr#atomicWriteValue()}). */
    public long atomicWriteValue;
    /** FLUSH: bytes of the range, placement type and selectivity level ({@link SendWr#flush}). */
    public long flushLength;
    public int flushType;
    public int flushLevel;
    public final AhAttr udAv = new AhAttr();
    public int remoteQpn;
    public int remoteQkey;
    /** LOCAL_INV: the key to invalidate; SEND_WITH_INV: the rkey its IETH carries. */
    public int invalidateRkey;
    /** BIND_MW: the window, the new rkey (its low byte counts), the region, range and rights. */
    public SoftMw bindMw;
    public int bindRkey;
    public SoftMr bindMr;
    public long bindAddr;
    public long bindLength;
    public int bindAccess;
    /** Total message length, bytes. */
    public long length;
    /** Inline data copied at post time (when {@link SendFlags#INLINE}). */
    public final MemorySegment inline;
    public boolean isInline;
    /** True once the SGEs were resolved ({@link SendQueue#resolve}). */
    public boolean resolved;

    public SendWqe(int maxSge, int maxInline) {
        sgeAddr = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeLkey = new int[maxSge];
        sgeMr = new SoftMr[maxSge];
        inline = maxInline > 0 ? Arena.ofAuto().allocate(maxInline, 8) : MemorySegment.NULL;
    }

    /** True when the WR asked for a completion or the QP signals all. */
    public boolean signaled(boolean sqSigAll) {
        return sqSigAll || (sendFlags & SendFlags.SIGNALED) != 0;
    }

    /** Copies the WR (not its chain). Inline data is gathered by the caller. */
    public void copyFrom(SendWr wr) {
        wrId = wr.wrId();
        opcode = wr.opcode();
        sendFlags = wr.sendFlags();
        numSge = wr.numSge();
        long total = 0;
        Sge[] sges = wr.sgList();
        for (int i = 0; i < numSge; i++) {
            Sge s = sges[i];
            sgeAddr[i] = s.addr();
            sgeLength[i] = s.length();
            sgeLkey[i] = s.lkey();
            sgeMr[i] = null;
            total += s.length() & 0xFFFFFFFFL;
        }
        length = total;
        immData = wr.immData();
        remoteAddr = wr.remoteAddr();
        rkey = wr.rkey();
        compareAdd = wr.compareAdd();
        swap = wr.swap();
        atomicWriteValue = wr.atomicWriteValue();
        flushLength = wr.flushLength();
        flushType = wr.flushType();
        flushLevel = wr.flushLevel();
        if (wr.ah() instanceof SoftAh ah) {
            udAv.copyFrom(ah.av());
        }
        remoteQpn = wr.remoteQpn();
        remoteQkey = wr.remoteQkey();
        invalidateRkey = wr.invalidateRkey();
        if (opcode == WrOpcode.BIND_MW) {
            bindMw = (SoftMw) wr.mw(); // SendQueue.check checked the types
            bindRkey = wr.bindRkey();
            bindMr = (SoftMr) wr.bindInfo().mr();
            bindAddr = wr.bindInfo().addr();
            bindLength = wr.bindInfo().length();
            bindAccess = wr.bindInfo().mwAccessFlags();
        } else {
            bindMw = null;
            bindMr = null;
        }
        isInline = false;
        resolved = false;
        resetTransportState();
    }

    /** Called on every post: subclasses clear their execution state. */
    protected void resetTransportState() {
    }
}
