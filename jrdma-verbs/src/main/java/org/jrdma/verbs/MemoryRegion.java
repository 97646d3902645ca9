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

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    // ---- issue 11 (cm): connection manager, QP1 ----
}
