package org.jrdma.soft;

import static org.jrdma.verbs.QpAttrMask.ACCESS_FLAGS;
import static org.jrdma.verbs.QpAttrMask.ALT_PATH;
import static org.jrdma.verbs.QpAttrMask.AV;
import static org.jrdma.verbs.QpAttrMask.CUR_STATE;
import static org.jrdma.verbs.QpAttrMask.DEST_QPN;
import static org.jrdma.verbs.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
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
import static org.jrdma.verbs.QpAttrMask.STATE;
import static org.jrdma.verbs.QpAttrMask.TIMEOUT;

import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.VerbsException;

/**
 * The QP state transition table: for each (current state, next state, QP type), whether the
 * transition is allowed and which attribute-mask bits it requires and allows. This is IBTA Vol 1
 * §11.2.5.1 (table 91, "QP state transition properties") as Linux encodes it in
 * {@code qp_state_table} ({@code drivers/infiniband/core/verbs.c: ib_modify_qp_is_ok}), which
 * libibverbs' providers and rdma_rxe enforce. As data, not branches.
 */
public final class QpTransitions {
    private static final int N = QpState.values().length;
    private static final int T = 3; // RC, UC, UD
    private static final boolean[][] VALID = new boolean[N][N];
    private static final int[][][] REQUIRED = new int[N][N][T];
    private static final int[][][] OPTIONAL = new int[N][N][T];

    private static int t(QpType type) {
        return switch (type) {
            case RC -> 0;
            case UC -> 1;
            case UD -> 2;
        };
    }

    private static void row(QpState from, QpState to, int rcReq, int ucReq, int udReq, int rcOpt, int ucOpt, int udOpt) {
        int f = from.ordinal();
        int n = to.ordinal();
        VALID[f][n] = true;
        REQUIRED[f][n][0] = rcReq;
        REQUIRED[f][n][1] = ucReq;
        REQUIRED[f][n][2] = udReq;
        OPTIONAL[f][n][0] = rcOpt;
        OPTIONAL[f][n][1] = ucOpt;
        OPTIONAL[f][n][2] = udOpt;
    }

    static {
        QpState reset = QpState.RESET, init = QpState.INIT, rtr = QpState.RTR, rts = QpState.RTS;
        QpState sqd = QpState.SQD, sqe = QpState.SQE, err = QpState.ERR;
        //                    RC required                          UC required                      UD required
        //                    RC optional                          UC optional                      UD optional
        row(reset, reset, 0, 0, 0, 0, 0, 0);
        row(reset, init, PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | QKEY,
                0, 0, 0);
        row(init, init, 0, 0, 0,
                PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | QKEY);
        row(init, rtr,
                AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER,
                AV | PATH_MTU | DEST_QPN | RQ_PSN,
                0,
                ALT_PATH | ACCESS_FLAGS | PKEY_INDEX, ALT_PATH | ACCESS_FLAGS | PKEY_INDEX, PKEY_INDEX | QKEY);
        row(rtr, rts,
                SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC, SQ_PSN, SQ_PSN,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE,
                CUR_STATE | QKEY);
        row(rts, rts, 0, 0, 0,
                CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER,
                CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE,
                CUR_STATE | QKEY);
        row(rts, sqd, 0, 0, 0, EN_SQD_ASYNC_NOTIFY, EN_SQD_ASYNC_NOTIFY, EN_SQD_ASYNC_NOTIFY);
        row(sqd, rts, 0, 0, 0,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE,
                CUR_STATE | QKEY);
        row(sqd, sqd, 0, 0, 0,
                PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC | ALT_PATH
                        | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE,
                AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE,
                PKEY_INDEX | QKEY);
        row(sqe, rts, 0, 0, 0, CUR_STATE | ACCESS_FLAGS, CUR_STATE | ACCESS_FLAGS, CUR_STATE | QKEY);
        for (QpState s : QpState.values()) {
            if (s != reset) {
                row(s, reset, 0, 0, 0, 0, 0, 0);
                row(s, err, 0, 0, 0, 0, 0, 0);
            }
        }
    }

    private QpTransitions() {
    }

    /** True when {@code from → to} is a transition at all. */
    public static boolean isValid(QpState from, QpState to) {
        return VALID[from.ordinal()][to.ordinal()];
    }

    /** The mask bits {@code from → to} requires for {@code type} (STATE not included). */
    public static int required(QpState from, QpState to, QpType type) {
        return REQUIRED[from.ordinal()][to.ordinal()][t(type)];
    }

    /** The mask bits {@code from → to} allows beyond the required ones for {@code type}. */
    public static int optional(QpState from, QpState to, QpType type) {
        return OPTIONAL[from.ordinal()][to.ordinal()][t(type)];
    }

    /**
     * Checks a modify: {@code attrMask} must hold every required bit and nothing outside
     * required + optional + STATE. Without STATE the QP stays in its state and the mask is checked
     * as the {@code cur → cur} transition.
     *
     * @throws VerbsException EINVAL naming the missing or extra bits
     */
    public static void check(QpState cur, QpState next, QpType type, int attrMask) {
        if (!isValid(cur, next)) {
            throw new VerbsException(Errno.EINVAL, "QP state transition " + cur + " -> " + next + " is not allowed");
        }
        int req = required(cur, next, type);
        int allowed = req | optional(cur, next, type) | STATE;
        int missing = req & ~attrMask;
        if (missing != 0) {
            throw new VerbsException(Errno.EINVAL, type + " QP " + cur + " -> " + next + " requires attribute mask bits "
                    + maskNames(missing));
        }
        int extra = attrMask & ~allowed;
        if (extra != 0) {
            throw new VerbsException(Errno.EINVAL, type + " QP " + cur + " -> " + next + " does not allow attribute mask bits "
                    + maskNames(extra));
        }
    }

    private static final String[] NAMES = {"STATE", "CUR_STATE", "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS", "PKEY_INDEX",
        "PORT", "QKEY", "AV", "PATH_MTU", "TIMEOUT", "RETRY_CNT", "RNR_RETRY", "RQ_PSN", "MAX_QP_RD_ATOMIC", "ALT_PATH",
        "MIN_RNR_TIMER", "SQ_PSN", "MAX_DEST_RD_ATOMIC", "PATH_MIG_STATE", "CAP", "DEST_QPN"};

    /** The names of the bits in {@code mask}, e.g. {@code "PATH_MTU|DEST_QPN"}. */
    public static String maskNames(int mask) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 32; i++) {
            if ((mask & (1 << i)) != 0) {
                if (sb.length() > 0) {
                    sb.append('|');
                }
                sb.append(i < NAMES.length ? NAMES[i] : "bit" + i);
            }
        }
        return sb.toString();
    }
}
