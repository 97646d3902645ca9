package org.jrdma.rocev2.transport;

import org.jrdma.soft.SendWqe;

/** A send WQE with the RC/UC requester's execution state (rxe: {@code struct rxe_send_wqe}). */
final class RxeSendWqe extends SendWqe {
    /**
     * Not started, being sent, all packets sent, failed locally before sending, or a local operation
     * (BIND_MW, LOCAL_INV) executed: it completes in order, without packets (rxe {@code wqe_state_done}).
     */
    static final int POSTED = 0, SENDING = 1, SENT = 2, LOCAL_ERROR = 3, DONE = 4;

    int wqeState;
    /** PSN of the first packet (the request packet for READ and atomics). */
    int firstPsn;
    /** PSN of the last packet; for READ the PSN of the last response packet. */
    int lastPsn;
    /** Bytes of the message already put into packets. */
    long sentBytes;
    /** READ: bytes of the response already placed. */
    long readBytes;
    /** The status of a local error found by the requester. */
    org.jrdma.verbs.WcStatus localStatus;

    RxeSendWqe(int maxSge, int maxInline) {
        super(maxSge, maxInline);
    }

    @Override
    protected void resetTransportState() {
        wqeState = POSTED;
        firstPsn = 0;
        lastPsn = 0;
        sentBytes = 0;
        readBytes = 0;
        localStatus = null;
    }

    /**
     * The byte_len of this WQE's successful completion, as rxe reports it ({@code wqe->dma.length}):
     * the message length; 8 for the atomics and ATOMIC_WRITE; the range of a FLUSH.
     */
    int completionByteLen() {
        return switch (opcode) {
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD, ATOMIC_WRITE -> 8;
            case FLUSH -> (int) flushLength;
            default -> (int) length;
        };
    }

    /** Packets this WQE occupies in PSN space at path MTU {@code mtu} (at least 1). */
    int packets(int mtu) {
        if (opcode.isReadOrAtomic() && opcode != org.jrdma.verbs.WrOpcode.RDMA_READ) {
            return 1; // atomics, ATOMIC_WRITE and FLUSH: one request, one response
        }
        return (int) Math.max(1, (length + mtu - 1) / mtu);
    }
}
