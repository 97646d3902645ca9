package org.jrdma.cm;

import org.jrdma.verbs.AhAttr;

/**
 * The UD parameters of a CM event, {@code struct rdma_ud_param} ({@code rdma_get_cm_event(3)},
 * {@code event->param.ud}): what SIDR told about the peer's UD QP.
 *
 * <ul>
 *   <li>{@link CmEventType#ESTABLISHED} (active side, the SIDR_REP status 0): the address handle
 *       attributes of the path to the peer (GRH with the peer's GID, the path's flow label, hop limit
 *       and traffic class; port 1, SGID index 0), the peer's QPN and Q_Key ({@link CmId#UDP_QKEY}),
 *       the SIDR_REP's 136 bytes of private data.</li>
 *   <li>{@link CmEventType#UNREACHABLE} after a SIDR_REP with a status other than 0: the SIDR_REP's
 *       private data; the address, QPN and Q_Key are zero, as Linux's {@code cma_sidr_rep_handler}
 *       leaves them.</li>
 *   <li>{@link CmEventType#CONNECT_REQUEST} (passive side): the SIDR_REQ's private data after the
 *       rdma_cm IP header (180 bytes); address, QPN and Q_Key zero, as {@code cma_ib_req_handler}
 *       gives them (a SIDR_REQ carries no QPN: the passive side learns the peer's QP from its first
 *       datagram).</li>
 * </ul>
 * Immutable: the accessors return copies.
 */
public final class UdParam {
    private final byte[] privateData;
    private final AhAttr ahAttr;
    private final int qpNum;
    private final int qkey;

    UdParam(byte[] privateData, AhAttr ahAttr, int qpNum, int qkey) {
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
        this.ahAttr = ahAttr == null ? new AhAttr() : new AhAttr().copyFrom(ahAttr);
        this.qpNum = qpNum;
        this.qkey = qkey;
    }

    /** {@code private_data} ({@code private_data_len} is its length: the whole field, as librdmacm gives it). */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** {@code ah_attr}: for {@link org.jrdma.verbs.ProtectionDomain#createAh} (a copy). */
    public AhAttr ahAttr() {
        return new AhAttr().copyFrom(ahAttr);
    }

    /** {@code qp_num}: the peer's QPN (24 bits), 0 when unknown. */
    public int qpNum() {
        return qpNum;
    }

    /** {@code qkey}: the peer QP's Q_Key, 0 when unknown. */
    public int qkey() {
        return qkey;
    }

    @Override
    public String toString() {
        return "UdParam[qp_num=0x" + Integer.toHexString(qpNum) + ", qkey=0x" + Integer.toHexString(qkey)
                + ", dgid=" + ahAttr.grh().dgid() + ", private_data_len=" + privateData.length + "]";
    }
}
