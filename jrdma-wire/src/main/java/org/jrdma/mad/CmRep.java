package org.jrdma.mad;

import java.lang.foreign.MemorySegment;

/**
 * CM REP message flyweight (ConnectReply, attribute ID 0x0013; IBTA Vol 1 chapter 12, message contents table 110 as
 * numbered in Linux's {@code include/rdma/ibta_vol1_c12.h}), over a whole 256-byte MAD: {@link #wrap} takes the
 * MAD's first byte; the message follows the common header at {@value MadHeader#LENGTH}. Offsets below and in the
 * accessors' docs are the table's, from the start of the message (MAD offset minus 24).
 * Fields are big-endian; a bit offset counts from the most significant bit of its first byte, as the spec's
 * Byte[Bit] notation. Setters mask the value to the field's width and leave every other bit alone.
 *
 * <pre>
 * byte   0      32 bits  Local Communication ID
 * byte   4      32 bits  Remote Communication ID
 * byte   8      32 bits  Local Q_Key
 * byte  12      24 bits  Local QPN
 * byte  16      24 bits  Local EE Context Number
 * byte  20      24 bits  Starting PSN
 * byte  24       8 bits  Responder Resources
 * byte  25       8 bits  Initiator Depth
 * byte  26       5 bits  Target ACK Delay
 * byte  26.5     2 bits  Failover Accepted
 * byte  26.7     1 bits  End-to-End Flow Control
 * byte  27       3 bits  RNR Retry Count
 * byte  27.3     1 bits  SRQ
 * byte  28      64 bits  Local CA GUID
 * byte  36    1568 bits  PrivateData (196 bytes)
 * </pre>
 *
 * <p>Not thread-safe; allocation-free except the {@code byte[]} accessors.
 */
public final class CmRep {
    /** Attribute ID of the REP in the MAD header. */
    public static final int ATTRIBUTE_ID = 0x0013;
    /** Offset of the PrivateData from the start of the MAD, bytes. */
    public static final int PRIVATE_DATA_OFFSET = MadHeader.LENGTH + 36;
    /** Length of the PrivateData, bytes. */
    public static final int PRIVATE_DATA_LENGTH = 196;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at the MAD at {@code seg[offset, offset + 256)}. @return this */
    public CmRep wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /**
     * Zeroes the 256-byte MAD and writes the common header of a CM REP as Linux's {@code cm_format_mad_hdr}:
     * base version 1, class CM (0x07), class version 2, method Send, status 0, this attribute ID, the given TID.
     * @return this
     */
    public CmRep clear(long transactionId) {
        Bits.formatCm(seg, off, ATTRIBUTE_ID, transactionId);
        return this;
    }

    /** Local Communication ID: 32 bits at byte 0 (32 bits, as an int). */
    public int localCommId() {
        return Bits.get(seg, off + 24, 0, 32);
    }

    /** Sets {@link #localCommId()} (masked to 32 bits). @return this */
    public CmRep localCommId(int v) {
        Bits.set(seg, off + 24, 0, 32, v);
        return this;
    }

    /** Remote Communication ID: 32 bits at byte 4 (32 bits, as an int). */
    public int remoteCommId() {
        return Bits.get(seg, off + 28, 0, 32);
    }

    /** Sets {@link #remoteCommId()} (masked to 32 bits). @return this */
    public CmRep remoteCommId(int v) {
        Bits.set(seg, off + 28, 0, 32, v);
        return this;
    }

    /** Local Q_Key: 32 bits at byte 8 (32 bits, as an int). */
    public int localQKey() {
        return Bits.get(seg, off + 32, 0, 32);
    }

    /** Sets {@link #localQKey()} (masked to 32 bits). @return this */
    public CmRep localQKey(int v) {
        Bits.set(seg, off + 32, 0, 32, v);
        return this;
    }

    /** Local QPN: 24 bits at byte 12 (0..0xffffff). */
    public int localQpn() {
        return Bits.get(seg, off + 36, 0, 24);
    }

    /** Sets {@link #localQpn()} (masked to 24 bits). @return this */
    public CmRep localQpn(int v) {
        Bits.set(seg, off + 36, 0, 24, v);
        return this;
    }

    /** Local EE Context Number: 24 bits at byte 16 (0..0xffffff). */
    public int localEeContextNumber() {
        return Bits.get(seg, off + 40, 0, 24);
    }

    /** Sets {@link #localEeContextNumber()} (masked to 24 bits). @return this */
    public CmRep localEeContextNumber(int v) {
        Bits.set(seg, off + 40, 0, 24, v);
        return this;
    }

