package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Server and client of ib_write_bw and ib_write_lat as two JVMs (the same java and class path as
 * this test) over the software RoCE v2 devices on 127.0.0.1 and 127.0.0.2, with few iterations.
 * Neither names a device: the server takes the first, the client finds it bound and takes the
 * second. Each process is killed after 60 s.
 */
class EndToEndTest {
    private static final Pattern BW_ROW = Pattern.compile(" 8192 {7}5 {16}\\d+\\.\\d\\d +\\d+\\.\\d\\d *\t\t {3}\\d+\\.\\d{6}");
    private static final Pattern LAT_ROW = Pattern.compile(" 64 {6}100 {10}\\d+\\.\\d\\d +\\d+\\.\\d\\d +\\d+\\.\\d\\d .*");

    /** Output of one finished process. */
    record Run(int exit, List<String> out, String err) {
    }

    /** A started tool whose stdout is collected line by line. */
    static final class Proc {
        final Process process;
        final List<String> lines = new ArrayList<>();
        final CountDownLatch waiting = new CountDownLatch(1);
        final Thread reader;

        Proc(List<String> cmd) throws IOException {
            process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.PIPE).start();
            reader = Thread.ofVirtual().start(() -> {
                try (BufferedReader r = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String l;
                    while ((l = r.readLine()) != null) {
                        synchronized (lines) {
                            lines.add(l);
                        }
                        if (l.contains("Waiting for client to connect")) {
                            waiting.countDown();
                        }
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            });
        }

        Run finish(long deadlineNanos) throws Exception {
            long left = deadlineNanos - System.nanoTime();
            if (!process.waitFor(Math.max(left, 0), TimeUnit.NANOSECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
            reader.join(5000);
            String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            synchronized (lines) {
                return new Run(process.isAlive() ? -1 : process.exitValue(), List.copyOf(lines), err);
            }
        }
    }

    /** 127.0.0.1/127.0.0.2 when their UDP 4791 is free, else a private pair (another test may hold them). */
    static String devices() {
        if (free("127.0.0.1") && free("127.0.0.2")) {
            return "jrxe0=127.0.0.1,jrxe1=127.0.0.2";
        }
        int r = ThreadLocalRandom.current().nextInt(1, 250);
        return "jrxe0=127.77." + r + ".1,jrxe1=127.77." + r + ".2";
    }

    static boolean free(String ip) {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(ip, 4791))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static List<String> java(String devices, String mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Djrdma.devices=" + devices);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        return cmd;
    }

    static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Runs server and client; returns {server, client}. */
    static Run[] pair(String mainClass, String... args) throws Exception {
        String devices = devices();
        String port = Integer.toString(freeTcpPort());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> serverArgs = new ArrayList<>(List.of(args));
        serverArgs.addAll(List.of("-p", port));
        Proc server = new Proc(java(devices, mainClass, serverArgs.toArray(String[]::new)));
        Proc client = null;
        try {
            if (!server.waiting.await(30, TimeUnit.SECONDS)) {
                Run s = server.finish(System.nanoTime());
                fail("the server did not start listening: " + s.out() + " " + s.err());
            }
            List<String> clientArgs = new ArrayList<>(serverArgs);
            clientArgs.add("127.0.0.1");
            client = new Proc(java(devices, mainClass, clientArgs.toArray(String[]::new)));
            Run c = client.finish(deadline);
            Run s = server.finish(deadline);
            return new Run[] {s, c};
        } finally {
            server.process.destroyForcibly();
            if (client != null) {
                client.process.destroyForcibly();
            }
        }
    }

    static String row(Run r, Pattern p) {
        for (String l : r.out()) {
            if (p.matcher(l).matches()) {
                return l;
            }
        }
        fail("no result row in\n" + String.join("\n", r.out()) + "\nstderr: " + r.err());
        return null;
    }

    @Test
    void writeBw() throws Exception {
        Run[] sc = pair("org.jrdma.perftest.IbWriteBw", "-n", "5", "-s", "8192", "-F");
        Run s = sc[0];
        Run c = sc[1];
        assertEquals(0, c.exit(), c.err());
        assertEquals(0, s.exit(), s.err());
        // the server prints the client's report, received through xchg_bw_reports
        assertEquals(row(c, BW_ROW), row(s, BW_ROW));
        assertTrue(s.out().contains("* Waiting for client to connect... *"), String.join("\n", s.out()));
        assertTrue(c.out().stream().anyMatch(l -> l.contains("Device         : jrxe1")), String.join("\n", c.out()));
        assertTrue(s.out().stream().anyMatch(l -> l.contains("Device         : jrxe0")), String.join("\n", s.out()));
    }

    @Test
    void writeLat() throws Exception {
        Run[] sc = pair("org.jrdma.perftest.IbWriteLat", "-n", "100", "-s", "64", "-F");
        Run s = sc[0];
        Run c = sc[1];
        assertEquals(0, c.exit(), c.err());
        assertEquals(0, s.exit(), s.err());
        row(s, LAT_ROW);
        row(c, LAT_ROW);
    }
}
