package org.jrdma.mad;

import java.lang.foreign.MemorySegment;

/**
 * CM LAP message flyweight (LoadAlternatePath, attribute ID 0x0019; IBTA Vol 1 chapter 12, message contents table 115 as
 * numbered in Linux's {@code include/rdma/ibta_vol1_c12.h}), over a whole 256-byte MAD: {@link #wrap} takes the
 * MAD's first byte; the message follows the common header at {@value MadHeader#LENGTH}. Offsets below and in the
 * accessors' docs are the table's, from the start of the message (MAD offset minus 24).
 * Fields are big-endian; a bit offset counts from the most significant bit of its first byte, as the spec's
 * Byte[Bit] notation. Setters mask the value to the field's width and leave every other bit alone.
 *
 * <pre>
 * byte   0      32 bits  Local Communication ID
 * byte   4      32 bits  Remote Communication ID
 * byte  12      24 bits  Remote QPN/EECN
 * byte  15       5 bits  Remote CM Response Timeout
 * byte  20      16 bits  Alternate Local Port LID
 * byte  22      16 bits  Alternate Remote Port LID
 * byte  24     128 bits  Alternate Local Port GID
 * byte  40     128 bits  Alternate Remote Port GID
 * byte  56      20 bits  Alternate Flow Label
 * byte  59       8 bits  Alternate Traffic Class
 * byte  60       8 bits  Alternate Hop Limit
 * byte  61.2     6 bits  Alternate Packet Rate
 * byte  62       4 bits  Alternate SL
 * byte  62.4     1 bits  Alternate Subnet Local
 * byte  63       5 bits  Alternate Local ACK Timeout
 * byte  64    1344 bits  PrivateData (168 bytes)
 * </pre>
 *
 * <p>Not thread-safe; allocation-free except the {@code byte[]} accessors.
 */
public final class CmLap {
    /** Attribute ID of the LAP in the MAD header. */
    public static final int ATTRIBUTE_ID = 0x0019;
    /** Offset of the PrivateData from the start of the MAD, bytes. */
    public static final int PRIVATE_DATA_OFFSET = MadHeader.LENGTH + 64;
    /** Length of the PrivateData, bytes. */
    public static final int PRIVATE_DATA_LENGTH = 168;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at the MAD at {@code seg[offset, offset + 256)}. @return this */
    public CmLap wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /**
     * Zeroes the 256-byte MAD and writes the common header of a CM LAP as Linux's {@code cm_format_mad_hdr}:
     * base version 1, class CM (0x07), class version 2, method Send, status 0, this attribute ID, the given TID.
     * @return this
     */
    public CmLap clear(long transactionId) {
        Bits.formatCm(seg, off, ATTRIBUTE_ID, transactionId);
        return this;
    }

    /** Local Communication ID: 32 bits at byte 0 (32 bits, as an int). */
    public int localCommId() {
        return Bits.get(seg, off + 24, 0, 32);
    }

    /** Sets {@link #localCommId()} (masked to 32 bits). @return this */
    public CmLap localCommId(int v) {
        Bits.set(seg, off + 24, 0, 32, v);
        return this;
    }

    /** Remote Communication ID: 32 bits at byte 4 (32 bits, as an int). */
    public int remoteCommId() {
        return Bits.get(seg, off + 28, 0, 32);
    }

    /** Sets {@link #remoteCommId()} (masked to 32 bits). @return this */
    public CmLap remoteCommId(int v) {
        Bits.set(seg, off + 28, 0, 32, v);
        return this;
    }

    /** Remote QPN/EECN: 24 bits at byte 12 (0..0xffffff). */
    public int remoteQpnEecn() {
        return Bits.get(seg, off + 36, 0, 24);
    }

    /** Sets {@link #remoteQpnEecn()} (masked to 24 bits). @return this */
    public CmLap remoteQpnEecn(int v) {
        Bits.set(seg, off + 36, 0, 24, v);
        return this;
    }

    /** Remote CM Response Timeout: 5 bits at byte 15 (0..0x1f). */
    public int remoteCmResponseTimeout() {
        return Bits.get(seg, off + 39, 0, 5);
    }

    /** Sets {@link #remoteCmResponseTimeout()} (masked to 5 bits). @return this */
    public CmLap remoteCmResponseTimeout(int v) {
        Bits.set(seg, off + 39, 0, 5, v);
        return this;
    }

    /** Alternate Local Port LID: 16 bits at byte 20 (0..0xffff). */
    public int alternateLocalPortLid() {
        return Bits.get(seg, off + 44, 0, 16);
    }

    /** Sets {@link #alternateLocalPortLid()} (masked to 16 bits). @return this */
    public CmLap alternateLocalPortLid(int v) {
        Bits.set(seg, off + 44, 0, 16, v);
        return this;
    }

