package org.jrdma.mad;

import java.lang.foreign.MemorySegment;

/**
 * MAD common header flyweight, the first 24 of the 256 bytes of a management datagram, big-endian
 * (IBTA Vol 1 §13.4.2, figure "MAD Base Format"; Linux {@code struct ib_mad_hdr}). On RoCE v2 a MAD
 * travels as the payload of a UD SEND Only to QP1 (the GSI, Q_Key 0x80010000).
 *
 * <pre>
 * byte 0       BaseVersion (1)
 * byte 1       MgmtClass (e.g. 0x07 = Communication Management)
 * byte 2       ClassVersion
 * byte 3       R (1) | Method (7): kept as the whole byte, e.g. 0x01 Get, 0x81 GetResp
 * bytes 4-5    Status
 * bytes 6-7    ClassSpecific
 * bytes 8-15   TransactionID (64)
 * bytes 16-17  AttributeID
 * bytes 18-19  reserved
 * bytes 20-23  AttributeModifier (32)
 * </pre>
 *
 * <p>Setters mask to the field's width. Not thread-safe; allocation-free.
 */
public final class MadHeader {
    /** Length of the common header in bytes. */
    public static final int LENGTH = 24;
    /** Length of a whole MAD (GMP) in bytes: common header + class data (§13.4.2). */
    public static final int MAD_LENGTH = 256;
    /** BaseVersion of every IBTA MAD (§13.4.2). */
    public static final int BASE_VERSION = 1;

    /** Management class: subnet management, LID routed (QP0 only). */
    public static final int MGMT_CLASS_SUBN_LID_ROUTED = 0x01;
    /** Management class: subnet administration. */
    public static final int MGMT_CLASS_SUBN_ADM = 0x03;
    /** Management class: performance management. */
    public static final int MGMT_CLASS_PERF = 0x04;
    /** Management class: baseboard management. */
    public static final int MGMT_CLASS_BM = 0x05;
    /** Management class: device management. */
    public static final int MGMT_CLASS_DEVICE_MGMT = 0x06;
    /** Management class: Communication Management (IBTA Vol 1 chapter 12). */
    public static final int MGMT_CLASS_CM = 0x07;
    /** Management class: SNMP tunneling. */
    public static final int MGMT_CLASS_SNMP = 0x08;
    /** Management class: subnet management, directed route (QP0 only). */
    public static final int MGMT_CLASS_SUBN_DIRECTED_ROUTE = 0x81;

    /** Method Get (§13.4.5). */
    public static final int METHOD_GET = 0x01;
    /** Method Set. */
    public static final int METHOD_SET = 0x02;
    /** Method Send (every CM message). */
    public static final int METHOD_SEND = 0x03;
    /** Method Trap. */
    public static final int METHOD_TRAP = 0x05;
    /** Method Report. */
    public static final int METHOD_REPORT = 0x06;
    /** Method TrapRepress. */
    public static final int METHOD_TRAP_REPRESS = 0x07;
    /** Method GetResp (Get | R). */
    public static final int METHOD_GET_RESP = 0x81;
    /** Method ReportResp (Report | R). */
    public static final int METHOD_REPORT_RESP = 0x86;
    /** The R bit of the method byte: the MAD is a response. */
    public static final int METHOD_RESPONSE = 0x80;

    /** Status (§13.4.7, table "MAD Common Status Field Bit Values"): busy. */
    public static final int STATUS_BUSY = 0x0001;
    /** Status: redirect required. */
    public static final int STATUS_REDIRECT = 0x0002;
    /** Status: the class version is not supported. */
    public static final int STATUS_BAD_VERSION = 0x0004;
    /** Status: the method is not supported. */
    public static final int STATUS_UNSUPPORTED_METHOD = 0x0008;
    /**
     * Status: the method/attribute combination is not supported; what Linux's MAD layer answers to every
     * Get or Set no agent serves ({@code IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB}).
     */
    public static final int STATUS_UNSUPPORTED_METHOD_ATTRIB = 0x000C;
    /** Status: one or more attribute fields hold invalid values. */
    public static final int STATUS_INVALID_ATTRIB_VALUE = 0x001C;

