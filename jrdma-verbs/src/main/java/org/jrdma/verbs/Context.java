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

    // ---- issue 10 (ext): extended QP/CQ API, ATOMIC_WRITE, FLUSH ----

    // ---- issue 11 (cm): connection manager, QP1 ----
}
