package org.jrdma.mad;

import java.lang.foreign.MemorySegment;

/**
 * CM APR message flyweight (AlternatePathResponse, attribute ID 0x001A; IBTA Vol 1 chapter 12, message contents table 116 as
 * numbered in Linux's {@code include/rdma/ibta_vol1_c12.h}), over a whole 256-byte MAD: {@link #wrap} takes the
 * MAD's first byte; the message follows the common header at {@value MadHeader#LENGTH}. Offsets below and in the
 * accessors' docs are the table's, from the start of the message (MAD offset minus 24).
 * Fields are big-endian; a bit offset counts from the most significant bit of its first byte, as the spec's
 * Byte[Bit] notation. Setters mask the value to the field's width and leave every other bit alone.
 *
 * <pre>
 * byte   0      32 bits  Local Communication ID
 * byte   4      32 bits  Remote Communication ID
 * byte   8       8 bits  Additional Information Length
 * byte   9       8 bits  AP Status
 * byte  12     576 bits  Additional Information
 * byte  84    1184 bits  PrivateData (148 bytes)
 * </pre>
 *
 * <p>Not thread-safe; allocation-free except the {@code byte[]} accessors.
 */
public final class CmApr {
    /** Attribute ID of the APR in the MAD header. */
    public static final int ATTRIBUTE_ID = 0x001A;
    /** Offset of the PrivateData from the start of the MAD, bytes. */
    public static final int PRIVATE_DATA_OFFSET = MadHeader.LENGTH + 84;
    /** Length of the PrivateData, bytes. */
    public static final int PRIVATE_DATA_LENGTH = 148;
    /** Length of the Additional Information, bytes. */
    public static final int ADDITIONAL_INFORMATION_LENGTH = 72;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at the MAD at {@code seg[offset, offset + 256)}. @return this */
    public CmApr wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /**
     * Zeroes the 256-byte MAD and writes the common header of a CM APR as Linux's {@code cm_format_mad_hdr}:
     * base version 1, class CM (0x07), class version 2, method Send, status 0, this attribute ID, the given TID.
     * @return this
     */
    public CmApr clear(long transactionId) {
        Bits.formatCm(seg, off, ATTRIBUTE_ID, transactionId);
        return this;
    }

    /** Local Communication ID: 32 bits at byte 0 (32 bits, as an int). */
    public int localCommId() {
        return Bits.get(seg, off + 24, 0, 32);
    }

    /** Sets {@link #localCommId()} (masked to 32 bits). @return this */
    public CmApr localCommId(int v) {
        Bits.set(seg, off + 24, 0, 32, v);
        return this;
    }

    /** Remote Communication ID: 32 bits at byte 4 (32 bits, as an int). */
    public int remoteCommId() {
        return Bits.get(seg, off + 28, 0, 32);
    }

    /** Sets {@link #remoteCommId()} (masked to 32 bits). @return this */
    public CmApr remoteCommId(int v) {
        Bits.set(seg, off + 28, 0, 32, v);
        return this;
    }

    /** Additional Information Length: 8 bits at byte 8 (0..0xff). */
    public int additionalInformationLength() {
        return Bits.get(seg, off + 32, 0, 8);
    }

    /** Sets {@link #additionalInformationLength()} (masked to 8 bits). @return this */
    public CmApr additionalInformationLength(int v) {
        Bits.set(seg, off + 32, 0, 8, v);
        return this;
    }

    /** AP Status (Cm.APR_*): 8 bits at byte 9 (0..0xff). */
    public int arStatus() {
        return Bits.get(seg, off + 33, 0, 8);
    }

    /** Sets {@link #arStatus()} (masked to 8 bits). @return this */
    public CmApr arStatus(int v) {
        Bits.set(seg, off + 33, 0, 8, v);
        return this;
    }

    /** Additional Information: 72 bytes at byte 12, copied into a new array. */
    public byte[] additionalInformation() {
        return Bits.bytes(seg, off + 36, 72);
    }

    /** Sets {@link #additionalInformation()}: copies {@code v} (at most 72 bytes) and zeroes the rest. @return this */
    public CmApr additionalInformation(byte[] v) {
        Bits.bytes(seg, off + 36, 72, v);
        return this;
    }

    /** PrivateData: 148 bytes at byte 84, copied into a new array. */
    public byte[] privateData() {
        return Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /**
     * Sets the PrivateData: copies {@code v} and zeroes the rest of the 148 bytes.
     * @throws IllegalArgumentException if {@code v} is longer than 148 bytes
     * @return this
     */
    public CmApr privateData(byte[] v) {
        Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, v);
        return this;
    }

    /** The PrivateData in place: a slice of the wrapped segment (148 bytes, no copy). */
    public MemorySegment privateDataSegment() {
        return seg.asSlice(off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }
}
