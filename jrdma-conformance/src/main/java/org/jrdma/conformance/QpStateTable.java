package org.jrdma.conformance;

import static org.jrdma.verbs.QpAttrMask.ACCESS_FLAGS;
import static org.jrdma.verbs.QpAttrMask.ALT_PATH;
import static org.jrdma.verbs.QpAttrMask.AV;
import static org.jrdma.verbs.QpAttrMask.CUR_STATE;
import static org.jrdma.verbs.QpAttrMask.DEST_QPN;
import static org.jrdma.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static org.jrdma.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static org.jrdma.verbs.QpAttrMask.MIN_RNR_TIMER;
import static org.jrdma.verbs.QpAttrMask.PATH_MIG_STATE;
import static org.jrdma.verbs.QpAttrMask.PATH_MTU;
import static org.jrdma.verbs.QpAttrMask.PKEY_INDEX;
import static org.jrdma.verbs.QpAttrMask.PORT;
import static org.jrdma.verbs.QpAttrMask.QKEY;
import static org.jrdma.verbs.QpAttrMask.RETRY_CNT;
import static org.jrdma.verbs.QpAttrMask.RNR_RETRY;
import static org.jrdma.verbs.QpAttrMask.RQ_PSN;
import static org.jrdma.verbs.QpAttrMask.SQ_PSN;
import static org.jrdma.verbs.QpAttrMask.TIMEOUT;

import java.util.ArrayList;
import java.util.List;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;

/**
 * The golden QP state transition table the suite checks providers against: IBTA Vol 1 §11.2.5.1
 * (table 91) as Linux encodes it in {@code qp_state_table} ({@code drivers/infiniband/core/verbs.c},
 * {@code ib_modify_qp_is_ok}), which rdma_rxe and every kernel provider enforce. Only the rows the
 * software providers implement (no SQD/SQE) and that every kernel version agrees on (RESET → ERR was
 * allowed by some versions and not others, so it is not in the table).
 */
public final class QpStateTable {
    /** Every {@code ibv_qp_attr_mask} bit of {@code QpAttrMask} except STATE. */
    public static final int ALL_BITS = (1 << 21) - 2;

    /**
     * One valid transition for one QP type.
     *
     * @param from the current state
     * @param to the target state
     * @param required the mask bits it requires (STATE not included)
     * @param optional the mask bits it allows beyond those
     */
    public record Row(QpType type, QpState from, QpState to, int required, int optional) {
        @Override
        public String toString() {
            return type + " " + from + "->" + to;
        }
    }

    private QpStateTable() {
    }

    /** The valid transitions of {@code type}. */
    public static List<Row> rows(QpType type) {
        List<Row> rows = new ArrayList<>();
        QpState reset = QpState.RESET, init = QpState.INIT, rtr = QpState.RTR, rts = QpState.RTS, err = QpState.ERR;
        switch (type) {
            case RC -> {
                rows.add(new Row(type, reset, init, PKEY_INDEX | PORT | ACCESS_FLAGS, 0));
                rows.add(new Row(type, init, init, 0, PKEY_INDEX | PORT | ACCESS_FLAGS));
                rows.add(new Row(type, init, rtr, AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER,
                        ALT_PATH | ACCESS_FLAGS | PKEY_INDEX));
                rows.add(new Row(type, rtr, rts, TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC,
                        CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE));
                rows.add(new Row(type, rts, rts, 0,
                        CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER));
            }
            case UC -> {
                rows.add(new Row(type, reset, init, PKEY_INDEX | PORT | ACCESS_FLAGS, 0));
                rows.add(new Row(type, init, init, 0, PKEY_INDEX | PORT | ACCESS_FLAGS));
                rows.add(new Row(type, init, rtr, AV | PATH_MTU | DEST_QPN | RQ_PSN, ALT_PATH | ACCESS_FLAGS | PKEY_INDEX));
                rows.add(new Row(type, rtr, rts, SQ_PSN, CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE));
                rows.add(new Row(type, rts, rts, 0, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE));
            }
            case UD -> {
                rows.add(new Row(type, reset, init, PKEY_INDEX | PORT | QKEY, 0));
                rows.add(new Row(type, init, init, 0, PKEY_INDEX | PORT | QKEY));
                rows.add(new Row(type, init, rtr, 0, PKEY_INDEX | QKEY));
                rows.add(new Row(type, rtr, rts, SQ_PSN, CUR_STATE | QKEY));
                rows.add(new Row(type, rts, rts, 0, CUR_STATE | QKEY));
            }
        }
        for (QpState s : new QpState[] {init, rtr, rts, err}) {
            rows.add(new Row(type, s, reset, 0, 0));
            rows.add(new Row(type, s, err, 0, 0));
        }
        return rows;
    }

    /** Transitions no QP type may make, whatever the mask (IBTA Vol 1 figure 125). */
    public static QpState[][] invalidTransitions() {
        QpState reset = QpState.RESET, init = QpState.INIT, rtr = QpState.RTR, rts = QpState.RTS, err = QpState.ERR;
        return new QpState[][] {
            {reset, rtr}, {reset, rts}, {init, rts}, {rtr, init}, {rtr, rtr}, {rts, init}, {rts, rtr},
            {err, init}, {err, rtr}, {err, rts},
        };
    }
}
