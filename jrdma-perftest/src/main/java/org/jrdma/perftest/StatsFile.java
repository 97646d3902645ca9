package org.jrdma.perftest;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.HardwareCounters;

/**
 * The counters of an open jrdma device, published for other processes ({@code jrdma stat}): a
 * device's {@link HardwareCounters} ({@code Context.extension}) live in the process that opened it,
 * so the tools write them to a small
 * text file, every {@value #DEFAULT_INTERVAL_MS} ms while they run and once more when they close
 * the device. Each write goes to a temporary file in the same directory that is then renamed over
 * the old one (atomic on POSIX), so a reader never sees half a file.
 *
 * <p>Where: {@code --stats-file FILE} of a tool; else {@code DIR/DEVICE.stats} with DIR from
 * environment variable {@code JRDMA_STATS_DIR} (or system property {@code jrdma.stats.dir}),
 * default {@code ${java.io.tmpdir}/jrdma-stats-${user.name}}. {@code JRDMA_STATS_DIR=off} (or
 * {@code --stats-file off}) writes nothing. The interval is system property
 * {@code jrdma.stats.interval.ms}.
 *
 * <p>Format (UTF-8 lines of "key value"): {@value #MAGIC} first, then {@code device}, {@code address},
 * {@code port}, {@code pid}, {@code tool}, {@code state} ({@value #RUNNING} or {@value #CLOSED}) and
 * {@code updated} (ISO-8601 instant), then one line per counter in {@link HardwareCounters#names()}
 * order: on the software RoCE v2 provider Linux rxe's hw_counters names first ({@code sent_pkts},
 * {@code rcvd_pkts}, ...), then jrdma's own.
 *
 * <p>Threads: the periodic writes run on the daemon thread {@code jrdma-stats}, the last one on the
 * thread that calls {@link #close()} (or the shutdown hook {@code jrdma-stats-exit}); writes
 * serialize on this object's monitor. Counters are read without a lock (each value exact at some
 * recent moment).
 */
public final class StatsFile implements AutoCloseable {
    /** First line of every stats file. */
    public static final String MAGIC = "jrdma-stats 1";
    /** {@code state} while the tool runs. */
    public static final String RUNNING = "running";
    /** {@code state} after the tool closed the device. */
    public static final String CLOSED = "closed";
    /** Default milliseconds between two writes. */
    public static final long DEFAULT_INTERVAL_MS = 1000;
    /** File name suffix in the stats directory. */
    public static final String SUFFIX = ".stats";

    private static final StatsFile NONE = new StatsFile(null, null, null, null, null, null, 0);

    private final Path file;
    private final HardwareCounters counters;
    /** The device's per-QP congestion control (issue 16), or null. */
    private final org.jrdma.verbs.ext.CongestionControl congestion;
    private final String device;
    private final String address;
    private final String tool;
    private final Thread writer;
    private final Thread onExit;
    private volatile boolean closed;
    private boolean warned;

    private StatsFile(Path file, HardwareCounters counters, org.jrdma.verbs.ext.CongestionControl congestion,
                      String device, String address, String tool, long intervalMs) {
        this.file = file;
        this.counters = counters;
        this.congestion = congestion;
        this.device = device;
        this.address = address;
        this.tool = tool;
        if (file == null) {
            writer = null;
            onExit = null;
            return;
        }
        writer = Thread.ofPlatform().daemon().name("jrdma-stats").unstarted(() -> loop(intervalMs));
        onExit = Thread.ofPlatform().name("jrdma-stats-exit").unstarted(this::finish);
    }

    /** The directory of the stats files: JRDMA_STATS_DIR, jrdma.stats.dir, or the per-user default; null when "off". */
    public static Path directory() {
        String d = System.getenv("JRDMA_STATS_DIR");
        if (d == null || d.isBlank()) {
            d = System.getProperty("jrdma.stats.dir");
        }
        if (d == null || d.isBlank()) {
            return Path.of(System.getProperty("java.io.tmpdir"), "jrdma-stats-" + System.getProperty("user.name"));
        }
        return d.strip().equals("off") ? null : Path.of(d.strip());
    }

