package org.jrdma.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** The two kinds of sides: Linux perftest on rxe0 in a guest, and jrdma's tool on the host. */
final class Tools {
    /** Lab guest side: rxe0, GID index 2 = fd77::1N (RoCE v2 over IPv6; see the lab README). */
    static final String RXE_DEVICE = "rxe0";
    static final String RXE_GID_INDEX = "2";
    /** jrdma on the host: one device on the lab bridge's IPv6 address (IPv4 needs raw sockets). */
    static final String JRDMA_DEVICE = "jrxe0";
    static final String JRDMA_DEVICES = JRDMA_DEVICE + "=fd77::1";
    /** jrdma's GID index of that address (override: JRDMA_INTEROP_GID_INDEX). */
    static final String JRDMA_GID_INDEX = env("JRDMA_INTEROP_GID_INDEX", "0");
    /** Time limits: a guest process, a host process. */
    static final Duration GUEST_LIMIT = Duration.ofSeconds(60);
    static final Duration HOST_LIMIT = Duration.ofSeconds(60);

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

    /** Linux perftest on rxe0 in guest {@code g}: {@code TOOL -d rxe0 -x 2 ARGS [SERVER]} under lab exec -t. */
    static PerftestPair.Side linux(Lab lab, String g, String tool, List<String> args, String serverAddress) {
        List<String> cmd = new ArrayList<>(List.of(tool, "-d", RXE_DEVICE, "-x", RXE_GID_INDEX));
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
    static PerftestPair.Side jrdma(Lab lab, String tool, List<String> args, String serverAddress) {
        // timeout(1) bounds the JVM even if this test JVM is killed before it can stop it
        List<String> cmd = new ArrayList<>(Arrays.asList("timeout", "-k", "5",
                Long.toString(HOST_LIMIT.toSeconds() + 5), root().resolve("bin/jrdma").toString(), tool,
                "-d", JRDMA_DEVICE, "-x", JRDMA_GID_INDEX));
        cmd.addAll(args);
        if (serverAddress != null) {
            cmd.add(serverAddress);
        }
        return new PerftestPair.Side(host(lab), lab.inNamespace(cmd),
                Map.of("JRDMA_DEVICES", JRDMA_DEVICES, "JRDMA_BUILD", "never"), HOST_LIMIT);
    }

    /** perftest arguments shared by both sides: {@code -F -m 1024 -s SIZE -n ITERS -p PORT}. */
    static List<String> args(int size, int iterations, int port) {
        return List.of("-F", "-m", "1024", "-s", Integer.toString(size), "-n", Integer.toString(iterations),
                "-p", Integer.toString(port));
    }
}
