package org.jrdma.bench.apps;

import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.jrdma.bench.net.TcpCeiling;
import org.jrdma.examples.file.FileBench;
import org.jrdma.examples.kv.KvBench;
import org.jrdma.examples.rpc.RpcBench;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Issue 15's comparison table: each example of jrdma-examples and raw verbs, over soft RoCE (jrxe)
 * and soft iWARP (jsiw) against TCP, in one JVM on loopback, from the benches that exist:
 * jrdma-perftest's {@code ib_write_lat}/{@code ib_write_bw} ({@link RawVerbs}) against
 * {@link TcpCeiling}'s ping-pong and stream; {@link KvBench#compare} (GET = RDMA READ against the
 * same store over TCP); {@link RpcBench#measure} (1 and N callers, rdma and tcp); {@link FileBench#compare}.
 * Columns: p50, p99, throughput, process CPU per operation or per GB, payload copies per operation
 * ({@link Copies}, analytical) and ratios against the TCP row measured beside it. Then rows for the
 * lab (native provider on emulated devices: correctness only, not measured here) and a paragraph on
 * why soft RDMA on one host does not show a NIC's advantage.
 *
 * <p>Devices come from {@code -Djrdma.devices}, which must name jrxe0, jrxe1, jsiw0 and jsiw1 on
 * loopback addresses (the servers on jrxe0/jsiw0); {@code bench/apps} picks a random 127.x pair.
 * Everything runs on the caller's thread except what the benches start; the whole table took
 * 246-268 s with the defaults on two cores at load 22-40 (an idle machine was not tried).
 *
 * <pre>
 * bench/apps [--lat-iters N] [--bw-iters N] [--kv-gets N] [--rpc-seconds S] [--rpc-callers N] [--file-mib M]
 *            [--csv FILE] [--markdown FILE]
 * </pre>
 */
@Command(name = "apps", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Issue 15's table: raw verbs, KV, RPC and file transfer over jrxe and jsiw against TCP, on loopback.")
public final class AppsTable implements Callable<Integer> {
    @Option(names = "--lat-iters", description = "round trips of the raw latency runs (default ${DEFAULT-VALUE})")
    long latIters = 5000;
    @Option(names = "--lat-size", description = "bytes per raw latency message (default ${DEFAULT-VALUE})")
    int latSize = 64;
    @Option(names = "--bw-iters", description = "WRITEs of the raw bandwidth runs (default ${DEFAULT-VALUE})")
    long bwIters = 4096;
    @Option(names = "--bw-size", description = "bytes per raw bandwidth WRITE (default ${DEFAULT-VALUE})")
    int bwSize = 65536;
    @Option(names = "--tcp-bw-seconds", description = "seconds of the TCP stream (default ${DEFAULT-VALUE})")
    double tcpBwSeconds = 2;
    @Option(names = "--kv-keys", description = "keys loaded (default ${DEFAULT-VALUE})")
    int kvKeys = 1000;
    @Option(names = "--kv-gets", description = "timed GETs per transport (default ${DEFAULT-VALUE})")
    int kvGets = 20_000;
    @Option(names = "--rpc-callers", description = "the N of the N-caller RPC rows (default ${DEFAULT-VALUE})")
    int rpcCallers = 16;
    @Option(names = "--rpc-seconds", description = "timed seconds per RPC level (default ${DEFAULT-VALUE})")
    double rpcSeconds = 2;
    @Option(names = "--rpc-warmup-ms", description = "untimed ms before each RPC level (default ${DEFAULT-VALUE})")
    long rpcWarmupMs = 500;
    @Option(names = "--rpc-size", description = "bytes per RPC echo (default ${DEFAULT-VALUE})")
    int rpcSize = 64;
    @Option(names = "--file-mib", description = "MiB of the transferred file (default ${DEFAULT-VALUE})")
    long fileMib = 16;
    @Option(names = "--file-rounds", description = "timed transfers per transport (default ${DEFAULT-VALUE})")
    int fileRounds = 2;
    @Option(names = "--csv", paramLabel = "FILE", description = "also write the table as CSV")
    Path csv;
    @Option(names = "--markdown", paramLabel = "FILE", description = "also write the table as Markdown")
    Path markdown;

    /** How the table's runs are sized; {@link #tiny()} for tests. */
    record Config(long latIters, int latSize, long bwIters, int bwSize, double tcpBwSeconds, int kvKeys, int kvGets,
                  int rpcCallers, long rpcWarmupNs, long rpcNs, int rpcSize, long fileBytes, int fileChunk, int fileRounds) {
        /** Runs of a few hundred operations each: for a test that the table fills, not for numbers. */
        static Config tiny() {
            return new Config(200, 64, 64, 65536, 0.2, 50, 400, 4, 50_000_000L, 200_000_000L, 64, 1 << 20, 65536, 1);
        }
    }

    /** The loopback addresses of jrxe0, jrxe1, jsiw0 and jsiw1. */
    record Devices(String rxe0, String rxe1, String siw0, String siw1) {
        /**
         * From {@code jrdma.devices} ({@code NAME=ADDRESS,...}).
         *
         * @throws IllegalArgumentException when one of the four is missing
         */
        static Devices fromProperty() {
            Map<String, String> m = new HashMap<>();
            for (String e : System.getProperty("jrdma.devices", "").split(",")) {
                int eq = e.indexOf('=');
                if (eq > 0) {
                    m.put(e.substring(0, eq).trim(), e.substring(eq + 1).trim());
                }
            }
            for (String n : List.of("jrxe0", "jrxe1", "jsiw0", "jsiw1")) {
                if (!m.containsKey(n)) {
                    throw new IllegalArgumentException("-Djrdma.devices must name jrxe0, jrxe1, jsiw0 and jsiw1 (missing " + n + ")");
                }
            }
            return new Devices(m.get("jrxe0"), m.get("jrxe1"), m.get("jsiw0"), m.get("jsiw1"));
        }
    }

    static final String RXE = "jrxe (soft RoCE)";
    static final String SIW = "jsiw (soft iWARP)";
    static final String TCP = "TCP";
    static final String LAB_NOTE = "not measured here - see NativeRxeInteropTest";

    public static void main(String[] args) {
        System.exit(new CommandLine(new AppsTable()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Config c = new Config(latIters, latSize, bwIters, bwSize, tcpBwSeconds, kvKeys, kvGets, rpcCallers,
                TimeUnit.MILLISECONDS.toNanos(rpcWarmupMs), (long) (rpcSeconds * 1e9), rpcSize, fileMib << 20, 65536, fileRounds);
        String loadBefore = load();
        long t0 = System.nanoTime();
        List<Row> rows = measure(c, Devices.fromProperty(), System.err);
        double took = (System.nanoTime() - t0) / 1e9;
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "jrdma apps table (issue 15), %s, %d CPUs, load average %s before and %s after, %.0f s; loopback, one JVM%n",
                Instant.now(), Runtime.getRuntime().availableProcessors(), loadBefore, load(), took);
        out.print(TableFormat.text(rows));
        out.println();
        out.print(TableFormat.legend());
        out.println();
        out.print(TableFormat.why());
        if (csv != null) {
            Files.writeString(csv, TableFormat.csv(rows), StandardCharsets.UTF_8);
        }
        if (markdown != null) {
            Files.writeString(markdown, TableFormat.markdown(rows), StandardCharsets.UTF_8);
        }
        return 0;
    }

    /**
     * Runs every row's benchmark, in the table's order, logging each step to {@code log}.
     *
     * @throws Exception when a benchmark fails (a transfer's checksum, a wrong GET, a tool's exit status)
     */
    static List<Row> measure(Config c, Devices d, PrintStream log) throws Exception {
        List<Row> rows = new ArrayList<>();
        InetAddress rxe0 = InetAddress.getByName(d.rxe0());
        InetAddress rxe1 = InetAddress.getByName(d.rxe1());
        InetAddress siw0 = InetAddress.getByName(d.siw0());
        InetAddress siw1 = InetAddress.getByName(d.siw1());

        // raw verbs: latency
        String lat = "WRITE lat " + c.latSize() + " B";
        log.println("apps: " + lat + ": TCP ping-pong, jrxe, jsiw ...");
        TcpLatWithCpu tl = tcpLat(d.rxe0(), d.rxe1(), c.latSize(), (int) c.latIters());
        long tcpLatOps = c.latIters() + Math.max(c.latIters() / 10, 10);
        Row tcpLat = Row.of(lat, TCP, tl.medianUs(), tl.p99Us(), 1e6 / (2 * tl.avgUs()), "ops/s", tl.cpuNs() / 1e3 / tcpLatOps,
                "us/op", Copies.TCP_CEILING, null);
        for (boolean siw : new boolean[] {false, true}) {
            String s0 = siw ? "jsiw0" : "jrxe0";
            String s1 = siw ? "jsiw1" : "jrxe1";
            String a = siw ? d.siw0() : d.rxe0();
            Copies copies = siw ? Copies.WRITE_SIW : Copies.WRITE_RXE;
            try {
                RawVerbs.writeLat(s0, s1, a, siw, c.latSize(), Math.max(5, c.latIters() / 10));            // warm-up
                RawVerbs.Lat l = RawVerbs.writeLat(s0, s1, a, siw, c.latSize(), c.latIters());
                rows.add(Row.of(lat, siw ? SIW : RXE, l.p50Us(), l.p99Us(), 1e6 / (2 * l.avgUs()), "ops/s",
                        l.cpuNs() / 1e3 / l.iters(), "us/op", copies, tcpLat));
            } catch (IllegalStateException e) {
                rows.add(failed(lat, siw ? SIW : RXE, copies, e, log));
            }
        }
        rows.add(tcpLat);

        // raw verbs: bandwidth
        String bw = "WRITE bw " + (c.bwSize() >= 1024 ? c.bwSize() / 1024 + " KiB" : c.bwSize() + " B");
        log.println("apps: " + bw + ": TCP stream, jrxe, jsiw ...");
        TcpBwWithCpu tb = tcpBw(d.rxe0(), d.rxe1(), c.bwSize(), c.tcpBwSeconds());
        Row tcpBw = Row.of(bw, TCP, Double.NaN, Double.NaN, tb.gbit() * 1e9 / 8 / 1e6, "MB/s", tb.cpuNs() / 1e9 / (tb.bytes() / 1e9),
                "s/GB", Copies.TCP_CEILING, null);
        for (boolean siw : new boolean[] {false, true}) {
            String s0 = siw ? "jsiw0" : "jrxe0";
            String s1 = siw ? "jsiw1" : "jrxe1";
            String a = siw ? d.siw0() : d.rxe0();
            Copies copies = siw ? Copies.WRITE_SIW : Copies.WRITE_RXE;
            try {
                RawVerbs.writeBw(s0, s1, a, siw, c.bwSize(), Math.max(5, c.bwIters() / 10));              // warm-up
                RawVerbs.Bw b = RawVerbs.writeBw(s0, s1, a, siw, c.bwSize(), c.bwIters());
                rows.add(Row.of(bw, siw ? SIW : RXE, Double.NaN, Double.NaN, b.mbPerSecond(), "MB/s",
                        b.cpuNs() / 1e9 / (b.bytes() / 1e9), "s/GB", copies, tcpBw));
            } catch (IllegalStateException e) {
                rows.add(failed(bw, siw ? SIW : RXE, copies, e, log));
            }
        }
        rows.add(tcpBw);

        // KV: GET = RDMA READ, against the same store over TCP, each beside its own TCP run
        String kv = "KV GET (READ)";
        for (boolean siw : new boolean[] {false, true}) {
            log.println("apps: " + kv + " over " + (siw ? "jsiw" : "jrxe") + " and TCP ...");
            KvBench.Comparison k = KvBench.compare(siw ? siw0 : rxe0, siw ? siw1 : rxe1, c.kvKeys(), c.kvGets());
            Row t = kvRow(kv, TCP + (siw ? " (beside jsiw)" : " (beside jrxe)"), k.tcp(), Copies.KV_TCP, null);
            rows.add(kvRow(kv, siw ? SIW : RXE, k.rdma(), Copies.KV_READ, t));
            rows.add(t);
        }

        // RPC: 1 and N callers
        int[] levels = {1, c.rpcCallers()};
        log.println("apps: RPC echo " + c.rpcSize() + " B, 1 and " + c.rpcCallers() + " callers, over jrxe, jsiw, TCP ...");
        List<RpcBench.Result> rr = RpcBench.measure("rdma", rxe0, rxe1, levels, c.rpcWarmupNs(), c.rpcNs(), c.rpcSize());
        List<RpcBench.Result> rs = RpcBench.measure("rdma", siw0, siw1, levels, c.rpcWarmupNs(), c.rpcNs(), c.rpcSize());
        List<RpcBench.Result> rt = RpcBench.measure("tcp", rxe0, rxe1, levels, c.rpcWarmupNs(), c.rpcNs(), c.rpcSize());
        for (int i = 0; i < levels.length; i++) {
            String w = "RPC " + c.rpcSize() + " B x" + levels[i] + (levels[i] == 1 ? " caller" : " callers");
            Row t = rpcRow(w, TCP, rt.get(i), Copies.RPC_TCP, null);
            rows.add(rpcRow(w, RXE, rr.get(i), Copies.RPC_RDMA, t));
            rows.add(rpcRow(w, SIW, rs.get(i), Copies.RPC_RDMA, t));
            rows.add(t);
        }

        // file transfer, each beside its own TCP run
        String file = "file " + (c.fileBytes() >= 1 << 20 ? (c.fileBytes() >> 20) + " MiB" : c.fileBytes() + " B");
        for (boolean siw : new boolean[] {false, true}) {
            log.println("apps: " + file + " over " + (siw ? "jsiw" : "jrxe") + " and TCP ...");
            FileBench.Comparison f = FileBench.compare(siw ? siw0 : rxe0, siw ? siw1 : rxe1, c.fileBytes(), c.fileChunk(), c.fileRounds());
            Row t = fileRow(file, TCP + (siw ? " (beside jsiw)" : " (beside jrxe)"), f.tcp(), Copies.FILE_TCP, null);
            rows.add(fileRow(file, siw ? SIW : RXE, f.rdma(), Copies.FILE_RDMA, t));
            rows.add(t);
        }

        // the lab: the native provider on emulated devices, correctness only
        rows.add(Row.notMeasured(lat, "lab: native rxe", Copies.WRITE_RXE.onHardware(0), LAB_NOTE));
        rows.add(Row.notMeasured(bw, "lab: native rxe", Copies.WRITE_RXE.onHardware(0), LAB_NOTE));
        rows.add(Row.notMeasured(kv, "lab: native rxe", Copies.KV_READ.onHardware(0), LAB_NOTE));
        rows.add(Row.notMeasured("RPC", "lab: native rxe", Copies.RPC_RDMA.onHardware(0), LAB_NOTE));
        rows.add(Row.notMeasured("file", "lab: native rxe", Copies.FILE_RDMA.onHardware(2), LAB_NOTE));
        return rows;
    }

    /**
     * A raw-verbs row whose tool failed every attempt ({@link RawVerbs#ATTEMPTS}): the table goes on, the row says why
     * (e.g. "failed: completion with error at client: transport retry counter exceeded").
     */
    private static Row failed(String workload, String transport, Copies copies, IllegalStateException e, PrintStream log) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        int at = m.lastIndexOf("completion with error");
        String why = at >= 0 ? m.substring(at, m.indexOf('(', at) > 0 ? m.indexOf('(', at) : m.length()).strip()
                : m.replaceAll("\\s+", " ");
        log.println("apps: " + workload + " over " + transport + " failed " + RawVerbs.ATTEMPTS + " times, left out: " + m.replaceAll("\\s+", " "));
        return Row.notMeasured(workload, transport, copies, "failed: " + (why.length() > 80 ? why.substring(0, 80) : why));
    }

    private static Row kvRow(String w, String transport, KvBench.Result r, Copies copies, Row baseline) {
        return Row.of(w, transport, r.p50Us(), r.p99Us(), r.opsPerSecond(), "ops/s", r.cpuNsPerOp() / 1e3, "us/op", copies, baseline);
    }

    private static Row rpcRow(String w, String transport, RpcBench.Result r, Copies copies, Row baseline) {
        return Row.of(w, transport, r.p50Us(), r.p99Us(), r.callsPerSecond(), "ops/s", r.cpuNsPerOp() / 1e3, "us/op", copies, baseline);
    }

    private static Row fileRow(String w, String transport, FileBench.Result r, Copies copies, Row baseline) {
        return Row.of(w, transport, Double.NaN, Double.NaN, r.mbPerSecond(), "MB/s", r.cpuSecondsPerGb(), "s/GB", copies, baseline);
    }

    private static TcpCeiling.LatResult tcpLatRaw(String a, String b, int size, int iters) throws Exception {
        SocketChannel[] p = TcpCeiling.connect(a, b);
        try (SocketChannel x = p[0]; SocketChannel y = p[1]) {
            return TcpCeiling.lat(size, iters, x, y);
        }
    }

    private static TcpLatWithCpu tcpLat(String a, String b, int size, int iters) throws Exception {
        long c0 = Cpu.processNs();
        TcpCeiling.LatResult r = tcpLatRaw(a, b, size, iters);
        return new TcpLatWithCpu(r.medianUs(), r.avgUs(), r.p99Us(), Cpu.processNs() - c0);
    }

    /** A TCP ping-pong result (half round trips, µs) with the process CPU around it (warm-up included). */
    private record TcpLatWithCpu(double medianUs, double avgUs, double p99Us, long cpuNs) {
    }

    private static TcpBwWithCpu tcpBw(String a, String b, int size, double seconds) throws Exception {
        long c0 = Cpu.processNs();
        SocketChannel[] p = TcpCeiling.connect(a, b);
        TcpCeiling.BwResult r;
        try (SocketChannel x = p[0]; SocketChannel y = p[1]) {
            r = TcpCeiling.bw(size, seconds, x, y);
        }
        return new TcpBwWithCpu(r.gbit(), r.bytes(), Cpu.processNs() - c0);
    }

    /** A TCP stream result with the process CPU around it. */
    private record TcpBwWithCpu(double gbit, long bytes, long cpuNs) {
    }

    /** The 1-minute load average. */
    static String load() {
        double l = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return l < 0 ? "?" : String.format(Locale.ROOT, "%.2f", l);
    }
}
