package org.jrdma.verbs;

/** Send work request opcodes, {@code enum ibv_wr_opcode} (verbs.h; {@code ibv_post_send(3)}). */
public enum WrOpcode {
    RDMA_WRITE(0), RDMA_WRITE_WITH_IMM(1), SEND(2), SEND_WITH_IMM(3), RDMA_READ(4),
    ATOMIC_CMP_AND_SWP(5), ATOMIC_FETCH_AND_ADD(6);

    private final int value;

    WrOpcode(int value) {
        this.value = value;
    }

    /** The libibverbs value ({@code IBV_WR_RDMA_WRITE} = 0). */
    public int value() {
        return value;
    }

    /** True for the operations that read remote memory and wait for a response (READ, atomics). */
    public boolean isReadOrAtomic() {
        return this == RDMA_READ || this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /** True for the atomic operations (8-byte operands, {@code IBV_ATOMIC_HCA}). */
    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }
}
