package org.jrdma.bench.apps;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jrdma.perftest.Params;
import org.jrdma.perftest.Tools;
import org.jrdma.perftest.Verb;

/**
 * jrdma's perftest tools ({@code ib_write_lat}, {@code ib_write_bw}: {@link Tools#commandLine}) run
 * in this JVM, server and client on two platform threads, as {@code bin/jrdma} would run them in two
 * processes: the server on device {@code serverDev} (listening on the exchange port), the client on
 * {@code clientDev} connecting to the server's address. iWARP devices connect through the CM
 * ({@code -R}), RoCE devices exchange over TCP. Each run gets a free TCP port, {@code --jit_warm_up 0}
 * (the caller warms up with an untimed run instead, whose CPU would otherwise count) and
 * {@code --stats-file off}; the process's CPU time (all threads: both ends and the devices') is taken
 * around the whole run, setup included.
 *
 * <p>Threads: the caller's thread starts the server thread, waits until the port listens
 * ({@code /proc/net/tcp}), runs the client itself, then joins the server. No locks.
 */
final class RawVerbs {
    /** How long the client waits for the server's port to listen, ms. */
    private static final long LISTEN_TIMEOUT_MS = 30_000;
    /** How long the server may run on after the client ended, s. */
    private static final long SERVER_TIMEOUT_S = 60;

    private RawVerbs() {
    }

    /** A latency run: one-way latency (RTT/2, as perftest) median, mean and 99th percentile in µs, {@code iters} round trips. */
    record Lat(double p50Us, double avgUs, double p99Us, long iters, long cpuNs) {
    }

    /** A bandwidth run: MB/s (10^6 bytes) average, {@code bytes} moved (iterations × size). */
    record Bw(double mbPerSecond, long bytes, long cpuNs) {
    }

    /**
     * {@code ib_write_lat -s SIZE -n ITERS} between the two devices.
     *
     * @throws IllegalStateException when either side fails (its stderr in the message) or the result row is missing
     */
    static Lat writeLat(String serverDev, String clientDev, String serverAddr, boolean cm, int size, long iters) {
        Run r = run("ib_write_lat", Params.Kind.LAT, serverDev, clientDev, serverAddr, cm,
                List.of("-s", Integer.toString(size), "-n", Long.toString(iters)));
        // #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
        double[] f = row(r.client, size, 9);
        return new Lat(f[4], f[5], f[7], (long) f[1], r.cpuNs);
    }

    /**
     * {@code ib_write_bw -s SIZE -n ITERS --report_gbits} between the two devices.
     *
     * @throws IllegalStateException when either side fails or the result row is missing
     */
    static Bw writeBw(String serverDev, String clientDev, String serverAddr, boolean cm, int size, long iters) {
        Run r = run("ib_write_bw", Params.Kind.BW, serverDev, clientDev, serverAddr, cm,
                List.of("-s", Integer.toString(size), "-n", Long.toString(iters), "--report_gbits"));
        // #bytes #iterations BW_peak BW_average MsgRate
        double[] f = row(r.client, size, 5);
        return new Bw(f[3] * 1e9 / 8 / 1e6, (long) f[1] * size, r.cpuNs);
    }

    private record Run(String client, long cpuNs) {
    }

    /** How many times a tool is run before its row is given up ({@link #run}). */
    static final int ATTEMPTS = 3;

    /**
     * {@link #once}, up to {@link #ATTEMPTS} times while it fails: on a machine loaded far beyond its
     * cores (load 30 on two) a soft RC QP can exhaust its retries (perftest's timeout 14, retry count
     * 7: about half a second without an ACK) while the peer's threads wait for a core. Each failure
     * is printed on stderr; the last one is thrown.
     */
    private static Run run(String tool, Params.Kind kind, String serverDev, String clientDev, String serverAddr,
                           boolean cm, List<String> extra) {
        for (int attempt = 1; ; attempt++) {
            try {
                return once(tool, kind, serverDev, clientDev, serverAddr, cm, extra);
            } catch (IllegalStateException e) {
                if (attempt == ATTEMPTS) {
                    throw e;
                }
                System.err.println("apps: " + e.getMessage().replaceAll("\\s*\\R\\s*", " ") + " -- attempt " + attempt
                        + " of " + ATTEMPTS + ", running it again");
            }
        }
    }

