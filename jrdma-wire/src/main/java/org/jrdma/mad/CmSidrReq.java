package org.jrdma.mad;

import java.lang.foreign.MemorySegment;

/**
 * CM SIDR_REQ message flyweight (ServiceIDResReq, attribute ID 0x0017; IBTA Vol 1 chapter 12, message contents table 119 as
 * numbered in Linux's {@code include/rdma/ibta_vol1_c12.h}), over a whole 256-byte MAD: {@link #wrap} takes the
 * MAD's first byte; the message follows the common header at {@value MadHeader#LENGTH}. Offsets below and in the
 * accessors' docs are the table's, from the start of the message (MAD offset minus 24).
 * Fields are big-endian; a bit offset counts from the most significant bit of its first byte, as the spec's
 * Byte[Bit] notation. Setters mask the value to the field's width and leave every other bit alone.
 *
 * <pre>
 * byte   0      32 bits  Request ID
 * byte   4      16 bits  Partition Key
 * byte   8      64 bits  ServiceID
 * byte  16    1728 bits  PrivateData (216 bytes)
 * </pre>
 *
 * <p>Not thread-safe; allocation-free except the {@code byte[]} accessors.
 */
public final class CmSidrReq {
    /** Attribute ID of the SIDR_REQ in the MAD header. */
    public static final int ATTRIBUTE_ID = 0x0017;
    /** Offset of the PrivateData from the start of the MAD, bytes. */
    public static final int PRIVATE_DATA_OFFSET = MadHeader.LENGTH + 16;
    /** Length of the PrivateData, bytes. */
    public static final int PRIVATE_DATA_LENGTH = 216;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at the MAD at {@code seg[offset, offset + 256)}. @return this */
    public CmSidrReq wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /**
     * Zeroes the 256-byte MAD and writes the common header of a CM SIDR_REQ as Linux's {@code cm_format_mad_hdr}:
     * base version 1, class CM (0x07), class version 2, method Send, status 0, this attribute ID, the given TID.
     * @return this
     */
    public CmSidrReq clear(long transactionId) {
        Bits.formatCm(seg, off, ATTRIBUTE_ID, transactionId);
        return this;
    }

    /** Request ID: 32 bits at byte 0 (32 bits, as an int). */
    public int requestId() {
        return Bits.get(seg, off + 24, 0, 32);
    }

    /** Sets {@link #requestId()} (masked to 32 bits). @return this */
    public CmSidrReq requestId(int v) {
        Bits.set(seg, off + 24, 0, 32, v);
        return this;
    }

    /** Partition Key: 16 bits at byte 4 (0..0xffff). */
    public int partitionKey() {
        return Bits.get(seg, off + 28, 0, 16);
    }

    /** Sets {@link #partitionKey()} (masked to 16 bits). @return this */
    public CmSidrReq partitionKey(int v) {
        Bits.set(seg, off + 28, 0, 16, v);
        return this;
    }

    /** ServiceID: 64 bits at byte 8. */
    public long serviceId() {
        return Bits.u64(seg, off + 32);
    }

    /** Sets {@link #serviceId()}. @return this */
    public CmSidrReq serviceId(long v) {
        Bits.u64(seg, off + 32, v);
        return this;
    }

    /** PrivateData: 216 bytes at byte 16, copied into a new array. */
    public byte[] privateData() {
        return Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /**
     * Sets the PrivateData: copies {@code v} and zeroes the rest of the 216 bytes.
     * @throws IllegalArgumentException if {@code v} is longer than 216 bytes
     * @return this
     */
    public CmSidrReq privateData(byte[] v) {
        Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, v);
        return this;
    }

    /** The PrivateData in place: a slice of the wrapped segment (216 bytes, no copy). */
    public MemorySegment privateDataSegment() {
        return seg.asSlice(off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }
}
