package org.jrdma.mad;

import java.lang.foreign.MemorySegment;

/**
 * CM REQ message flyweight (ConnectRequest, attribute ID 0x0010; IBTA Vol 1 chapter 12, message contents table 106 as
 * numbered in Linux's {@code include/rdma/ibta_vol1_c12.h}), over a whole 256-byte MAD: {@link #wrap} takes the
 * MAD's first byte; the message follows the common header at {@value MadHeader#LENGTH}. Offsets below and in the
 * accessors' docs are the table's, from the start of the message (MAD offset minus 24).
 * Fields are big-endian; a bit offset counts from the most significant bit of its first byte, as the spec's
 * Byte[Bit] notation. Setters mask the value to the field's width and leave every other bit alone.
 *
 * <pre>
 * byte   0      32 bits  Local Communication ID
 * byte   5      24 bits  VendorID
 * byte   8      64 bits  ServiceID
 * byte  16      64 bits  Local CA GUID
 * byte  28      32 bits  Local Q_Key
 * byte  32      24 bits  Local QPN
 * byte  35       8 bits  Responder Resources
 * byte  36      24 bits  Local EECN
 * byte  39       8 bits  Initiator Depth
 * byte  40      24 bits  Remote EECN
 * byte  43       5 bits  Remote CM Response Timeout
 * byte  43.5     2 bits  Transport Service Type
 * byte  43.7     1 bits  End-to-End Flow Control
 * byte  44      24 bits  Starting PSN
 * byte  47       5 bits  Local CM Response Timeout
 * byte  47.5     3 bits  Retry Count
 * byte  48      16 bits  Partition Key
 * byte  50       4 bits  Path Packet Payload MTU
 * byte  50.4     1 bits  RDC Exists
 * byte  50.5     3 bits  RNR Retry Count
 * byte  51       4 bits  Max CM Retries
 * byte  51.4     1 bits  SRQ
 * byte  51.5     3 bits  Extended Transport Type
 * byte  52      16 bits  Primary Local Port LID
 * byte  54      16 bits  Primary Remote Port LID
 * byte  56     128 bits  Primary Local Port GID
 * byte  72     128 bits  Primary Remote Port GID
 * byte  88      20 bits  Primary Flow Label
 * byte  91.2     6 bits  Primary Packet Rate
 * byte  92       8 bits  Primary Traffic Class
 * byte  93       8 bits  Primary Hop Limit
 * byte  94       4 bits  Primary SL
 * byte  94.4     1 bits  Primary Subnet Local
 * byte  95       5 bits  Primary Local ACK Timeout
 * byte  96      16 bits  Alternate Local Port LID
 * byte  98      16 bits  Alternate Remote Port LID
 * byte 100     128 bits  Alternate Local Port GID
 * byte 116     128 bits  Alternate Remote Port GID
 * byte 132      20 bits  Alternate Flow Label
 * byte 135.2     6 bits  Alternate Packet Rate
 * byte 136       8 bits  Alternate Traffic Class
 * byte 137       8 bits  Alternate Hop Limit
 * byte 138       4 bits  Alternate SL
 * byte 138.4     1 bits  Alternate Subnet Local
 * byte 139       5 bits  Alternate Local ACK Timeout
 * byte 139.5     1 bits  SAP Supported
 * byte 140     736 bits  PrivateData (92 bytes)
 * </pre>
 *
 * <p>Not thread-safe; allocation-free except the {@code byte[]} accessors.
 */
public final class CmReq {
    /** Attribute ID of the REQ in the MAD header. */
    public static final int ATTRIBUTE_ID = 0x0010;
    /** Offset of the PrivateData from the start of the MAD, bytes. */
    public static final int PRIVATE_DATA_OFFSET = MadHeader.LENGTH + 140;
    /** Length of the PrivateData, bytes. */
    public static final int PRIVATE_DATA_LENGTH = 92;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at the MAD at {@code seg[offset, offset + 256)}. @return this */
    public CmReq wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /**
     * Zeroes the 256-byte MAD and writes the common header of a CM REQ as Linux's {@code cm_format_mad_hdr}:
     * base version 1, class CM (0x07), class version 2, method Send, status 0, this attribute ID, the given TID.
     * @return this
     */
    public CmReq clear(long transactionId) {
        Bits.formatCm(seg, off, ATTRIBUTE_ID, transactionId);
        return this;
    }

