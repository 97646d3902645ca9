package org.jrdma.fabric.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jrdma.fabric.net.Network;
import org.jrdma.fabric.scenario.Scenario;
import org.jrdma.fabric.scenario.ScenarioException;
import org.jrdma.fabric.scenario.Units;

/**
 * Tables of runs: each scenario of a table with each seed, one row per seed and one column per
 * (scenario, summary key), then the mean over the seeds. A suite file ({@code jrdma fabric run
 * ceph-case-study}) holds only {@code compare} lines: {@code compare TITLE scenarios=A,B,...
 * [seeds=1,2,3] [keys=k1,k2] [duration=T]}. Tables go to stdout and {@code DIR/table.txt}; each
 * run's outputs to {@code DIR/NAME-seedN}. Caller's thread.
 */
final class CompareSuite {
    /** One table: scenarios over seeds, the given keys (null: defaults), an optional duration. */
    record Table(String title, List<String> scenarios, List<Long> seeds, List<String> keys, Long durationPs) {
    }

    private static final List<String> WORKLOAD_KEYS = List.of("read_latency_mean_us", "read_latency_p99_us",
            "cpu_share_osd_percent", "cpu_share_client_percent");
    private static final List<String> FABRIC_KEYS = List.of("flows_finished", "pfc_pause_frames", "switch_drops",
            "watchdog_storms", "buffered_bytes_at_end", "paused_nonempty_queues_at_end");

    private final List<Table> tables;

    CompareSuite(List<Table> tables) {
        this.tables = tables;
    }

    /** True if the file's directives are all {@code compare} lines. */
    static boolean isSuite(String text) {
        boolean any = false;
        for (String l : text.split("\\R")) {
            String t = l.replaceFirst("#.*", "").strip();
            if (t.isEmpty()) {
                continue;
            }
            if (!t.startsWith("compare ")) {
                return false;
            }
            any = true;
        }
        return any;
    }

    /** Parses a suite file; errors name the line and field. */
    static CompareSuite parse(String source, String text) throws ScenarioException {
        List<Table> tables = new ArrayList<>();
        String[] lines = text.split("\\R", -1);
        for (int i = 0; i < lines.length; i++) {
            String t = lines[i].replaceFirst("#.*", "").strip();
            if (t.isEmpty()) {
                continue;
            }
            String[] w = t.split("\\s+");
            if (w.length < 3) {
                throw new ScenarioException(source, i + 1, null, "compare needs a title and scenarios=");
            }
            Map<String, String> f = new HashMap<>();
            for (int k = 2; k < w.length; k++) {
                int eq = w[k].indexOf('=');
                String key = eq < 0 ? w[k] : w[k].substring(0, eq);
                if (eq < 0 || !List.of("scenarios", "seeds", "keys", "duration").contains(key)) {
                    throw new ScenarioException(source, i + 1, key, "unknown field of 'compare' (known: duration, keys, "
                            + "scenarios, seeds)");
                }
                f.put(key, w[k].substring(eq + 1));
            }
            if (!f.containsKey("scenarios")) {
                throw new ScenarioException(source, i + 1, "scenarios", "missing");
            }
            List<Long> seeds = new ArrayList<>();
            for (String s : f.getOrDefault("seeds", "1,2,3").split(",")) {
                try {
                    seeds.add(Long.parseLong(s));
                } catch (NumberFormatException e) {
                    throw new ScenarioException(source, i + 1, "seeds", "not an integer: '" + s + "'");
                }
            }
            Long d = null;
            if (f.containsKey("duration")) {
                try {
                    d = Units.time(f.get("duration"));
                } catch (IllegalArgumentException e) {
                    throw new ScenarioException(source, i + 1, "duration", e.getMessage());
                }
            }
            tables.add(new Table(w[1], List.of(f.get("scenarios").split(",")), seeds,
                    f.containsKey("keys") ? List.of(f.get("keys").split(",")) : null, d));
        }
        return new CompareSuite(tables);
    }

    /** Runs every table; 0 if every run completed, 1 otherwise. */
    int run(Path dir, PrintWriter out, PrintWriter err) throws IOException {
        Files.createDirectories(dir);
        StringBuilder all = new StringBuilder();
        int status = 0;
        for (Table t : tables) {
            Map<String, Map<Long, Map<String, String>>> results = new HashMap<>();
            List<String> keys = t.keys();
            for (String sc : t.scenarios()) {
                Scenario s;
                try {
                    s = FabricCommand.load(sc);
                } catch (ScenarioException e) {
                    err.println("fabric: " + e.getMessage());
                    err.flush();
                    return 1;
                }
                if (t.durationPs() != null) {
                    s = s.withDuration(t.durationPs());
                }
                if (keys == null) {
                    keys = s.workload() != null ? WORKLOAD_KEYS : FABRIC_KEYS;
                }
                for (long seed : t.seeds()) {
                    Path d = dir.resolve(s.name().replaceAll("[^A-Za-z0-9_.-]", "_") + "-seed" + seed);
                    Network.Result r;
                    try {
                        r = Network.build(s, seed, d).run();
                    } catch (ScenarioException e) {
                        err.println("fabric: " + e.getMessage());
                        err.flush();
                        return 1;
                    }
                    if (!r.summary().contains("status completed")) {
                        status = 1;
                    }
                    Map<String, String> m = new HashMap<>();
                    for (String l : r.summary().split("\n")) {
                        int sp = l.indexOf(' ');
                        if (sp > 0) {
                            m.put(l.substring(0, sp), l.substring(sp + 1));
                        }
                    }
                    results.computeIfAbsent(sc, x -> new HashMap<>()).put(seed, m);
                    out.printf(Locale.ROOT, "ran %s seed %d: %d events%n", s.name(), seed, r.events());
                    out.flush();
                }
            }
            all.append(table(t, keys, results));
        }
        out.print(all);
        out.flush();
        Files.writeString(dir.resolve("table.txt"), all.toString(), StandardCharsets.US_ASCII);
        return status;
    }

    private static String table(Table t, List<String> keys, Map<String, Map<Long, Map<String, String>>> results) {
        List<String> head = new ArrayList<>(List.of("seed"));
        for (String sc : t.scenarios()) {
            for (String k : keys) {
                head.add(sc + ":" + k);
            }
        }
        List<List<String>> rows = new ArrayList<>();
        double[] sum = new double[head.size()];
        boolean[] numeric = new boolean[head.size()];
        java.util.Arrays.fill(numeric, true);
        for (long seed : t.seeds()) {
            List<String> row = new ArrayList<>(List.of(Long.toString(seed)));
            int c = 1;
            for (String sc : t.scenarios()) {
                for (String k : keys) {
                    String v = results.get(sc).get(seed).getOrDefault(k, "-");
                    row.add(v);
                    try {
                        sum[c] += Double.parseDouble(v);
                    } catch (NumberFormatException e) {
                        numeric[c] = false;
                    }
                    c++;
                }
            }
            rows.add(row);
        }
        List<String> mean = new ArrayList<>(List.of("mean"));
        for (int c = 1; c < head.size(); c++) {
            mean.add(numeric[c] ? String.format(Locale.ROOT, "%.2f", sum[c] / t.seeds().size()) : "-");
        }
        rows.add(mean);
        StringBuilder b = new StringBuilder("## " + t.title() + "\n\n| " + String.join(" | ", head) + " |\n|");
        for (int i = 0; i < head.size(); i++) {
            b.append("---|");
        }
        b.append('\n');
        for (List<String> r : rows) {
            b.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        return b.append('\n').toString();
    }
}
