package org.jrdma.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A registered memory region, {@code struct ibv_mr} ({@code ibv_reg_mr(3)}). Local work requests
 * name it by {@link #lkey()}, remote peers by {@link #rkey()} and a virtual address inside
 * [{@link #addr()}, {@link #addr()} + {@link #length()}).
 */
public interface MemoryRegion extends AutoCloseable {
    /** The registered memory. */
    MemorySegment segment();

    /** The virtual address of the first byte: {@code segment().address()}. */
    long addr();

    /** The length in bytes. */
    long length();

    /** The local key (32 bits) that SGEs carry. */
    int lkey();

    /** The remote key (32 bits) that peers put in RETH / AtomicETH. */
    int rkey();

    /** The {@link AccessFlags} bits it was registered with. */
    int access();

    /** The protection domain. */
    ProtectionDomain pd();

    /** {@code ibv_dereg_mr(3)}: the keys become invalid at once. */
    @Override
    void close();
}
