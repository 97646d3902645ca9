package org.jrdma.iwarp.transport;

import org.jrdma.soft.SendWqe;
import org.jrdma.verbs.WcStatus;

/** A send queue entry with siw's transmit state: bytes handed to TCP, and whether (and how) it is done. */
final class SiwWqe extends SendWqe {
    /** Bytes of the message written into FPDUs so far. */
    long sent;
    /** True once the WQE's SGEs were resolved and its first FPDU written. */
    boolean started;
    /** True when the WQE may complete (sent, or its READ answered, or failed). */
    boolean done;
    /** The completion status once {@link #done}. */
    WcStatus status;

    SiwWqe(int maxSge, int maxInline) {
        super(maxSge, maxInline);
    }

    @Override
    protected void resetTransportState() {
        sent = 0;
        started = false;
        done = false;
        status = WcStatus.SUCCESS;
    }
}
