package org.jrdma.bench.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The table of {@link AppsTable} as fixed-width text, CSV or Markdown, and the paragraph that says
 * why soft RDMA on one host does not show a NIC's advantage. Pure functions of the rows.
 */
final class TableFormat {
    private static final String[] HEADER = {"workload", "transport", "p50 us", "p99 us", "throughput", "",
        "CPU", "", "copies/op", "tput", "p50", "CPU"};
    private static final String FMT = "%-22s %-18s %8s %8s %11s %-5s %8s %-5s %-15s %6s %6s %6s%n";

    private TableFormat() {
    }

    /** The fixed-width table, one line per row, the lab rows with their note. */
    static String text(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-22s %-18s %8s %8s %17s %14s %-15s %s%n", "", "", "", "", "",
                "", "", "RDMA/TCP ratios"));
        sb.append(String.format(Locale.ROOT, FMT, (Object[]) HEADER));
        String previous = null;
        for (Row r : rows) {
            String w = r.workload().equals(previous) ? "" : r.workload();
            previous = r.workload();
            if (!r.measured()) {
                sb.append(String.format(Locale.ROOT, "%-22s %-18s %-64s %s%n", w, r.transport(), r.note(),
                        r.copies() == null ? "" : "copies " + r.copies()));
                continue;
            }
            sb.append(String.format(Locale.ROOT, FMT, w, r.transport(), num(r.p50Us()), num(r.p99Us()), num(r.throughput()),
                    r.throughputUnit(), num(r.cpu()), r.cpuUnit(), r.copies(), ratio(r.throughputRatio()),
                    ratio(r.p50Ratio()), ratio(r.cpuRatio())));
        }
        return sb.toString();
    }

    /** CSV with a header line; empty fields for what a row does not have. */
    static String csv(List<Row> rows) {
        StringBuilder sb = new StringBuilder("workload,transport,p50_us,p99_us,throughput,throughput_unit,cpu,cpu_unit,"
                + "copies_total,copies_app,copies_jdk,copies_provider,copies_kernel,copies_per,ratio_throughput,ratio_p50,ratio_cpu,note\n");
        for (Row r : rows) {
            Copies c = r.copies();
            List<String> f = new ArrayList<>(List.of(r.workload(), r.transport(), raw(r.p50Us()), raw(r.p99Us()),
                    raw(r.throughput()), r.throughputUnit(), raw(r.cpu()), r.cpuUnit()));
            if (c == null) {
                f.addAll(List.of("", "", "", "", "", ""));
            } else {
                f.addAll(List.of(Integer.toString(c.total()), Integer.toString(c.app()), Integer.toString(c.jdk()),
                        Integer.toString(c.provider()), Integer.toString(c.kernel()), c.per()));
            }
            f.addAll(List.of(raw(r.throughputRatio()), raw(r.p50Ratio()), raw(r.cpuRatio()), r.note() == null ? "" : r.note()));
            sb.append(String.join(",", f.stream().map(TableFormat::csvField).toList())).append('\n');
        }
        return sb.toString();
    }

    /** A Markdown table of the same columns. */
    static String markdown(List<Row> rows) {
        StringBuilder sb = new StringBuilder("| workload | transport | p50 µs | p99 µs | throughput | CPU | copies/op "
                + "| RDMA/TCP tput | p50 | CPU |\n|---|---|--:|--:|--:|--:|---|--:|--:|--:|\n");
        for (Row r : rows) {
            if (!r.measured()) {
                sb.append("| ").append(r.workload()).append(" | ").append(r.transport()).append(" | ").append(r.note())
                        .append(" |  |  |  | ").append(r.copies() == null ? "" : r.copies()).append(" |  |  |  |\n");
                continue;
            }
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s %s | %s %s | %s | %s | %s | %s |%n", r.workload(),
                    r.transport(), num(r.p50Us()), num(r.p99Us()), num(r.throughput()), r.throughputUnit(), num(r.cpu()),
                    r.cpuUnit(), r.copies(), ratio(r.throughputRatio()), ratio(r.p50Ratio()), ratio(r.cpuRatio())));
        }
        return sb.toString();
    }

    /** How to read the columns. */
    static String legend() {
        return """
                Latency: one operation, closed loop (raw WRITE: one way = RTT/2 as perftest; KV GET and RPC: the whole call).
                Throughput: ops/s (raw latency rows: round trips/s = 1/(2 t_avg)) or MB/s = 10^6 bytes/s.
                CPU: the process's CPU time, all threads of the JVM (both ends, the soft devices' threads, busy
                polling included), per operation (us/op) or per 10^9 bytes (s/GB); raw-verbs rows include their setup.
                copies/op: payload copies, total (application + JDK + soft provider + kernel), counted from the code
                (docs/apps-table.md); an RDMA NIC removes the provider's and the kernel's network copies.
                Ratios: this row over the TCP row measured beside it in the same run (throughput: >1 is better for
                RDMA; p50 and CPU: <1 is better for RDMA).
                """;
    }

    /** Why soft RDMA on one host is slower than TCP here, and what hardware changes. */
    static String why() {
        return """
                Why soft RDMA loses to TCP here. On one host both transports ride the kernel's loopback, which is
                TCP's fast path: a send is one copy into a socket buffer and a wake-up of the reader; loopback
                hands that buffer straight to the receiving socket, with no NIC, no interrupt and no wire. Soft
                RDMA runs the whole NIC in Java on top of that same kernel path: the provider copies each message
                from registered memory into a packet (jrxe) or FPDU (jsiw), adds an ICRC or CRC, pushes it through
                UDP or TCP (the kernel's two copies), the peer device's I/O thread receives and checks it and
                copies it into the target memory, and a completion is handed to the application's polling
                thread: two more copies than TCP and at least two thread hand-offs per message. With two cores
                shared by other jobs, the application threads, both devices' I/O threads and the peer take
                turns on the same cores, so each hand-off can cost a scheduler slice (the p99 column, and RDMA's
                CPU per operation, which counts the spinning). jrxe suffers most under load: its device threads
                busy-poll (spin, then yield, for spinMicros = 200 us) where jsiw's block in a selector.
                What the design saves still shows in the copy counts: a KV GET is one-sided (no server thread) and
                copies 5 times against TCP's 7; the RPC example copies more than its TCP twin (byte[] frames
                copied into and out of registered buffers), a cost of its API, not of RDMA. On an RDMA NIC the
                provider's and the kernel's copies and the device threads are gone: the NIC moves registered
                memory by DMA, computes the ICRC, handles ACKs and retransmission; the CPU posts work requests
                and polls completions, so CPU per operation and per GB falls to the application's own, and
                latency to the wire's plus a PCIe round trip. None of that can show in software on one host; the
                lab rows (the native provider on emulated rxe devices in VMs) check correctness, not speed.
                """;
    }

    private static String num(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "-";
        }
        if (v >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static String ratio(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String raw(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, "%.4g", v);
    }

    private static String csvField(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }
}
