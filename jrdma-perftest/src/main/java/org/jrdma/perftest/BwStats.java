package org.jrdma.perftest;

/**
 * Bandwidth results computed as perftest's {@code print_report_bw} does, with nanosecond
 * timestamps ({@link System#nanoTime()}) in place of CPU cycles (so {@code cycles_to_units} is 10^9).
 *
 * <ul>
 *   <li>average BW = size · n / (t_completed[last] − t_posted[0]) / F, F = 2^20 B (MiB/s) or
 *       1.25·10^8 B (Gb/s, 10^9 bit/s);</li>
 *   <li>MsgRate = n / time, in Mpps;</li>
 *   <li>peak BW = size / min over (i, j) of (t_completed[j] − t_posted[i]) / (j − i + 1), where i runs
 *       over the posts (step post_list) and j over the signaled completions (every cq_mod-th WR, and
 *       the last one), / F.</li>
 * </ul>
 * perftest divides the cycle counts as integers; here the per-message time is a double, which keeps
 * short nanosecond intervals from rounding to zero.
 */
public final class BwStats {
    /** {@code format_factor} for MiB/s. */
    public static final double MIB = 0x100000;
    /** {@code format_factor} for Gb/s: 10^9 bit/s = 1.25·10^8 B/s. */
    public static final double GBIT = 125_000_000;

    private BwStats() {
    }

    /**
     * @param tposted    post timestamps, ns, one per WR ({@code tposted[0]} only when noPeak)
     * @param tcompleted completion timestamps, ns, written at each signaled WR's index
     *                   ({@code tcompleted[0]} only when noPeak)
     * @param n          messages counted (iterations × QPs)
     * @param postList   WRs per post ({@code -l})
     * @param cqMod      WRs per signaled completion ({@code -Q})
     * @param size       message size, bytes
     * @param noPeak     true to skip the peak (then it reports 0, as perftest)
     * @param gbits      Gb/s instead of MiB/s
     */
    public static BwReport report(long[] tposted, long[] tcompleted, long n, int postList, int cqMod, long size,
                                  boolean noPeak, boolean gbits) {
        double factor = gbits ? GBIT : MIB;
        double peak = 0;
        long sum;
        if (noPeak) {
            sum = tcompleted[0] - tposted[0];
        } else {
            sum = tcompleted[(int) (n - 1)] - tposted[0];
            double opt = Double.POSITIVE_INFINITY;
            int total = (int) n;
            for (int i = 0; i < total; i += postList) {
                for (int j = roundUp(i + 1, cqMod) - 1; j < total; j += cqMod) {
                    double t = (double) (tcompleted[j] - tposted[i]) / (j - i + 1);
                    if (t < opt) {
                        opt = t;
                    }
                }
                if (total % cqMod != 0) {
                    int j = total - 1;
                    double t = (double) (tcompleted[j] - tposted[i]) / (j - i + 1);
                    if (t < opt) {
                        opt = t;
                    }
                }
            }
            peak = opt > 0 && opt != Double.POSITIVE_INFINITY ? size * 1e9 / (opt * factor) : 0;
        }
        double seconds = sum / 1e9;
        double avg = seconds > 0 ? size * (double) n / seconds / factor : 0;
        double rate = seconds > 0 ? n / seconds / 1e6 : 0;
        return new BwReport(size, n, peak, avg, rate);
    }

    /** {@code ROUND_UP(value, alignment)}. */
    static int roundUp(int value, int alignment) {
        return value % alignment == 0 ? value : alignment * (value / alignment + 1);
    }
}
