package org.jrdma.congestion;

/**
 * DCQCN's notification point for one flow (the receiving QP): on a packet that arrives marked
 * ECN-CE it answers whether to send a CNP now — at most one per {@code cnpIntervalNs}
 * (DCQCN's N, default 50 µs; IBTA Annex A17 leaves the interval to the implementation).
 *
 * <p>No clock: the caller passes the time in nanoseconds. Counters carry mlx5's names
 * ({@code np_ecn_marked_roce_packets}, {@code np_cnp_sent}). Not thread-safe; nothing allocates.
 */
public final class DcqcnNotificationPoint {
    private final long intervalNs;
    private boolean sentAny;
    private long lastCnpNs;
    private long ecnMarked;
    private long cnpSent;

    /** @param cnpIntervalNs the least time between two CNPs of this flow, in ns (&gt; 0) */
    public DcqcnNotificationPoint(long cnpIntervalNs) {
        if (cnpIntervalNs <= 0) {
            throw new IllegalArgumentException("cnp_interval must be positive: " + cnpIntervalNs);
        }
        this.intervalNs = cnpIntervalNs;
    }

    /**
     * A packet marked CE arrived at {@code nowNs}.
     *
     * @return true if a CNP is to go to the sender now (counted as sent)
     */
    public boolean onCongestionExperienced(long nowNs) {
        ecnMarked++;
        if (sentAny && nowNs - lastCnpNs < intervalNs) {
            return false;
        }
        sentAny = true;
        lastCnpNs = nowNs;
        cnpSent++;
        return true;
    }

    /** CE-marked packets seen ({@code np_ecn_marked_roce_packets}). */
    public long ecnMarkedPackets() {
        return ecnMarked;
    }

    /** CNPs asked for ({@code np_cnp_sent}). */
    public long cnpSent() {
        return cnpSent;
    }
}
