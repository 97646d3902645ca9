package org.jrdma.iwarp.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * DDP segment header flyweight (RFC 5041 §4, with the RDMAP control byte of RFC 5040 §4.1 in its RsvdULP
 * byte), wrapped at the first ULPDU byte of an FPDU (the FPDU's offset + 2). Big-endian. Tagged (T = 1,
 * 14 bytes, RFC 5041 §4.2) and untagged (T = 0, 18 bytes, §4.3):
 *
 * <pre>
 * byte 0       T (0x80) tagged | L (0x40) last | Rsvd (4) | DV (2) DDP version = 1
 * byte 1       RDMAP control: RV (2) RDMAP version = 1 | Rsvd (2) | Opcode (4)   ({@link RdmapOpcode})
 * tagged:
 * bytes 2-5    STag: the data sink's steering tag (the MR's or MW's rkey)
 * bytes 6-13   TO: tagged offset (64), the sink address of this segment's first payload byte
 * untagged:
 * bytes 2-5    RsvdULP: 0, or the Invalidate STag of Send with (SE and) Invalidate (RFC 5040 §4.3)
 * bytes 6-9    QN: queue number (0 Send, 1 Read Request, 2 Terminate)
 * bytes 10-13  MSN: message sequence number of the queue, 1 for the first message (RFC 5041 §5.3)
 * bytes 14-17  MO: message offset of this segment's first payload byte
 * </pre>
 *
 * siw sends 0x43 / 0x41 / 0x47 (untagged L, DV 1, RV 1, opcode) and 0xc0 / 0xc2 (tagged L) in the first two
 * bytes (reference captures); DDP_MASK_RESERVED (0x3c of byte 0) and RDMAP_MASK_RESERVED (0x30 of byte 1)
 * are sent as 0. Accessors of the other kind's fields read whatever is there. Setters write in place and
 * return this. Not thread-safe.
 */
public final class DdpHeader {
    /** Length of a tagged DDP header (with the RDMAP control byte). */
    public static final int TAGGED_LENGTH = 14;
    /** Length of an untagged DDP header (with the RDMAP control byte). */
    public static final int UNTAGGED_LENGTH = 18;
    /** The DDP version (DV): 1 (RFC 5041 §4.1; siw {@code DDP_VERSION}). */
    public static final int DDP_VERSION = 1;
    /** Untagged queue of the Sends (RFC 5040 §5.1; siw RDMAP_UNTAGGED_QN_SEND). */
    public static final int QN_SEND = 0;
    /** Untagged queue of RDMA Read Requests (RDMAP_UNTAGGED_QN_RDMA_READ). */
    public static final int QN_READ_REQUEST = 1;
    /** Untagged queue of Terminate (RDMAP_UNTAGGED_QN_TERMINATE). */
    public static final int QN_TERMINATE = 2;
    /** Number of untagged queues RDMAP uses. */
    public static final int QN_COUNT = 3;
    /** Byte 0 flag T: tagged. */
    public static final int FLAG_TAGGED = 0x80;
    /** Byte 0 flag L: last segment of the message. */
    public static final int FLAG_LAST = 0x40;

    private MemorySegment seg;
    private long off;

    /**
     * Points this flyweight at the DDP header at {@code seg[offset, ...)}.
     *
     * @return this
     */
    public DdpHeader wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** The wrapped segment. */
    public MemorySegment segment() {
        return seg;
    }

    /** The offset of the header in {@link #segment()}. */
    public long offset() {
        return off;
    }

    /**
     * Writes the two control bytes at once: T from the opcode ({@link RdmapOpcode#isTagged}), L, DV = 1,
     * RV = 1, reserved bits 0.
     *
     * @param opcode 0..7
     * @return this
     */
    public DdpHeader control(int opcode, boolean last) {
        int b0 = (RdmapOpcode.isTagged(opcode) ? FLAG_TAGGED : 0) | (last ? FLAG_LAST : 0) | DDP_VERSION;
        int b1 = (RdmapOpcode.RDMAP_VERSION << 6) | (opcode & 0xf);
        Be.u16(seg, off, (b0 << 8) | b1);
        return this;
    }

    /** The two control bytes as one big-endian 16-bit value (siw's {@code ddp_rdmap_ctrl}). */
    public int controlWord() {
        return Be.u16(seg, off);
    }

    /** T: a tagged segment. */
    public boolean tagged() {
        return (Be.u8(seg, off) & FLAG_TAGGED) != 0;
    }

    /** Sets {@link #tagged()}. @return this */
    public DdpHeader tagged(boolean v) {
        Be.bit(seg, off, FLAG_TAGGED, v);
        return this;
    }

    /** L: the last segment of a message. */
    public boolean last() {
        return (Be.u8(seg, off) & FLAG_LAST) != 0;
    }

