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

    /**
     * {@code ibv_dereg_mr(3)}: the keys become invalid at once.
     *
     * @throws VerbsException EINVAL while memory windows are bound to it (rxe {@code rxe_dereg_mr});
     *                        the region stays registered then
     */
    @Override
    void close();

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    /**
     * {@code ibv_rereg_mr(3)}: changes the region in place. The lkey and rkey stay (rxe keeps them for
     * CHANGE_PD and CHANGE_ACCESS; jrdma also for CHANGE_TRANSLATION, which rxe refuses with
     * EOPNOTSUPP). Traffic racing the call: a request whose rkey check passed before the change
     * finishes with the old attributes (rxe holds its MR for the request); every later request and
     * every WQE whose SGEs are resolved later sees the new ones, e.g. a revoked right or another PD
     * gives the peer REM_ACCESS_ERR (a NAK remote access error) and a local WQE LOC_PROT_ERR.
     *
     * @param flags  {@link ReregMrFlags} bits: CHANGE_TRANSLATION, CHANGE_PD, CHANGE_ACCESS (at least one)
     * @param pd     the new PD (CHANGE_PD), of the same context; else ignored
     * @param segment the new memory (CHANGE_TRANSLATION), native and shared as for {@code regMr}; else ignored
     * @param access the new {@link AccessFlags} (CHANGE_ACCESS); else ignored
     * @throws VerbsException EINVAL (libibverbs' IBV_REREG_MR_ERR_INPUT / the kernel's EINVAL) for flags 0
     *     or outside the three, a deregistered region, a missing or unusable segment, a PD of another
     *     context or closed, access bits as {@code regMr} refuses them, or while memory windows are bound
     *     to the region (IBTA: a region with bound windows cannot be reregistered); nothing changes then.
     *     EOPNOTSUPP where the provider has no rereg.
     */
    default void rereg(int flags, ProtectionDomain pd, MemorySegment segment, int access) {
        throw new VerbsException(Errno.EOPNOTSUPP, "ibv_rereg_mr is not supported by this provider");
    }

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    // ---- issue 11 (cm): connection manager, QP1 ----
}
