package org.jrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.util.ArrayList;
import java.util.List;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.QueuePair;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * {@code ibv_modify_qp(3)} against the state table ({@link QpStateTable}): for every valid row of
 * RC, UC and UD, the required bits succeed and move the QP; a missing required bit, or any bit
 * outside required + optional, is EINVAL and leaves the QP in its state ({@code ibv_query_qp});
 * the optional bits the API can express are accepted; a transition not in the table is EINVAL.
 */
public abstract class QpStateTableConformance extends ConformanceBase {
    private static final String[] BIT_NAMES = {"STATE", "CUR_STATE", "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS",
        "PKEY_INDEX", "PORT", "QKEY", "AV", "PATH_MTU", "TIMEOUT", "RETRY_CNT", "RNR_RETRY", "RQ_PSN",
        "MAX_QP_RD_ATOMIC", "ALT_PATH", "MIN_RNR_TIMER", "SQ_PSN", "MAX_DEST_RD_ATOMIC", "PATH_MIG_STATE", "CAP",
        "DEST_QPN"};
    /** The optional bits whose attributes {@code QpAttr} carries. */
    private static final int EXPRESSIBLE = QpAttrMask.ACCESS_FLAGS | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT
            | QpAttrMask.QKEY | QpAttrMask.MIN_RNR_TIMER | QpAttrMask.CUR_STATE;

    private ProtectionDomain pd;
    private CompletionQueue cq;
    private int peerQpn;
    private Gid peerGid;

    static String bitName(int bit) {
        return BIT_NAMES[Integer.numberOfTrailingZeros(bit)];
    }

    @TestFactory
    List<DynamicTest> rcTable() {
        return table(QpType.RC);
    }

    @TestFactory
    List<DynamicTest> ucTable() {
        require(Feature.UC);
        return table(QpType.UC);
    }

    @TestFactory
    List<DynamicTest> udTable() {
        require(Feature.UD);
        return table(QpType.UD);
    }

    private void setUp() {
        pd = track(ca.allocPd());
        cq = track(ca.createCq(64, null));
        ProtectionDomain pdb = track(cb.allocPd());
        CompletionQueue cqb = track(cb.createCq(16, null));
        QueuePair peer = track(pdb.createQp(initAttr(cqb, cqb, conn().depth(4, 4))));
        peerQpn = peer.qpNum();
        peerGid = cb.queryGid(fixture().portNum(), fixture().gidIndex());
    }

    private List<DynamicTest> table(QpType type) {
        setUp();
        List<DynamicTest> tests = new ArrayList<>();
        for (QpStateTable.Row row : QpStateTable.rows(type)) {
            tests.add(dynamicTest(row + " with the required bits", () -> withQp(type, row.from(), q -> {
                q.modify(attr(row.to(), row.from()), QpAttrMask.STATE | row.required());
                assertEquals(row.to(), queryState(q), row + ": state after modify");
                assertEquals(row.to(), q.state(), row + ": state()");
            })));
            for (int bit = 2; bit <= QpStateTable.ALL_BITS; bit <<= 1) {
                int b = bit;
                if ((row.required() & bit) != 0) {
                    tests.add(dynamicTest(row + " without required " + bitName(bit), () -> withQp(type, row.from(), q -> {
                        assertErrno(Errno.EINVAL, () -> q.modify(attr(row.to(), row.from()),
                                QpAttrMask.STATE | (row.required() & ~b)), row + " without " + bitName(b));
                        assertEquals(row.from(), queryState(q), row + " without " + bitName(b) + ": state unchanged");
                    })));
                } else if ((row.optional() & bit) == 0) {
                    tests.add(dynamicTest(row + " with extra " + bitName(bit), () -> withQp(type, row.from(), q -> {
                        assertErrno(Errno.EINVAL, () -> q.modify(attr(row.to(), row.from()),
                                QpAttrMask.STATE | row.required() | b), row + " with extra " + bitName(b));
                        assertEquals(row.from(), queryState(q), row + " with extra " + bitName(b) + ": state unchanged");
                    })));
                } else if ((EXPRESSIBLE & bit) != 0) {
                    tests.add(dynamicTest(row + " with optional " + bitName(bit), () -> withQp(type, row.from(), q -> {
                        q.modify(attr(row.to(), row.from()), QpAttrMask.STATE | row.required() | b);
                        assertEquals(row.to(), queryState(q), row + " with optional " + bitName(b));
                    })));
                }
            }
        }
        for (QpState[] t : QpStateTable.invalidTransitions()) {
            QpState from = t[0], to = t[1];
            int mask = QpAttrMask.STATE;
            for (QpStateTable.Row row : QpStateTable.rows(type)) {
                if (row.to() == to) {
                    mask |= row.required();
                }
            }
            int m = mask;
            tests.add(dynamicTest(type + " " + from + "->" + to + " is not a transition", () -> withQp(type, from, q -> {
                assertErrno(Errno.EINVAL, () -> q.modify(attr(to, from), m), type + " " + from + "->" + to);
                assertEquals(from, queryState(q), type + " " + from + "->" + to + ": state unchanged");
            })));
        }
        return tests;
    }

    private interface QpCheck {
        void check(QueuePair q) throws Throwable;
    }

    private void withQp(QpType type, QpState state, QpCheck check) throws Throwable {
        QueuePair q = pd.createQp(initAttr(cq, cq, conn().type(type).depth(4, 4).maxSge(1)));
        try {
            bring(q, type, state);
            assertEquals(state, queryState(q), "set-up state");
            check.check(q);
        } finally {
            q.close();
        }
    }

    /** Moves a new QP from RESET to {@code target} along RESET → INIT → RTR → RTS (ERR from INIT). */
    private void bring(QueuePair q, QpType type, QpState target) {
        if (target == QpState.RESET) {
            return;
        }
        int initMask = QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT
                | (type == QpType.UD ? QpAttrMask.QKEY : QpAttrMask.ACCESS_FLAGS);
        q.modify(attr(QpState.INIT, QpState.RESET), initMask);
        if (target == QpState.INIT) {
            return;
        }
        if (target == QpState.ERR) {
            q.modify(attr(QpState.ERR, QpState.INIT), QpAttrMask.STATE);
            return;
        }
        int rtrMask = QpAttrMask.STATE | switch (type) {
            case RC -> QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN
                    | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
            case UC -> QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
            case UD -> 0;
        };
        q.modify(attr(QpState.RTR, QpState.INIT), rtrMask);
        if (target == QpState.RTR) {
            return;
        }
        int rtsMask = QpAttrMask.STATE | QpAttrMask.SQ_PSN | (type == QpType.RC
                ? QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC : 0);
        q.modify(attr(QpState.RTS, QpState.RTR), rtsMask);
    }

    /** Valid values for every attribute, so that only the mask decides. */
    private QpAttr attr(QpState to, QpState from) {
        QpAttr a = new QpAttr().qpState(to).curQpState(from).pathMtu(Mtu.MTU_1024).qkey(0x11111111).rqPsn(7).sqPsn(9)
                .destQpNum(peerQpn).qpAccessFlags(QP_ALL_REMOTE).pkeyIndex(0).portNum(fixture().portNum())
                .maxRdAtomic(1).maxDestRdAtomic(1).minRnrTimer(12).timeout(14).retryCnt(7).rnrRetry(7);
        a.ahAttr().isGlobal(true).portNum(fixture().portNum()).grh().dgid(peerGid).hopLimit(64)
                .sgidIndex(fixture().gidIndex());
        return a;
    }
}
