package org.jrdma.examples.rpc;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.jrdma.app.EndpointConfig;
import org.jrdma.app.EndpointGroup;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * Echo RPCs of {@code SIZE} bytes over RDMA SEND/RECV or over TCP, in one JVM: the server on
 * {@code SERVER} (for rdma a jrdma device's address: jrxe* for soft RoCE, jsiw* for soft iWARP, as
 * {@code -Djrdma.devices} maps them), the client on {@code CLIENT}. For each concurrency level, that
 * many caller threads each keep one call outstanding (closed loop) for {@code SECONDS} after one
 * untimed second.
 *
 * <pre>
 * RpcBench rdma|tcp SERVER CLIENT [LEVELS [SECONDS [SIZE]]]    defaults 1,4,16  5 s  64 bytes
 * </pre>
 *
 * Prints {@code RESULT kind=... concurrency=... calls=... rps=... p50_us=... p99_us=... p999_us=...}
 * per level. Credits (calls in flight) are the endpoints' recvDepth, 32, so levels above 32 wait.
 * {@link #measure} runs the same in-process and returns the results ({@code org.jrdma.bench.apps.AppsTable},
 * issue 15).
 */
@Command(name = "RpcBench", mixinStandardHelpOptions = true,
        description = "Echo RPCs over RDMA SEND/RECV or over TCP, in one JVM, at several concurrency levels (closed loop).")
public final class RpcBench implements Callable<Integer> {
    private static final int ECHO = 1;
    private static final int LIMIT = 4096;
    private static final int CREDITS = 32;

    /** The transports {@link #measure} runs (given in lower case). */
    enum Kind { RDMA, TCP }

    @Parameters(index = "0", paramLabel = "rdma|tcp", description = "the transport")
    private Kind kind;
    @Parameters(index = "1", paramLabel = "SERVER", description = "the server's address (for rdma a jrdma device's)")
    private InetAddress server;
    @Parameters(index = "2", paramLabel = "CLIENT", description = "the client's address")
    private InetAddress client;
    @Parameters(index = "3", paramLabel = "LEVELS", arity = "0..1", split = ",", defaultValue = "1,4,16",
            description = "concurrency levels, comma-separated (default ${DEFAULT-VALUE})")
    private int[] levels;
    @Parameters(index = "4", paramLabel = "SECONDS", arity = "0..1", defaultValue = "5", description = "timed seconds per level (default ${DEFAULT-VALUE})")
    private int seconds;
    @Parameters(index = "5", paramLabel = "SIZE", arity = "0..1", defaultValue = "64", description = "echo payload bytes (default ${DEFAULT-VALUE})")
    private int size;

    private RpcBench() {
    }

    public static void main(String[] args) {
        int rc = new CommandLine(new RpcBench()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
        if (rc != 0) {
            System.exit(rc);
        }
    }

    @Override
    public Integer call() throws Exception {
        for (Result r : measure(kind.name().toLowerCase(java.util.Locale.ROOT), server, client, levels, TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(seconds), size)) {
            System.out.printf("RESULT kind=%s concurrency=%d size=%d calls=%d rps=%.0f p50_us=%.1f p99_us=%.1f p999_us=%.1f%n",
                    r.kind(), r.concurrency(), r.size(), r.calls(), r.callsPerSecond(), r.p50Us(), r.p99Us(), r.p999Us());
        }
        return 0;
    }

    /**
     * One concurrency level: {@code calls} timed calls of {@code size}-byte echoes (at least one per
     * caller, which may stretch the window past its end on a slow machine), calls per second over the
     * timed window, latency percentiles in microseconds, {@code cpuNs} the process's CPU
     * time (all the JVM's threads: callers, client and server, the soft device's) over about the
     * timed window.
     */
    public record Result(String kind, int concurrency, int size, long calls, double callsPerSecond,
                         double p50Us, double p99Us, double p999Us, long cpuNs) {
        /** Process CPU nanoseconds per call. */
        public double cpuNsPerOp() {
            return calls == 0 ? 0 : (double) cpuNs / calls;
        }
    }

    /**
     * Runs each of {@code levels} (caller threads, each one call outstanding) for {@code warmNs}
     * untimed then {@code timedNs} timed, over {@code kind} "rdma" (the devices of {@code server} and
     * {@code client}) or "tcp" (the same addresses).
     *
     * @throws IllegalArgumentException for another kind
     */
    public static List<Result> measure(String kind, InetAddress server, InetAddress client, int[] levels,
                                       long warmNs, long timedNs, int size) throws Exception {
        RpcHandler echo = p -> p;
        List<Result> results = new ArrayList<>();
        if (kind.equals("tcp")) {
            try (TcpRpcServer s = TcpRpcServer.start(new InetSocketAddress(server, 0), LIMIT).register(ECHO, echo);
                 TcpRpcClient c = TcpRpcClient.connect(s.address(), LIMIT, CREDITS)) {
                for (int l : levels) {
                    results.add(run(kind, c, l, warmNs, timedNs, size));
                }
            }
        } else if (kind.equals("rdma")) {
            try (EndpointGroup g = EndpointGroup.create(new EndpointConfig().recvDepth(CREDITS).recvBufferSize(LIMIT));
                 RdmaRpcServer s = RdmaRpcServer.start(g, new InetSocketAddress(server, 0), LIMIT).register(ECHO, echo);
                 RdmaRpcClient c = RdmaRpcClient.connect(g, s.address(), new InetSocketAddress(client, 0), LIMIT, CREDITS)) {
                for (int l : levels) {
                    results.add(run(kind, c, l, warmNs, timedNs, size));
                }
            }
        } else {
            throw new IllegalArgumentException("RpcBench: kind rdma or tcp, not " + kind);
        }
        return results;
    }

    private static Result run(String kind, RpcClient c, int concurrency, long warmNs, long timedNs, int size) throws Exception {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        long warmEnd = System.nanoTime() + warmNs;
        long end = warmEnd + timedNs;
        long[] calls = new long[concurrency];
        long[] last = new long[concurrency];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < concurrency; i++) {
            int me = i;
            threads.add(Thread.ofPlatform().name("rpc-bench-" + i).start(() -> {
                byte[] payload = new byte[size];
                Histogram mine = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
                long n = 0;
                long now = System.nanoTime();
                while (now < end || n == 0) {                   // at least one timed call per caller
                    c.call(ECHO, payload).join();
                    long t = System.nanoTime();
                    if (now >= warmEnd) {
                        mine.recordValue(Math.min(t - now, mine.getHighestTrackableValue()));
                        n++;
                    }
                    now = t;
                }
                synchronized (h) {
                    h.add(mine);
                }
                calls[me] = n;
                last[me] = now;
            }));
        }
        for (long now = System.nanoTime(); now < warmEnd; now = System.nanoTime()) {
            Thread.sleep(Math.max(1, (warmEnd - now) / 1_000_000));
        }
        long cpu0 = processCpuNs();
        for (Thread t : threads) {
            t.join();
        }
        long cpu = processCpuNs() - cpu0;
        long total = 0;
        long timedEnd = end;
        for (int i = 0; i < concurrency; i++) {
            total += calls[i];
            timedEnd = Math.max(timedEnd, last[i]);
        }
        return new Result(kind, concurrency, size, total, total / ((timedEnd - warmEnd) / 1e9), h.getValueAtPercentile(50) / 1e3,
                h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3, cpu);
    }

    /** The CPU time of all the JVM's threads so far, ns ({@code com.sun.management.OperatingSystemMXBean}). */
    private static long processCpuNs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
