package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Latency and bandwidth statistics against values computed by hand for fixed sample sets. */
class StatsTest {
    private static final double EPS = 1e-9;

    /**
     * Seven round trips of 2, 4, 6, 8, 10, 100, 200 µs with RTT/2: the two largest are dropped, so
     * the kept one-way latencies are 1, 2, 3, 4, 5 µs.
     */
    @Test
    void smallSetAsPerftest() {
        long[] ns = {10000, 2000, 200000, 6000, 4000, 100000, 8000};
        LatencyStats.Result r = LatencyStats.fromSamples(ns, 2);
        assertEquals(1.0, r.tMin(), EPS);
        assertEquals(50.0, r.tMax(), EPS); // perftest prints delta[m], the smaller dropped sample
        assertEquals(3.0, r.tTypical(), EPS); // m = 5, odd: the middle one
        assertEquals(3.0, r.tAvg(), EPS);
        assertEquals(Math.sqrt(2.0), r.tStdev(), EPS); // (4+1+0+1+4)/5
        assertEquals(50.0, r.p99(), EPS); // index ceil(5 * 0.99) = 5
        assertEquals(50.0, r.p999(), EPS);
    }

    /** 1000 round trips of 1..1000 µs (full RTT, as READ), shuffled. */
    @Test
    void thousandSamples() {
        List<Long> l = new ArrayList<>();
        for (long i = 1; i <= 1000; i++) {
            l.add(i * 1000);
        }
        Collections.shuffle(l, new Random(7));
        long[] ns = l.stream().mapToLong(Long::longValue).toArray();
        LatencyStats.Result r = LatencyStats.fromSamples(ns, 1);
        // kept: 1..998 µs (m = 998)
        assertEquals(1.0, r.tMin(), EPS);
        assertEquals(999.0, r.tMax(), EPS);
        assertEquals(499.5, r.tTypical(), EPS); // m even: mean of the 499th and 500th
        assertEquals(499.5, r.tAvg(), EPS);
        assertEquals(Math.sqrt((998.0 * 998.0 - 1) / 12), r.tStdev(), 1e-6); // population sd of 1..n
        assertEquals(990.0, r.p99(), EPS); // index ceil(998 * 0.99) = 989 -> 990 µs
        assertEquals(999.0, r.p999(), EPS); // index ceil(998 * 0.999) = 998 -> 999 µs
    }

    /** The write_lat log's numbers: with iters 5 the kept samples are two, the median their mean. */
    @Test
    void fromPostTimestamps() {
        // posts 0, 3316.14, 7334.52, 14027.38, 21720.24 µs apart -> RTTs 3316.14, 4018.38, 6692.86, 7692.86
        long[] tposted = {0, 3_316_140, 7_334_520, 14_027_380, 21_720_240};
        LatencyStats.Result r = LatencyStats.compute(tposted, 5, 2);
        assertEquals(1658.07, r.tMin(), 1e-9);
        assertEquals(3346.43, r.tMax(), 1e-9);
        assertEquals((1658.07 + 2009.19) / 2, r.tTypical(), 1e-9);
        assertEquals((1658.07 + 2009.19) / 2, r.tAvg(), 1e-9);
        assertEquals((2009.19 - 1658.07) / 2, r.tStdev(), 1e-9);
    }

    @Test
    void durationLatency() {
        double[] d = LatencyStats.duration(2_000_000_000L, 1000, 2);
        assertEquals(1000.0, d[0], EPS); // 2 s / 1000 / 2 = 1000 µs
        assertEquals(500.0, d[1], EPS);
    }

    @Test
    void snapPicksTheLargestSampleNotAbove() {
        long[] s = {10, 20, 20, 30};
        assertEquals(20, LatencyStats.snap(s, 29));
        assertEquals(30, LatencyStats.snap(s, 30));
        assertEquals(10, LatencyStats.snap(s, 5));
    }

    /**
     * Four 1 MiB writes posted at 0, 1, 2, 3 µs, CQ moderation 2: completions at 1.5 µs (WR 1) and
     * 5 µs (WR 3). Average: 4 MiB in 5 µs; peak: the best (completion − post) / count, WR 1 alone
     * in 0.5 µs.
     */
    @Test
    void bandwidthWithModeration() {
        long[] tp = {0, 1000, 2000, 3000};
        long[] tc = {0, 1500, 0, 5000};
        BwReport r = BwStats.report(tp, tc, 4, 1, 2, 1 << 20, false, false);
        assertEquals(800_000.0, r.bwAvg(), 1e-6);
        assertEquals(0.8, r.msgRate(), 1e-12);
        assertEquals(2_000_000.0, r.bwPeak(), 1e-6);
        BwReport g = BwStats.report(tp, tc, 4, 1, 2, 1 << 20, false, true);
        assertEquals(16777.216, g.bwPeak(), 1e-9); // 2^20 * 8 bit / 0.5 µs, in 10^9 bit/s
        assertEquals(4, g.iters());
    }

    /** Three WRs, CQ moderation 2: the last WR is signaled too and counts in the peak. */
    @Test
    void bandwidthOddCount() {
        long[] tp = {0, 1000, 2000};
        long[] tc = {0, 2500, 4000};
        BwReport r = BwStats.report(tp, tc, 3, 1, 2, 1 << 20, false, false);
        assertEquals(1e9 / 1250.0, r.bwPeak(), 1e-6); // WRs 0-1 in 2.5 µs
        assertEquals(3 / 4e-6, r.bwAvg(), 1e-6);
    }

    @Test
    void bandwidthWithoutPeak() {
        BwReport r = BwStats.report(new long[] {0}, new long[] {2_000_000_000L}, 1000, 1, 100, 1 << 20, true, false);
        assertEquals(500.0, r.bwAvg(), EPS);
        assertEquals(0.0005, r.msgRate(), EPS);
        assertEquals(0.0, r.bwPeak(), EPS);
    }

    @Test
    void bufferStrides() {
        assertEquals(64, Resources.inc(8, 64));
        assertEquals(128, Resources.inc(65, 64));
        assertEquals(8192, Resources.inc(8192, 64));
        assertEquals(4096, Resources.buffSizeOf(64, 4096));
        assertEquals(8, BwStats.roundUp(5, 4));
    }
}