    /** Sets {@link #last()}. @return this */
    public DdpHeader last(boolean v) {
        Be.bit(seg, off, FLAG_LAST, v);
        return this;
    }

    /** The four reserved bits of byte 0 (0x3c), shifted down; 0 on the wire. */
    public int ddpReserved() {
        return (Be.u8(seg, off) >>> 2) & 0xf;
    }

    /** DV, the DDP version 0..3 (1). */
    public int ddpVersion() {
        return Be.u8(seg, off) & 0x3;
    }

    /** Sets {@link #ddpVersion()} (masked to 2 bits). @return this */
    public DdpHeader ddpVersion(int v) {
        Be.u8(seg, off, (Be.u8(seg, off) & ~0x3) | (v & 0x3));
        return this;
    }

    /** Byte 1 whole: the RDMAP control byte (DDP's first RsvdULP byte). */
    public int rdmapControl() {
        return Be.u8(seg, off + 1);
    }

    /** RV, the RDMAP version 0..3 (1). */
    public int rdmapVersion() {
        return Be.u8(seg, off + 1) >>> 6;
    }

    /** Sets {@link #rdmapVersion()} (masked to 2 bits). @return this */
    public DdpHeader rdmapVersion(int v) {
        Be.u8(seg, off + 1, (Be.u8(seg, off + 1) & 0x3f) | ((v & 0x3) << 6));
        return this;
    }

    /** The two reserved bits of the RDMAP control byte (0x30), shifted down; 0 on the wire. */
    public int rdmapReserved() {
        return (Be.u8(seg, off + 1) >>> 4) & 0x3;
    }

    /** The RDMAP opcode 0..15 ({@link RdmapOpcode}; 8..15 reserved). */
    public int opcode() {
        return Be.u8(seg, off + 1) & 0xf;
    }

    /** Sets {@link #opcode()} (masked to 4 bits). @return this */
    public DdpHeader opcode(int v) {
        Be.u8(seg, off + 1, (Be.u8(seg, off + 1) & ~0xf) | (v & 0xf));
        return this;
    }

    /** {@link #TAGGED_LENGTH} or {@link #UNTAGGED_LENGTH} by {@link #tagged()}. */
    public int length() {
        return tagged() ? TAGGED_LENGTH : UNTAGGED_LENGTH;
    }

    // ---- tagged ------------------------------------------------------------------------------

    /** Tagged: the STag, 32 bits. */
    public int stag() {
        return Be.i32(seg, off + 2);
    }

    /** Sets {@link #stag()}. @return this */
    public DdpHeader stag(int v) {
        Be.i32(seg, off + 2, v);
        return this;
    }

    /** Tagged: the tagged offset TO, 64 bits. */
    public long taggedOffset() {
        return Be.i64(seg, off + 6);
    }

    /** Sets {@link #taggedOffset()}. @return this */
    public DdpHeader taggedOffset(long v) {
        Be.i64(seg, off + 6, v);
        return this;
    }

    // ---- untagged ----------------------------------------------------------------------------

    /** Untagged: the 32-bit RsvdULP word; the Invalidate STag of the Send with Invalidate opcodes. */
    public int rsvdUlp() {
        return Be.i32(seg, off + 2);
    }

    /** Sets {@link #rsvdUlp()}. @return this */
    public DdpHeader rsvdUlp(int v) {
        Be.i32(seg, off + 2, v);
        return this;
    }

    /** Untagged, Send with (SE and) Invalidate: the STag to invalidate (RFC 5040 §4.3) = {@link #rsvdUlp()}. */
    public int invalidateStag() {
        return rsvdUlp();
    }

    /** Sets {@link #invalidateStag()}. @return this */
    public DdpHeader invalidateStag(int v) {
        return rsvdUlp(v);
    }

    /** Untagged: QN, queue number, 32 bits (unsigned in the RFC; 0..2 used). */
    public int queueNumber() {
        return Be.i32(seg, off + 6);
    }

    /** Sets {@link #queueNumber()}. @return this */
    public DdpHeader queueNumber(int v) {
        Be.i32(seg, off + 6, v);
        return this;
    }

    /** Untagged: MSN, message sequence number, 32 bits (wraps; 1 is the first message of a queue). */
    public int msn() {
        return Be.i32(seg, off + 10);
    }

    /** Sets {@link #msn()}. @return this */
    public DdpHeader msn(int v) {
        Be.i32(seg, off + 10, v);
        return this;
    }

    /** Untagged: MO, message offset in bytes, 32 bits. */
    public int messageOffset() {
        return Be.i32(seg, off + 14);
    }

    /** Sets {@link #messageOffset()}. @return this */
    public DdpHeader messageOffset(int v) {
        Be.i32(seg, off + 14, v);
        return this;
    }
}
