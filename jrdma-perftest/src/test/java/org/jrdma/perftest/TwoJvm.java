package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Runs a jrdma tool as server and client in two JVMs (this test's java and class path), each on its
 * own software RoCE device ({@code JRDMA_DEVICES}) on a random loopback pair 127.X.Y.1 / 127.X.Y.2 (so tests running at the
 * same time on this machine do not meet), the exchange on a free TCP port. Every process is killed
 * when its time is up.
 */
final class TwoJvm {
    /** Seconds a pair may take before both processes are killed. */
    static final int LIMIT_SECONDS = 90;

    private TwoJvm() {
    }

    /** Output of one finished process; exit -1 when it was killed. */
    record Run(int exit, List<String> out, String err) {
        String text() {
            return String.join("\n", out) + "\n-- stderr:\n" + err;
        }

        boolean has(String line) {
            return out.contains(line);
        }

        /** The first line matching {@code p}, or a failure showing the output. */
        String row(Pattern p) {
            for (String l : out) {
                if (p.matcher(l).matches()) {
                    return l;
                }
            }
            fail("no line matching " + p + " in\n" + text());
            return null;
        }
    }

    /** A started process whose stdout is collected line by line. */
    static final class Proc {
        final Process process;
        final List<String> lines = new ArrayList<>();
        final Thread reader;
        final Thread errReader;
        private volatile byte[] err = new byte[0];

        Proc(List<String> cmd, String devices) throws IOException {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.PIPE);
            pb.environment().put("JRDMA_STATS_DIR", "off"); // no files in the user's stats directory
            pb.environment().put("JRDMA_DEVICES", devices);
            process = pb.start();
            reader = Thread.ofVirtual().start(() -> {
                try (BufferedReader r = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String l;
                    while ((l = r.readLine()) != null) {
                        synchronized (lines) {
                            lines.add(l);
                        }
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            });
            errReader = Thread.ofVirtual().start(() -> {
                try {
                    err = process.getErrorStream().readAllBytes();
                } catch (IOException ignored) {
                    // the process ended
                }
            });
        }

        /** The lines printed so far. */
        List<String> lines() {
            synchronized (lines) {
                return List.copyOf(lines);
            }
        }

        Run finish(long deadlineNanos) throws Exception {
            long left = deadlineNanos - System.nanoTime();
            if (!process.waitFor(Math.max(left, 0), TimeUnit.NANOSECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
            reader.join(5000);
            errReader.join(5000);
            synchronized (lines) {
                return new Run(process.isAlive() ? -1 : process.exitValue(), List.copyOf(lines),
                        new String(err, StandardCharsets.UTF_8));
            }
        }
    }

    /** A random loopback /24 whose .1 and .2 have UDP 4791 free: {"127.X.Y.1", "127.X.Y.2"}. */
    static String[] addresses() {
        for (int attempt = 0; attempt < 50; attempt++) {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            String net = "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + ".";
            if (free(net + "1") && free(net + "2")) {
                return new String[] {net + "1", net + "2"};
            }
        }
        throw new AssertionError("no free loopback address pair for UDP 4791");
    }

    static boolean free(String ip) {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(ip, 4791))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** True when some socket listens on TCP port {@code port} (from /proc/net/tcp and tcp6). */
    static boolean listening(int port) {
        String hex = String.format(Locale.ROOT, ":%04X", port);
        for (String f : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            try {
                for (String l : Files.readAllLines(Path.of(f))) {
                    String[] c = l.trim().split("\\s+");
                    if (c.length > 3 && c[1].endsWith(hex) && c[3].equals("0A")) {
                        return true;
                    }
                }
            } catch (IOException ignored) {
                // no IPv6
            }
        }
        return false;
    }

    static List<String> java(String mainClass, List<String> args) {
        return java(List.of(), mainClass, args);
    }

    static List<String> java(List<String> jvmOptions, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /**
     * Runs {@code jrdma TOOL ARGS -p PORT} as server on jrxe0 and {@code ... -p PORT 127.X.Y.1} as
     * client on jrxe1; returns {server, client}. {@code clientExtra} goes only to the client.
     */
    static Run[] pair(String tool, List<String> args, List<String> serverExtra, List<String> clientExtra)
            throws Exception {
        return pair(tool, args, serverExtra, clientExtra, List.of());
    }

    /** As {@link #pair(String, List, List, List)}, with JVM options for the client (e.g. -Djrdma.faults=...). */
    static Run[] pair(String tool, List<String> args, List<String> serverExtra, List<String> clientExtra,
                      List<String> clientJvm) throws Exception {
        String[] ip = addresses();
        String devices = "jrxe0=" + ip[0] + ",jrxe1=" + ip[1];
        int port = freeTcpPort();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        List<String> common = new ArrayList<>();
        common.add(tool);
        common.addAll(args);
        common.addAll(List.of("-p", Integer.toString(port)));
        List<String> sArgs = new ArrayList<>(common);
        sArgs.addAll(List.of("-d", "jrxe0"));
        sArgs.addAll(serverExtra);
        Proc server = new Proc(java("org.jrdma.perftest.Jrdma", sArgs), devices);
        Proc client = null;
        try {
            long listenDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!listening(port)) {
                if (!server.process.isAlive() || System.nanoTime() - listenDeadline > 0) {
                    Run s = server.finish(System.nanoTime());
                    fail("the server did not listen on TCP port " + port + ":\n" + s.text());
                }
                Thread.sleep(50);
            }
            List<String> cArgs = new ArrayList<>(common);
            cArgs.addAll(List.of("-d", "jrxe1"));
            cArgs.addAll(clientExtra);
            cArgs.add(ip[0]);
            client = new Proc(java(clientJvm, "org.jrdma.perftest.Jrdma", cArgs), devices);
            Run c = client.finish(deadline);
            Run s = server.finish(c.exit() == 0 ? deadline : Math.min(deadline, System.nanoTime()
                    + TimeUnit.SECONDS.toNanos(10)));
            return new Run[] {s, c};
        } finally {
            server.process.destroyForcibly();
            if (client != null) {
                client.process.destroyForcibly();
            }
        }
    }

    static Run[] pair(String tool, String... args) throws Exception {
        return pair(tool, List.of(args), List.of(), List.of());
    }
}
