package org.jrdma.iwarp.wire;

import java.lang.foreign.MemorySegment;
import org.jrdma.wire.internal.Be;

/**
 * RDMAP Terminate header flyweight (RFC 5040 §4.8), the bytes after the untagged DDP header (QN 2) of a
 * Terminate message, wrapped at the ULPDU offset + {@link DdpHeader#UNTAGGED_LENGTH}:
 *
 * <pre>
 * bytes 0-3    Terminate Control: Layer (4) | EType (4) | Error Code (8) | HdrCt: M D R (3) | Rsvd (13)
 * bytes 4-5    DDP Segment Length of the segment in error       (present when M or D is set)
 * bytes 6..    the Terminated DDP Header (14 tagged, 18 untagged) (valid when D)
 * then         the Terminated RDMA Header: a Read Request's 28 bytes (valid when R)
 * </pre>
 *
 * <p><b>Byte layout of the control word.</b> RFC 5040 puts Layer in the high nibble of byte 0, EType in its low
 * nibble, the Error Code in byte 1 and M, D, R in bits 0x80, 0x40, 0x20 of byte 2 ({@link #RFC_5040}). Linux
 * siw declares the word as C bit-fields in the order {@code layer:4, etype:4, ecode:8, flag_m:1, flag_d:1,
 * flag_r:1} under {@code __LITTLE_ENDIAN_BITFIELD} ({@code struct iwarp_terminate}, {@code iwarp.h}) and
 * fills it through them; on x86 (GCC allocates bit-fields from the least significant bit) that puts Layer in
 * the <i>low</i> nibble of byte 0, EType in the high nibble and M, D, R in bits 0x01, 0x02, 0x04 of byte 2
 * ({@link #SIW_X86}); the Error Code byte is the same in both. Checked by compiling the same declaration with
 * GCC 12.2 (Debian 12, the lab kernel's compiler family) for x86-64: layer 1, etype 2, ecode 3, M and D give
 * the bytes {@code 21 03 03 00} (RFC 5040: {@code 12 03 c0 00}). Not yet seen on the wire: the reference
 * captures hold no Terminate. Getters and setters use the layout chosen with {@link #layout(int)}; the
 * default is {@link #RFC_5040}.
 *
 * <p>siw ({@code siw_send_terminate}) sends QN 2, MSN 1, MO 0, L set, and: for DDP-layer errors M and D with
 * the failed segment's DDP header; for RDMAP remote protection errors M, D and R with its DDP + RDMAP header
 * (a Read Request's 46 bytes, else an untagged header); for other non-catastrophic RDMAP errors (except
 * version and opcode errors) M and D; for LLP errors and catastrophic ones no copied header. siw's
 * "DDP Segment Length" is the failed segment's ULPDU_Length minus its DDP/RDMAP header (the payload length).
 *
 * <p>Setters write in place and return this. Not thread-safe.
 */
public final class Terminate {
    /** Length of the Terminate Control word. */
    public static final int CONTROL_LENGTH = 4;
    /** Length of the DDP Segment Length field after the control word. */
    public static final int SEGMENT_LENGTH_LENGTH = 2;
    /** Control-word layout of RFC 5040 §4.8 (network bit order). */
    public static final int RFC_5040 = 0;
    /** Control-word layout of Linux siw's bit-fields compiled for little-endian x86 (see the class comment). */
    public static final int SIW_X86 = 1;

    private MemorySegment seg;
    private long off;
    private int layout = RFC_5040;