    /** Alternate Remote Port LID: 16 bits at byte 22 (0..0xffff). */
    public int alternateRemotePortLid() {
        return Bits.get(seg, off + 46, 0, 16);
    }

    /** Sets {@link #alternateRemotePortLid()} (masked to 16 bits). @return this */
    public CmLap alternateRemotePortLid(int v) {
        Bits.set(seg, off + 46, 0, 16, v);
        return this;
    }

    /** Alternate Local Port GID: 16 bytes at byte 24, copied into a new array. */
    public byte[] alternateLocalPortGid() {
        return Bits.bytes(seg, off + 48, 16);
    }

    /** Sets {@link #alternateLocalPortGid()}: copies {@code v} (at most 16 bytes) and zeroes the rest. @return this */
    public CmLap alternateLocalPortGid(byte[] v) {
        Bits.bytes(seg, off + 48, 16, v);
        return this;
    }

    /** Alternate Remote Port GID: 16 bytes at byte 40, copied into a new array. */
    public byte[] alternateRemotePortGid() {
        return Bits.bytes(seg, off + 64, 16);
    }

    /** Sets {@link #alternateRemotePortGid()}: copies {@code v} (at most 16 bytes) and zeroes the rest. @return this */
    public CmLap alternateRemotePortGid(byte[] v) {
        Bits.bytes(seg, off + 64, 16, v);
        return this;
    }

    /** Alternate Flow Label: 20 bits at byte 56 (0..0xfffff). */
    public int alternateFlowLabel() {
        return Bits.get(seg, off + 80, 0, 20);
    }

    /** Sets {@link #alternateFlowLabel()} (masked to 20 bits). @return this */
    public CmLap alternateFlowLabel(int v) {
        Bits.set(seg, off + 80, 0, 20, v);
        return this;
    }

    /** Alternate Traffic Class: 8 bits at byte 59 (0..0xff). */
    public int alternateTrafficClass() {
        return Bits.get(seg, off + 83, 0, 8);
    }

    /** Sets {@link #alternateTrafficClass()} (masked to 8 bits). @return this */
    public CmLap alternateTrafficClass(int v) {
        Bits.set(seg, off + 83, 0, 8, v);
        return this;
    }

    /** Alternate Hop Limit: 8 bits at byte 60 (0..0xff). */
    public int alternateHopLimit() {
        return Bits.get(seg, off + 84, 0, 8);
    }

    /** Sets {@link #alternateHopLimit()} (masked to 8 bits). @return this */
    public CmLap alternateHopLimit(int v) {
        Bits.set(seg, off + 84, 0, 8, v);
        return this;
    }

    /** Alternate Packet Rate: 6 bits at byte 61 bit 2 (0..0x3f). */
    public int alternatePacketRate() {
        return Bits.get(seg, off + 85, 2, 6);
    }

    /** Sets {@link #alternatePacketRate()} (masked to 6 bits). @return this */
    public CmLap alternatePacketRate(int v) {
        Bits.set(seg, off + 85, 2, 6, v);
        return this;
    }

    /** Alternate SL: 4 bits at byte 62 (0..0xf). */
    public int alternateSl() {
        return Bits.get(seg, off + 86, 0, 4);
    }

    /** Sets {@link #alternateSl()} (masked to 4 bits). @return this */
    public CmLap alternateSl(int v) {
        Bits.set(seg, off + 86, 0, 4, v);
        return this;
    }

    /** Alternate Subnet Local: bit 4 of byte 62. */
    public boolean alternateSubnetLocal() {
        return Bits.get(seg, off + 86, 4, 1) != 0;
    }

    /** Sets {@link #alternateSubnetLocal()}. @return this */
    public CmLap alternateSubnetLocal(boolean v) {
        Bits.set(seg, off + 86, 4, 1, v ? 1 : 0);
        return this;
    }

    /** Alternate Local ACK Timeout: 5 bits at byte 63 (0..0x1f). */
    public int alternateLocalAckTimeout() {
        return Bits.get(seg, off + 87, 0, 5);
    }

    /** Sets {@link #alternateLocalAckTimeout()} (masked to 5 bits). @return this */
    public CmLap alternateLocalAckTimeout(int v) {
        Bits.set(seg, off + 87, 0, 5, v);
        return this;
    }

    /** PrivateData: 168 bytes at byte 64, copied into a new array. */
    public byte[] privateData() {
        return Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /**
     * Sets the PrivateData: copies {@code v} and zeroes the rest of the 168 bytes.
     * @throws IllegalArgumentException if {@code v} is longer than 168 bytes
     * @return this
     */
    public CmLap privateData(byte[] v) {
        Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, v);
        return this;
    }

    /** The PrivateData in place: a slice of the wrapped segment (168 bytes, no copy). */
    public MemorySegment privateDataSegment() {
        return seg.asSlice(off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }
}
