package org.jrdma.bench.apps;

/**
 * One line of the table: a workload over one transport.
 *
 * @param workload what runs, e.g. "KV GET"
 * @param transport "jrxe (soft RoCE)", "jsiw (soft iWARP)", "TCP", or a lab device
 * @param p50Us median latency of one operation, µs; NaN where the workload has none (streams)
 * @param p99Us 99th percentile, µs; NaN likewise
 * @param throughput operations per second or MB/s (10^6 bytes), as {@code throughputUnit}
 * @param throughputUnit "ops/s" or "MB/s"
 * @param cpu the process's CPU time (all JVM threads: both ends and the soft devices') per
 *            operation in µs, or per GB (10^9 bytes) in s, as {@code cpuUnit}
 * @param cpuUnit "us/op" or "s/GB"
 * @param copies the payload copies per operation ({@link Copies}, analytical)
 * @param baseline the TCP row this row is compared with (measured in the same run), or null
 * @param note printed instead of the numbers when not null (a row not measured here)
 */
record Row(String workload, String transport, double p50Us, double p99Us, double throughput, String throughputUnit,
           double cpu, String cpuUnit, Copies copies, Row baseline, String note) {
    /** A measured row. */
    static Row of(String workload, String transport, double p50Us, double p99Us, double throughput, String throughputUnit,
                  double cpu, String cpuUnit, Copies copies, Row baseline) {
        return new Row(workload, transport, p50Us, p99Us, throughput, throughputUnit, cpu, cpuUnit, copies, baseline, null);
    }

    /** A row that is not measured here, with its reason. */
    static Row notMeasured(String workload, String transport, Copies copies, String note) {
        return new Row(workload, transport, Double.NaN, Double.NaN, Double.NaN, "", Double.NaN, "", copies, null, note);
    }

    /** Whether this row carries numbers. */
    boolean measured() {
        return note == null;
    }

    /** Whether the workload has a per-operation latency (not a stream). */
    boolean hasLatency() {
        return !Double.isNaN(p50Us);
    }

    /** This row's throughput over its baseline's, or NaN. */
    double throughputRatio() {
        return baseline == null ? Double.NaN : throughput / baseline.throughput;
    }

    /** This row's median latency over its baseline's, or NaN. */
    double p50Ratio() {
        return baseline == null ? Double.NaN : p50Us / baseline.p50Us;
    }

    /** This row's CPU per operation (or per GB) over its baseline's, or NaN. */
    double cpuRatio() {
        return baseline == null ? Double.NaN : cpu / baseline.cpu;
    }
}