    /** Attribute ID of ClassPortInfo, common to every class. */
    public static final int ATTR_CLASS_PORT_INFO = 0x0001;

    private MemorySegment seg;
    private long off;

    /** Points this flyweight at {@code seg[offset, offset+24)}. @return this */
    public MadHeader wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.off = offset;
        return this;
    }

    /** BaseVersion, 8 bits (1). */
    public int baseVersion() {
        return Bits.get(seg, off, 0, 8);
    }

    /** Sets {@link #baseVersion()} (masked to the field width). @return this */
    public MadHeader baseVersion(int v) {
        Bits.set(seg, off, 0, 8, v);
        return this;
    }

    /** MgmtClass, 8 bits. */
    public int mgmtClass() {
        return Bits.get(seg, off + 1, 0, 8);
    }

    /** Sets {@link #mgmtClass()} (masked to the field width). @return this */
    public MadHeader mgmtClass(int v) {
        Bits.set(seg, off + 1, 0, 8, v);
        return this;
    }

    /** ClassVersion, 8 bits. */
    public int classVersion() {
        return Bits.get(seg, off + 2, 0, 8);
    }

    /** Sets {@link #classVersion()} (masked to the field width). @return this */
    public MadHeader classVersion(int v) {
        Bits.set(seg, off + 2, 0, 8, v);
        return this;
    }

    /** R bit and Method, the whole byte 3 ({@link #METHOD_RESPONSE} = response). */
    public int method() {
        return Bits.get(seg, off + 3, 0, 8);
    }

    /** Sets {@link #method()} (masked to the field width). @return this */
    public MadHeader method(int v) {
        Bits.set(seg, off + 3, 0, 8, v);
        return this;
    }

    /** True if the R bit of the method is set (a response: GetResp, ReportResp, ...). */
    public boolean isResponse() {
        return (method() & METHOD_RESPONSE) != 0;
    }

    /** Status, 16 bits. */
    public int status() {
        return Bits.get(seg, off + 4, 0, 16);
    }

    /** Sets {@link #status()} (masked to the field width). @return this */
    public MadHeader status(int v) {
        Bits.set(seg, off + 4, 0, 16, v);
        return this;
    }

    /** ClassSpecific, 16 bits. */
    public int classSpecific() {
        return Bits.get(seg, off + 6, 0, 16);
    }

    /** Sets {@link #classSpecific()} (masked to the field width). @return this */
    public MadHeader classSpecific(int v) {
        Bits.set(seg, off + 6, 0, 16, v);
        return this;
    }

    /** TransactionID, 64 bits. */
    public long transactionId() {
        return Bits.u64(seg, off + 8);
    }

    /** Sets {@link #transactionId()}. @return this */
    public MadHeader transactionId(long v) {
        Bits.u64(seg, off + 8, v);
        return this;
    }

    /** AttributeID, 16 bits. */
    public int attributeId() {
        return Bits.get(seg, off + 16, 0, 16);
    }

    /** Sets {@link #attributeId()} (masked to the field width). @return this */
    public MadHeader attributeId(int v) {
        Bits.set(seg, off + 16, 0, 16, v);
        return this;
    }

    /** The reserved 16 bits after AttributeID (bytes 18-19); zero when sent. */
    public int reserved() {
        return Bits.get(seg, off + 18, 0, 16);
    }

    /** Sets {@link #reserved()} (masked to the field width). @return this */
    public MadHeader reserved(int v) {
        Bits.set(seg, off + 18, 0, 16, v);
        return this;
    }

    /** AttributeModifier, 32 bits. */
    public int attributeModifier() {
        return Bits.get(seg, off + 20, 0, 32);
    }

    /** Sets {@link #attributeModifier()}. @return this */
    public MadHeader attributeModifier(int v) {
        Bits.set(seg, off + 20, 0, 32, v);
        return this;
    }
}
