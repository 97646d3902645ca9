package org.jrdma.perftest;

import java.util.Arrays;
import org.HdrHistogram.Histogram;

/**
 * Latency results as perftest's {@code print_report_lat}: the samples are the differences of
 * consecutive post timestamps (one round trip each, {@code iters − 1} of them), divided by the RTT
 * factor (2 for SEND/WRITE ping-pongs, 1 for READ/atomic), in µs.
 *
 * <ul>
 *   <li>The two largest samples are dropped ({@code LAT_MEASURE_TAIL} 2); t_avg, t_stdev and
 *       t_typical (the median) are over the remaining m = iters − 3 samples.</li>
 *   <li>t_min is the smallest sample; t_max is, as in perftest, the sorted sample at index m (the
 *       smaller of the two dropped).</li>
 *   <li>t_stdev is the population standard deviation of the kept samples. (perftest 4.5 truncates
 *       each deviation to an integer first, so it prints e.g. 175.00 where the exact value is 175.56.)</li>
 *   <li>The 99% and 99.9% percentiles are, as perftest's, the sorted samples at index ceil(m·0.99)
 *       and ceil(m·0.999) (counted over all samples, so they can reach into the dropped tail); they
 *       are read from an HdrHistogram of all samples (ns, 3 significant digits) and snapped to the
 *       largest recorded sample not above the histogram's value, so they print an actual sample.</li>
 * </ul>
 */
public final class LatencyStats {
    /** {@code LAT_MEASURE_TAIL}: samples dropped from the top. */
    public static final int LAT_MEASURE_TAIL = 2;

    /**
     * The numbers of one latency row, µs.
     */
    public record Result(double tMin, double tMax, double tTypical, double tAvg, double tStdev, double p99,
                         double p999) {
    }

    private LatencyStats() {
    }

    /**
     * @param tposted   post timestamps, ns ({@code iters} of them, iters ≥ 4)
     * @param iters     iterations
     * @param rttFactor 2 for SEND/WRITE (RTT/2), 1 for READ/atomic (full RTT)
     */
    public static Result compute(long[] tposted, int iters, int rttFactor) {
        int all = iters - 1;
        long[] d = new long[all];
        for (int i = 0; i < all; i++) {
            d[i] = tposted[i + 1] - tposted[i];
        }
        return fromSamples(d, rttFactor);
    }

    /**
     * The row for these round-trip samples (ns). Sorts {@code samples} in place.
     *
     * @throws IllegalArgumentException with fewer than 3 samples
     */
    public static Result fromSamples(long[] samples, int rttFactor) {
        if (samples.length < LAT_MEASURE_TAIL + 1) {
            throw new IllegalArgumentException("need at least 3 samples, got " + samples.length);
        }
        Histogram h = new Histogram(3);
        for (long s : samples) {
            h.recordValue(Math.max(0, s));
        }
        Arrays.sort(samples);
        int m = samples.length - LAT_MEASURE_TAIL;
        double q = 1000.0 * rttFactor; // ns per reported µs
        double median = (m - 1) % 2 != 0 ? (samples[m / 2] + samples[m / 2 - 1]) / 2.0 : samples[m / 2];
        double sum = 0;
        for (int i = 0; i < m; i++) {
            sum += samples[i] / q;
        }
        double avg = sum / m;
        double var = 0;
        for (int i = 0; i < m; i++) {
            double dev = avg - samples[i] / q;
            var += dev * dev;
        }
        return new Result(samples[0] / q, samples[m] / q, median / q, avg, Math.sqrt(var / m),
                percentile(h, samples, m, 0.99) / q, percentile(h, samples, m, 0.999) / q);
    }

    /**
     * perftest's percentile: the sorted sample at index ceil(m·fraction) (of all samples, so it can
     * reach into the dropped tail). Read from the histogram at the percentile whose rank is exactly
     * that sample's (the middle of its rank interval, safe from floating-point rounding), then
     * snapped to a recorded sample.
     */
    static long percentile(Histogram h, long[] sorted, int m, double fraction) {
        int k = (int) Math.ceil(m * fraction);
        double pct = 100.0 * (k + 0.5) / sorted.length;
        return snap(sorted, h.getValueAtPercentile(Math.min(pct, 100.0)));
    }

    /** The largest sample ≤ v (the smallest sample when none is). */
    static long snap(long[] sorted, long v) {
        int i = Arrays.binarySearch(sorted, v);
        if (i >= 0) {
            while (i + 1 < sorted.length && sorted[i + 1] == v) {
                i++;
            }
            return sorted[i];
        }
        int ins = -i - 1;
        return ins == 0 ? sorted[0] : sorted[ins - 1];
    }

    /**
     * {@code print_report_lat_duration}: average latency (µs) and transactions per second over a
     * duration run.
     *
     * @return {t_avg µs, tps}
     */
    public static double[] duration(long elapsedNanos, long iters, int rttFactor) {
        double us = elapsedNanos / 1000.0;
        double lat = iters > 0 ? us / rttFactor / iters : 0;
        double tps = elapsedNanos > 0 ? iters / (elapsedNanos / 1e9) : 0;
        return new double[] {lat, tps};
    }
}
