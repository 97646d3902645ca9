package org.jrdma.soft;

import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.VerbsException;

/**
 * The IBTA QP state machine (Vol 1 §10.3, §11.2.5): the current state, which transitions and
 * attribute masks {@code modify} accepts ({@link QpTransitions}, libibverbs' rules), which states
 * accept posts, and the flush rules:
 * <ul>
 *   <li>entering ERR completes every outstanding send and receive WR with WR_FLUSH_ERR (§10.3.1,
 *       §11.6.2), and so does every WR posted while in ERR;</li>
 *   <li>entering RESET empties both queues without completions;</li>
 *   <li>post_send needs RTS, SQD, SQE or ERR (EINVAL in RESET, INIT, RTR); post_recv anything but
 *       RESET (EINVAL).</li>
 * </ul>
 * A transport with states of its own (iWARP's IDLE…TERMINATE) maps them onto these.
 *
 * <p>Threads: written under the QP's lock; {@link #state()} may be read without it.
 */
public final class QpStateMachine {
    private final QpType type;
    private volatile QpState state = QpState.RESET;

    QpStateMachine(QpType type) {
        this.type = type;
    }

    /** The current state. */
    public QpState state() {
        return state;
    }

    void set(QpState s) {
        state = s;
    }

    /**
     * The state a modify moves to: {@code attr.qpState()} with {@link QpAttrMask#STATE}, else the
     * current one.
     *
     * @throws VerbsException EINVAL when the transition or the mask is not allowed for the QP type
     */
    QpState checkModify(QpAttr attr, int mask) {
        QpState cur = state;
        QpState next = (mask & QpAttrMask.STATE) != 0 ? attr.qpState() : cur;
        QpTransitions.check(cur, next, type, mask);
        return next;
    }

    /** @throws VerbsException EINVAL when the QP cannot take send WRs (RESET, INIT, RTR) */
    void checkPostSend() {
        QpState s = state;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
            throw new VerbsException(Errno.EINVAL, "post_send on a QP in " + s + " (needs RTS)");
        }
    }

    /** @throws VerbsException EINVAL in RESET */
    void checkPostRecv() {
        if (state == QpState.RESET) {
            throw new VerbsException(Errno.EINVAL, "post_recv on a QP in RESET");
        }
    }

    /** True when WRs posted now complete at once with WR_FLUSH_ERR (the QP is in ERR). */
    boolean flushesPosts() {
        return state == QpState.ERR;
    }

    /** True when the move {@code from → to} flushes both queues. */
    static boolean flushesOnEntry(QpState from, QpState to) {
        return to == QpState.ERR && from != QpState.ERR;
    }

    /** True when the move {@code from → to} empties both queues without completions. */
    static boolean clearsOnEntry(QpState from, QpState to) {
        return to == QpState.RESET && from != QpState.RESET;
    }
}
