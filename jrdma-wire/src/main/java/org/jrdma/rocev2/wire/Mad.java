package org.jrdma.rocev2.wire;

import java.lang.foreign.MemorySegment;

/**
 * MAD common header flyweight, the first 24 of the 256 bytes of a management datagram, big-endian
 * (IBTA Vol 1 §13.4.2, figure "MAD Base Format"). On RoCE v2 a MAD travels as the payload of a UD
 * SEND Only to QP1 (the GSI; CM MADs use Q_Key 0x80010000).
 *
 * <pre>
 * byte 0       BaseVersion (1)
 * byte 1       MgmtClass (e.g. 0x07 = Communication Management)
 * byte 2       ClassVersion
 * byte 3       R (1) | Method (7): this class keeps the whole byte, e.g. 0x01 Get, 0x81 GetResp
 * bytes 4-5    Status
 * bytes 6-7    ClassSpecific
 * bytes 8-15   TransactionID (64)
 * bytes 16-17  AttributeID
 * bytes 18-19  reserved
 * bytes 20-23  AttributeModifier (32)
 * </pre>
 */
public final class Mad {
    /** Length of the common header in bytes. */
    public static final int LENGTH = 24;
    /** Length of a whole MAD in bytes (common header + class data). */
    public static final int MAD_LENGTH = 256;
    /** Management class of the Communication Manager (§12.6). */
    public static final int MGMT_CLASS_CM = 0x07;
    /** Method Get. */
    public static final int METHOD_GET = 0x01;
    /** Method Send. */
    public static final int METHOD_SEND = 0x03;
    /** Method GetResp (R bit set on Get). */
    public static final int METHOD_GET_RESP = 0x81;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at {@code seg[offset, offset+24)}. @return this */
    public Mad wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** BaseVersion, 8 bits (1). */
    public int baseVersion() {
        return Be.u8(seg, off);
    }

    /** Sets {@link #baseVersion()} (masked to the field width). @return this */
    public Mad baseVersion(int v) {
        Be.u8(seg, off, v);
        return this;
    }

    /** MgmtClass, 8 bits. */
    public int mgmtClass() {
        return Be.u8(seg, off + 1);
    }

    /** Sets {@link #mgmtClass()} (masked to the field width). @return this */
    public Mad mgmtClass(int v) {
        Be.u8(seg, off + 1, v);
        return this;
    }

    /** ClassVersion, 8 bits. */
    public int classVersion() {
        return Be.u8(seg, off + 2);
    }

    /** Sets {@link #classVersion()} (masked to the field width). @return this */
    public Mad classVersion(int v) {
        Be.u8(seg, off + 2, v);
        return this;
    }

    /** R bit and Method, the whole byte 3 (0x80 = response). */
    public int method() {
        return Be.u8(seg, off + 3);
    }

    /** Sets {@link #method()} (masked to the field width). @return this */
    public Mad method(int v) {
        Be.u8(seg, off + 3, v);
        return this;
    }

    /** Status, 16 bits. */
    public int status() {
        return Be.u16(seg, off + 4);
    }

    /** Sets {@link #status()} (masked to the field width). @return this */
    public Mad status(int v) {
        Be.u16(seg, off + 4, v);
        return this;
    }

    /** ClassSpecific, 16 bits. */
    public int classSpecific() {
        return Be.u16(seg, off + 6);
    }

    /** Sets {@link #classSpecific()} (masked to the field width). @return this */
    public Mad classSpecific(int v) {
        Be.u16(seg, off + 6, v);
        return this;
    }

    /** TransactionID, 64 bits. */
    public long transactionId() {
        return Be.i64(seg, off + 8);
    }

    /** Sets {@link #transactionId()} (masked to the field width). @return this */
    public Mad transactionId(long v) {
        Be.i64(seg, off + 8, v);
        return this;
    }

    /** AttributeID, 16 bits. */
    public int attributeId() {
        return Be.u16(seg, off + 16);
    }

    /** Sets {@link #attributeId()} (masked to the field width). @return this */
    public Mad attributeId(int v) {
        Be.u16(seg, off + 16, v);
        return this;
    }

    /** AttributeModifier, 32 bits. */
    public int attributeModifier() {
        return Be.i32(seg, off + 20);
    }

    /** Sets {@link #attributeModifier()} (masked to the field width). @return this */
    public Mad attributeModifier(int v) {
        Be.i32(seg, off + 20, v);
        return this;
    }
}
