package org.jrdma.cm;

import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.VerbsException;

/** {@code rdma_init_qp_attr} for the UD QPs of PS_UDP ({@code cma_init_ud_qp}): Q_Key {@link CmId#UDP_QKEY}. */
final class UdQpAttr {
    private UdQpAttr() {
    }

    static int init(QpAttr attr) {
        switch (attr.qpState()) {
            case INIT -> {
                attr.pkeyIndex(0).portNum(CmId.PORT_NUM).qkey(CmId.UDP_QKEY);
                return QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY;
            }
            case RTR -> {
                return QpAttrMask.STATE;
            }
            case RTS -> {
                attr.sqPsn(0);
                return QpAttrMask.STATE | QpAttrMask.SQ_PSN;
            }
            default -> throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: no attributes for " + attr.qpState());
        }
    }
}