    /** Local Communication ID: 32 bits at byte 0 (32 bits, as an int). */
    public int localCommId() {
        return Bits.get(seg, off + 24, 0, 32);
    }

    /** Sets {@link #localCommId()} (masked to 32 bits). @return this */
    public CmReq localCommId(int v) {
        Bits.set(seg, off + 24, 0, 32, v);
        return this;
    }

    /** VendorID (IBTA 1.4, Enhanced Connection Establishment): 24 bits at byte 5 (0..0xffffff). */
    public int vendorId() {
        return Bits.get(seg, off + 29, 0, 24);
    }

    /** Sets {@link #vendorId()} (masked to 24 bits). @return this */
    public CmReq vendorId(int v) {
        Bits.set(seg, off + 29, 0, 24, v);
        return this;
    }

    /** ServiceID: 64 bits at byte 8. */
    public long serviceId() {
        return Bits.u64(seg, off + 32);
    }

    /** Sets {@link #serviceId()}. @return this */
    public CmReq serviceId(long v) {
        Bits.u64(seg, off + 32, v);
        return this;
    }

    /** Local CA GUID: 64 bits at byte 16. */
    public long localCaGuid() {
        return Bits.u64(seg, off + 40);
    }

    /** Sets {@link #localCaGuid()}. @return this */
    public CmReq localCaGuid(long v) {
        Bits.u64(seg, off + 40, v);
        return this;
    }

    /** Local Q_Key: 32 bits at byte 28 (32 bits, as an int). */
    public int localQKey() {
        return Bits.get(seg, off + 52, 0, 32);
    }

    /** Sets {@link #localQKey()} (masked to 32 bits). @return this */
    public CmReq localQKey(int v) {
        Bits.set(seg, off + 52, 0, 32, v);
        return this;
    }

    /** Local QPN: 24 bits at byte 32 (0..0xffffff). */
    public int localQpn() {
        return Bits.get(seg, off + 56, 0, 24);
    }

    /** Sets {@link #localQpn()} (masked to 24 bits). @return this */
    public CmReq localQpn(int v) {
        Bits.set(seg, off + 56, 0, 24, v);
        return this;
    }

    /** Responder Resources: 8 bits at byte 35 (0..0xff). */
    public int responderResources() {
        return Bits.get(seg, off + 59, 0, 8);
    }

    /** Sets {@link #responderResources()} (masked to 8 bits). @return this */
    public CmReq responderResources(int v) {
        Bits.set(seg, off + 59, 0, 8, v);
        return this;
    }

    /** Local EECN: 24 bits at byte 36 (0..0xffffff). */
    public int localEecn() {
        return Bits.get(seg, off + 60, 0, 24);
    }

    /** Sets {@link #localEecn()} (masked to 24 bits). @return this */
    public CmReq localEecn(int v) {
        Bits.set(seg, off + 60, 0, 24, v);
        return this;
    }

    /** Initiator Depth: 8 bits at byte 39 (0..0xff). */
    public int initiatorDepth() {
        return Bits.get(seg, off + 63, 0, 8);
    }

    /** Sets {@link #initiatorDepth()} (masked to 8 bits). @return this */
    public CmReq initiatorDepth(int v) {
        Bits.set(seg, off + 63, 0, 8, v);
        return this;
    }

    /** Remote EECN: 24 bits at byte 40 (0..0xffffff). */
    public int remoteEecn() {
        return Bits.get(seg, off + 64, 0, 24);
    }

