package org.jrdma.interop;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The interop lab as the tests use it: the {@code lab} script named by the environment variable
 * {@value #ENV} (set by {@code bin/test} after {@code lab up 2}), its addresses ({@code lab env}),
 * guest commands ({@code lab exec -t SECS GUEST CMD}) and host commands inside its network
 * namespace ({@code ip netns exec rdmalab CMD}). See {@code shared/interop/README.md}.
 */
final class Lab {
    /** Environment variable holding the path of the lab script; unset = the lab is not up. */
    static final String ENV = "JRDMA_LAB";

    /** Why every interop test is skipped when {@value #ENV} is unset. */
    static final String SKIPPED = ENV + " is not set: the interop lab is not up, so every interop test is skipped"
            + " (they need Linux rdma_rxe in the QEMU lab, shared/interop/lab; bin/test starts it when it can"
            + " and says why when it cannot)";

    private static boolean noted;

    /** The lab script. */
    final Path script;
    /** {@code lab env}: LAB_NS, LAB_HOST_ROCE, LAB_G1_ROCE6, ... */
    final Map<String, String> env;

    private Lab(Path script, Map<String, String> env) {
        this.script = script;
        this.env = env;
    }

    /**
     * The lab named by {@value #ENV}; aborts the calling test (JUnit assumption, reported as
     * skipped) when the variable is unset, and fails when it names something that is not a lab.
     */
    static Lab fromEnvironment() throws IOException, InterruptedException {
        String path = System.getenv(ENV);
        if (path == null || path.isBlank()) {
            noteSkipped();
        }
        assumeTrue(path != null && !path.isBlank(), SKIPPED);
        Path script = Path.of(path);
        if (!Files.isExecutable(script)) {
            throw new IllegalStateException(ENV + "=" + path + " is not an executable lab script");
        }
        Path out = Files.createTempFile("lab-env", ".txt");
        try {
            int rc = Bounded.run(List.of(script.toString(), "env"), Map.of(), out, Duration.ofSeconds(20));
            if (rc != 0) {
                throw new IllegalStateException("lab env failed (rc " + rc + "): " + Files.readString(out));
            }
            Map<String, String> env = new LinkedHashMap<>();
            for (String line : Files.readAllLines(out)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    env.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            return new Lab(script, env);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** Prints {@link #SKIPPED} once per test JVM, as an {@code interop:} line (bin/test shows those lines). */
    private static synchronized void noteSkipped() {
        if (!noted) {
            noted = true;
            System.out.println("interop: " + SKIPPED);
        }
    }

    /** A value of {@code lab env}, e.g. {@code get("LAB_G1_ROCE")} = 10.77.0.11. */
    String get(String key) {
        String v = env.get(key);
        if (v == null) {
            throw new IllegalStateException("lab env has no " + key + ": " + env);
        }
        return v;
    }

    /** {@code lab exec -t SECS GUEST SHELL-COMMAND}: the guest kills the job after SECS (+5) too. */
    List<String> exec(int timeoutSeconds, String guest, String shellCommand) {
        return List.of(script.toString(), "exec", "-t", Integer.toString(timeoutSeconds), guest, shellCommand);
    }

    /** {@code ip netns exec NS COMMAND...}: a host command on the lab's bridge. */
    List<String> inNamespace(List<String> command) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", get("LAB_NS")));
        c.addAll(command);
        return c;
    }

    /** Whether a TCP socket listens on {@code port} in the guest (busybox netstat). */
    boolean guestListening(String guest, int port) throws IOException, InterruptedException {
        return quiet(exec(10, guest, "netstat -ltn | grep -q ':" + port + " '")) == 0;
    }

    /** Runs a shell command in the guest to its end; fails with its output unless it exits 0. */
    void run(int timeoutSeconds, String guest, String shellCommand) throws IOException, InterruptedException {
        Path out = Files.createTempFile("lab-run", ".txt");
        try {
            int rc = Bounded.run(exec(timeoutSeconds, guest, shellCommand), Map.of(), out,
                    Duration.ofSeconds(timeoutSeconds + 15));
            if (rc != 0) {
                throw new IllegalStateException("lab exec " + guest + " '" + shellCommand + "' failed (rc " + rc + "): "
                        + Files.readString(out));
            }
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** True when both guests run a trivial job within 20 s (their job agents answer). */
    boolean guestsAlive() throws IOException, InterruptedException {
        return quiet(exec(20, "g1", "true")) == 0 && quiet(exec(20, "g2", "true")) == 0;
    }

    /** Restarts the lab ({@code lab down}, {@code lab up 2}) when a guest does not answer. */
    void ensureGuestsAlive() throws IOException, InterruptedException {
        if (!guestsAlive()) {
            System.out.println("interop: a lab guest does not answer; restarting the lab");
            restart();
        }
    }

    /** {@code lab down} then {@code lab up 2}, bounded; fails when the guests still do not answer. */
    void restart() throws IOException, InterruptedException {
        quiet(List.of(script.toString(), "down"));
        Path out = Files.createTempFile("lab-up", ".txt");
        try {
            int rc = Bounded.run(List.of(script.toString(), "up", "2"), Map.of(), out, Duration.ofSeconds(180));
            if (rc != 0 || !guestsAlive()) {
                throw new IllegalStateException("lab restart failed (rc " + rc + "): " + Files.readString(out));
            }
        } finally {
            Files.deleteIfExists(out);
        }
    }

    boolean guestHas(String guest, String name) throws IOException, InterruptedException {
        return quiet(exec(10, guest, "pidof " + name + " >/dev/null")) == 0;
    }

    /** Whether a TCP socket listens on {@code port} on the host inside the lab namespace. */
    boolean hostListening(int port) throws IOException, InterruptedException {
        Path out = Files.createTempFile("lab-ss", ".txt");
        try {
            int rc = Bounded.run(inNamespace(List.of("ss", "-Hltn", "sport = :" + port)), Map.of(), out,
                    Duration.ofSeconds(10));
            return rc == 0 && !Files.readString(out).isBlank();
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /**
     * rxe0's port counters in the guest ({@code /sys/class/infiniband/rxe0/ports/1/hw_counters}:
     * rcvd_pkts, sent_pkts, duplicate_request, rcvd_seq_err, ...). Note that rxe 6.1 drops a
     * packet with a bad ICRC without counting it anywhere: then rcvd_pkts does not move.
     */
    Map<String, Long> rxeCounters(String guest) throws IOException, InterruptedException {
        Path out = Files.createTempFile("lab-counters", ".txt");
        try {
            int rc = Bounded.run(exec(10, guest, "cd /sys/class/infiniband/rxe0/ports/1/hw_counters"
                    + " && for f in *; do echo \"$f $(cat $f)\"; done"), Map.of(), out, Duration.ofSeconds(20));
            Map<String, Long> m = new java.util.TreeMap<>();
            if (rc == 0) {
                for (String line : Files.readAllLines(out)) {
                    String[] kv = line.trim().split(" ");
                    if (kv.length == 2 && kv[1].matches("\\d+")) {
                        m.put(kv[0], Long.parseLong(kv[1]));
                    }
                }
            }
            return m;
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /**
     * Starts {@code dumpcap} on the lab bridge (inside the namespace), RoCE v2 only (UDP 4791),
     * writing classic pcap to {@code file}; returns once the capture runs. Close the returned
     * process to stop it (SIGTERM: dumpcap finishes the file).
     */
    Bounded startCapture(Path file, Path log) throws IOException, InterruptedException {
        return startCapture(file, log, "udp port 4791");
    }

    /**
     * As {@link #startCapture(Path, Path)}, with the capture filter {@code bpf} (e.g. {@code tcp} for
     * iWARP's TCP streams).
     */
    Bounded startCapture(Path file, Path log, String bpf) throws IOException, InterruptedException {
        Files.deleteIfExists(file);
        Bounded cap = Bounded.start(inNamespace(List.of("dumpcap", "-q", "-i", "br0", "-P", "-f", bpf,
                "-w", file.toAbsolutePath().toString())), Map.of(), log);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cap.alive() && System.nanoTime() < deadline && (!Files.exists(file) || Files.size(file) < 24)) {
            Thread.sleep(50);
        }
        if (!cap.alive() || !Files.exists(file) || Files.size(file) < 24) {
            cap.close();
            throw new IllegalStateException("dumpcap did not start: " + Files.readString(log));
        }
        Thread.sleep(300);
        return cap;
    }

    /**
     * The lab's own ICRC checker ({@code tools/roce.py icrc}, independent of jrdma) on a pcap:
     * its exit code (0 = every RoCE v2 packet has a valid ICRC) and output; null if Python 3 is
     * missing.
     */
    Checked checkIcrc(Path pcap) throws IOException, InterruptedException {
        Path tool = script.toAbsolutePath().getParent().resolve("tools/roce.py");
        Path out = Files.createTempFile("lab-icrc", ".txt");
        try {
            int rc = Bounded.run(List.of("python3", tool.toString(), "icrc", pcap.toAbsolutePath().toString()),
                    Map.of(), out, Duration.ofSeconds(60));
            return new Checked(rc, Files.readAllLines(out));
        } catch (IOException e) {   // no python3
            return null;
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** Exit code and output lines of a check. */
    record Checked(int rc, List<String> lines) {
    }

    private static int quiet(List<String> command) throws IOException, InterruptedException {
        Path out = Files.createTempFile("lab-q", ".txt");
        try {
            return Bounded.run(command, Map.of(), out, Duration.ofSeconds(20));
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
