package org.jrdma.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The numbers of every perftest run between two sides, both sides' result rows, kept in
 * {@code target/interop/results.tsv} (one line per run, appended as the runs end) and rendered as a
 * table ({@link #summary()}, written to {@code target/interop/summary.txt} and printed at the end of
 * the interop run by {@link SummaryListener}).
 *
 * <p>Run names are {@code TOOL-sSIZE.FAMILY.SERVER-server.CLIENT-client} (e.g.
 * {@code ib_read_bw-s65536.ipv4.rxe-g1-server.jrdma-client}); the family part is optional.
 */
final class Results {
    static final String FILE = "results.tsv";
    static final String SUMMARY = "summary.txt";

    private Results() {
    }

    /** Appends one run: its name, sides, both rows (or "-"), and PASS or FAIL with the first problem. */
    static void record(PerftestPair.Result r, PerftestPair.Side server, PerftestPair.Side client, long bytes,
            long iterations, List<String> problems, String knownIssue) {
        PerftestOutput.Row sr = PerftestOutput.resultRow(r.serverOut());
        PerftestOutput.Row cr = PerftestOutput.resultRow(r.clientOut());
        String line = String.join("\t", r.name(), server.where().name(), client.where().name(), Long.toString(bytes),
                Long.toString(iterations), sr == null ? "-" : sr.line().strip().replaceAll("\\s+", " "),
                cr == null ? "-" : cr.line().strip().replaceAll("\\s+", " "),
                knownIssue != null ? "SKIP: known issue: " + knownIssue.replaceAll("[\\t\\n]", " ")
                        : problems.isEmpty() ? "PASS" : "FAIL: " + problems.getFirst().replaceAll("[\\t\\n]", " ")) + "\n";
        try {
            Files.writeString(PerftestPair.outputDir().resolve(FILE), line, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The table of all runs recorded in {@code dir}: per run the tool, family, size, iterations,
     * which side is jrdma, then Linux's and jrdma's figures (BW average and peak in MB/s, or
     * latency t_typical and t_avg in µs), and PASS/FAIL. Empty when nothing was recorded.
     */
    static List<String> summary(Path dir) throws IOException {
        Path f = dir.resolve(FILE);
        if (!Files.exists(f)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        String fmt = "%-13s %-9s %6s %5s  %-22s %-24s %-24s %s";
        out.add(String.format(Locale.ROOT, fmt, "tool", "ip", "bytes", "iters", "jrdma is", "Linux rxe (g1/g2)",
                "jrdma (host)", "result"));
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String l : Files.readAllLines(f)) {
            String[] c = l.split("\t", -1);
            if (c.length < 8) {
                continue;
            }
            String name = c[0];
            int dash = name.indexOf("-s");
            String tool = dash > 0 ? name.substring(0, dash) : name;
            String family = (name.contains(".ipv4.") ? "v4" : name.contains(".ipv6.") ? "v6" : "-")
                    + (name.contains(".loss1pct.") ? " 1%loss" : "");
            boolean lat = tool.endsWith("_lat");
            boolean serverJrdma = c[1].equals("host");
            boolean clientJrdma = c[2].equals("host");
            String role = serverJrdma && clientJrdma ? "both" : serverJrdma ? "server (Linux client)"
                    : clientJrdma ? "client (Linux server)" : "- (Linux to Linux)";
            String linux = serverJrdma ? figures(c[6], lat) : figures(c[5], lat);
            String jrdma = serverJrdma ? figures(c[5], lat) : clientJrdma ? figures(c[6], lat) : "-";
            if (!serverJrdma && !clientJrdma) {
                linux = figures(c[6], lat);
            }
            String result = c[7].startsWith("PASS") ? "PASS" : c[7].startsWith("SKIP") ? "SKIP (known issue)" : "FAIL";
            counts.merge(result, 1, Integer::sum);
            out.add(String.format(Locale.ROOT, fmt, tool, family, c[3], c[4], role, linux, jrdma, result));
        }
        out.add("units: bandwidth tests 'BW average (peak) MB/s'; latency tests 't_typical / t_avg usec'"
                + " (RTT/2 for write and send, full RTT for read); runs " + counts);
        return out;
    }

    /** The figures of one result row: BW "avg (peak)" or latency "t_typical / t_avg"; "-" when no row. */
    static String figures(String row, boolean lat) {
        if (row.equals("-")) {
            return "-";
        }
        String[] v = row.split(" ");
        try {
            if (lat) {   // bytes iters t_min t_max t_typical t_avg t_stdev 99% 99.9%
                return v.length >= 6 ? v[4] + " / " + v[5] + " us" : row;
            }
            return v.length >= 4 ? v[3] + " (" + v[2] + ") MB/s" : row;   // bytes iters peak avg rate
        } catch (RuntimeException e) {
            return row;
        }
    }
}
