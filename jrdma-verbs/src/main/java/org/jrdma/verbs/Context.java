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
     * @throws VerbsException EINVAL when cqe is out of range; ENOMEM past {@link DeviceAttr#maxCq()} CQs on the device
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

    /**
     * {@code ibv_get_async_event(3)}: takes the oldest asynchronous event of this context, waiting
     * until there is one. Events are queued per context in the order they were raised (an event
     * about a QP, CQ or SRQ goes to the context it was created from; port and device events to
     * every context of the device); those of an object destroyed before they were taken are
     * dropped, as the kernel drops them. Each event taken must be acknowledged
     * ({@link AsyncEvent#ack()}).
     *
     * <p>Destroying a QP, CQ or SRQ with events taken but not acknowledged (libibverbs'
     * {@code ibv_destroy_qp} waits for them): jrdma waits up to one second for another thread to
     * acknowledge them, then fails with EBUSY and leaves the object alive.
     *
     * @throws VerbsException ENODEV when the context is (or gets) closed
     */
    default AsyncEvent getAsyncEvent() {
        throw new VerbsException(Errno.EOPNOTSUPP, "asynchronous events are not supported by this provider");
    }

    /**
     * The timed form of {@link #getAsyncEvent()} (what {@code poll(2)} on the context's
     * {@code async_fd} gives in C).
     *
     * @param timeout how long to wait at most, 0 for not at all
     * @return the event, or null when none arrived in time
     * @throws VerbsException ENODEV when the context is (or gets) closed
     */
    default AsyncEvent getAsyncEvent(long timeout, java.util.concurrent.TimeUnit unit) {
        throw new VerbsException(Errno.EOPNOTSUPP, "asynchronous events are not supported by this provider");
    }

    /** {@code ibv_ack_async_event(3)}: the same as {@code event.ack()}. */
    default void ackAsyncEvent(AsyncEvent event) {
        event.ack();
    }

    // ---- issue 10 (mw): memory windows, rereg_mr ----

    // ---- issue 10 (query): device/port/GID/P_Key queries, CQ resize, completion vectors ----

    /**
     * {@code ibv_query_device_ex(3)}: the attributes of {@link #queryDevice()} and the extended ones
     * ({@code ibv_devinfo -v} prints them after {@code local_ca_ack_delay}). Any thread.
     */
    DeviceAttrEx queryDeviceEx();

    /**
     * {@code ibv_query_gid_ex(3)}: entry {@code gidIndex} of the port's GID table with its type.
     *
     * @param portNum 1..{@link DeviceAttr#physPortCnt()}
     * @param gidIndex 0..{@link PortAttr#gidTblLen()} - 1
     * @throws VerbsException EINVAL for a port that does not exist or an index outside the table;
     *                        ENODATA for an index inside the table without a GID
     */
    GidEntry queryGidEx(int portNum, int gidIndex);

    /**
     * {@code ibv_query_gid_table(3)}: the valid GID entries of every port, in port and index order,
     * into {@code entries[0..n)}; {@code entries.length} is {@code max_entries}.
     *
     * @return n, the number of entries written
     * @throws VerbsException EINVAL when {@code entries} is empty or shorter than the number of
     *                        valid entries (nothing is written then)
     */
    int queryGidTable(GidEntry[] entries);

    /**
     * {@code ibv_query_pkey(3)}: entry {@code index} of the port's P_Key table (a 16-bit P_Key,
     * 0xFFFF = the default partition, full membership).
     *
     * @param index 0..{@link PortAttr#pkeyTblLen()} - 1
     * @throws VerbsException EINVAL for a port that does not exist or an index outside the table
     */
    int queryPkey(int portNum, int index);

    /**
     * {@code ibv_get_pkey_index(3)}: the index of {@code pkey} (16 bits) in the port's P_Key table.
     *
     * @return the index, or -1 when the table does not hold it (libibverbs returns -1)
     * @throws VerbsException EINVAL for a port that does not exist or a pkey outside 0..0xFFFF
     */
    int getPkeyIndex(int portNum, int pkey);

    /**
     * {@code ibv_context.num_comp_vectors}: the completion vectors a CQ may be created on
     * ({@link #createCq(int, CompletionChannel, int)}), at least 1.
     */
    int numCompVectors();

    /**
     * {@code ibv_create_cq(3)} with its {@code comp_vector}: the completion vector whose events the
     * CQ uses (an interrupt line on hardware; jrdma's software devices have one,
     * {@link #numCompVectors()}). {@link #createCq(int, CompletionChannel)} is this with vector 0.
     *
     * @param compVector 0..{@link #numCompVectors()} - 1
     * @throws VerbsException EINVAL when cqe is out of range or compVector is not below
     *                        {@link #numCompVectors()} (libibverbs' check)
     */
    CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector);

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
     *     a comp_vector not below {@link #numCompVectors()} (as {@link #createCq(int, CompletionChannel, int)}); EOPNOTSUPP for other wc_flags, {@link CqInitAttrEx#MASK_PD},
     *     other flags; the default: EOPNOTSUPP, a provider without the extended API
     */
    default CqEx createCqEx(CqInitAttrEx attr) {
        throw new VerbsException(Errno.EOPNOTSUPP, "this provider has no extended CQ API (ibv_create_cq_ex)");
    }

    // ---- issue 11 (cm): connection manager, QP1 ----
}