    /** Starting PSN: 24 bits at byte 20 (0..0xffffff). */
    public int startingPsn() {
        return Bits.get(seg, off + 44, 0, 24);
    }

    /** Sets {@link #startingPsn()} (masked to 24 bits). @return this */
    public CmRep startingPsn(int v) {
        Bits.set(seg, off + 44, 0, 24, v);
        return this;
    }

    /** Responder Resources: 8 bits at byte 24 (0..0xff). */
    public int responderResources() {
        return Bits.get(seg, off + 48, 0, 8);
    }

    /** Sets {@link #responderResources()} (masked to 8 bits). @return this */
    public CmRep responderResources(int v) {
        Bits.set(seg, off + 48, 0, 8, v);
        return this;
    }

    /** Initiator Depth: 8 bits at byte 25 (0..0xff). */
    public int initiatorDepth() {
        return Bits.get(seg, off + 49, 0, 8);
    }

    /** Sets {@link #initiatorDepth()} (masked to 8 bits). @return this */
    public CmRep initiatorDepth(int v) {
        Bits.set(seg, off + 49, 0, 8, v);
        return this;
    }

    /** Target ACK Delay (4.096 us x 2^value): 5 bits at byte 26 (0..0x1f). */
    public int targetAckDelay() {
        return Bits.get(seg, off + 50, 0, 5);
    }

    /** Sets {@link #targetAckDelay()} (masked to 5 bits). @return this */
    public CmRep targetAckDelay(int v) {
        Bits.set(seg, off + 50, 0, 5, v);
        return this;
    }

    /** Failover Accepted: 2 bits at byte 26 bit 5 (0..0x3). */
    public int failoverAccepted() {
        return Bits.get(seg, off + 50, 5, 2);
    }

    /** Sets {@link #failoverAccepted()} (masked to 2 bits). @return this */
    public CmRep failoverAccepted(int v) {
        Bits.set(seg, off + 50, 5, 2, v);
        return this;
    }

    /** End-to-End Flow Control: bit 7 of byte 26. */
    public boolean endToEndFlowControl() {
        return Bits.get(seg, off + 50, 7, 1) != 0;
    }

    /** Sets {@link #endToEndFlowControl()}. @return this */
    public CmRep endToEndFlowControl(boolean v) {
        Bits.set(seg, off + 50, 7, 1, v ? 1 : 0);
        return this;
    }

    /** RNR Retry Count: 3 bits at byte 27 (0..0x7). */
    public int rnrRetryCount() {
        return Bits.get(seg, off + 51, 0, 3);
    }

    /** Sets {@link #rnrRetryCount()} (masked to 3 bits). @return this */
    public CmRep rnrRetryCount(int v) {
        Bits.set(seg, off + 51, 0, 3, v);
        return this;
    }

    /** SRQ: bit 3 of byte 27. */
    public boolean srq() {
        return Bits.get(seg, off + 51, 3, 1) != 0;
    }

    /** Sets {@link #srq()}. @return this */
    public CmRep srq(boolean v) {
        Bits.set(seg, off + 51, 3, 1, v ? 1 : 0);
        return this;
    }

    /** Local CA GUID: 64 bits at byte 28. */
    public long localCaGuid() {
        return Bits.u64(seg, off + 52);
    }

    /** Sets {@link #localCaGuid()}. @return this */
    public CmRep localCaGuid(long v) {
        Bits.u64(seg, off + 52, v);
        return this;
    }

    /** VendorID (IBTA 1.4, ECE): 24 bits spread over bytes 15 (high), 19 (middle) and 23 (low). */
    public int vendorId() {
        return Bits.get(seg, off + 39, 0, 8) << 16 | Bits.get(seg, off + 43, 0, 8) << 8 | Bits.get(seg, off + 47, 0, 8);
    }

    /** Sets {@link #vendorId()} (masked to 24 bits). @return this */
    public CmRep vendorId(int v) {
        Bits.set(seg, off + 39, 0, 8, v >>> 16);
        Bits.set(seg, off + 43, 0, 8, v >>> 8);
        Bits.set(seg, off + 47, 0, 8, v);
        return this;
    }

    /** PrivateData: 196 bytes at byte 36, copied into a new array. */
    public byte[] privateData() {
        return Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /**
     * Sets the PrivateData: copies {@code v} and zeroes the rest of the 196 bytes.
     * @throws IllegalArgumentException if {@code v} is longer than 196 bytes
     * @return this
     */
    public CmRep privateData(byte[] v) {
        Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, v);
        return this;
    }

    /** The PrivateData in place: a slice of the wrapped segment (196 bytes, no copy). */
    public MemorySegment privateDataSegment() {
        return seg.asSlice(off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }
}
