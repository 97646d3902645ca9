package org.jrdma.conformance;

/**
 * Optional parts of the verbs contract. A provider's {@link ProviderFixture#supports(Feature)}
 * says which it has; tests of a missing feature are skipped (JUnit assumptions), never passed.
 */
public enum Feature {
    /** ATOMIC_CMP_AND_SWP and ATOMIC_FETCH_AND_ADD (IBTA Vol 1 §9.4.5; not on iWARP, RFC 5040 has none). */
    ATOMICS,
    /** SEND_WITH_IMM and RDMA_WRITE_WITH_IMM (IBTA ImmDt; not on iWARP). */
    IMMEDIATE,
    /** Unreliable connected QPs (IBTA Vol 1 §9.8.2; not on iWARP). */
    UC,
    /** Unreliable datagram QPs (IBTA Vol 1 §9.8.4): here only their modify state table. */
    UD,
    /** Inline send data ({@code IBV_SEND_INLINE}). */
    INLINE,
    /** Receiver-not-ready NAKs and rnr_retry (IBTA Vol 1 §9.7.5.2.8; iWARP has no RNR). */
    RNR,
    /** A settable path MTU of 256..4096 bytes ({@code IBV_QP_PATH_MTU}; iWARP segments by TCP MSS). */
    PATH_MTU,
    /** Solicited events and {@code ibv_req_notify_cq(cq, 1)}. */
    SOLICITED_EVENTS,
    /** The local ACK timeout and retry_cnt (IBTA Vol 1 §9.7.6.1.3); iWARP relies on TCP. */
    ACK_TIMEOUT,
    /** The device's counters through {@code Context.extension(HardwareCounters.class)}. */
    HARDWARE_COUNTERS,
    /** The device's live PDs, CQs, QPs and MRs through {@code Context.extension(ResourceCounts.class)}. */
    RESOURCE_COUNTS,
    /** Shared receive queues ({@code ibv_create_srq(3)}), RC and UD QPs on an SRQ, the limit event. */
    SRQ,
    /** Asynchronous events ({@code ibv_get_async_event(3)}). */
    ASYNC_EVENTS,
    /** Memory windows type 1 and 2 ({@code ibv_alloc_mw(3)}, {@code ibv_bind_mw(3)}), LOCAL_INV, SEND_WITH_INV. */
    MEMORY_WINDOWS,
    /** {@code ibv_rereg_mr(3)}. */
    REREG_MR,
    /** {@code ibv_resize_cq(3)}. */
    RESIZE_CQ,
    /** {@code ibv_create_qp_ex(3)} with the {@code ibv_wr_*} builders, {@code ibv_create_cq_ex(3)}. */
    EXTENDED_API,
    /** {@code IBV_WR_ATOMIC_WRITE} (rxe; not in Linux 6.1). */
    ATOMIC_WRITE,
    /** {@code IBV_WR_FLUSH} with placement types (rxe; not in Linux 6.1). */
    FLUSH,
    /**
     * QPs reach RTR and RTS through {@code ibv_modify_qp} with an address vector, QPNs and PSNs (IB,
     * RoCE). Not on iWARP: a QP moves to RTS when its connection manager has the TCP connection and
     * the MPA exchange (siw: EINVAL without the socket); the fixture connects them ({@link
     * ProviderFixture#connectRc}) and the state-table and modify-attribute tests are skipped.
     */
    MODIFY_TO_RTS
}
