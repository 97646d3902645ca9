package org.jrdma.iwarp.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * The IRD/ORD block of RFC 6581 enhanced connection establishment (§5: "Enhanced MPA Request/Reply
 * Frame"), the first 4 bytes of the private data of an MPA revision 2 frame with siw's Enhanced flag
 * ({@code struct mpa_v2_data} in siw's {@code iwarp.h}):
 *
 * <pre>
 * bytes 0-1   A = peer-to-peer (0x8000) | Z = zero-length RTR (0x4000) | IRD (14 bits)
 * bytes 2-3   W = RDMA Write RTR (0x8000) | R = RDMA Read RTR (0x4000)  | ORD (14 bits)
 * </pre>
 *
 * <p>siw ({@code siw_proc_mpareq}, {@code siw_proc_mpareply}): the responder takes the initiator's ORD as its
 * IRD and the initiator's IRD as its ORD, each clamped to its maxima, and answers with them; if the initiator
 * set peer-to-peer, the responder sets it too and picks W if the request had W, else R if it had R, else W
 * ("writes are preferred"; a Send as RTR is not supported). The initiator then sends a zero-length RDMA
 * Write (STag 1, TO 0) or zero-length Read as the RTR frame. An initiator whose IRD is below the reply's ORD,
 * or ORD above the reply's IRD, sends a Terminate (LLP, MPA, {@link TerminateCodes#LLP_INSUFFICIENT_IRD});
 * one whose RTR choices the reply does not pick sends {@link TerminateCodes#LLP_NO_MATCHING_RTR}. siw's
 * default is not peer-to-peer: the captures carry {@code 0001 0001} (rping) and {@code 0000 0000} or
 * {@code 0080 0080} (perftest), no flag bits.
 *
 * <p>Setters write in place and return this. Not thread-safe.
 */
public final class MpaIrdOrd {
    /** Length of the block. */
    public static final int LENGTH = 4;
    /** The IRD and ORD fields' width mask ({@code MPA_IRD_ORD_MASK}). */
    public static final int IRD_ORD_MASK = 0x3fff;
    /** Bit of the IRD word: peer-to-peer mode ({@code MPA_V2_PEER_TO_PEER}). */
    public static final int PEER_TO_PEER = 0x8000;
    /** Bit of the IRD word: zero-length RTR ({@code MPA_V2_ZERO_LENGTH_RTR}). */
    public static final int ZERO_LENGTH_RTR = 0x4000;
    /** Bit of the ORD word: an RDMA Write is the RTR frame ({@code MPA_V2_RDMA_WRITE_RTR}). */
    public static final int RDMA_WRITE_RTR = 0x8000;
    /** Bit of the ORD word: an RDMA Read is the RTR frame ({@code MPA_V2_RDMA_READ_RTR}). */
    public static final int RDMA_READ_RTR = 0x4000;

    private MemorySegment seg;
    private long off;

    /**
     * Points this flyweight at the block at {@code seg[offset, offset+4)}, normally
     * {@link MpaFrame#privateDataOffset()}.
     *
     * @return this
     */
    public MpaIrdOrd wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** IRD, 0..16383: inbound RDMA Read requests the sender can have outstanding as responder. */
    public int ird() {
        return Be.u16(seg, off) & IRD_ORD_MASK;
    }

    /** Sets IRD (masked to 14 bits), keeping the flag bits. @return this */
    public MpaIrdOrd ird(int v) {
        Be.u16(seg, off, (Be.u16(seg, off) & ~IRD_ORD_MASK) | (v & IRD_ORD_MASK));
        return this;
    }

    /** ORD, 0..16383: outbound RDMA Read requests the sender wants to have outstanding. */
    public int ord() {
        return Be.u16(seg, off + 2) & IRD_ORD_MASK;
    }

    /** Sets ORD (masked to 14 bits), keeping the flag bits. @return this */
    public MpaIrdOrd ord(int v) {
        Be.u16(seg, off + 2, (Be.u16(seg, off + 2) & ~IRD_ORD_MASK) | (v & IRD_ORD_MASK));
        return this;
    }

    /** The whole IRD word (flags and IRD). */
    public int irdWord() {
        return Be.u16(seg, off);
    }

    /** Sets the whole IRD word. @return this */
    public MpaIrdOrd irdWord(int v) {
        Be.u16(seg, off, v);
        return this;
    }

    /** The whole ORD word (flags and ORD). */
    public int ordWord() {
        return Be.u16(seg, off + 2);
    }

    /** Sets the whole ORD word. @return this */
    public MpaIrdOrd ordWord(int v) {
        Be.u16(seg, off + 2, v);
        return this;
    }

    /** A: peer-to-peer mode (an RTR frame will follow the reply). */
    public boolean peerToPeer() {
        return (irdWord() & PEER_TO_PEER) != 0;
    }

    /** Sets {@link #peerToPeer()}. @return this */
    public MpaIrdOrd peerToPeer(boolean v) {
        return irdWord(v ? irdWord() | PEER_TO_PEER : irdWord() & ~PEER_TO_PEER);
    }

    /** Z: zero-length RTR. */
    public boolean zeroLengthRtr() {
        return (irdWord() & ZERO_LENGTH_RTR) != 0;
    }

    /** Sets {@link #zeroLengthRtr()}. @return this */
    public MpaIrdOrd zeroLengthRtr(boolean v) {
        return irdWord(v ? irdWord() | ZERO_LENGTH_RTR : irdWord() & ~ZERO_LENGTH_RTR);
    }

    /** W: an RDMA Write is (or may be) the RTR frame. */
    public boolean writeRtr() {
        return (ordWord() & RDMA_WRITE_RTR) != 0;
    }

    /** Sets {@link #writeRtr()}. @return this */
    public MpaIrdOrd writeRtr(boolean v) {
        return ordWord(v ? ordWord() | RDMA_WRITE_RTR : ordWord() & ~RDMA_WRITE_RTR);
    }

    /** R: an RDMA Read is (or may be) the RTR frame. */
    public boolean readRtr() {
        return (ordWord() & RDMA_READ_RTR) != 0;
    }

    /** Sets {@link #readRtr()}. @return this */
    public MpaIrdOrd readRtr(boolean v) {
        return ordWord(v ? ordWord() | RDMA_READ_RTR : ordWord() & ~RDMA_READ_RTR);
    }
}
