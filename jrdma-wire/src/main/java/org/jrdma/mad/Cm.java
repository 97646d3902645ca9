package org.jrdma.mad;

/**
 * Constants of the Communication Manager's MADs (IBTA Vol 1 chapter 12; Linux
 * {@code drivers/infiniband/core/cm_msgs.h}, {@code include/rdma/ib_cm.h}). Every CM message is a MAD
 * of class {@link MadHeader#MGMT_CLASS_CM}, version {@link #CLASS_VERSION}, method Send.
 */
public final class Cm {
    /** CM class version of IBTA 1.2 and later, the one Linux speaks ({@code IB_CM_CLASS_VERSION}). */
    public static final int CLASS_VERSION = 2;

    /** Attribute ID: ClassPortInfo. */
    public static final int ATTR_CLASS_PORT_INFO = MadHeader.ATTR_CLASS_PORT_INFO;
    /** Attribute ID: REQ (ConnectRequest). */
    public static final int ATTR_REQ = CmReq.ATTRIBUTE_ID;
    /** Attribute ID: MRA (MsgRcptAck). */
    public static final int ATTR_MRA = CmMra.ATTRIBUTE_ID;
    /** Attribute ID: REJ (ConnectReject). */
    public static final int ATTR_REJ = CmRej.ATTRIBUTE_ID;
    /** Attribute ID: REP (ConnectReply). */
    public static final int ATTR_REP = CmRep.ATTRIBUTE_ID;
    /** Attribute ID: RTU (ReadyToUse). */
    public static final int ATTR_RTU = CmRtu.ATTRIBUTE_ID;
    /** Attribute ID: DREQ (DisconnectRequest). */
    public static final int ATTR_DREQ = CmDreq.ATTRIBUTE_ID;
    /** Attribute ID: DREP (DisconnectReply). */
    public static final int ATTR_DREP = CmDrep.ATTRIBUTE_ID;
    /** Attribute ID: SIDR_REQ (ServiceIDResReq). */
    public static final int ATTR_SIDR_REQ = CmSidrReq.ATTRIBUTE_ID;
    /** Attribute ID: SIDR_REP (ServiceIDResResp). */
    public static final int ATTR_SIDR_REP = CmSidrRep.ATTRIBUTE_ID;
    /** Attribute ID: LAP (LoadAlternatePath). */
    public static final int ATTR_LAP = CmLap.ATTRIBUTE_ID;
    /** Attribute ID: APR (AlternatePathResponse). */
    public static final int ATTR_APR = CmApr.ATTRIBUTE_ID;

    /** MRA "Message MRAed": the REQ. */
    public static final int MRA_REQ = 0;
    /** MRA "Message MRAed": the REP. */
    public static final int MRA_REP = 1;
    /** MRA "Message MRAed": the LAP. */
    public static final int MRA_LAP = 2;

    /** REJ "Message Rejected": the REQ. */
    public static final int REJ_REQ = 0;
    /** REJ "Message Rejected": the REP. */
    public static final int REJ_REP = 1;
    /** REJ "Message Rejected": no message (a timeout or another reason outside REQ/REP). */
    public static final int REJ_OTHER = 2;

    /** REQ Transport Service Type: RC. */
    public static final int TRANSPORT_RC = 0;
    /** REQ Transport Service Type: UC. */
    public static final int TRANSPORT_UC = 1;
    /** REQ Transport Service Type: RD. */
    public static final int TRANSPORT_RD = 2;
    /** REQ Transport Service Type: see Extended Transport Type (XRC). */
    public static final int TRANSPORT_EXTENDED = 3;
    /** REQ Extended Transport Type: XRC. */
    public static final int EXTENDED_TRANSPORT_XRC = 1;

    /** SIDR_REP status: the QP is valid, the request succeeded. */
    public static final int SIDR_SUCCESS = 0;
    /** SIDR_REP status: ServiceID not supported. */
    public static final int SIDR_UNSUPPORTED = 1;
    /** SIDR_REP status: rejected by the service provider. */
    public static final int SIDR_REJECT = 2;
    /** SIDR_REP status: no QP available. */
    public static final int SIDR_NO_QP = 3;
    /** SIDR_REP status: redirect (see the additional information). */
    public static final int SIDR_REDIRECT = 4;
    /** SIDR_REP status: the class version is not supported. */
    public static final int SIDR_UNSUPPORTED_VERSION = 5;

    /** APR AP Status: the alternate path was loaded. */
    public static final int APR_SUCCESS = 0;
    /** APR AP Status: invalid communication ID. */
    public static final int APR_INVALID_COMM_ID = 1;
    /** APR AP Status: path migration not supported. */
    public static final int APR_UNSUPPORTED = 2;
    /** APR AP Status: rejected. */
    public static final int APR_REJECT = 3;
    /** APR AP Status: redirect. */
    public static final int APR_REDIRECT = 4;
    /** APR AP Status: the path is the current one. */
    public static final int APR_IS_CURRENT = 5;
    /** APR AP Status: invalid QPN/EECN. */
    public static final int APR_INVALID_QPN_EECN = 6;
    /** APR AP Status: invalid LID. */
    public static final int APR_INVALID_LID = 7;
    /** APR AP Status: invalid GID. */
    public static final int APR_INVALID_GID = 8;
    /** APR AP Status: invalid flow label. */
    public static final int APR_INVALID_FLOW_LABEL = 9;
    /** APR AP Status: invalid traffic class. */
    public static final int APR_INVALID_TCLASS = 10;
    /** APR AP Status: invalid hop limit. */
    public static final int APR_INVALID_HOP_LIMIT = 11;
    /** APR AP Status: invalid packet rate. */
    public static final int APR_INVALID_PACKET_RATE = 12;
    /** APR AP Status: invalid SL. */
    public static final int APR_INVALID_SL = 13;

    private Cm() {
    }

    /**
     * A CM timeout field (CM response timeout, service timeout, local ACK timeout, target ACK delay: 5 bits)
     * in nanoseconds: 4.096 µs × 2^{@code value} (IBTA Vol 1 §12.7.x "Timeouts").
     *
     * @param value 0..31
     */
    public static long timeoutNanos(int value) {
        return 4096L << (value & 0x1f);
    }
}
