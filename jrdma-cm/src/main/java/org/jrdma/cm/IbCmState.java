package org.jrdma.cm;

/**
 * The states of an IB CM connection (IBTA Vol 1 §12.9.6 "Communication Establishment — Active/Passive"
 * state diagrams; Linux {@code enum ib_cm_state}).
 */
enum IbCmState {
    IDLE,
    /** Active: REQ sent, waiting for REP (or REJ, MRA). */
    REQ_SENT,
    /** Passive: REQ received, the application decides. */
    REQ_RCVD,
    /** Passive: an MRA for the REQ is owed or sent (rdma_cm's delayed MRA: sent when the REQ comes again). */
    MRA_REQ_SENT,
    /** Active: the peer sent an MRA for our REQ; its timeout is the MRA's service timeout. */
    MRA_REQ_RCVD,
    /** Passive: REP sent, waiting for RTU. */
    REP_SENT,
    /** Active: REP received, the RTU is not sent yet. */
    REP_RCVD,
    /** Active: REP received, an MRA for it owed (rdma_cm's delayed MRA), waiting for the application's establish. */
    MRA_REP_SENT,
    /** Passive: the peer sent an MRA for our REP. */
    MRA_REP_RCVD,
    ESTABLISHED,
    /** DREQ sent, waiting for DREP. */
    DREQ_SENT,
    /** DREQ received, the DREP is sent when the application disconnects (or destroys the ID). */
    DREQ_RCVD,
    /** The connection ended; its QPN and communication ID are not reused until the timewait ends. */
    TIMEWAIT
}
