package org.jrdma.verbs.ext;

import java.util.List;

/**
 * The congestion control of a device's QPs: on a RoCE v2 device DCQCN's reaction point per RC/UC
 * QP (the rate limiter a CNP cuts, as mlx5 runs it; counters {@code rp_cnp_handled} ... are in
 * {@link HardwareCounters}). Reached through {@link org.jrdma.verbs.Context#extension(Class)};
 * what {@code jrdma stat} shows per QP. Control path: any thread, allocates.
 */
public interface CongestionControl {
    /**
     * One QP's rate limiter at the moment it was read.
     *
     * @param qpNum         the QP number
     * @param algorithm     the parameter set's name ({@code nvidia}, {@code paper}, {@code ns3-sample})
     * @param rateBps       the current rate RC, bit/s (the line rate before any CNP)
     * @param targetRateBps the target rate RT, bit/s
     * @param alpha         DCQCN's α, in [0, 1]
     * @param cnpHandled    CNPs this QP's reaction point took
     * @param lineRateBps   the rate it starts at and returns to, bit/s
     */
    record QpRate(int qpNum, String algorithm, double rateBps, double targetRateBps, double alpha, long cnpHandled,
                  double lineRateBps) {
    }

    /** The QPs of the device (in this process) that have a rate limiter, by QP number. */
    List<QpRate> qpRates();
}
