package org.jrdma.examples.file;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.jrdma.app.EndpointConfig;
import org.jrdma.app.EndpointGroup;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The file transfer over RDMA (WRITE with notifications and credits) beside the same transfer over
 * TCP, in one JVM on loopback: the receiver on {@code RECEIVER} (a jrdma device's address, e.g.
 * jrxe0's or jsiw0's), the sender on {@code SENDER} (another device's, the same kind); TCP between the
 * same two addresses. Makes a file of {@code MB} MiB of random bytes, then transfers it
 * {@code ROUNDS} times each way, interleaved (RDMA, TCP, RDMA, ...), after one untimed round each.
 *
 * <pre>
 * FileBench RECEIVER SENDER [MB [CHUNK_KIB [ROUNDS]]]     defaults 64 MiB, 64 KiB chunks, 3 rounds
 * </pre>
 *
 * Prints {@code RESULT kind=rdma|tcp bytes=... mb_per_s=... cpu_s_per_gb=...}, MB = 10^6 bytes, GB =
 * 10^9 bytes. CPU is the whole process's ({@code com.sun.management.OperatingSystemMXBean}
 * process CPU time), so it counts both ends and, for RDMA, the soft device's threads: on one host soft
 * RDMA is software over the kernel's UDP or TCP, so this compares software costs, not a NIC's offload.
 * {@link #compare} runs the same in-process and returns the results ({@code org.jrdma.bench.apps.AppsTable},
 * issue 15).
 */
@Command(name = "FileBench", mixinStandardHelpOptions = true,
        description = "The file transfer over RDMA (WRITE with notifications) beside the same transfer over TCP, in one JVM.")
