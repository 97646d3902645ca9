package org.jrdma.verbs;

/**
 * Queue pair states, {@code enum ibv_qp_state} (IBTA Vol 1 §10.3.1, figure 125; {@code ibv_modify_qp(3)}).
 * The ordinal equals the libibverbs value.
 */
public enum QpState {
    RESET, INIT, RTR, RTS, SQD, SQE, ERR;

    /** The libibverbs value ({@code IBV_QPS_RESET} = 0 ... {@code IBV_QPS_ERR} = 6). */
    public int value() {
        return ordinal();
    }
}