    /**
     * Starts publishing the counters of {@code ctx} (a no-op for a context whose provider has no
     * {@link HardwareCounters}, or when publishing is off).
     *
     * @param tool     the tool name written into the file
     * @param explicit {@code --stats-file} or null
     */
    public static StatsFile start(Context ctx, String tool, String explicit) {
        HardwareCounters counters = ctx.extension(HardwareCounters.class).orElse(null);
        if (counters == null) {
            return NONE;
        }
        Path f;
        if (explicit != null) {
            if (explicit.equals("off")) {
                return NONE;
            }
            f = Path.of(explicit);
        } else {
            Path dir = directory();
            if (dir == null) {
                return NONE;
            }
            f = dir.resolve(ctx.device().name() + SUFFIX);
        }
        long interval = Long.getLong("jrdma.stats.interval.ms", DEFAULT_INTERVAL_MS);
        StatsFile s = new StatsFile(f.toAbsolutePath(), counters,
                ctx.extension(org.jrdma.verbs.ext.CongestionControl.class).orElse(null), ctx.device().name(),
                address(ctx), tool, Math.max(10, interval));
        s.write(RUNNING);
        s.writer.start();
        try {
            Runtime.getRuntime().addShutdownHook(s.onExit); // a tool ended by a signal still writes "closed"
        } catch (IllegalStateException ignored) {
            // already shutting down
        }
        return s;
    }

    /** The IP address of GID 0 (what a RoCE v2 device binds), or "" when it has none. */
    private static String address(Context ctx) {
        try {
            return ctx.queryGid(1, 0).toInetAddress().getHostAddress();
        } catch (VerbsException e) {
            return "";
        }
    }

    /** The counters as name → value, in the provider's order. */
    static Map<String, Long> values(HardwareCounters counters) {
        List<String> names = counters.names();
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            m.put(names.get(i), counters.get(i));
        }
        return m;
    }

    /** Where this publisher writes, or null when it writes nothing. */
    public Path file() {
        return file;
    }

    private void loop(long intervalMs) {
        long next = System.nanoTime() + intervalMs * 1_000_000;
        while (!closed) {
            long left = next - System.nanoTime();
            if (left > 0) {
                LockSupport.parkNanos(this, left); // unparked by finish()
                continue;
            }
            write(RUNNING);
            next += intervalMs * 1_000_000;
        }
    }

    /** The text of one snapshot without QP lines. */
    static String format(String device, String address, long pid, String tool, String state, Instant when,
                         Map<String, Long> values) {
        return format(device, address, pid, tool, state, when, values, List.of());
    }

    /**
     * One {@value #QP_KEY} line's value for a QP's rate limiter: {@code QPN ALGORITHM RATE_BPS
     * TARGET_BPS ALPHA CNP_HANDLED LINE_BPS} (QPN in hex, rates in whole bit/s, α with 6 decimals).
     */
    static String qpLine(org.jrdma.verbs.ext.CongestionControl.QpRate r) {
        return String.format(java.util.Locale.ROOT, "0x%06x %s %d %d %.6f %d %d", r.qpNum(), r.algorithm(),
                Math.round(r.rateBps()), Math.round(r.targetRateBps()), r.alpha(), r.cnpHandled(),
                Math.round(r.lineRateBps()));
    }

    /** The key of the per-QP DCQCN lines (issue 16), after the counters. */
    public static final String QP_KEY = "qp_dcqcn";

    /** The text of one snapshot: the header, the counters, then one {@value #QP_KEY} line per QP. */
    static String format(String device, String address, long pid, String tool, String state, Instant when,
                         Map<String, Long> values, List<String> qpLines) {
        StringBuilder sb = new StringBuilder(2048);
        sb.append(MAGIC).append('\n');
        sb.append("device ").append(device).append('\n');
        sb.append("address ").append(address).append('\n');
        sb.append("port 1\n");
        sb.append("pid ").append(pid).append('\n');
        sb.append("tool ").append(tool).append('\n');
        sb.append("state ").append(state).append('\n');
        sb.append("updated ").append(when).append('\n');
        for (Map.Entry<String, Long> e : values.entrySet()) {
            sb.append(e.getKey()).append(' ').append(e.getValue()).append('\n');
        }
        for (String q : qpLines) {
            sb.append(QP_KEY).append(' ').append(q).append('\n');
        }
        return sb.toString();
    }

    private synchronized void write(String state) {
        List<String> qps = List.of();
        if (congestion != null) {
            qps = congestion.qpRates().stream().map(StatsFile::qpLine).toList();
        }
        String text = format(device, address, ProcessHandle.current().pid(), tool, state, Instant.now(),
                values(counters), qps);
        Path tmp = file.resolveSibling("." + file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | RuntimeException e) {
            if (!warned) {
                warned = true;
                PrintStream err = System.err;
                err.println("jrdma: cannot write the device counters to " + file + ": " + e);
            }
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // best effort
            }
        }
    }

    /** Stops the periodic writes and writes the final counters with state {@value #CLOSED}. */
    @Override
    public void close() {
        if (file == null) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException ignored) {
            // shutting down: the hook runs finish()
        }
        finish();
    }

    private void finish() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        LockSupport.unpark(writer);
        try {
            writer.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        write(CLOSED);
    }
}
