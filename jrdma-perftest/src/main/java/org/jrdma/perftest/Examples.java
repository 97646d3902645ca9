package org.jrdma.perftest;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jrdma.app.EndpointConfig;
import org.jrdma.app.EndpointGroup;
import org.jrdma.examples.file.RdmaFileReceiver;
import org.jrdma.examples.file.RdmaFileSender;
import org.jrdma.examples.file.TransferResult;
import org.jrdma.examples.kv.RdmaKvClient;
import org.jrdma.examples.kv.RdmaKvServer;
import org.jrdma.examples.rpc.RdmaRpcClient;
import org.jrdma.examples.rpc.RdmaRpcServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jrdma examples kv|rpc|file}: runs one of issue 15's example applications ({@code org.jrdma.examples})
 * unchanged over the devices that own the addresses given (soft jrxe/jsiw, or a kernel device such as
 * {@code rxe0}/{@code siw0} through the native provider), checks what arrives and prints one line
 * {@code examples: APP ok ...} (exit 0) or {@code examples: APP FAILED ...} (exit 1). For the lab's guests,
 * where a JVM start costs minutes, it runs inside {@code jrdma batch}.
 * <ul>
 * <li>{@code kv}: an {@link RdmaKvServer} with 1024 buckets; the client PUTs {@code -n} keys (SEND), GETs
 * each back (one-sided RDMA READ with the version check) and compares the value, and a key never stored
 * must be missing; torn reads are counted and reported.</li>
 * <li>{@code rpc}: an {@link RdmaRpcServer} with an echo (method 1) and a square+1 (method 2) handler;
 * the client makes {@code -n} calls, up to its credits (16) in flight, alternating the methods with
 * payloads of 0 to 1000 bytes, and checks each result.</li>
 * <li>{@code file}: an {@link RdmaFileReceiver} (64 KiB chunks, a ring of 4); the sender sends a
 * pseudo-random file of {@code --bytes} bytes (seeded: {@code --seed}); both sides' SHA-256 and the
 * SHA-256 of the file as written must equal the SHA-256 of the file sent.</li>
 * </ul>
 * Roles ({@code -r}): {@code both} (default) runs the server on {@code -a}'s device and the client on
 * {@code -b}'s (default {@code -a}: loopback through the one device) in this JVM; {@code server} serves
 * one client ({@code kv}: for {@code -t} seconds, as the store has no end message; {@code rpc}: until
 * the client's method 3 call; {@code file}: one file) and exits; {@code client} connects to {@code -a}
 * from {@code -b}, retrying a refused or failed connect every second for {@code -t} seconds (the server
 * may be a slow JVM still starting). Every wait is bounded by {@code -t} (default 120 s), the endpoints'
 * CM steps too ({@code EndpointConfig.timeout}: its default 5 s was too short for the address resolution
 * of a cold JVM in the lab's emulated guests). Runs on the
 * calling thread; the examples' own threads (accept, per-connection, receive) run beside it.
 */
@Command(name = "examples", sortOptions = false, usageHelpAutoWidth = true,
        description = "run an example application (org.jrdma.examples: kv, rpc, file) over RDMA and check it")
final class Examples implements java.util.concurrent.Callable<Integer> {
    static final int ECHO = 1;
    static final int SQUARE_PLUS_ONE = 2;
    static final int DONE = 3;
    static final int RPC_LIMIT = 4096;
    static final int RPC_CREDITS = 16;
    static final int KV_BUCKETS = 1024;
    static final int FILE_CHUNK = 64 * 1024;
    static final int FILE_CHUNKS = 4;

    enum Role { both, server, client }

    @Parameters(index = "0", paramLabel = "APP", description = "kv, rpc or file") String app;
    @Option(names = "-a", paramLabel = "addr", required = true, description = "the server's address (its device's)") String server;
    @Option(names = "-b", paramLabel = "addr", description = "the client's address (default: -a)") String client;
    @Option(names = "-p", paramLabel = "port", description = "the server's port (default 7400)") int port = 7400;
    @Option(names = "-r", paramLabel = "role", description = "both (default), server or client") Role role = Role.both;
    @Option(names = "-n", paramLabel = "count", description = "kv: keys; rpc: calls (default 300)") int count = 300;
    @Option(names = "--bytes", paramLabel = "bytes", description = "file: the file's size (default 4 MiB)") long bytes = 4L << 20;
    @Option(names = "--seed", paramLabel = "seed", description = "file: the content's seed (default 15)") long seed = 15;
    @Option(names = "-t", paramLabel = "seconds", description = "bound of every wait, s (default 120)") int seconds = 120;
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help") boolean help;

    private final PrintStream out;

    Examples(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        InetSocketAddress at = new InetSocketAddress(InetAddress.getByName(server), port);
        InetSocketAddress from = new InetSocketAddress(InetAddress.getByName(client == null ? server : client), 0);
        long t0 = System.nanoTime();
        String result;
        try {
            result = switch (app) {
                case "kv" -> kv(at, from);
                case "rpc" -> rpc(at, from);
                case "file" -> file(at, from);
                default -> throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                        "APP is kv, rpc or file, not " + app);
            };
        } catch (picocli.CommandLine.ParameterException e) {
            throw e;
        } catch (Exception | AssertionError e) {
            out.println("examples: " + app + " FAILED (" + role + ", " + ms(t0) + " ms): " + e);
            return Tools.EXIT_FAILURE;
        }
        out.println("examples: " + app + " ok (" + role + ", " + ms(t0) + " ms): " + result);
        return 0;
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private Duration timeout() {
        return Duration.ofSeconds(seconds);
    }

    /** Connects with {@code connect}, retried every second while it fails, until {@code -t} has passed. */
    private <T> T connectRetrying(Supplier<T> connect) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            try {
                return connect.get();
            } catch (RuntimeException e) {   // refused (VerbsException), closed, or the file sender's UncheckedIOException
                if (role != Role.client || System.nanoTime() > end) {
                    throw e;
                }
                Thread.sleep(1000);
            }
        }
    }

    // ---------------------------------------------------------------- kv

    static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(int i) {
        byte[] v = new byte[1 + i % 80];
        for (int j = 0; j < v.length; j++) {
            v[j] = (byte) (i * 31 + j);
        }
        return v;
    }

    private String kv(InetSocketAddress at, InetSocketAddress from) throws Exception {
        try (EndpointGroup g = EndpointGroup.create(new EndpointConfig().timeout(timeout()))) {
            RdmaKvServer s = role == Role.client ? null : RdmaKvServer.start(g, at, KV_BUCKETS);
            try {
                if (role == Role.server) {
                    Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
                    return "served " + seconds + " s on " + s.address();
                }
                try (RdmaKvClient c = connectRetrying(() -> RdmaKvClient.connect(g, at, from))) {
                    for (int i = 0; i < count; i++) {
                        c.put(key(i), value(i));
                    }
                    for (int i = 0; i < count; i++) {
                        byte[] v = c.get(key(i));
                        if (!Arrays.equals(value(i), v)) {
                            throw new AssertionError("GET key-" + i + ": " + (v == null ? "missing" : v.length + " bytes, not the value PUT"));
                        }
                    }
                    if (c.get(key(-1)) != null) {
                        throw new AssertionError("GET of a key never PUT found a value");
                    }
                    return count + " PUTs, " + (count + 1) + " GETs checked, " + c.reads() + " READs, "
                            + c.tornReads() + " torn reads";
                }
            } finally {
                if (s != null) {
                    s.close();
                }
            }
        }
    }

    // ---------------------------------------------------------------- rpc

    private static byte[] payload(int i) {
        byte[] p = new byte[(i * 37) % 1001];
        for (int j = 0; j < p.length; j++) {
            p[j] = (byte) (i + j);
        }
        return p;
    }

    private String rpc(InetSocketAddress at, InetSocketAddress from) throws Exception {
        EndpointConfig cfg = new EndpointConfig().recvDepth(RPC_CREDITS).recvBufferSize(RPC_LIMIT).timeout(timeout());
        try (EndpointGroup g = EndpointGroup.create(cfg)) {
            CountDownLatch done = new CountDownLatch(1);
            RdmaRpcServer s = null;
            if (role != Role.client) {
                s = RdmaRpcServer.start(g, at, RPC_LIMIT)
                        .register(ECHO, p -> p)
                        .register(SQUARE_PLUS_ONE, p -> {
                            long x = ByteBuffer.wrap(p).getLong();
                            return ByteBuffer.allocate(8).putLong(x * x + 1).array();
                        })
                        .register(DONE, p -> {
                            done.countDown();
                            return p;
                        });
            }
            try {
                if (role == Role.server) {
                    if (!done.await(seconds, TimeUnit.SECONDS)) {
                        throw new AssertionError("no client finished within " + seconds + " s");
                    }
                    return "served a client on " + s.address();
                }
                try (RdmaRpcClient c = connectRetrying(() -> RdmaRpcClient.connect(g, at, from, RPC_LIMIT, RPC_CREDITS))) {
                    @SuppressWarnings("unchecked")
                    CompletableFuture<byte[]>[] f = new CompletableFuture[count];
                    long bytesOut = 0;
                    for (int i = 0; i < count; i++) {
                        byte[] p = i % 2 == 0 ? payload(i) : ByteBuffer.allocate(8).putLong(i).array();
                        bytesOut += p.length;
                        f[i] = c.call(i % 2 == 0 ? ECHO : SQUARE_PLUS_ONE, p);
                    }
                    for (int i = 0; i < count; i++) {
                        byte[] r = f[i].get(seconds, TimeUnit.SECONDS);
                        byte[] want = i % 2 == 0 ? payload(i) : ByteBuffer.allocate(8).putLong((long) i * i + 1).array();
                        if (!Arrays.equals(want, r)) {
                            throw new AssertionError("call " + i + ": a wrong result (" + r.length + " bytes)");
                        }
                    }
                    c.call(DONE, new byte[0]).get(seconds, TimeUnit.SECONDS);
                    return count + " calls checked (echo and square+1, " + bytesOut + " payload bytes out), up to "
                            + c.maxInFlight() + " in flight";
                }
            } finally {
                if (s != null) {
                    s.close();
                }
            }
        }
    }

    // ---------------------------------------------------------------- file

    private static String sha256(Path p) throws IOException, NoSuchAlgorithmException {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (var in = Files.newInputStream(p)) {
            byte[] b = new byte[65536];
            for (int n; (n = in.read(b)) > 0; ) {
                md.update(b, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private String file(InetSocketAddress at, InetSocketAddress from) throws Exception {
        Path dir = Files.createTempDirectory("jrdma-examples");
        Path in = dir.resolve("sent");
        Path got = dir.resolve("received");
        try (EndpointGroup g = EndpointGroup.create(new EndpointConfig().timeout(timeout()))) {
            if (role == Role.server) {
                try (RdmaFileReceiver r = RdmaFileReceiver.listen(g, at, FILE_CHUNK, FILE_CHUNKS)) {
                    TransferResult res = r.receive(got, timeout());
                    String written = sha256(got);
                    if (!written.equals(res.sha256Hex())) {
                        throw new AssertionError("the file written has SHA-256 " + written + ", the transfer's " + res.sha256Hex());
                    }
                    return res.bytes() + " bytes received in " + res.chunks() + " chunks (" + res.transport() + "), SHA-256 " + written;
                }
            }
            SplittableRandom rnd = new SplittableRandom(seed);
            try (var o = Files.newOutputStream(in)) {
                byte[] b = new byte[65536];
                for (long left = bytes; left > 0; left -= b.length) {
                    for (int i = 0; i < b.length; i += 8) {
                        long x = rnd.nextLong();
                        for (int k = 0; k < 8; k++) {
                            b[i + k] = (byte) (x >>> (8 * k));
                        }
                    }
                    o.write(b, 0, (int) Math.min(left, b.length));
                }
            }
            String want = sha256(in);
            if (role == Role.client) {
                TransferResult sent = connectRetrying(() -> {
                    try {
                        return RdmaFileSender.send(g, at, from, in, timeout());
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                check("sender", sent, want);
                return sent.bytes() + " bytes sent in " + sent.chunks() + " chunks (" + sent.transport() + "), SHA-256 " + want;
            }
            try (RdmaFileReceiver r = RdmaFileReceiver.listen(g, at, FILE_CHUNK, FILE_CHUNKS)) {
                CompletableFuture<TransferResult> rec = CompletableFuture.supplyAsync(() -> {
                    try {
                        return r.receive(got, timeout());
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }, c -> Thread.ofPlatform().daemon().name("file-receive").start(c));
                TransferResult sent = RdmaFileSender.send(g, r.address(), from, in, timeout());
                TransferResult received = rec.get(seconds, TimeUnit.SECONDS);
                check("sender", sent, want);
                check("receiver", received, want);
                String written = sha256(got);
                if (!written.equals(want)) {
                    throw new AssertionError("the file written has SHA-256 " + written + ", the file sent " + want);
                }
                return sent.bytes() + " bytes in " + sent.chunks() + " chunks (" + sent.transport() + "), SHA-256 "
                        + want + " on both sides and of the file written";
            }
        } finally {
            Files.deleteIfExists(in);
            Files.deleteIfExists(got);
            Files.deleteIfExists(dir);
        }
    }

    private void check(String side, TransferResult r, String want) {
        if (!r.sha256Hex().equals(want) || r.bytes() != bytes) {
            throw new AssertionError(side + ": " + r.bytes() + " bytes, SHA-256 " + r.sha256Hex() + ", sent " + bytes + " bytes, SHA-256 " + want);
        }
    }
}
