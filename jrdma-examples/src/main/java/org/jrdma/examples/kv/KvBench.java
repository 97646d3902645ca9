package org.jrdma.examples.kv;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import org.jrdma.app.EndpointConfig;
import org.jrdma.app.EndpointGroup;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The key-value store over RDMA (GET = one-sided READs) beside the same store over TCP, in one JVM
 * on loopback: the server on {@code SERVER} (a jrdma device's address, e.g. jrxe0's), the client on
 * {@code CLIENT} (another device's); TCP between the same two addresses. Loads {@code KEYS} keys with
 * PUTs, then times {@code GETS} GETs of random keys, one at a time, after {@code GETS}/10 untimed ones.
 *
 * <pre>
 * KvBench SERVER CLIENT [KEYS [GETS]]      defaults 1000 keys, 50000 GETs
 * </pre>
 *
 * Prints {@code RESULT kind=rdma|tcp gets=... ops_per_s=... p50_us=... p99_us=... torn=...}. On one host
 * both ride the kernel's loopback, and soft RDMA's READ is a UDP round trip plus a software
 * responder, so this shows what the one-sided design costs and saves in software (no server thread
 * per GET), not a NIC's advantage. {@link #compare} runs the same in-process and returns the
 * results ({@code org.jrdma.bench.apps.AppsTable}, issue 15).
 */
@Command(name = "KvBench", mixinStandardHelpOptions = true,
        description = "The key-value store's GETs over RDMA (one-sided READs) beside the same store over TCP, in one JVM.")
public final class KvBench implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SERVER", description = "the server's address (a jrdma device's, e.g. jrxe0's)")
    private InetAddress server;
    @Parameters(index = "1", paramLabel = "CLIENT", description = "the client's address (another device's of the same kind)")
    private InetAddress client;
    @Parameters(index = "2", paramLabel = "KEYS", arity = "0..1", defaultValue = "1000", description = "keys loaded (default ${DEFAULT-VALUE})")
    private int keys;
    @Parameters(index = "3", paramLabel = "GETS", arity = "0..1", defaultValue = "50000", description = "GETs timed (default ${DEFAULT-VALUE})")
    private int gets;

    private KvBench() {
    }

    public static void main(String[] args) {
        int rc = new CommandLine(new KvBench()).execute(args);
        if (rc != 0) {
            System.exit(rc);
        }
    }

    @Override
    public Integer call() throws Exception {
        Comparison c = compare(server, client, keys, gets);
        report(c.rdma());
        report(c.tcp());
        System.out.printf("rdma/tcp: p50 %.2f, p99 %.2f, throughput %.2f%n", (double) c.rdma().p50Us() / c.tcp().p50Us(),
                (double) c.rdma().p99Us() / c.tcp().p99Us(), c.rdma().opsPerSecond() / c.tcp().opsPerSecond());
        return 0;
    }

    /**
     * The GETs of one transport: {@code gets} timed, {@code opsPerSecond} over their wall time, latency
     * percentiles in microseconds (each GET alone, closed loop), {@code cpuNs} the process's CPU time
     * (all the JVM's threads: client, server, the soft device's) over the timed GETs, {@code torn} reads
     * retried for a torn slot (RDMA only, else 0).
     */
    public record Result(String kind, long gets, double opsPerSecond, long p50Us, long p99Us, long cpuNs, long torn) {
        /** Process CPU nanoseconds per GET. */
        public double cpuNsPerOp() {
            return gets == 0 ? 0 : (double) cpuNs / gets;
        }
    }

    /** The two transports' results of one {@link #compare} run. */
    public record Comparison(Result rdma, Result tcp) {
    }

    /**
     * Loads {@code keys} keys, then times {@code gets} GETs over RDMA and {@code gets} over TCP,
     * interleaved in halves (RDMA, TCP, RDMA, TCP), each half after {@code gets}/20 untimed GETs. The
     * server listens on {@code server}, the client binds {@code client} (jrdma devices' addresses).
     *
     * @throws AssertionError when a GET returns a wrong value or a loaded key is missing
     */
    public static Comparison compare(InetAddress server, InetAddress client, int keys, int gets) throws Exception {
        int buckets = Integer.highestOneBit(keys * 8);            // a load factor of 1/8 to 1/4
        try (EndpointGroup g = EndpointGroup.create(new EndpointConfig());
             RdmaKvServer rs = RdmaKvServer.start(g, new InetSocketAddress(server, 0), buckets);
             RdmaKvClient rc = RdmaKvClient.connect(g, rs.address(), new InetSocketAddress(client, 0));
             TcpKvServer ts = TcpKvServer.start(new InetSocketAddress(server, 0), buckets);
             TcpKvClient tc = TcpKvClient.connect(ts.address())) {
            for (int i = 0; i < keys; i++) {
                rc.put(key(i), value(i));
                tc.put(key(i), value(i));
            }
            Histogram hr = new Histogram(3);
            Histogram ht = new Histogram(3);
            long[] wall = new long[2];
            long[] cpu = new long[2];
            for (int round = 0; round < 2; round++) {         // interleaved: RDMA, TCP, RDMA, TCP
                run(rc::get, keys, gets / 2, hr, wall, cpu, 0);
                run(tc::get, keys, gets / 2, ht, wall, cpu, 1);
            }
            return new Comparison(result("rdma", hr, wall[0], cpu[0], rc.tornReads()), result("tcp", ht, wall[1], cpu[1], 0));
        }
    }

    private interface Get {
        byte[] get(byte[] key);
    }

    private static void run(Get get, int keys, int n, Histogram h, long[] wall, long[] cpu, int at) {
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < n / 10; i++) {
            check(get.get(key(r.nextInt(keys))));
        }
        long c0 = processCpuNs();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            int k = r.nextInt(keys);
            long s = System.nanoTime();
            byte[] v = get.get(key(k));
            h.recordValue((System.nanoTime() - s) / 1000);
            if (v == null || !java.util.Arrays.equals(v, value(k))) {
                throw new AssertionError("GET " + k + " gave a wrong value");
            }
        }
        wall[at] += System.nanoTime() - t0;
        cpu[at] += processCpuNs() - c0;
    }

    /** The CPU time of all the JVM's threads so far, ns ({@code com.sun.management.OperatingSystemMXBean}). */
    static long processCpuNs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void check(byte[] v) {
        if (v == null) {
            throw new AssertionError("a loaded key is missing");
        }
    }

    private static Result result(String kind, Histogram h, long wallNs, long cpuNs, long torn) {
        return new Result(kind, h.getTotalCount(), h.getTotalCount() / (wallNs / 1e9), h.getValueAtPercentile(50),
                h.getValueAtPercentile(99), cpuNs, torn);
    }

    private static void report(Result r) {
        System.out.printf("RESULT kind=%s gets=%d ops_per_s=%.0f p50_us=%d p99_us=%d torn=%d%n", r.kind(), r.gets(),
                r.opsPerSecond(), r.p50Us(), r.p99Us(), r.torn());
    }

    static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(int i) {
        return ("value-of-" + i + "-" + Integer.toHexString(i * 31)).getBytes(StandardCharsets.US_ASCII);
    }
}
