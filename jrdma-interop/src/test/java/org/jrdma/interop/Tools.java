package org.jrdma.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The two kinds of sides: Linux perftest on rxe0 in a guest, and jrdma's tool on the host. */
final class Tools {
    /** Lab guest side: rxe0. */
    static final String RXE_DEVICE = "rxe0";
    /** jrdma on the host: one device on the lab bridge's address of the family. */
    static final String JRDMA_DEVICE = "jrxe0";
    /** jrdma's GID index of that address (override: JRDMA_INTEROP_GID_INDEX). */
    static final String JRDMA_GID_INDEX = env("JRDMA_INTEROP_GID_INDEX", "0");
    /** Time limits: a guest process, a host process. */
    static final Duration GUEST_LIMIT = Duration.ofSeconds(60);
    static final Duration HOST_LIMIT = Duration.ofSeconds(60);

    /**
     * The IP family of the RoCE v2 packets. perftest's TCP exchange always runs over IPv4
     * (10.77.0.x); the GID index picks the family of the RDMA traffic. rxe0's GID table in the
     * guests: 0 = fe80::..., 1 = ::ffff:10.77.0.1N, 2 = fd77::1N (lab README, "Addresses").
     */
    enum Family {
        /**
         * RoCE v2 over IPv4: rxe GID index 1; jrdma binds 10.77.0.1 with its raw IPv4 port (own IP
         * header, so the ICRC covers the real Identification), forced with {@code JRDMA_IPV4=raw} so
         * that a missing privilege fails the run instead of falling back to a UDP socket rxe rejects.
         */
        IPV4("IPv4", "1", "10.77.0.1", Map.of("JRDMA_IPV4", "raw")),
        /** RoCE v2 over IPv6: rxe GID index 2; jrdma binds fd77::1 with a UDP socket (UDP_NO_CHECK6_RX). */
        IPV6("IPv6", "2", "fd77::1", Map.of());

        final String label;
        final String rxeGidIndex;
        final String hostAddress;
        final Map<String, String> jrdmaEnv;

        Family(String label, String rxeGidIndex, String hostAddress, Map<String, String> jrdmaEnv) {
            this.label = label;
            this.rxeGidIndex = rxeGidIndex;
            this.hostAddress = hostAddress;
            this.jrdmaEnv = jrdmaEnv;
        }

        /** {@code JRDMA_DEVICES} for the host side, e.g. {@code jrxe0=10.77.0.1}. */
        String jrdmaDevices() {
            return JRDMA_DEVICE + "=" + hostAddress;
        }

        /** The environment of a jrdma process of this family. */
        Map<String, String> env() {
            Map<String, String> e = new HashMap<>(jrdmaEnv);
            e.put("JRDMA_DEVICES", jrdmaDevices());
            e.put("JRDMA_BUILD", "never");
            // retry_cnt 7 is 7 retries (IBTA) by default, 8 x 67 ms at perftest's settings; the lab's
            // emulated guests (TCG) sometimes ACK after up to a second, so against them jrdma retries as
            // rdma_rxe does, without limit (the error-path tests set retry_cnt below 7 and are unaffected)
            e.put("JRDMA_RETRY_CNT7", "unlimited");
            return Map.copyOf(e);
        }

        @Override
        public String toString() {
            return label;
        }
    }

    private Tools() {
    }

