package org.jrdma.cm;

/**
 * The IB CM's time arithmetic, as Linux's {@code cm.c} does it: IBA times are exponents of
 * 4.096 µs × 2^t (IBTA Vol 1 §12.7.x).
 */
final class IbTimeouts {
    /** Packet lifetime of a RoCE path, {@code CMA_IBOE_PACKET_LIFETIME} (18 on the lab's kernels: the REQs of rxe-cm-rping carry local ACK timeout 19). */
    static final int PACKET_LIFETIME = 18;
    /** The CA ACK delay the CM reports for a jrdma device (the REP's "target ACK delay"): rdma_rxe's, 15 in the REP of rxe-cm-rping.pcap. */
    static final int CA_ACK_DELAY = 15;
    /** The service timeout of the MRAs rdma_cm sends, {@code CMA_CM_MRA_SETTING} without its delay flag: 24 (68.7 s). */
    static final int MRA_SERVICE_TIMEOUT = 24;
    /** The hi_tid of the jrdma CM's MAD agent (the high 32 bits of its transaction IDs). */
    static final long HI_TID = 2;

    private IbTimeouts() {
    }

    /** {@code cm_convert_to_ms}: 4.096 µs × 2^t, approximated as 2^(t - 8) ms (at least 1 ms). */
    static long toMs(int ibaTime) {
        return 1L << Math.max(ibaTime - 8, 0);
    }

    /**
     * {@code cm_ack_timeout}: the local ACK timeout of a QP from the CA's ACK delay and the path's
     * packet lifetime (both IBA times): about lifetime + 1, at least the ACK delay, at most 31.
     */
    static int ackTimeout(int caAckDelay, int packetLifeTime) {
        int ackTimeout = packetLifeTime + 1;
        if (ackTimeout >= caAckDelay) {
            ackTimeout += (caAckDelay >= ackTimeout - 1) ? 1 : 0;
        } else {
            ackTimeout = caAckDelay + (ackTimeout >= caAckDelay - 1 ? 1 : 0);
        }
        return Math.min(31, ackTimeout);
    }

    /**
     * The timeout of a REQ, REP or DREQ: {@code cm_convert_to_ms(packet_life_time) * 2 +
     * cm_convert_to_ms(remote_cm_response_timeout)} ({@code ib_send_cm_req}).
     */
    static long requestMs(int responseTimeout) {
        return 2 * toMs(PACKET_LIFETIME) + toMs(responseTimeout);
    }

    /**
     * The transaction ID of the MADs a connection starts (REQ, DREQ), {@code cm_form_tid}: the agent's
     * hi_tid, then the local communication ID as the kernel stores it (big-endian, read as a
     * little-endian word: byte-swapped), as the REQs of rxe-cm-rping show (ID 0x82b6edf3, TID 0x2f3edb682).
     */
    static long formTid(int localCommId) {
        return (HI_TID << 32) | (Integer.reverseBytes(localCommId) & 0xffffffffL);
    }
}
