package org.jrdma.bench.soak;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QpType;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.HardwareCounters;
import org.jrdma.verbs.ext.ResourceCounts;

/**
 * The soak: four software RoCE v2 devices on loopback (jrxe0..jrxe3 = 127.X.Y.1..4, X.Y random,
 * so that other jrdma processes on the machine are not in the way) with the seeded fault shim on
 * each: RC pairs between jrxe0 and jrxe1, UC and UD pairs between jrxe2 and jrxe3 (without
 * duplication on the wire: see {@link #open}); worker threads that each run {@link Pair} lives of
 * a random type (RC half of them, UC and UD a quarter each) one after another; {@link ObjectChurn}
 * beside them. Every sample
 * interval it forces a GC and prints a row: traffic, failures, live objects, threads, heap used
 * after GC, RSS. At the end it stops the workers (each finishes its life: ERR, drain, destroy),
 * checks that nothing is left (the provider's {@link ResourceCounts} when it has them, else the
 * soak's own count and the closes that did not fail with EBUSY), closes the devices, checks that
 * the threads are back to the baseline, judges whether heap and RSS stayed flat, and prints the
 * verdict. Only the public verbs API ({@code org.jrdma.verbs}, {@code org.jrdma.verbs.ext}).
 *
 * <p>Threads: {@link #run()}'s caller samples and judges; {@code soak-worker-N} run the pairs;
 * {@code soak-churn} the object churn. They share {@link Stats}, {@link Live} and a volatile stop
 * flag; no locks beyond those of Stats.
 */
public final class SoakEngine {
    /** Heap after GC counts as flat when the last third of the samples stay within this of the reference. */
    static final double HEAP_TOLERANCE = 0.25;
    static final long HEAP_SLACK = 16L << 20;
    static final double RSS_TOLERANCE = 0.10;
    static final long RSS_SLACK = 48L << 20;
    /**
     * Steepest least-squares slope after the warm-up, MB/min, judged when the samples after the
     * warm-up span at least {@link #SLOPE_SPAN_MINUTES}: 1 MB/min of heap is 1.4 GB a day, and
     * stands out of the noise of a minute's sample (a few MB of heap after GC) over 3+ minutes.
     */
    static final double HEAP_MAX_SLOPE = 1.0;
    static final double RSS_MAX_SLOPE = 4.0;
    static final double SLOPE_SPAN_MINUTES = 3.0;

    /**
     * What to run.
     *
     * @param durationNanos how long the traffic runs, ns
     * @param sampleNanos the sample interval, ns (a minute for {@code bench/soak})
     * @param workers worker threads (pairs alive at once)
     * @param seed seeds the workers and the fault shims (jrxe0 gets seed, jrxe1 seed + 1)
     * @param faults the shim's rates, {@code loss=P,dup=P,reorder=P[,corrupt=P]} without the seed;
     *               corrupt is dropped when the devices cannot use raw IPv4 sockets (see {@link #run()})
     * @param out where the table goes
     */
    public record Config(long durationNanos, long sampleNanos, int workers, long seed, String faults, PrintStream out) {
    }

    /** One sample row. */
    record Sample(double minutes, long completed, long failures, int liveQps, int liveMrs, int jrdmaThreads,
                  int threads, long heapAfterGc, long rss) {
    }

    /**
     * The outcome.
     *
     * @param pass whether every check passed
     * @param reasons why not (empty on a pass)
     * @param lost completions never delivered
     * @param duplicates completions delivered twice (and UC / UD messages delivered twice)
     * @param failures every failure the workers recorded (lost, duplicated, wrong data, error completions, ...)
     * @param leaks objects and threads left after everything was closed
     * @param samples the rows
     */
    public record Result(boolean pass, List<String> reasons, long lost, long duplicates, long failures, int leaks,
                         List<Sample> samples) {
    }

    /** jrxe0/jrxe1 for RC, jrxe2/jrxe3 for UC and UD. */
    private static final int DEVICES = 4;
    private final Config cfg;
    private final PrintStream out;
    private final Stats stats = new Stats();
    private final Live live = new Live();
    private volatile boolean stop;

    public SoakEngine(Config cfg) {
        this.cfg = cfg;
        this.out = cfg.out();
    }

