package org.jrdma.perftest;

/**
 * One bandwidth result, perftest's {@code struct bw_report_data} (the fields {@code xchg_bw_reports}
 * sends).
 *
 * @param size    message size, bytes
 * @param iters   messages counted
 * @param bwPeak  peak bandwidth in the report unit (MiB/s, or Gb/s with --report_gbits)
 * @param bwAvg   average bandwidth in the same unit
 * @param msgRate average message rate, Mpps (10^6 messages per second)
 */
public record BwReport(long size, long iters, double bwPeak, double bwAvg, double msgRate) {
}