    /** Sets {@link #remoteEecn()} (masked to 24 bits). @return this */
    public CmReq remoteEecn(int v) {
        Bits.set(seg, off + 64, 0, 24, v);
        return this;
    }

    /** Remote CM Response Timeout (4.096 us x 2^value): 5 bits at byte 43 (0..0x1f). */
    public int remoteCmResponseTimeout() {
        return Bits.get(seg, off + 67, 0, 5);
    }

    /** Sets {@link #remoteCmResponseTimeout()} (masked to 5 bits). @return this */
    public CmReq remoteCmResponseTimeout(int v) {
        Bits.set(seg, off + 67, 0, 5, v);
        return this;
    }

    /** Transport Service Type (0 RC, 1 UC, 2 RD, 3 see Extended Transport Type): 2 bits at byte 43 bit 5 (0..0x3). */
    public int transportServiceType() {
        return Bits.get(seg, off + 67, 5, 2);
    }

    /** Sets {@link #transportServiceType()} (masked to 2 bits). @return this */
    public CmReq transportServiceType(int v) {
        Bits.set(seg, off + 67, 5, 2, v);
        return this;
    }

    /** End-to-End Flow Control: bit 7 of byte 43. */
    public boolean endToEndFlowControl() {
        return Bits.get(seg, off + 67, 7, 1) != 0;
    }

    /** Sets {@link #endToEndFlowControl()}. @return this */
    public CmReq endToEndFlowControl(boolean v) {
        Bits.set(seg, off + 67, 7, 1, v ? 1 : 0);
        return this;
    }

    /** Starting PSN: 24 bits at byte 44 (0..0xffffff). */
    public int startingPsn() {
        return Bits.get(seg, off + 68, 0, 24);
    }

    /** Sets {@link #startingPsn()} (masked to 24 bits). @return this */
    public CmReq startingPsn(int v) {
        Bits.set(seg, off + 68, 0, 24, v);
        return this;
    }

    /** Local CM Response Timeout (4.096 us x 2^value): 5 bits at byte 47 (0..0x1f). */
    public int localCmResponseTimeout() {
        return Bits.get(seg, off + 71, 0, 5);
    }

    /** Sets {@link #localCmResponseTimeout()} (masked to 5 bits). @return this */
    public CmReq localCmResponseTimeout(int v) {
        Bits.set(seg, off + 71, 0, 5, v);
        return this;
    }

    /** Retry Count: 3 bits at byte 47 bit 5 (0..0x7). */
    public int retryCount() {
        return Bits.get(seg, off + 71, 5, 3);
    }

    /** Sets {@link #retryCount()} (masked to 3 bits). @return this */
    public CmReq retryCount(int v) {
        Bits.set(seg, off + 71, 5, 3, v);
        return this;
    }

    /** Partition Key: 16 bits at byte 48 (0..0xffff). */
    public int partitionKey() {
        return Bits.get(seg, off + 72, 0, 16);
    }

    /** Sets {@link #partitionKey()} (masked to 16 bits). @return this */
    public CmReq partitionKey(int v) {
        Bits.set(seg, off + 72, 0, 16, v);
        return this;
    }

    /** Path Packet Payload MTU (1 = 256 ... 5 = 4096): 4 bits at byte 50 (0..0xf). */
    public int pathPacketPayloadMtu() {
        return Bits.get(seg, off + 74, 0, 4);
    }

    /** Sets {@link #pathPacketPayloadMtu()} (masked to 4 bits). @return this */
    public CmReq pathPacketPayloadMtu(int v) {
        Bits.set(seg, off + 74, 0, 4, v);
        return this;
    }

    /** RDC Exists: bit 4 of byte 50. */
    public boolean rdcExists() {
        return Bits.get(seg, off + 74, 4, 1) != 0;
    }

    /** Sets {@link #rdcExists()}. @return this */
    public CmReq rdcExists(boolean v) {
        Bits.set(seg, off + 74, 4, 1, v ? 1 : 0);
        return this;
    }

