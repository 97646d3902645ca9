package org.jrdma.perftest;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrdma stat}: the counters of jrdma devices that tools (ib_*, rc_pingpong, imm_pingpong)
 * have open or had open, read from the files they publish ({@link StatsFile}), with rxe's counter
 * names ({@code /sys/class/infiniband/rxe0/ports/1/hw_counters/}). Shown per device as a table, or with
 * {@code -r} on one line per device as {@code rdma statistic show link} prints them.
 */
@Command(name = "stat", sortOptions = false,
        description = "Show the counters of running (or last run) jrdma devices, with rxe's counter names.")
public final class Stat implements Callable<Integer> {
    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "only this device")
    String ibDev;

    @Option(names = "--stats-file", paramLabel = "FILE", description = "read this stats file (a tool's --stats-file)")
    Path statsFile;

    @Option(names = {"-r", "--rdma"}, description = "one line per device, as 'rdma statistic show link'")
    boolean rdmaForm;

    @Option(names = {"-z", "--nonzero"}, description = "only counters that are not zero")
    boolean nonZero;

    @Option(names = {"-q", "--qp-rates"}, description = "also each RC/UC QP's DCQCN rate (rate, target, alpha, CNPs)")
    boolean qpRates;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    private final PrintStream out;

    public Stat(PrintStream out) {
        this.out = out;
    }

    /** One parsed stats file. */
    record Snapshot(Path file, String device, String address, int port, long pid, String tool, String state,
                    Instant updated, Map<String, Long> counters, List<String> qpLines) {
        /** Without QP lines. */
        Snapshot(Path file, String device, String address, int port, long pid, String tool, String state,
                 Instant updated, Map<String, Long> counters) {
            this(file, device, address, port, pid, tool, state, updated, counters, List.of());
        }

        /** "running", "closed", or "stale" when the writer is gone without closing (killed hard). */
        String status() {
            if (StatsFile.RUNNING.equals(state) && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                return StatsFile.RUNNING;
            }
            return StatsFile.RUNNING.equals(state) ? "stale" : state;
        }
    }

    /**
     * Parses a stats file's text.
     *
     * @throws PerftestException when it is not one
     */
    static Snapshot parse(Path file, String text) {
        String[] lines = text.split("\n");
        if (lines.length == 0 || !lines[0].equals(StatsFile.MAGIC)) {
            throw new PerftestException(file + " is not a jrdma stats file");
        }
        Map<String, String> meta = new LinkedHashMap<>();
        Map<String, Long> counters = new LinkedHashMap<>();
        List<String> qps = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            String l = lines[i];
            int sp = l.indexOf(' ');
            if (sp <= 0) {
                continue;
            }
            String k = l.substring(0, sp);
            String v = l.substring(sp + 1);
            switch (k) {
                case "device", "address", "port", "pid", "tool", "state", "updated" -> meta.put(k, v);
                case StatsFile.QP_KEY -> qps.add(v);
                default -> {
                    try {
                        counters.put(k, Long.parseLong(v));
                    } catch (NumberFormatException e) {
                        throw new PerftestException(file + ": bad counter line '" + l + "'");
                    }
                }
            }
        }
        try {
            return new Snapshot(file, meta.getOrDefault("device", "?"), meta.getOrDefault("address", ""),
                    Integer.parseInt(meta.getOrDefault("port", "1")), Long.parseLong(meta.getOrDefault("pid", "0")),
                    meta.getOrDefault("tool", "?"), meta.getOrDefault("state", "?"),
                    Instant.parse(meta.getOrDefault("updated", Instant.EPOCH.toString())), counters, List.copyOf(qps));
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new PerftestException(file + " is not a jrdma stats file (" + e.getMessage() + ")");
        }
    }

    static Snapshot read(Path file) {
        try {
            return parse(file, Files.readString(file, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            throw new PerftestException("no stats file " + file);
        } catch (IOException e) {
            throw new PerftestException("cannot read " + file + ": " + e.getMessage());
        }
    }

    @Override
    public Integer call() {
        List<Snapshot> snaps = new ArrayList<>();
        if (statsFile != null) {
            snaps.add(read(statsFile));
        } else {
            Path dir = StatsFile.directory();
            if (dir == null) {
                throw new PerftestException("JRDMA_STATS_DIR is 'off': the tools publish no counters");
            }
            if (ibDev != null) {
                Path f = dir.resolve(ibDev + StatsFile.SUFFIX);
                if (!Files.isRegularFile(f)) {
                    throw new PerftestException("no counters of device " + ibDev + " in " + dir
                            + ": no jrdma tool has opened it (tools write DIR/DEVICE" + StatsFile.SUFFIX
                            + "; DIR is JRDMA_STATS_DIR)");
                }
                snaps.add(read(f));
            } else {
                if (Files.isDirectory(dir)) {
                    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + StatsFile.SUFFIX)) {
                        List<Path> files = new ArrayList<>();
                        ds.forEach(files::add);
                        files.sort(null);
                        for (Path f : files) {
                            snaps.add(read(f));
                        }
                    } catch (IOException e) {
                        throw new PerftestException("cannot list " + dir + ": " + e.getMessage());
                    }
                }
                if (snaps.isEmpty()) {
                    throw new PerftestException("no device counters in " + dir + ": no jrdma tool has run with "
                            + "this JRDMA_STATS_DIR");
                }
            }
        }
        Instant now = Instant.now();
        for (Snapshot s : snaps) {
            out.print(rdmaForm ? rdmaLine(s, nonZero) : table(s, now, nonZero));
            if (qpRates && !rdmaForm) {
                out.print(qpTable(s));
            }
        }
        out.flush();
        return 0;
    }

    /** {@code rdma statistic show link} form: "link DEV/PORT name value name value ...". */
    static String rdmaLine(Snapshot s, boolean nonZero) {
        StringBuilder sb = new StringBuilder("link ").append(s.device()).append('/').append(s.port());
        for (Map.Entry<String, Long> e : s.counters().entrySet()) {
            if (!nonZero || e.getValue() != 0) {
                sb.append(' ').append(e.getKey()).append(' ').append(e.getValue());
            }
        }
        return sb.append('\n').toString();
    }

    /**
     * The DCQCN rate of each RC/UC QP the tool had (issue 16): QPN, parameter set, current and
     * target rate in Gbit/s, α, CNPs taken; "no QP with a rate limiter" when there is none.
     */
    static String qpTable(Snapshot s) {
        StringBuilder sb = new StringBuilder();
        if (s.qpLines().isEmpty()) {
            return sb.append("    (no QP with a DCQCN rate limiter)\n").toString();
        }
        sb.append(CFormat.f("    %-10s %-10s %12s %12s %9s %10s\n", "qp", "dcqcn", "rate Gb/s", "target Gb/s",
                "alpha", "cnps"));
        for (String l : s.qpLines()) {
            String[] f = l.split(" ");
            if (f.length < 6) {
                continue;
            }
            try {
                sb.append(CFormat.f("    %-10s %-10s %12.3f %12.3f %9.4f %10d\n", f[0], f[1],
                        Long.parseLong(f[2]) / 1e9, Long.parseLong(f[3]) / 1e9, Double.parseDouble(f[4]),
                        Long.parseLong(f[5])));
            } catch (NumberFormatException e) {
                sb.append("    ").append(l).append('\n');
            }
        }
        return sb.toString();
    }

    /** A header line, then one "name value" line per counter. */
    static String table(Snapshot s, Instant now, boolean nonZero) {
        StringBuilder sb = new StringBuilder();
        double age = Duration.between(s.updated(), now).toMillis() / 1000.0;
        sb.append(s.device()).append(" port ").append(s.port());
        if (!s.address().isEmpty()) {
            sb.append(" (").append(s.address()).append(')');
        }
        sb.append(": ").append(s.tool()).append(", pid ").append(s.pid()).append(", ").append(s.status())
                .append(", updated ").append(CFormat.f("%.1f", Math.max(age, 0))).append(" s ago\n");
        for (Map.Entry<String, Long> e : s.counters().entrySet()) {
            if (!nonZero || e.getValue() != 0) {
                sb.append(CFormat.f("    %-32s %d\n", e.getKey(), e.getValue()));
            }
        }
        return sb.toString();
    }
}
