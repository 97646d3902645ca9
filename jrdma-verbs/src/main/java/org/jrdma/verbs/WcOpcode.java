package org.jrdma.verbs;

/** Work completion opcodes, {@code enum ibv_wc_opcode} (verbs.h; {@code ibv_poll_cq(3)}). */
public enum WcOpcode {
    SEND(0), RDMA_WRITE(1), RDMA_READ(2), COMP_SWAP(3), FETCH_ADD(4), BIND_MW(5), LOCAL_INV(6),
    /** {@code IBV_WC_FLUSH}. */
    FLUSH(8),
    /** {@code IBV_WC_ATOMIC_WRITE}. */
    ATOMIC_WRITE(9),
    /** A receive WQE consumed by a SEND. */
    RECV(128),
    /** A receive WQE consumed by an RDMA WRITE with immediate. */
    RECV_RDMA_WITH_IMM(129);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** The libibverbs value ({@code IBV_WC_RECV} = 128). */
    public int value() {
        return value;
    }

    /** The completion opcode of a send-queue work request. */
    public static WcOpcode of(WrOpcode op) {
        return switch (op) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> SEND;
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> RDMA_WRITE;
            case RDMA_READ -> RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> FETCH_ADD;
            case LOCAL_INV -> LOCAL_INV;
            case BIND_MW -> BIND_MW;
            case FLUSH -> FLUSH;
            case ATOMIC_WRITE -> ATOMIC_WRITE;
        };
    }
}
