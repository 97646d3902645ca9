package org.jrdma.verbs;

/**
 * {@code enum ibv_atomic_cap} ({@code ibv_query_device(3)}): what the device guarantees for atomic
 * operations. Ordinal = libibverbs value.
 */
public enum AtomicCap {
    /** {@code IBV_ATOMIC_NONE}: no atomic operations. */
    NONE,
    /** {@code IBV_ATOMIC_HCA}: atomic among the operations of this device (rdma_rxe's, and jrdma's). */
    HCA,
    /** {@code IBV_ATOMIC_GLOB}: atomic also against the CPUs and other devices. */
    GLOB;

    /** The libibverbs value, 0..2. */
    public int value() {
        return ordinal();
    }
}
