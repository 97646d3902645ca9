package org.jrdma.examples.warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.jrdma.app.Endpoint;
import org.jrdma.app.EndpointConfig;
import org.jrdma.app.EndpointGroup;
import org.jrdma.app.EndpointListener;
import org.jrdma.app.RemoteBuffer;
import org.jrdma.app.Warmup;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.MemoryRegion;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Issue 15: how long the first one-sided READs of a fresh JVM take, against the same READs once warm.
 * One JVM: a listener on {@code SERVER} (a jrdma device's address, e.g. jrxe0's) advertises a 4 KiB
 * region (REMOTE_READ) in its accept; the client connects from {@code CLIENT} (another device's) and
 * READs 64 bytes of it {@code TOTAL} times, one at a time, timing each READ from post to completion.
 * The group has no progress thread: the main thread busy-progresses both endpoints while it waits, so
 * it also receives on both soft devices (their I/O threads step back) and runs the responder. A READ
 * is then one thread's work (post, requester, UDP send, receive, responder, response, completion),
 * which is what the JIT's warming changes; with the progress thread and the devices' I/O threads in
 * play, how three threads are scheduled on a loaded machine decides instead. With {@code WARMUP} > 0,
 * {@link Warmup#loopback} runs that many work requests on a private pair between the same two
 * addresses first (timed apart, {@code warmup_ms}).
 *
 * <pre>
 * FirstOps SERVER CLIENT [WARMUP [FIRST [WARM_FROM [TOTAL]]]]     defaults 0 2000 20000 22000
 * </pre>
 *
 * Prints one line, in µs: {@code RESULT first_n=FIRST first_p50_us first_p99_us first_max_us} over
 * READs 1..FIRST, {@code warm_p50_us warm_p99_us warm_max_us} over READs WARM_FROM+1..TOTAL,
 * {@code warmup_ms} (the helper's wall time, 0 without it), {@code jvm_to_first_read_ms} (from the
 * JVM's start to the first READ's post: class loading, device and connection setup, the helper) and
 * {@code total_ms}. A benchmark, not a test; {@code bench/warmup} runs it in its variants (cold, JDK 25
 * AOT cache, helper).
 */
@Command(name = "FirstOps", mixinStandardHelpOptions = true,
        description = "How long a fresh JVM's first one-sided READs take, against the same READs once warm.")
public final class FirstOps implements Callable<Integer> {
    private static final int BYTES = 64;

    @Parameters(index = "0", paramLabel = "SERVER", description = "the listener's address (a jrdma device's, e.g. jrxe0's)")
    private InetAddress server;
    @Parameters(index = "1", paramLabel = "CLIENT", description = "the client's address (another device's of the same kind)")
    private InetAddress client;
    @Parameters(index = "2", paramLabel = "WARMUP", arity = "0..1", defaultValue = "0",
            description = "work requests of Warmup.loopback first (default ${DEFAULT-VALUE}: none)")
    private int warmup;
    @Parameters(index = "3", paramLabel = "FIRST", arity = "0..1", defaultValue = "2000", description = "READs of the first window (default ${DEFAULT-VALUE})")
    private int first;
    @Parameters(index = "4", paramLabel = "WARM_FROM", arity = "0..1", defaultValue = "20000",
            description = "READs before the warm window (default ${DEFAULT-VALUE})")
    private int warmFrom;
    @Parameters(index = "5", paramLabel = "TOTAL", arity = "0..1", defaultValue = "22000", description = "READs in all (default ${DEFAULT-VALUE})")
    private int total;
    @Spec
    private CommandSpec spec;

    private FirstOps() {
    }

    public static void main(String[] args) {
        int rc = new CommandLine(new FirstOps()).execute(args);
        if (rc != 0) {
            System.exit(rc);
        }
    }

    @Override
    public Integer call() throws Exception {
        if (first < 1 || first > total || warmFrom < 0 || warmFrom >= total) {
            throw new ParameterException(spec.commandLine(), "need 1 <= FIRST <= TOTAL and 0 <= WARM_FROM < TOTAL");
        }
        long[] ns = new long[total];
        long warmupNs = 0;
        long firstPostMillis;
        long t0;
        Duration wait = Duration.ofSeconds(30);        // connection setup on a machine at load 30 may take seconds
        EndpointConfig cfg = new EndpointConfig().progressThread(false).timeout(wait);
        try (EndpointGroup g = EndpointGroup.create(cfg); Arena arena = Arena.ofShared()) {
            if (warmup > 0) {
                Warmup.Report r = Warmup.loopback(g, new InetSocketAddress(server, 0), new InetSocketAddress(client, 0), warmup);
                warmupNs = r.nanos();
            }
            EndpointListener l = g.listen(new InetSocketAddress(server, 0));
            MemorySegment table = arena.allocate(4096, 64);
            for (int i = 0; i < 4096; i += 8) {
                table.set(java.lang.foreign.ValueLayout.JAVA_LONG, i, i);
            }
            MemoryRegion mr = l.pd().regMr(table, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
            CompletableFuture<Endpoint> accepted = CompletableFuture.supplyAsync(() -> l.accept(wait, RemoteBuffer.of(mr).encode()));
            Endpoint c = g.connect(l.localAddress(), new InetSocketAddress(client, 0), null);
            Endpoint s = accepted.get(wait.toSeconds(), TimeUnit.SECONDS);
            RemoteBuffer rb = RemoteBuffer.decode(c.peerPrivateData(), 0);
            try (Lease buf = c.pool().lease(BYTES)) {
                firstPostMillis = System.currentTimeMillis();
                t0 = System.nanoTime();
                for (int i = 0; i < total; i++) {
                    long off = (long) (i % (4096 / BYTES)) * BYTES;
                    long start = System.nanoTime();
                    CompletableFuture<Void> f = c.read(buf, 0, BYTES, rb, off);
                    while (!f.isDone()) {
                        c.progress();
                        s.progress();
                    }
                    f.join();
                    ns[i] = System.nanoTime() - start;
                    if (buf.getLong(0) != off) {
                        throw new AssertionError("READ " + i + " at " + off + " brought " + buf.getLong(0));
                    }
                }
            }
            long totalNs = System.nanoTime() - t0;
            c.close();
            s.close();
            l.close();
            mr.close();
            long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
            Histogram h1 = histogram(ns, 0, first);
            Histogram h2 = histogram(ns, warmFrom, total);
            System.out.printf("RESULT first_n=%d first_p50_us=%.1f first_p99_us=%.1f first_max_us=%.1f warm_from=%d warm_n=%d"
                            + " warm_p50_us=%.1f warm_p99_us=%.1f warm_max_us=%.1f warmup_ops=%d warmup_ms=%.1f jvm_to_first_read_ms=%d"
                            + " total_ms=%.0f%n", first, us(h1, 50), us(h1, 99), h1.getMaxValue() / 1e3, warmFrom + 1, total - warmFrom,
                    us(h2, 50), us(h2, 99), h2.getMaxValue() / 1e3, warmup, warmupNs / 1e6, firstPostMillis - jvmStart, totalNs / 1e6);
        }
        return 0;
    }

    private static Histogram histogram(long[] ns, int from, int to) {
        Histogram h = new Histogram(3);
        for (int i = from; i < to; i++) {
            h.recordValue(ns[i]);
        }
        return h;
    }

    private static double us(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1e3;
    }
}
