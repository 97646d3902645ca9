package org.jrdma.mad;

import java.lang.foreign.MemorySegment;

/**
 * CM MRA message flyweight (MsgRcptAck, attribute ID 0x0011; IBTA Vol 1 chapter 12, message contents table 107 as
 * numbered in Linux's {@code include/rdma/ibta_vol1_c12.h}), over a whole 256-byte MAD: {@link #wrap} takes the
 * MAD's first byte; the message follows the common header at {@value MadHeader#LENGTH}. Offsets below and in the
 * accessors' docs are the table's, from the start of the message (MAD offset minus 24).
 * Fields are big-endian; a bit offset counts from the most significant bit of its first byte, as the spec's
 * Byte[Bit] notation. Setters mask the value to the field's width and leave every other bit alone.
 *
 * <pre>
 * byte   0      32 bits  Local Communication ID
 * byte   4      32 bits  Remote Communication ID
 * byte   8       2 bits  Message MRAed
 * byte   9       5 bits  Service Timeout
 * byte  10    1776 bits  PrivateData (222 bytes)
 * </pre>
 *
 * <p>Not thread-safe; allocation-free except the {@code byte[]} accessors.
 */
public final class CmMra {
    /** Attribute ID of the MRA in the MAD header. */
    public static final int ATTRIBUTE_ID = 0x0011;
    /** Offset of the PrivateData from the start of the MAD, bytes. */
    public static final int PRIVATE_DATA_OFFSET = MadHeader.LENGTH + 10;
    /** Length of the PrivateData, bytes. */
    public static final int PRIVATE_DATA_LENGTH = 222;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at the MAD at {@code seg[offset, offset + 256)}. @return this */
    public CmMra wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /**
     * Zeroes the 256-byte MAD and writes the common header of a CM MRA as Linux's {@code cm_format_mad_hdr}:
     * base version 1, class CM (0x07), class version 2, method Send, status 0, this attribute ID, the given TID.
     * @return this
     */
    public CmMra clear(long transactionId) {
        Bits.formatCm(seg, off, ATTRIBUTE_ID, transactionId);
        return this;
    }

    /** Local Communication ID: 32 bits at byte 0 (32 bits, as an int). */
    public int localCommId() {
        return Bits.get(seg, off + 24, 0, 32);
    }

    /** Sets {@link #localCommId()} (masked to 32 bits). @return this */
    public CmMra localCommId(int v) {
        Bits.set(seg, off + 24, 0, 32, v);
        return this;
    }

    /** Remote Communication ID: 32 bits at byte 4 (32 bits, as an int). */
    public int remoteCommId() {
        return Bits.get(seg, off + 28, 0, 32);
    }

    /** Sets {@link #remoteCommId()} (masked to 32 bits). @return this */
    public CmMra remoteCommId(int v) {
        Bits.set(seg, off + 28, 0, 32, v);
        return this;
    }

    /** Message MRAed (Cm.MRA_REQ 0, Cm.MRA_REP 1, Cm.MRA_LAP 2): 2 bits at byte 8 (0..0x3). */
    public int messageMraed() {
        return Bits.get(seg, off + 32, 0, 2);
    }

    /** Sets {@link #messageMraed()} (masked to 2 bits). @return this */
    public CmMra messageMraed(int v) {
        Bits.set(seg, off + 32, 0, 2, v);
        return this;
    }

    /** Service Timeout (4.096 us x 2^value): 5 bits at byte 9 (0..0x1f). */
    public int serviceTimeout() {
        return Bits.get(seg, off + 33, 0, 5);
    }

    /** Sets {@link #serviceTimeout()} (masked to 5 bits). @return this */
    public CmMra serviceTimeout(int v) {
        Bits.set(seg, off + 33, 0, 5, v);
        return this;
    }

    /** PrivateData: 222 bytes at byte 10, copied into a new array. */
    public byte[] privateData() {
        return Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /**
     * Sets the PrivateData: copies {@code v} and zeroes the rest of the 222 bytes.
     * @throws IllegalArgumentException if {@code v} is longer than 222 bytes
     * @return this
     */
    public CmMra privateData(byte[] v) {
        Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, v);
        return this;
    }

    /** The PrivateData in place: a slice of the wrapped segment (222 bytes, no copy). */
    public MemorySegment privateDataSegment() {
        return seg.asSlice(off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }
}
