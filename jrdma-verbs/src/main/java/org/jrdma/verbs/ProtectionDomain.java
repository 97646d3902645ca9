package org.jrdma.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A protection domain, {@code struct ibv_pd} ({@code ibv_alloc_pd(3)}): memory regions, queue
 * pairs and address handles of one PD can only be used together (IBTA Vol 1 §10.2.3).
 */
public interface ProtectionDomain extends AutoCloseable {
    /** The context this PD belongs to. */
    Context context();

    /**
     * {@code ibv_reg_mr(3)}: registers native memory. The region's address ({@link MemoryRegion#addr()})
     * is {@code segment.address()}; SGEs and remote addresses refer to it by that virtual address.
     *
     * @param segment native memory accessible from every thread (from {@code Arena.ofShared()},
     *                {@code Arena.ofAuto()} or {@code Arena.global()}: a software device's I/O thread
     *                reads and writes it); it must stay alive until deregistered
     * @param access {@link AccessFlags} bits
     * @throws VerbsException EINVAL for a heap segment, a thread-confined segment, an empty segment, unknown access bits, or
     *                        REMOTE_WRITE / REMOTE_ATOMIC without LOCAL_WRITE
     */
    MemoryRegion regMr(MemorySegment segment, int access);

    /** {@code ibv_create_qp(3)}. @throws VerbsException EINVAL for capabilities over the device limits */
    QueuePair createQp(QpInitAttr attr);

    /** {@code ibv_create_ah(3)}: an address handle for UD sends. */
    AddressHandle createAh(AhAttr attr);

    /** {@code ibv_dealloc_pd(3)}. @throws VerbsException EBUSY while MRs, QPs or AHs still use it */
    @Override
    void close();

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    /**
     * {@code ibv_create_srq(3)}: a shared receive queue of this PD, holding at least
     * {@code attr.attr().maxWr()} WRs of at least {@code attr.attr().maxSge()} SGEs each (query it for
     * the actual sizes); its limit starts disarmed.
     *
     * @throws VerbsException EINVAL for max_wr not in 1..max_srq_wr or max_sge above max_srq_sge
     *                        ({@code ibv_query_device}); ENOMEM when the device has max_srq SRQs;
     *                        EOPNOTSUPP where the provider has no SRQs
     */
    default SharedReceiveQueue createSrq(SrqInitAttr attr) {
        throw new VerbsException(Errno.EOPNOTSUPP, "shared receive queues are not supported by this provider");
    }

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    /**
     * {@code ibv_alloc_mw(3)}: a memory window of this PD, not bound (its rkey grants nothing yet).
     *
     * @param type {@link MwType#TYPE_1} or {@link MwType#TYPE_2} ({@link MwType#of(int)} refuses other
     *             libibverbs values with EINVAL)
     * @throws VerbsException EINVAL for a null type or a closed PD; ENOMEM over the device's max_mw;
     *                        EOPNOTSUPP where the provider has no memory windows
     */
    default MemoryWindow allocMw(MwType type) {
        throw new VerbsException(Errno.EOPNOTSUPP, "memory windows are not supported by this provider");
    }

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    /**
     * {@code ibv_create_qp_ex(3)} on this PD: sets {@code attr}'s PD (and {@link QpInitAttrEx#MASK_PD})
     * to this one and calls {@link Context#createQpEx}, with its errors.
     */
    default QpEx createQpEx(QpInitAttrEx attr) {
        return context().createQpEx(attr.pd(this));
    }

    // ---- issue 11 (cm): connection manager, QP1 ----
}