    /** RNR Retry Count: 3 bits at byte 50 bit 5 (0..0x7). */
    public int rnrRetryCount() {
        return Bits.get(seg, off + 74, 5, 3);
    }

    /** Sets {@link #rnrRetryCount()} (masked to 3 bits). @return this */
    public CmReq rnrRetryCount(int v) {
        Bits.set(seg, off + 74, 5, 3, v);
        return this;
    }

    /** Max CM Retries: 4 bits at byte 51 (0..0xf). */
    public int maxCmRetries() {
        return Bits.get(seg, off + 75, 0, 4);
    }

    /** Sets {@link #maxCmRetries()} (masked to 4 bits). @return this */
    public CmReq maxCmRetries(int v) {
        Bits.set(seg, off + 75, 0, 4, v);
        return this;
    }

    /** SRQ: bit 4 of byte 51. */
    public boolean srq() {
        return Bits.get(seg, off + 75, 4, 1) != 0;
    }

    /** Sets {@link #srq()}. @return this */
    public CmReq srq(boolean v) {
        Bits.set(seg, off + 75, 4, 1, v ? 1 : 0);
        return this;
    }

    /** Extended Transport Type (1 = XRC): 3 bits at byte 51 bit 5 (0..0x7). */
    public int extendedTransportType() {
        return Bits.get(seg, off + 75, 5, 3);
    }

    /** Sets {@link #extendedTransportType()} (masked to 3 bits). @return this */
    public CmReq extendedTransportType(int v) {
        Bits.set(seg, off + 75, 5, 3, v);
        return this;
    }

    /** Primary Local Port LID: 16 bits at byte 52 (0..0xffff). */
    public int primaryLocalPortLid() {
        return Bits.get(seg, off + 76, 0, 16);
    }

    /** Sets {@link #primaryLocalPortLid()} (masked to 16 bits). @return this */
    public CmReq primaryLocalPortLid(int v) {
        Bits.set(seg, off + 76, 0, 16, v);
        return this;
    }

    /** Primary Remote Port LID: 16 bits at byte 54 (0..0xffff). */
    public int primaryRemotePortLid() {
        return Bits.get(seg, off + 78, 0, 16);
    }

    /** Sets {@link #primaryRemotePortLid()} (masked to 16 bits). @return this */
    public CmReq primaryRemotePortLid(int v) {
        Bits.set(seg, off + 78, 0, 16, v);
        return this;
    }

    /** Primary Local Port GID: 16 bytes at byte 56, copied into a new array. */
    public byte[] primaryLocalPortGid() {
        return Bits.bytes(seg, off + 80, 16);
    }

    /** Sets {@link #primaryLocalPortGid()}: copies {@code v} (at most 16 bytes) and zeroes the rest. @return this */
    public CmReq primaryLocalPortGid(byte[] v) {
        Bits.bytes(seg, off + 80, 16, v);
        return this;
    }

    /** Primary Remote Port GID: 16 bytes at byte 72, copied into a new array. */
    public byte[] primaryRemotePortGid() {
        return Bits.bytes(seg, off + 96, 16);
    }

    /** Sets {@link #primaryRemotePortGid()}: copies {@code v} (at most 16 bytes) and zeroes the rest. @return this */
    public CmReq primaryRemotePortGid(byte[] v) {
        Bits.bytes(seg, off + 96, 16, v);
        return this;
    }

    /** Primary Flow Label: 20 bits at byte 88 (0..0xfffff). */
    public int primaryFlowLabel() {
        return Bits.get(seg, off + 112, 0, 20);
    }

    /** Sets {@link #primaryFlowLabel()} (masked to 20 bits). @return this */
    public CmReq primaryFlowLabel(int v) {
        Bits.set(seg, off + 112, 0, 20, v);
        return this;
    }

    /** Primary Packet Rate: 6 bits at byte 91 bit 2 (0..0x3f). */
    public int primaryPacketRate() {
        return Bits.get(seg, off + 115, 2, 6);
    }