public final class FileBench implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RECEIVER", description = "the receiver's address (a jrdma device's, e.g. jrxe0's)")
    private InetAddress receiver;
    @Parameters(index = "1", paramLabel = "SENDER", description = "the sender's address (another device's of the same kind)")
    private InetAddress sender;
    @Parameters(index = "2", paramLabel = "MB", arity = "0..1", defaultValue = "64", description = "file size in MiB (default ${DEFAULT-VALUE})")
    private long mb;
    @Parameters(index = "3", paramLabel = "CHUNK_KIB", arity = "0..1", defaultValue = "64", description = "chunk size in KiB (default ${DEFAULT-VALUE})")
    private int chunkKib;
    @Parameters(index = "4", paramLabel = "ROUNDS", arity = "0..1", defaultValue = "3", description = "timed transfers each way (default ${DEFAULT-VALUE})")
    private int rounds;

    private FileBench() {
    }

    public static void main(String[] args) {
        int rc = new CommandLine(new FileBench()).execute(args);
        if (rc != 0) {
            System.exit(rc);
        }
    }

    @Override
    public Integer call() throws Exception {
        Comparison c = compare(receiver, sender, mb << 20, chunkKib * 1024, rounds);
        report(c.rdma());
        report(c.tcp());
        return 0;
    }

    /**
     * The timed transfers of one transport: {@code kind} the RDMA transfer's transport ("rdma-imm",
     * "rdma-send", as {@link TransferResult#transport()}) or "tcp", {@code bytes} all rounds together,
     * {@code wallNs} and {@code cpuNs} (the process's CPU time: all the JVM's threads, both ends and
     * the soft device's) summed over the rounds, {@code rounds} transfers.
     */
    public record Result(String kind, long bytes, long wallNs, long cpuNs, int rounds) {
        /** 10^6 bytes per second. */
        public double mbPerSecond() {
            return bytes / 1e6 / (wallNs / 1e9);
        }

        /** CPU seconds per 10^9 bytes. */
        public double cpuSecondsPerGb() {
            return cpuNs / 1e9 / (bytes / 1e9);
        }

        /** The latency of one whole transfer, mean, microseconds. */
        public double meanTransferUs() {
            return wallNs / 1e3 / rounds;
        }
    }

    /** The two transports' results of one {@link #compare} run. */
    public record Comparison(Result rdma, Result tcp) {
    }

    /**
     * Makes a file of {@code bytes} random bytes in a temporary directory (deleted at the end), then
     * transfers it {@code rounds} times over RDMA and over TCP, interleaved, after one untimed round
     * each; the receiver on {@code receiver}, the sender binds {@code sender}; {@code chunk} bytes per
     * chunk, a ring of {@link RdmaFileReceiver#DEFAULT_CHUNKS}.
     *
     * @throws FileTransferException when a transfer fails (a checksum mismatch, a peer gone, 60 s silence)
     */
    public static Comparison compare(InetAddress receiver, InetAddress sender, long bytes, int chunk, int rounds)
            throws Exception {
        Duration timeout = Duration.ofSeconds(60);
        Path dir = Files.createTempDirectory("filebench");
        Path in = dir.resolve("in");
        Path out = dir.resolve("out");
        randomFile(in, bytes, 1);
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (EndpointGroup g = EndpointGroup.create(new EndpointConfig());
             RdmaFileReceiver rr = RdmaFileReceiver.listen(g, new InetSocketAddress(receiver, 0), chunk, RdmaFileReceiver.DEFAULT_CHUNKS);
             TcpFileReceiver tr = TcpFileReceiver.listen(new InetSocketAddress(receiver, 0), chunk)) {
            Transfer rdma = () -> {
                CompletableFuture<TransferResult> r = receiveAsync(() -> rr.receive(out, timeout));
                RdmaFileSender.send(g, rr.address(), new InetSocketAddress(sender, 0), in, timeout);
                return r.join();
            };
            Transfer tcp = () -> {
                CompletableFuture<TransferResult> r = receiveAsync(() -> tr.receive(out, timeout));
                TcpFileSender.send(tr.address(), in, chunk, timeout);
                return r.join();
            };
            String kind = rdma.run().transport();
            tcp.run();
            long[] wall = new long[2];
            long[] cpu = new long[2];
            long moved = 0;
            for (int i = 0; i < rounds; i++) {
                Transfer[] both = {rdma, tcp};
                for (int k = 0; k < 2; k++) {
                    long c0 = os.getProcessCpuTime();
                    long t0 = System.nanoTime();
                    moved = both[k].run().bytes();
                    wall[k] += System.nanoTime() - t0;
                    cpu[k] += os.getProcessCpuTime() - c0;
                }
            }
            return new Comparison(new Result(kind, moved * rounds, wall[0], cpu[0], rounds),
                    new Result("tcp", moved * rounds, wall[1], cpu[1], rounds));
        } finally {
            Files.deleteIfExists(in);
            Files.deleteIfExists(out);
            Files.deleteIfExists(dir);
        }
    }

    private interface Transfer {
        TransferResult run() throws Exception;
    }

    interface Receive {
        TransferResult run() throws Exception;
    }

    static CompletableFuture<TransferResult> receiveAsync(Receive r) {
        CompletableFuture<TransferResult> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("file-receive").start(() -> {
            try {
                f.complete(r.run());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** Writes {@code bytes} random bytes (seeded) to {@code p}. */
    static void randomFile(Path p, long bytes, long seed) throws java.io.IOException {
        SplittableRandom r = new SplittableRandom(seed);
        try (var os = new java.io.BufferedOutputStream(Files.newOutputStream(p), 1 << 16)) {
            byte[] b = new byte[1 << 16];
            for (long done = 0; done < bytes; ) {
                for (int i = 0; i < b.length; i += 8) {
                    long v = r.nextLong();
                    for (int k = 0; k < 8; k++) {
                        b[i + k] = (byte) (v >>> (8 * k));
                    }
                }
                int len = (int) Math.min(b.length, bytes - done);
                os.write(b, 0, len);
                done += len;
            }
        }
    }

    private static void report(Result r) {
        System.out.printf("RESULT kind=%s bytes=%d mb_per_s=%.1f cpu_s_per_gb=%.2f%n", r.kind(), r.bytes(),
                r.mbPerSecond(), r.cpuSecondsPerGb());
    }
}
