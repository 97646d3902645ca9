package org.jrdma.mad;

import java.lang.foreign.MemorySegment;

/**
 * CM SIDR_REP message flyweight (ServiceIDResResp, attribute ID 0x0018; IBTA Vol 1 chapter 12, message contents table 120 as
 * numbered in Linux's {@code include/rdma/ibta_vol1_c12.h}), over a whole 256-byte MAD: {@link #wrap} takes the
 * MAD's first byte; the message follows the common header at {@value MadHeader#LENGTH}. Offsets below and in the
 * accessors' docs are the table's, from the start of the message (MAD offset minus 24).
 * Fields are big-endian; a bit offset counts from the most significant bit of its first byte, as the spec's
 * Byte[Bit] notation. Setters mask the value to the field's width and leave every other bit alone.
 *
 * <pre>
 * byte   0      32 bits  Request ID
 * byte   4       8 bits  Status
 * byte   5       8 bits  Additional Information Length
 * byte   8      24 bits  QPN
 * byte  12      64 bits  ServiceID
 * byte  20      32 bits  Q_Key
 * byte  24     576 bits  Additional Information
 * byte  96    1088 bits  PrivateData (136 bytes)
 * </pre>
 *
 * <p>Not thread-safe; allocation-free except the {@code byte[]} accessors.
 */
public final class CmSidrRep {
    /** Attribute ID of the SIDR_REP in the MAD header. */
    public static final int ATTRIBUTE_ID = 0x0018;
    /** Offset of the PrivateData from the start of the MAD, bytes. */
    public static final int PRIVATE_DATA_OFFSET = MadHeader.LENGTH + 96;
    /** Length of the PrivateData, bytes. */
    public static final int PRIVATE_DATA_LENGTH = 136;
    /** Length of the Additional Information, bytes. */
    public static final int ADDITIONAL_INFORMATION_LENGTH = 72;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at the MAD at {@code seg[offset, offset + 256)}. @return this */
    public CmSidrRep wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /**
     * Zeroes the 256-byte MAD and writes the common header of a CM SIDR_REP as Linux's {@code cm_format_mad_hdr}:
     * base version 1, class CM (0x07), class version 2, method Send, status 0, this attribute ID, the given TID.
     * @return this
     */
    public CmSidrRep clear(long transactionId) {
        Bits.formatCm(seg, off, ATTRIBUTE_ID, transactionId);
        return this;
    }

    /** Request ID: 32 bits at byte 0 (32 bits, as an int). */
    public int requestId() {
        return Bits.get(seg, off + 24, 0, 32);
    }

    /** Sets {@link #requestId()} (masked to 32 bits). @return this */
    public CmSidrRep requestId(int v) {
        Bits.set(seg, off + 24, 0, 32, v);
        return this;
    }

    /** Status (Cm.SIDR_*): 8 bits at byte 4 (0..0xff). */
    public int status() {
        return Bits.get(seg, off + 28, 0, 8);
    }

    /** Sets {@link #status()} (masked to 8 bits). @return this */
    public CmSidrRep status(int v) {
        Bits.set(seg, off + 28, 0, 8, v);
        return this;
    }

    /** Additional Information Length: 8 bits at byte 5 (0..0xff). */
    public int additionalInformationLength() {
        return Bits.get(seg, off + 29, 0, 8);
    }

    /** Sets {@link #additionalInformationLength()} (masked to 8 bits). @return this */
    public CmSidrRep additionalInformationLength(int v) {
        Bits.set(seg, off + 29, 0, 8, v);
        return this;
    }

    /** QPN: 24 bits at byte 8 (0..0xffffff). */
    public int qpn() {
        return Bits.get(seg, off + 32, 0, 24);
    }

    /** Sets {@link #qpn()} (masked to 24 bits). @return this */
    public CmSidrRep qpn(int v) {
        Bits.set(seg, off + 32, 0, 24, v);
        return this;
    }

    /** ServiceID: 64 bits at byte 12. */
    public long serviceId() {
        return Bits.u64(seg, off + 36);
    }

    /** Sets {@link #serviceId()}. @return this */
    public CmSidrRep serviceId(long v) {
        Bits.u64(seg, off + 36, v);
        return this;
    }

    /** Q_Key: 32 bits at byte 20 (32 bits, as an int). */
    public int qKey() {
        return Bits.get(seg, off + 44, 0, 32);
    }

    /** Sets {@link #qKey()} (masked to 32 bits). @return this */
    public CmSidrRep qKey(int v) {
        Bits.set(seg, off + 44, 0, 32, v);
        return this;
    }

    /** Additional Information: 72 bytes at byte 24, copied into a new array. */
    public byte[] additionalInformation() {
        return Bits.bytes(seg, off + 48, 72);
    }

    /** Sets {@link #additionalInformation()}: copies {@code v} (at most 72 bytes) and zeroes the rest. @return this */
    public CmSidrRep additionalInformation(byte[] v) {
        Bits.bytes(seg, off + 48, 72, v);
        return this;
    }

    /** VendorID (IBTA 1.4, ECE): 24 bits, the high 16 at byte 6, the low 8 at byte 11. */
    public int vendorId() {
        return Bits.get(seg, off + 30, 0, 16) << 8 | Bits.get(seg, off + 35, 0, 8);
    }

    /** Sets {@link #vendorId()} (masked to 24 bits). @return this */
    public CmSidrRep vendorId(int v) {
        Bits.set(seg, off + 30, 0, 16, v >>> 8);
        Bits.set(seg, off + 35, 0, 8, v);
        return this;
    }

    /** PrivateData: 136 bytes at byte 96, copied into a new array. */
    public byte[] privateData() {
        return Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /**
     * Sets the PrivateData: copies {@code v} and zeroes the rest of the 136 bytes.
     * @throws IllegalArgumentException if {@code v} is longer than 136 bytes
     * @return this
     */
    public CmSidrRep privateData(byte[] v) {
        Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, v);
        return this;
    }

    /** The PrivateData in place: a slice of the wrapped segment (136 bytes, no copy). */
    public MemorySegment privateDataSegment() {
        return seg.asSlice(off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }
}
