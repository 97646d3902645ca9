package org.jrdma.verbs;

/** Send work request opcodes, {@code enum ibv_wr_opcode} (verbs.h; {@code ibv_post_send(3)}). */
public enum WrOpcode {
    RDMA_WRITE(0), RDMA_WRITE_WITH_IMM(1), SEND(2), SEND_WITH_IMM(3), RDMA_READ(4),
    ATOMIC_CMP_AND_SWP(5), ATOMIC_FETCH_AND_ADD(6),
    /** Invalidate an rkey/lkey locally ({@code IBV_WR_LOCAL_INV}); {@code invalidateRkey} names it. */
    LOCAL_INV(7),
    /** Bind a type 2 memory window ({@code IBV_WR_BIND_MW}). */
    BIND_MW(8),
    /** SEND whose IETH invalidates the responder's rkey {@code invalidateRkey} ({@code IBV_WR_SEND_WITH_INV}). */
    SEND_WITH_INV(9),
    /** Make earlier RDMA WRITEs persistent/visible at the responder ({@code IBV_WR_FLUSH}, rxe's FLUSH). */
    FLUSH(14),
    /** An 8-byte write executed atomically at the responder ({@code IBV_WR_ATOMIC_WRITE}). */
    ATOMIC_WRITE(15);

    private final int value;

    WrOpcode(int value) {
        this.value = value;
    }

    /** The libibverbs value ({@code IBV_WR_RDMA_WRITE} = 0). */
    public int value() {
        return value;
    }

    /**
     * True for the operations the responder answers with a response and that count against
     * max_rd_atomic / max_dest_rd_atomic: READ, the atomics, and (IBTA Vol 1 Annex A19, rxe)
     * ATOMIC_WRITE and FLUSH, which are answered with an RDMA READ response of no payload.
     */
    public boolean isReadOrAtomic() {
        return this == RDMA_READ || this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD || this == FLUSH
                || this == ATOMIC_WRITE;
    }

    /** True for the atomic operations (8-byte operands, {@code IBV_ATOMIC_HCA}). */
    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }
}