    static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }

    /** The project root (has bin/jrdma): system property jrdma.root, else the parent of this module. */
    static Path root() {
        String r = System.getProperty("jrdma.root");
        Path p = r != null ? Path.of(r) : Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
        if (!Files.isExecutable(p.resolve("bin/jrdma"))) {
            throw new IllegalStateException("no bin/jrdma under " + p + " (jrdma.root)");
        }
        return p;
    }

    static PerftestPair.Where guest(Lab lab, String g) {
        return new PerftestPair.Where() {
            @Override
            public String name() {
                return g;
            }

            @Override
            public boolean listening(int port) throws IOException, InterruptedException {
                return lab.guestListening(g, port);
            }
        };
    }

    static PerftestPair.Where host(Lab lab) {
        return new PerftestPair.Where() {
            @Override
            public String name() {
                return "host";
            }

            @Override
            public boolean listening(int port) throws IOException, InterruptedException {
                return lab.hostListening(port);
            }
        };
    }

    /** Linux perftest on rxe0 in guest {@code g}: {@code TOOL -d rxe0 -x IDX ARGS [SERVER]} under lab exec -t. */
    static PerftestPair.Side linux(Lab lab, String g, Family family, String tool, List<String> args,
            String serverAddress) {
        List<String> cmd = new ArrayList<>(List.of(tool, "-d", RXE_DEVICE, "-x", family.rxeGidIndex));
        cmd.addAll(args);
        if (serverAddress != null) {
            cmd.add(serverAddress);
        }
        return new PerftestPair.Side(guest(lab, g),
                lab.exec((int) GUEST_LIMIT.toSeconds(), g, String.join(" ", cmd)), Map.of(),
                GUEST_LIMIT.plusSeconds(15));
    }

    /**
     * jrdma's tool on the host in the lab namespace, through bin/jrdma (same JDK and module path as
     * the launchers; no build: bin/test built it): {@code TOOL -d jrxe0 -x IDX ARGS [SERVER]}.
     */
    static PerftestPair.Side jrdma(Lab lab, Family family, String tool, List<String> args, String serverAddress) {
        // timeout(1) bounds the JVM even if this test JVM is killed before it can stop it
        // a short JIT warm-up: the lab's timings mean nothing, but the warm-up's looped-back QP is
        // exercised in the lab's set-up (raw IPv4, IPv6 in the namespace) against Linux peers
        List<String> cmd = new ArrayList<>(Arrays.asList("timeout", "-k", "5",
                Long.toString(HOST_LIMIT.toSeconds() + 5), root().resolve("bin/jrdma").toString(), tool,
                "-d", JRDMA_DEVICE, "-x", JRDMA_GID_INDEX, "--jit_warm_up", "300"));
        cmd.addAll(args);
        if (serverAddress != null) {
            cmd.add(serverAddress);
        }
        return new PerftestPair.Side(host(lab), lab.inNamespace(cmd), family.env(), HOST_LIMIT);
    }

    /** A perftest run between jrdma on the host and Linux rxe on g1: its two sides, and its roles for the run's name. */
    record RxePair(PerftestPair.Side server, PerftestPair.Side client, String roles) {
    }

    /** jrdma as the client of rxe's perftest server on g1 ({@code jrdmaClient}), or as the server of its client. */
    static RxePair withRxeOnG1(Lab lab, Family family, String tool, List<String> args, boolean jrdmaClient) {
        if (jrdmaClient) {
            return new RxePair(linux(lab, "g1", family, tool, args, null),
                    jrdma(lab, family, tool, args, lab.get("LAB_G1_ROCE")), "rxe-g1-server.jrdma-client");
        }
        return new RxePair(jrdma(lab, family, tool, args, null),
                linux(lab, "g1", family, tool, args, lab.get("LAB_HOST_ROCE")), "jrdma-server.rxe-g1-client");
    }

    /** perftest arguments shared by both sides: {@code -F -m 1024 -s SIZE -n ITERS -p PORT}. */
    static List<String> args(int size, int iterations, int port) {
        return List.of("-F", "-m", "1024", "-s", Integer.toString(size), "-n", Integer.toString(iterations),
                "-p", Integer.toString(port));
    }

    /**
     * The java command the launchers run (bin/lib/common.sh's {@code jrdma_command}: the JDK they find
     * and {@code --enable-native-access=org.jrdma.rocev2 -p JAR:LIB}), without the {@code -m MODULE/CLASS}
     * at its end, so that callers can name another main class on the same JDK and module path.
     */
    static synchronized List<String> javaCommand() throws IOException, InterruptedException {
        if (javaCommand == null) {
            Path out = Files.createTempFile("jrdma-cmd", ".txt");
            try {
                int rc = Bounded.run(List.of("bash", "-c", "source \"$1/bin/lib/common.sh\" && jrdma_find_jdk"
                        + " && jrdma_command && printf '%s\\n' \"${JRDMA_CMD[@]}\"", "jrdma-cmd", root().toString()),
                        Map.of("JRDMA_JAVA_OPTS", ""), out, Duration.ofSeconds(30));
                List<String> lines = Files.readAllLines(out);
                int m = lines.lastIndexOf("-m");
                if (rc != 0 || m < 0) {
                    throw new IllegalStateException("bin/lib/common.sh jrdma_command failed (rc " + rc + "): " + lines);
                }
                javaCommand = List.copyOf(lines.subList(0, m));
            } finally {
                Files.deleteIfExists(out);
            }
        }
        return javaCommand;
    }

    private static java.util.Set<String> jrdmaCommands;

    /**
     * The subcommands {@code bin/jrdma --help} lists under "Commands:" (ib_write_bw, devinfo, ...;
     * rc_pingpong and pcap-check once they are in the command).
     */
    static synchronized java.util.Set<String> jrdmaCommands() throws IOException, InterruptedException {
        if (jrdmaCommands == null) {
            Path out = Files.createTempFile("jrdma-help", ".txt");
            try {
                int rc = Bounded.run(List.of(root().resolve("bin/jrdma").toString(), "--help"),
                        Map.of("JRDMA_BUILD", "never"), out, Duration.ofSeconds(60));
                List<String> lines = Files.readAllLines(out);
                int from = lines.indexOf("Commands:");
                if (rc != 0 || from < 0) {
                    throw new IllegalStateException("bin/jrdma --help (rc " + rc + ") lists no commands: " + lines);
                }
                java.util.Set<String> names = new java.util.TreeSet<>();
                for (String l : lines.subList(from + 1, lines.size())) {
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^ {2}([A-Za-z0-9_-]+)(\\s.*)?$").matcher(l);
                    if (m.matches()) {
                        names.add(m.group(1));
                    }
                }
                jrdmaCommands = java.util.Set.copyOf(names);
            } finally {
                Files.deleteIfExists(out);
            }
        }
        return jrdmaCommands;
    }

    private static List<String> javaCommand;

    /** The value of {@code -p} in {@link #javaCommand()}: the tool jar and its runtime dependencies. */
    static String modulePath() throws IOException, InterruptedException {
        List<String> c = javaCommand();
        int p = c.indexOf("-p");
        if (p < 0 || p + 1 >= c.size()) {
            throw new IllegalStateException("no -p in the launchers' java command " + c);
        }
        return c.get(p + 1);
    }

    // ---------------------------------------------------------------- iWARP (issue 12)

    /** Lab guest side of iWARP: siw0 on the guests' eth1 (10.77.1.1N, fd77:1::1N). */
    static final String SIW_DEVICE = "siw0";
    /** jrdma on the host: the iWARP device on the lab bridge's siw-side address. */
    static final String JSIW_DEVICE = "jsiw0";

    /**
     * The environment of a jrdma process on the host's iWARP address {@code hostAddress}
     * ({@code JRDMA_DEVICES=jsiw0=ADDR}, no build); {@code mpaCrc} adds
     * {@code -Djrdma.iwarp.mpaCrcRequired=true} (jrdma asks for MPA CRC32c in its request and reply,
     * as siw built with {@code mpa_crc_required}).
     */
    static Map<String, String> siwEnv(String hostAddress, boolean mpaCrc) {
        Map<String, String> e = new HashMap<>();
        e.put("JRDMA_DEVICES", JSIW_DEVICE + "=" + hostAddress);
        e.put("JRDMA_BUILD", "never");
        if (mpaCrc) {
            e.put("JRDMA_JAVA_OPTS", "-Djrdma.iwarp.mpaCrcRequired=true");
        }
        return Map.copyOf(e);
    }

    /** A perftest run between jrdma's jsiw0 on the host and Linux siw0 on g1: its two sides and its roles. */
    record SiwPair(PerftestPair.Side server, PerftestPair.Side client, String roles) {
    }

    /**
     * perftest {@code TOOL ARGS} over iWARP between Linux siw0 on g1 and {@code jrdma TOOL -d jsiw0}
     * on the host ({@code jrdmaClient}: jrdma connects to g1's {@code LAB_G1_IW}; else g1 connects to
     * {@code LAB_HOST_IW}). Linux: {@code TOOL -d siw0 ARGS [SERVER]} under {@code lab exec -t};
     * jrdma: {@code timeout -k 5 LIMIT bin/jrdma TOOL -d jsiw0 ARGS [SERVER]} in the namespace with
     * {@code env} ({@link #siwEnv}). Each side's process limit is {@code limit}.
     */
    static SiwPair withSiwOnG1(Lab lab, String tool, List<String> args, boolean jrdmaClient, Map<String, String> env,
            Duration limit) {
        List<String> linux = new ArrayList<>(List.of(tool, "-d", SIW_DEVICE));
        linux.addAll(args);
        List<String> jrdma = new ArrayList<>(List.of("timeout", "-k", "5", Long.toString(limit.toSeconds()),
                root().resolve("bin/jrdma").toString(), tool, "-d", JSIW_DEVICE));
        jrdma.addAll(args);
        if (jrdmaClient) {
            jrdma.add(lab.get("LAB_G1_IW"));
        } else {
            linux.add(lab.get("LAB_HOST_IW"));
        }
        PerftestPair.Side g1 = new PerftestPair.Side(guest(lab, "g1"),
                lab.exec((int) limit.toSeconds(), "g1", String.join(" ", linux)), Map.of(), limit.plusSeconds(15));
        PerftestPair.Side host = new PerftestPair.Side(host(lab), lab.inNamespace(jrdma), env, limit.plusSeconds(10));
        return jrdmaClient ? new SiwPair(g1, host, "siw-g1-server.jrdma-jsiw0-client")
                : new SiwPair(host, g1, "jrdma-jsiw0-server.siw-g1-client");
    }
}
