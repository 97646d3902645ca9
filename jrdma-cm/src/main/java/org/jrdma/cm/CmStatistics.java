package org.jrdma.cm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The connection manager's counters for one device, a snapshot. The names and what they count:
 * <ul>
 * <li>{@code cm_drop_not_cm_send}, {@code cm_drop_unsupported_attribute}, {@code cm_drop_unknown_comm_id},
 * {@code cm_drop_wrong_state}, {@code cm_drop_duplicate_req}, {@code cm_drop_backlog_full},
 * {@code cm_drop_bad_req}, {@code cm_drop_malformed}: CM MADs dropped (never thrown), by reason;
 * {@code cm_drop_stale_request}: connection requests timed out unanswered (see below);
 * {@code cm_drop_recv_queue_full}: MADs that found 512 others waiting for the CM's thread (the
 * size of Linux's QP1 receive queue), dropped;</li>
 * <li>{@code cm_drop_sidr_duplicate_sidr_req}, {@code cm_drop_sidr_backlog_full},
 * {@code cm_drop_sidr_unknown_request_id}: SIDR MADs of the UD IDs dropped, by reason (a SIDR_REQ
 * again while its first copy waits for the application; beyond the listener's backlog; a SIDR_REP
 * for no SIDR_REQ of ours in flight);</li>
 * <li>{@code cm_rx_duplicate_req}: REQs that came again for a connection being made (the active
 * side's retries: answered with the owed MRA, REJ 10 in timewait, else dropped; never a second
 * connection), as Linux's {@code cm_rx_duplicates/req};</li>
 * <li>{@code cm_tx_rej_invalid_service_id}: REQs answered REJ 8 (nobody listens);</li>
 * <li>{@code cm_established_by_comm_est}: passive connections made ESTABLISHED by
 * {@link CmId#notify} before their RTU came;</li>
 * <li>gauges: {@code cm_connections} (connections the CM holds, timewait included) and
 * {@code cm_pending_requests} (requests neither accepted nor rejected yet).</li>
 * </ul>
 * The MAD layer's own drops (a packet to QP1 that is no MAD: wrong length, Q_Key, version) are the
 * device's {@code gsi_drop_*} hardware counters.
 *
 * <p>A pending request times out when its active side has given up: (the REQ's max CM retries + 2) ×
 * (2 × 4.096 µs × 2^18 + 4.096 µs × 2^(remote CM response timeout)), about 98 s for rdma_cm's
 * defaults (retries 15, timeout 20); an MRA extends it by 4.096 µs × 2^24 (68.7 s). The listener's
 * backlog ({@code rdma_listen}) bounds the CONNECT_REQUESTs not yet taken from its channel.
 *
 * @param device the device name
 * @param counters every counter by name, in a fixed order
 */
public record CmStatistics(String device, Map<String, Long> counters) {
    public CmStatistics {
        counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
    }

    /** The counter {@code name}, 0 when the CM has no such counter. */
    public long get(String name) {
        return counters.getOrDefault(name, 0L);
    }

    /** The statistics of every device the CM of this process has opened (any thread; takes the CM lock). */
    public static List<CmStatistics> all() {
        CmService cm = CmService.get();
        cm.lock.lock();
        try {
            List<CmStatistics> l = new ArrayList<>();
            for (CmDevice d : CmDevice.opened()) {
                l.add(new CmStatistics(d.name(), d.provider.counters()));
            }
            return l;
        } finally {
            cm.lock.unlock();
        }
    }

    /** The statistics of {@code device}, empty when the CM has not opened it. */
    public static Optional<CmStatistics> of(String device) {
        return all().stream().filter(s -> s.device().equals(device)).findFirst();
    }
}
