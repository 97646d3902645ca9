package org.jrdma.cm;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What one {@link IbCm} counted: the CM MADs it dropped, by reason, and the events of its bounds
 * (repeated REQs, pending requests timed out, connections established by COMM_EST). Linux keeps the
 * like in {@code /sys/class/infiniband_cm/DEVICE/PORT/cm_rx_duplicates}; jrdma offers them through
 * {@link CmStatistics}. Guarded by the CM lock.
 */
final class CmCounters {
    /** Why a CM MAD was dropped (or a connection given up). */
    enum Drop {
        /** Not class CM version 2 or not method Send. */
        NOT_CM_SEND,
        /** An attribute the CM does not serve (LAP and APR, dropped as Linux drops them on RoCE; a SIDR_REQ, answered "unsupported"). */
        UNSUPPORTED_ATTRIBUTE,
        /** The message names no connection of ours (REP, RTU, MRA, REJ, DREP). */
        UNKNOWN_COMM_ID,
        /** The message does not fit the connection's state (a late or duplicate message). */
        WRONG_STATE,
        /** A REQ again for a connection being made, with nothing owed to answer it with. */
        DUPLICATE_REQ,
        /** A REQ beyond the listener's backlog (unanswered, so that the peer retries). */
        BACKLOG_FULL,
        /** A REQ of a QP type the port space does not use. */
        BAD_REQ,
        /** A MAD whose fields the CM could not take (a value out of its range): dropped whole. */
        MALFORMED,
        /** A pending connection request nobody accepted or rejected before its active side gave up. */
        STALE_REQUEST
    }

    private final EnumMap<Drop, Long> drops = new EnumMap<>(Drop.class);
    /** MADs dropped because {@link IbCm#RECV_QUEUE} of them already waited for the CM thread (the provider's thread counts them, without the CM lock). */
    final java.util.concurrent.atomic.LongAdder recvQueueFull = new java.util.concurrent.atomic.LongAdder();
    /** REQs that came again for a connection we have (cm_rx_duplicates for REQ), answered or not. */
    long duplicateReqs;
    /** REQs answered REJ 8 (invalid service ID): nobody listens on the service ID. */
    long rejectedInvalidServiceId;
    /** Passive connections made ESTABLISHED by a COMM_EST ({@code rdma_notify}) before their RTU. */
    long establishedByCommEst;

    void drop(Drop why) {
        drops.merge(why, 1L, Long::sum);
    }

    long drops(Drop why) {
        return drops.getOrDefault(why, 0L);
    }

    /** Every counter by its name ({@code cm_drop_<reason>}, then the others), with the two gauges given. */
    Map<String, Long> snapshot(int connections, int pendingRequests) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Drop d : Drop.values()) {
            m.put("cm_drop_" + d.name().toLowerCase(Locale.ROOT), drops(d));
        }
        m.put("cm_drop_recv_queue_full", recvQueueFull.sum());
        m.put("cm_rx_duplicate_req", duplicateReqs);
        m.put("cm_tx_rej_invalid_service_id", rejectedInvalidServiceId);
        m.put("cm_established_by_comm_est", establishedByCommEst);
        m.put("cm_connections", (long) connections);
        m.put("cm_pending_requests", (long) pendingRequests);
        return m;
    }
}
