package org.jrdma.verbs;

/**
 * An open device, {@code struct ibv_context}. Creates protection domains, completion queues and
 * completion channels. Closing it ({@code ibv_close_device(3)}) closes what was created from it.
 * Thread-safe.
 */
public interface Context extends AutoCloseable {
    /** The device this context was opened from. */
    Device device();

    /** {@code ibv_query_device(3)}. */
    DeviceAttr queryDevice();

    /** {@code ibv_query_port(3)}. @throws VerbsException EINVAL for a port other than 1 */
    PortAttr queryPort(int portNum);

    /**
     * {@code ibv_query_gid(3)}: entry {@code index} of the port's GID table.
     *
     * @throws VerbsException EINVAL for a port other than 1 or an index outside the table
     */
    Gid queryGid(int portNum, int index);

    /** {@code ibv_alloc_pd(3)}. */
    ProtectionDomain allocPd();

    /** {@code ibv_create_comp_channel(3)}. */
    CompletionChannel createCompChannel();

    /**
     * {@code ibv_create_cq(3)}. Size it for every completion its QPs can have outstanding: an
     * overrun puts the CQ and its QPs into error ({@link CompletionQueue}).
     *
     * @param cqe minimum number of entries (1..{@link DeviceAttr#maxCqe()})
     * @param channel completion channel for events, or null
     * @throws VerbsException EINVAL when cqe is out of range
     */
    CompletionQueue createCq(int cqe, CompletionChannel channel);

    /**
     * A provider extension of this context, like the {@code *dv} and statistics interfaces of rdma-core
     * providers: {@link org.jrdma.verbs.ext.HardwareCounters} (the device's counters, with rxe's
     * names on the software RoCE v2 provider), {@link org.jrdma.verbs.ext.ResourceCounts} (the
     * device's live objects, as {@code rdma resource show} counts them),
     * {@link org.jrdma.verbs.ext.PacketCapture} (start and stop a pcap of the device's packets).
     * Applications ask for an extension by its interface and must cope with its absence.
     *
     * @param type the extension's interface
     * @return the extension, or empty when this provider does not offer it
     */
    default <T> java.util.Optional<T> extension(Class<T> type) {
        return java.util.Optional.empty();
    }

    /** Closes the context and every resource created from it. */
    @Override
    void close();

    // ---- issue 10 (srq): shared receive queues, asynchronous events ----

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    /**
     * {@code ibv_create_qp_ex(3)} with {@code ibv_qp_to_qp_ex}: a queue pair of {@code attr.pd()} with
     * the {@code ibv_wr_*} API for the operations in {@code attr.sendOpsFlags()} ({@link QpEx}; the QP
     * is {@link QpEx#qp()}). Without {@link QpInitAttrEx#MASK_SEND_OPS_FLAGS} no builder may post
     * (each fails with EOPNOTSUPP).
     *
     * @throws VerbsException EINVAL without {@link QpInitAttrEx#MASK_PD} or with a PD of another
     *     context, and for what {@link ProtectionDomain#createQp} refuses in {@code attr.attr()};
     *     EOPNOTSUPP for comp_mask bits, create_flags or send_ops_flags the provider does not support
     *     on the QP type (the software providers: as rxe, {@link SendOpsFlags}); the default:
     *     EOPNOTSUPP, a provider without the extended API
     */
    default QpEx createQpEx(QpInitAttrEx attr) {
        throw new VerbsException(Errno.EOPNOTSUPP, "this provider has no extended QP API (ibv_create_qp_ex)");
    }

    /**
     * {@code ibv_create_cq_ex(3)}: a completion queue with the start/next/end poll API
     * ({@link CqEx}; the CQ is {@link CqEx#cq()}) providing the fields of {@code attr.wcFlags()}.
     * The software providers support {@link WcExFlags#STANDARD_FLAGS} and both completion timestamps
     * (rxe's set), the hint {@link CqInitAttrEx#SINGLE_THREADED}, one completion vector.
     *
     * @throws VerbsException EINVAL for cqe out of range (as {@link #createCq}), unknown comp_mask bits or
     *     a comp_vector out of range; EOPNOTSUPP for other wc_flags, {@link CqInitAttrEx#MASK_PD},
     *     other flags; the default: EOPNOTSUPP, a provider without the extended API
     */
    default CqEx createCqEx(CqInitAttrEx attr) {
        throw new VerbsException(Errno.EOPNOTSUPP, "this provider has no extended CQ API (ibv_create_cq_ex)");
    }

    // ---- issue 11 (cm): connection manager, QP1 ----
}