    /** Runs the soak; see the class comment. */
    public Result run() {
        Set<Thread> baseline = Thread.getAllStackTraces().keySet();
        int baseJrdma = jrdmaThreads();
        List<String> reasons = new ArrayList<>();
        Context[] ctx = open(reasons);
        if (ctx == null) {
            return new Result(false, reasons, 0, 0, 0, 0, List.of());
        }
        List<ResourceCounts> counts = new ArrayList<>();
        for (Context c : ctx) {
            c.extension(ResourceCounts.class).ifPresent(counts::add);
        }
        boolean haveCounts = counts.size() == ctx.length;
        out.println("soak: ResourceCounts " + (haveCounts
                ? "present (the provider's live pd/cq/qp/mr counts are checked)"
                : "ABSENT from this provider: the leak check falls back to the soak's own count of what it holds and to"
                  + " closes that must not fail with EBUSY"));
        List<Thread> threads = new ArrayList<>();
        AtomicLong serials = new AtomicLong();
        for (int i = 0; i < cfg.workers(); i++) {
            SplittableRandom r = new SplittableRandom(cfg.seed() * 7919 + i);
            threads.add(Thread.ofPlatform().name("soak-worker-" + i).start(() -> work(ctx, r, serials)));
        }
        threads.add(Thread.ofPlatform().name("soak-churn")
                .start(new ObjectChurn(ctx, stats, live, new SplittableRandom(cfg.seed() ^ 0x5eed), () -> stop)));

        List<Sample> samples = new ArrayList<>();
        long t0 = System.nanoTime();
        header();
        for (int k = 1; ; k++) {
            long at = t0 + Math.min(k * cfg.sampleNanos(), cfg.durationNanos());
            sleepUntil(at);
            Sample s = sample((System.nanoTime() - t0) / 60e9, haveCounts ? counts : null);
            samples.add(s);
            row(s, samples.size() > 1 ? samples.get(samples.size() - 2) : null, cfg.sampleNanos());
            if (at - t0 >= cfg.durationNanos()) {
                break;
            }
        }
        stop = true;
        for (Thread t : threads) {
            try {
                t.join(120_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                StringBuilder sb = new StringBuilder(t.getName() + " did not finish within 120 s of the stop:");
                for (StackTraceElement e : t.getStackTrace()) {
                    sb.append("\n        at ").append(e);
                }
                stats.fail(sb.toString());
            }
        }
        int leaks = 0;
        // everything the soak created is closed now; only the two contexts are open
        String provider;
        if (haveCounts) {
            int[] left = new int[4];
            for (ResourceCounts x : counts) {
                left[0] += x.pds();
                left[1] += x.cqs();
                left[2] += x.qps();
                left[3] += x.mrs();
            }
            provider = "provider's counts: pd " + left[0] + " cq " + left[1] + " qp " + left[2] + " mr " + left[3];
            for (int v : left) {
                leaks += v;
            }
        } else {
            provider = "provider's counts: not available (no ResourceCounts)";
        }
        int own = live.pds.get() + live.cqs.get() + live.qps.get() + live.mrs.get() + live.ahs.get();
        leaks += own;
        out.println("soak: objects left after closing everything: " + provider + "; soak's own count: " + live);
        printCounters(ctx);
        for (Context c : ctx) {
            c.close();
        }
        System.clearProperty("jrdma.devices");
        for (int d = 0; d < DEVICES; d++) {
            System.clearProperty("jrdma.ipv4.jrxe" + d);
            System.clearProperty("jrdma.faults.jrxe" + d);
        }
        long until = System.nanoTime() + 5_000_000_000L;
        while (jrdmaThreads() > baseJrdma && System.nanoTime() < until) {
            sleepUntil(System.nanoTime() + 50_000_000L);
        }
        List<String> newThreads = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!baseline.contains(t) && t.isAlive() && !jvmOwn(t.getName())) {
                newThreads.add(t.getName());
            }
        }
        int jr = jrdmaThreads();
        out.printf(Locale.ROOT, "soak: threads after closing the devices: jrdma-* %d (baseline %d), total %d (baseline %d), new: %s%n",
                jr, baseJrdma, Thread.getAllStackTraces().size(), baseline.size(), newThreads);
        leaks += newThreads.size() + Math.max(0, jr - baseJrdma);