    /** Sets {@link #primaryPacketRate()} (masked to 6 bits). @return this */
    public CmReq primaryPacketRate(int v) {
        Bits.set(seg, off + 115, 2, 6, v);
        return this;
    }

    /** Primary Traffic Class: 8 bits at byte 92 (0..0xff). */
    public int primaryTrafficClass() {
        return Bits.get(seg, off + 116, 0, 8);
    }

    /** Sets {@link #primaryTrafficClass()} (masked to 8 bits). @return this */
    public CmReq primaryTrafficClass(int v) {
        Bits.set(seg, off + 116, 0, 8, v);
        return this;
    }

    /** Primary Hop Limit: 8 bits at byte 93 (0..0xff). */
    public int primaryHopLimit() {
        return Bits.get(seg, off + 117, 0, 8);
    }

    /** Sets {@link #primaryHopLimit()} (masked to 8 bits). @return this */
    public CmReq primaryHopLimit(int v) {
        Bits.set(seg, off + 117, 0, 8, v);
        return this;
    }

    /** Primary SL: 4 bits at byte 94 (0..0xf). */
    public int primarySl() {
        return Bits.get(seg, off + 118, 0, 4);
    }

    /** Sets {@link #primarySl()} (masked to 4 bits). @return this */
    public CmReq primarySl(int v) {
        Bits.set(seg, off + 118, 0, 4, v);
        return this;
    }

    /** Primary Subnet Local: bit 4 of byte 94. */
    public boolean primarySubnetLocal() {
        return Bits.get(seg, off + 118, 4, 1) != 0;
    }

    /** Sets {@link #primarySubnetLocal()}. @return this */
    public CmReq primarySubnetLocal(boolean v) {
        Bits.set(seg, off + 118, 4, 1, v ? 1 : 0);
        return this;
    }

    /** Primary Local ACK Timeout (4.096 us x 2^value): 5 bits at byte 95 (0..0x1f). */
    public int primaryLocalAckTimeout() {
        return Bits.get(seg, off + 119, 0, 5);
    }

    /** Sets {@link #primaryLocalAckTimeout()} (masked to 5 bits). @return this */
    public CmReq primaryLocalAckTimeout(int v) {
        Bits.set(seg, off + 119, 0, 5, v);
        return this;
    }

    /** Alternate Local Port LID: 16 bits at byte 96 (0..0xffff). */
    public int alternateLocalPortLid() {
        return Bits.get(seg, off + 120, 0, 16);
    }

    /** Sets {@link #alternateLocalPortLid()} (masked to 16 bits). @return this */
    public CmReq alternateLocalPortLid(int v) {
        Bits.set(seg, off + 120, 0, 16, v);
        return this;
    }

    /** Alternate Remote Port LID: 16 bits at byte 98 (0..0xffff). */
    public int alternateRemotePortLid() {
        return Bits.get(seg, off + 122, 0, 16);
    }

    /** Sets {@link #alternateRemotePortLid()} (masked to 16 bits). @return this */
    public CmReq alternateRemotePortLid(int v) {
        Bits.set(seg, off + 122, 0, 16, v);
        return this;
    }

    /** Alternate Local Port GID: 16 bytes at byte 100, copied into a new array. */
    public byte[] alternateLocalPortGid() {
        return Bits.bytes(seg, off + 124, 16);
    }

    /** Sets {@link #alternateLocalPortGid()}: copies {@code v} (at most 16 bytes) and zeroes the rest. @return this */
    public CmReq alternateLocalPortGid(byte[] v) {
        Bits.bytes(seg, off + 124, 16, v);
        return this;
    }

    /** Alternate Remote Port GID: 16 bytes at byte 116, copied into a new array. */
    public byte[] alternateRemotePortGid() {
        return Bits.bytes(seg, off + 140, 16);
    }

    /** Sets {@link #alternateRemotePortGid()}: copies {@code v} (at most 16 bytes) and zeroes the rest. @return this */
    public CmReq alternateRemotePortGid(byte[] v) {
        Bits.bytes(seg, off + 140, 16, v);
        return this;
    }