    private static Run once(String tool, Params.Kind kind, String serverDev, String clientDev, String serverAddr,
                            boolean cm, List<String> extra) {
        int port = freePort();
        List<String> common = new ArrayList<>(extra);
        common.addAll(List.of("-p", Integer.toString(port), "--jit_warm_up", "0", "--stats-file", "off", "-F"));
        if (cm) {
            common.add("-R");
        }
        List<String> server = new ArrayList<>(List.of("-d", serverDev));
        server.addAll(common);
        List<String> client = new ArrayList<>(List.of("-d", clientDev));
        client.addAll(common);
        client.add(serverAddr);
        Out so = new Out();
        Out co = new Out();
        long cpu0 = Cpu.processNs();
        CompletableFuture<Integer> s = new CompletableFuture<>();
        Thread st = Thread.ofPlatform().name(tool + "-server").daemon().start(() -> {
            try {
                s.complete(Tools.commandLine(tool, Verb.WRITE, kind, so.stream, so.stream).execute(server.toArray(String[]::new)));
            } catch (Throwable t) {
                s.completeExceptionally(t);
            }
        });
        awaitListening(port, st);
        int rc = Tools.commandLine(tool, Verb.WRITE, kind, co.stream, co.stream).execute(client.toArray(String[]::new));
        int src;
        try {
            src = s.get(SERVER_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            st.interrupt();
            throw new IllegalStateException(tool + " " + serverDev + ": the server did not end within " + SERVER_TIMEOUT_S
                    + " s after the client (client exit " + rc + "): " + last(co.text()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(tool + " " + serverDev + ": the server failed: " + e.getCause(), e.getCause());
        }
        long cpu = Cpu.processNs() - cpu0;
        if (rc != 0 || src != 0) {
            throw new IllegalStateException(tool + " " + serverDev + "/" + clientDev + ": exit " + src + " (server) / " + rc
                    + " (client): " + last(co.text()) + " | " + last(so.text()));
        }
        return new Run(co.text(), cpu);
    }

    /** The numbers of the row that starts with {@code size} and has at least {@code fields} fields. */
    private static double[] row(String out, int size, int fields) {
        for (String line : out.split("\\R")) {
            String[] t = line.trim().split("\\s+");
            if (t.length >= fields && t[0].equals(Integer.toString(size))) {
                double[] f = new double[fields];
                try {
                    for (int i = 0; i < fields; i++) {
                        f[i] = Double.parseDouble(t[i]);
                    }
                    return f;
                } catch (NumberFormatException e) {
                    // not the result row
                }
            }
        }
        throw new IllegalStateException("no result row for size " + size + " in: " + last(out));
    }

    private static String last(String s) {
        String t = s.strip();
        return t.length() > 400 ? t.substring(t.length() - 400) : t;
    }

    /** A TCP port nobody used a moment ago (bound to 0, then closed). */
    private static int freePort() {
        try (ServerSocket ss = new ServerSocket(0)) {
            return ss.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free TCP port", e);
        }
    }

    /** Waits until a TCP socket listens on {@code port} (Linux {@code /proc/net/tcp}), the server thread ends, or the timeout. */
    private static void awaitListening(int port, Thread server) {
        String hex = String.format(Locale.ROOT, ":%04X", port);
        long end = System.nanoTime() + LISTEN_TIMEOUT_MS * 1_000_000;
        while (System.nanoTime() - end < 0 && server.isAlive()) {
            for (String f : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
                try {
                    for (String line : Files.readAllLines(Path.of(f))) {
                        String[] t = line.trim().split("\\s+");
                        if (t.length > 3 && t[1].endsWith(hex) && t[3].equals("0A")) {
                            return;
                        }
                    }
                } catch (IOException e) {
                    // no such table: try the other
                }
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    /** A captured stdout/stderr. */
    private static final class Out {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        String text() {
            synchronized (bytes) {
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }
    }
}