    /**
     * Points this flyweight at the Terminate header at {@code seg[offset, ...)}.
     *
     * @return this
     */
    public Terminate wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** The control-word layout in use: {@link #RFC_5040} (default) or {@link #SIW_X86}. */
    public int layout() {
        return layout;
    }

    /**
     * Chooses the control-word layout for the getters and setters.
     *
     * @param layout {@link #RFC_5040} or {@link #SIW_X86}
     * @return this
     * @throws IllegalArgumentException for another value
     */
    public Terminate layout(int layout) {
        if (layout != RFC_5040 && layout != SIW_X86) {
            throw new IllegalArgumentException("layout must be RFC_5040 (0) or SIW_X86 (1): " + layout);
        }
        this.layout = layout;
        return this;
    }

    /** The 32-bit control word as it is in the bytes (big-endian). */
    public int controlWord() {
        return Be.i32(seg, off);
    }

    /** Sets the control word as bytes (big-endian). @return this */
    public Terminate controlWord(int v) {
        Be.i32(seg, off, v);
        return this;
    }

    /** Layer, 0..15 ({@link TerminateCodes#LAYER_RDMAP}, {@code _DDP}, {@code _LLP}). */
    public int layer() {
        int b = Be.u8(seg, off);
        return layout == RFC_5040 ? b >>> 4 : b & 0xf;
    }

    /** Sets {@link #layer()} (masked to 4 bits). @return this */
    public Terminate layer(int v) {
        int b = Be.u8(seg, off);
        Be.u8(seg, off, layout == RFC_5040 ? (b & 0x0f) | (v & 0xf) << 4 : (b & 0xf0) | (v & 0xf));
        return this;
    }

    /** EType, the error type 0..15 within the layer. */
    public int etype() {
        int b = Be.u8(seg, off);
        return layout == RFC_5040 ? b & 0xf : b >>> 4;
    }

    /** Sets {@link #etype()} (masked to 4 bits). @return this */
    public Terminate etype(int v) {
        int b = Be.u8(seg, off);
        Be.u8(seg, off, layout == RFC_5040 ? (b & 0xf0) | (v & 0xf) : (b & 0x0f) | (v & 0xf) << 4);
        return this;
    }

    /** Error Code, 0..255. */
    public int errorCode() {
        return Be.u8(seg, off + 1);
    }

    /** Sets {@link #errorCode()}. @return this */
    public Terminate errorCode(int v) {
        Be.u8(seg, off + 1, v);
        return this;
    }

    /** Writes layer, type and code of a {@link TerminateCodes#pack}ed triple. @return this */
    public Terminate codes(int packed) {
        return layer(TerminateCodes.layer(packed)).etype(TerminateCodes.etype(packed)).errorCode(TerminateCodes.ecode(packed));
    }

    private int mask(int rfcBit, int siwBit) {
        return layout == RFC_5040 ? rfcBit : siwBit;
    }

    /** M: the DDP Segment Length field is valid. */
    public boolean segmentLengthValid() {
        return (Be.u8(seg, off + 2) & mask(0x80, 0x01)) != 0;
    }

    /** Sets {@link #segmentLengthValid()}. @return this */
    public Terminate segmentLengthValid(boolean v) {
        Be.bit(seg, off + 2, mask(0x80, 0x01), v);
        return this;
    }

    /** D: the Terminated DDP Header is present. */
    public boolean ddpHeaderIncluded() {
        return (Be.u8(seg, off + 2) & mask(0x40, 0x02)) != 0;
    }

    /** Sets {@link #ddpHeaderIncluded()}. @return this */
    public Terminate ddpHeaderIncluded(boolean v) {
        Be.bit(seg, off + 2, mask(0x40, 0x02), v);
        return this;
    }

    /** R: the Terminated RDMA Header is present. */
    public boolean rdmaHeaderIncluded() {
        return (Be.u8(seg, off + 2) & mask(0x20, 0x04)) != 0;
    }

    /** Sets {@link #rdmaHeaderIncluded()}. @return this */
    public Terminate rdmaHeaderIncluded(boolean v) {
        Be.bit(seg, off + 2, mask(0x20, 0x04), v);
        return this;
    }

    /** The DDP Segment Length field, 16 bits (meaningful when {@link #segmentLengthValid()}). */
    public int ddpSegmentLength() {
        return Be.u16(seg, off + CONTROL_LENGTH);
    }

    /** Sets {@link #ddpSegmentLength()}. @return this */
    public Terminate ddpSegmentLength(int v) {
        Be.u16(seg, off + CONTROL_LENGTH, v);
        return this;
    }

    /** Offset in {@link #segment()} of the Terminated DDP Header: {@code offset() + 6}. */
    public long terminatedDdpHeaderOffset() {
        return off + CONTROL_LENGTH + SEGMENT_LENGTH_LENGTH;
    }

    /**
     * Offset of the Terminated RDMA Header: after the terminated DDP header, whose length its T bit gives
     * (14 or 18). Reads the copied DDP header's first byte.
     */
    public long terminatedRdmaHeaderOffset() {
        long d = terminatedDdpHeaderOffset();
        boolean tagged = (Be.u8(seg, d) & DdpHeader.FLAG_TAGGED) != 0;
        return d + (tagged ? DdpHeader.TAGGED_LENGTH : DdpHeader.UNTAGGED_LENGTH);
    }

    /** The wrapped segment. */
    public MemorySegment segment() {
        return seg;
    }

    /** The offset of the Terminate header in {@link #segment()}. */
    public long offset() {
        return off;
    }
}