        // the verdict
        long lost = stats.lost.sum();
        long dup = stats.duplicates.sum() + stats.duplicateDeliveries.sum();
        long failures = stats.failureCount();
        summary();
        if (failures > 0) {
            out.println("soak: failures (" + failures + ", the first " + Math.min(failures, Stats.KEPT_FAILURES) + "):");
            for (String f : stats.failures()) {
                out.println("  " + f);
            }
        }
        if (lost > 0) {
            reasons.add(lost + " lost completions");
        }
        if (dup > 0) {
            reasons.add(dup + " duplicated completions/deliveries");
        }
        if (failures > 0) {
            reasons.add(failures + " failures (listed above)");
        }
        if (leaks > 0) {
            reasons.add(leaks + " leaked objects/threads");
        }
        if (stats.completed.sum() == 0) {
            reasons.add("no completions at all");
        }
        String heap = flat("heap after GC", samples, Sample::heapAfterGc, HEAP_TOLERANCE, HEAP_SLACK, HEAP_MAX_SLOPE,
                reasons);
        String rss = flat("RSS", samples, Sample::rss, RSS_TOLERANCE, RSS_SLACK, RSS_MAX_SLOPE, reasons);
        out.println("soak: " + heap);
        out.println("soak: " + rss);
        boolean pass = reasons.isEmpty();
        out.printf(Locale.ROOT, "soak: %s: %.1f min, %d pairs, %d WRs completed, lost %d, duplicated %d, failures %d, leaks %d%s%n",
                pass ? "PASS" : "FAIL", samples.isEmpty() ? 0 : samples.getLast().minutes(), stats.pairs.sum(),
                stats.completed.sum(), lost, dup, failures, leaks, pass ? "" : " -- " + String.join("; ", reasons));
        return new Result(pass, List.copyOf(reasons), lost, dup, failures, leaks, List.copyOf(samples));
    }

    /** One worker: pair lives of random types until the stop. */
    private void work(Context[] ctx, SplittableRandom r, AtomicLong serials) {
        while (!stop) {
            int t = r.nextInt(4);
            QpType type = t < 2 ? QpType.RC : t == 2 ? QpType.UC : QpType.UD;
            int d = type == QpType.RC ? 0 : 2;
            Pair p = new Pair(serials.incrementAndGet(), type, ctx[d], ctx[d + 1], stats, live, r.split());
            try {
                p.open();
                p.run(System.nanoTime() + 1_000_000_000L + r.nextLong(3_000_000_000L), r.nextInt(4) == 0, () -> stop);
            } catch (RuntimeException | Error e) {
                StringBuilder sb = new StringBuilder(p + ": " + e);
                StackTraceElement[] st = e.getStackTrace();
                for (int i = 0; i < Math.min(6, st.length); i++) {
                    sb.append("\n        at ").append(st[i]);
                }
                stats.fail(sb.toString());
            } finally {
                p.close();
            }
        }
    }

    /**
     * Opens jrxe0..jrxe3 on four addresses of a random free loopback /24 with the fault shim:
     * jrxe0/jrxe1 carry the RC pairs with every fault, jrxe2/jrxe3 the UC and UD pairs with every
     * fault but duplication. UC and UD have no duplicate detection: a UC responder (rxe's
     * {@code check_psn}, and jrdma's) starts a new message on any FIRST or ONLY packet whatever its
     * PSN, a UD one checks no PSN at all, so a packet the network duplicates is delivered twice by
     * design; without duplication on the wire, a duplicate delivery there is a transport bug.
     * Corruption needs the raw IPv4 port (as root): through an ordinary IPv4 UDP socket the
     * receiver checks only 16 of the ICRC's 32 bits (the IP Identification is not visible), so a
     * corrupted packet would pass once in ~2^15; without raw sockets the soak runs without
     * corruption and says so.
     */
    private Context[] open(List<String> reasons) {
        SplittableRandom r = new SplittableRandom(System.nanoTime());
        boolean corrupt = cfg.faults().contains("corrupt");
        for (int attempt = 0; attempt < 40; attempt++) {
            String net = "127." + (1 + r.nextInt(254)) + "." + r.nextInt(256);
            String all = corrupt ? cfg.faults() : cfg.faults().replaceAll(",?corrupt=[^,]*", "");
            String noDup = all.replaceAll(",?dup=[^,]*", "");
            StringBuilder devices = new StringBuilder();
            for (int d = 0; d < DEVICES; d++) {
                devices.append(d == 0 ? "" : ",").append("jrxe").append(d).append('=').append(net).append('.').append(d + 1);
                System.setProperty("jrdma.ipv4.jrxe" + d, corrupt ? "raw" : "udp");
                System.setProperty("jrdma.faults.jrxe" + d, (d < 2 ? all : noDup) + ",seed=" + (cfg.seed() + d));
            }
            System.setProperty("jrdma.devices", devices.toString());
            Context[] ctx = new Context[DEVICES];
            try {
                for (int d = 0; d < DEVICES; d++) {
                    ctx[d] = Verbs.getDevice("jrxe" + d).open();
                }
                out.println("soak: devices " + devices + " (" + (corrupt ? "raw IPv4" : "UDP") + " sockets); RC on jrxe0/jrxe1"
                        + " with faults " + all + ", UC and UD on jrxe2/jrxe3 with " + noDup + "; seeds " + cfg.seed()
                        + ".." + (cfg.seed() + DEVICES - 1) + "; " + cfg.workers() + " workers, "
                        + String.format(Locale.ROOT, "%.2f", cfg.durationNanos() / 60e9) + " min, samples every "
                        + cfg.sampleNanos() / 1_000_000_000L + " s");
                return ctx;
            } catch (VerbsException e) {
                for (Context c : ctx) {
                    if (c != null) {
                        c.close();
                    }
                }
                if (corrupt && e.errno() == Errno.EPERM) {
                    out.println("soak: no raw IPv4 sockets here (" + e.getMessage() + "): running without corruption"
                            + " (the unprivileged IPv4 ICRC check is 16 bits strong)");
                    corrupt = false;
                    continue;
                }
                if (e.errno() != Errno.EADDRINUSE && e.errno() != Errno.EADDRNOTAVAIL) {
                    reasons.add("cannot open the devices: " + e);
                    out.println("soak: FAIL -- cannot open the devices: " + e);
                    return null;
                }
            }
        }
        reasons.add("no free loopback addresses after 40 attempts");
        out.println("soak: FAIL -- no free loopback addresses after 40 attempts");
        return null;
    }

    // ------------------------------------------------------------------ samples and output

    /** A sample; live QPs and MRs from the provider's counts when there are any ({@code counts} not null). */
    private Sample sample(double minutes, List<ResourceCounts> counts) {
        MemoryUse m = MemoryUse.now();
        int qps = 0, mrs = 0;
        if (counts != null) {
            for (ResourceCounts x : counts) {
                qps += x.qps();
                mrs += x.mrs();
            }
        } else {
            qps = live.qps.get();
            mrs = live.mrs.get();
        }
        return new Sample(minutes, stats.completed.sum(), stats.failureCount(), qps, mrs, jrdmaThreads(),
                Thread.getAllStackTraces().size(), m.heapAfterGc(), m.rss());
    }

    private void header() {
        out.println(" minute   WRs done   WR/s  lost  dup fail   pairs  live qp  mr  thr jrdma/all  heap MB   RSS MB");
    }

    private void row(Sample s, Sample prev, long interval) {
        long d = s.completed() - (prev == null ? 0 : prev.completed());
        double secs = prev == null ? s.minutes() * 60 : (s.minutes() - prev.minutes()) * 60;
        out.printf(Locale.ROOT, "%7.2f %10d %6.0f %5d %4d %4d %7d  %7d %3d  %5d/%-5d %8.1f %8.1f%n", s.minutes(),
                s.completed(), secs > 0 ? d / secs : 0, stats.lost.sum(), stats.duplicates.sum()
                + stats.duplicateDeliveries.sum(), s.failures(), stats.pairs.sum(), s.liveQps(), s.liveMrs(),
                s.jrdmaThreads(), s.threads(), s.heapAfterGc() / 1048576.0, s.rss() / 1048576.0);
        out.flush();
    }

    private void summary() {
        out.printf(Locale.ROOT, "soak: %d pairs (RC %d, UC %d, UD %d; %d ended with work in flight), %d QPs created,"
                        + " %d MRs registered%n", stats.pairs.sum(), stats.rcPairs.sum(), stats.ucPairs.sum(),
                stats.udPairs.sum(), stats.aborts.sum(), stats.qpsCreated.sum(), stats.mrsRegistered.sum());
        out.printf(Locale.ROOT, "soak: %d WRs posted, %d completed (%d flushed), lost %d, duplicate completions %d%n",
                stats.posted.sum(), stats.completed.sum(), stats.flushed.sum(), stats.lost.sum(), stats.duplicates.sum());
        out.printf(Locale.ROOT, "soak: checked byte for byte: %d messages, %d READs, %d atomics against the model, %.1f MB%n",
                stats.verifiedMessages.sum(), stats.verifiedReads.sum(), stats.verifiedAtomics.sum(),
                stats.verifiedBytes.sum() / 1e6);
        out.printf(Locale.ROOT, "soak: UC messages sent %d, received %d (lost %d: allowed); UD sent %d, received %d (lost %d:"
                        + " allowed); delivered twice %d%n", stats.ucSent.sum(), stats.ucReceived.sum(),
                stats.ucSent.sum() - stats.ucReceived.sum(), stats.udSent.sum(), stats.udReceived.sum(),
                stats.udSent.sum() - stats.udReceived.sum(), stats.duplicateDeliveries.sum());
    }

    private void printCounters(Context[] ctx) {
        for (Context c : ctx) {
            Optional<HardwareCounters> hc = c.extension(HardwareCounters.class);
            if (hc.isEmpty()) {
                out.println("soak: " + c.device().name() + " counters: not available (no HardwareCounters)");
                continue;
            }
            StringBuilder sb = new StringBuilder("soak: " + c.device().name() + " counters:");
            List<String> names = hc.get().names();
            for (int i = 0; i < names.size(); i++) {
                long v = hc.get().get(i);
                if (v != 0) {
                    sb.append(' ').append(names.get(i)).append('=').append(v);
                }
            }
            out.println(sb);
        }
    }

    /**
     * Judges a series: the reference is the first sample after the warm-up (the first sample);
     * flat when no sample of the last third exceeds it by more than {@code tol} (relative) or
     * {@code slack} (bytes), whichever is larger, and, when the samples after the warm-up span
     * {@link #SLOPE_SPAN_MINUTES} or more, their slope stays at or under {@code maxSlope} MB/min.
     * Fewer than 3 samples: not judged.
     */
    static String flat(String what, List<Sample> samples, java.util.function.ToLongFunction<Sample> f, double tol,
                       long slack, double maxSlope, List<String> reasons) {
        StringBuilder series = new StringBuilder();
        for (Sample s : samples) {
            series.append(series.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, "%.1f", f.applyAsLong(s) / 1048576.0));
        }
        if (samples.size() < 3) {
            return what + " MB per sample: " + series + " -- not judged (fewer than 3 samples)";
        }
        long ref = f.applyAsLong(samples.get(1));
        long allowed = Math.max((long) (ref * tol), slack);
        long worst = Long.MIN_VALUE;
        for (int i = samples.size() - Math.max(1, (samples.size() - 1) / 3); i < samples.size(); i++) {
            worst = Math.max(worst, f.applyAsLong(samples.get(i)));
        }
        List<Sample> after = samples.subList(1, samples.size());
        double slope = slope(after, f);
        boolean slopeJudged = after.getLast().minutes() - after.getFirst().minutes() >= SLOPE_SPAN_MINUTES;
        boolean ok = worst <= ref + allowed;
        if (!ok) {
            reasons.add(what + " grew " + String.format(Locale.ROOT, "%.1f", (worst - ref) / 1048576.0) + " MB");
        }
        if (slopeJudged && slope > maxSlope) {
            ok = false;
            reasons.add(what + " grew " + String.format(Locale.ROOT, "%+.2f", slope) + " MB/min");
        }
        return String.format(Locale.ROOT, "%s MB per sample: %s; slope after warm-up %+.2f MB/min (%s); last third's max"
                        + " %.1f vs %.1f after warm-up (allowed +%.1f): %s", what, series, slope,
                slopeJudged ? String.format(Locale.ROOT, "allowed %+.1f", maxSlope) : "not judged: under "
                        + SLOPE_SPAN_MINUTES + " min", worst / 1048576.0, ref / 1048576.0, allowed / 1048576.0,
                ok ? "flat" : "GROWING");
    }

    /** Least-squares slope of the series, MB per minute. */
    static double slope(List<Sample> s, java.util.function.ToLongFunction<Sample> f) {
        int n = s.size();
        if (n < 2) {
            return 0;
        }
        double mx = 0, my = 0;
        for (Sample x : s) {
            mx += x.minutes();
            my += f.applyAsLong(x) / 1048576.0;
        }
        mx /= n;
        my /= n;
        double num = 0, den = 0;
        for (Sample x : s) {
            double dx = x.minutes() - mx;
            num += dx * (f.applyAsLong(x) / 1048576.0 - my);
            den += dx * dx;
        }
        return den == 0 ? 0 : num / den;
    }

    static int jrdmaThreads() {
        int k = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("jrdma-")) {
                k++;
            }
        }
        return k;
    }

    /** Threads the JVM starts and stops by itself (JIT compiler threads, the attach listener). */
    private static boolean jvmOwn(String name) {
        return name.contains("CompilerThread") || name.equals("Attach Listener") || name.startsWith("surefire-");
    }

    private static void sleepUntil(long nanos) {
        long d;
        while ((d = nanos - System.nanoTime()) > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(d);
        }
    }

    /** Heap used after a full GC and the resident set size. */
    record MemoryUse(long heapAfterGc, long rss) {
        static MemoryUse now() {
            System.gc();
            System.gc();
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            return new MemoryUse(heap, readRss());
        }

        /** VmRSS of /proc/self/status, bytes (0 where there is none). */
        static long readRss() {
            try {
                for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                    if (l.startsWith("VmRSS:")) {
                        return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
                    }
                }
            } catch (IOException | NumberFormatException e) {
                return 0;
            }
            return 0;
        }
    }
}
