package org.jrdma.iwarp.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * RDMA Read Request header flyweight (RFC 5040 §4.4), the 28 bytes after the untagged DDP header of an
 * RDMA Read Request (QN 1), wrapped at the ULPDU offset + {@link DdpHeader#UNTAGGED_LENGTH}; siw
 * {@code struct iwarp_rdma_rreq} after its DDP part. Big-endian.
 *
 * <pre>
 * bytes 0-3    Data Sink STag: where the Read Response is placed (the requester's rkey)
 * bytes 4-11   Data Sink Tagged Offset
 * bytes 12-15  RDMA Read Message Size, bytes (unsigned 32; 0 allowed: siw's peer-to-peer RTR Read)
 * bytes 16-19  Data Source STag: the responder's memory to read (its rkey)
 * bytes 20-27  Data Source Tagged Offset
 * </pre>
 *
 * A Read Request carries no payload: its ULPDU is exactly 46 bytes (siw-rping.pcap: ULPDU_Length 0x2e).
 * Setters write in place and return this. Not thread-safe.
 */
public final class ReadRequest {
    /** Length of the RDMAP Read Request header. */
    public static final int LENGTH = 28;

    private MemorySegment seg;
    private long off;

    /**
     * Points this flyweight at {@code seg[offset, offset+28)}.
     *
     * @return this
     */
    public ReadRequest wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** Data Sink STag. */
    public int sinkStag() {
        return Be.i32(seg, off);
    }

    /** Sets {@link #sinkStag()}. @return this */
    public ReadRequest sinkStag(int v) {
        Be.i32(seg, off, v);
        return this;
    }

    /** Data Sink Tagged Offset. */
    public long sinkTaggedOffset() {
        return Be.i64(seg, off + 4);
    }

    /** Sets {@link #sinkTaggedOffset()}. @return this */
    public ReadRequest sinkTaggedOffset(long v) {
        Be.i64(seg, off + 4, v);
        return this;
    }

    /** RDMA Read Message Size, bytes, as an unsigned 32-bit value in an int (use {@code & 0xffffffffL}). */
    public int readSize() {
        return Be.i32(seg, off + 12);
    }

    /** Sets {@link #readSize()}. @return this */
    public ReadRequest readSize(int v) {
        Be.i32(seg, off + 12, v);
        return this;
    }

    /** Data Source STag. */
    public int sourceStag() {
        return Be.i32(seg, off + 16);
    }

    /** Sets {@link #sourceStag()}. @return this */
    public ReadRequest sourceStag(int v) {
        Be.i32(seg, off + 16, v);
        return this;
    }

    /** Data Source Tagged Offset. */
    public long sourceTaggedOffset() {
        return Be.i64(seg, off + 20);
    }

    /** Sets {@link #sourceTaggedOffset()}. @return this */
    public ReadRequest sourceTaggedOffset(long v) {
        Be.i64(seg, off + 20, v);
        return this;
    }
}