    /** Alternate Flow Label: 20 bits at byte 132 (0..0xfffff). */
    public int alternateFlowLabel() {
        return Bits.get(seg, off + 156, 0, 20);
    }

    /** Sets {@link #alternateFlowLabel()} (masked to 20 bits). @return this */
    public CmReq alternateFlowLabel(int v) {
        Bits.set(seg, off + 156, 0, 20, v);
        return this;
    }

    /** Alternate Packet Rate: 6 bits at byte 135 bit 2 (0..0x3f). */
    public int alternatePacketRate() {
        return Bits.get(seg, off + 159, 2, 6);
    }

    /** Sets {@link #alternatePacketRate()} (masked to 6 bits). @return this */
    public CmReq alternatePacketRate(int v) {
        Bits.set(seg, off + 159, 2, 6, v);
        return this;
    }

    /** Alternate Traffic Class: 8 bits at byte 136 (0..0xff). */
    public int alternateTrafficClass() {
        return Bits.get(seg, off + 160, 0, 8);
    }

    /** Sets {@link #alternateTrafficClass()} (masked to 8 bits). @return this */
    public CmReq alternateTrafficClass(int v) {
        Bits.set(seg, off + 160, 0, 8, v);
        return this;
    }

    /** Alternate Hop Limit: 8 bits at byte 137 (0..0xff). */
    public int alternateHopLimit() {
        return Bits.get(seg, off + 161, 0, 8);
    }

    /** Sets {@link #alternateHopLimit()} (masked to 8 bits). @return this */
    public CmReq alternateHopLimit(int v) {
        Bits.set(seg, off + 161, 0, 8, v);
        return this;
    }

    /** Alternate SL: 4 bits at byte 138 (0..0xf). */
    public int alternateSl() {
        return Bits.get(seg, off + 162, 0, 4);
    }

    /** Sets {@link #alternateSl()} (masked to 4 bits). @return this */
    public CmReq alternateSl(int v) {
        Bits.set(seg, off + 162, 0, 4, v);
        return this;
    }

    /** Alternate Subnet Local: bit 4 of byte 138. */
    public boolean alternateSubnetLocal() {
        return Bits.get(seg, off + 162, 4, 1) != 0;
    }

    /** Sets {@link #alternateSubnetLocal()}. @return this */
    public CmReq alternateSubnetLocal(boolean v) {
        Bits.set(seg, off + 162, 4, 1, v ? 1 : 0);
        return this;
    }

    /** Alternate Local ACK Timeout: 5 bits at byte 139 (0..0x1f). */
    public int alternateLocalAckTimeout() {
        return Bits.get(seg, off + 163, 0, 5);
    }

    /** Sets {@link #alternateLocalAckTimeout()} (masked to 5 bits). @return this */
    public CmReq alternateLocalAckTimeout(int v) {
        Bits.set(seg, off + 163, 0, 5, v);
        return this;
    }

    /** SAP Supported: bit 5 of byte 139. */
    public boolean sapSupported() {
        return Bits.get(seg, off + 163, 5, 1) != 0;
    }

    /** Sets {@link #sapSupported()}. @return this */
    public CmReq sapSupported(boolean v) {
        Bits.set(seg, off + 163, 5, 1, v ? 1 : 0);
        return this;
    }

    /** PrivateData: 92 bytes at byte 140, copied into a new array. */
    public byte[] privateData() {
        return Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /**
     * Sets the PrivateData: copies {@code v} and zeroes the rest of the 92 bytes.
     * @throws IllegalArgumentException if {@code v} is longer than 92 bytes
     * @return this
     */
    public CmReq privateData(byte[] v) {
        Bits.bytes(seg, off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, v);
        return this;
    }

    /** The PrivateData in place: a slice of the wrapped segment (92 bytes, no copy). */
    public MemorySegment privateDataSegment() {
        return seg.asSlice(off + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }
}
