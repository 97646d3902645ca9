package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The connection manager's failure paths against Linux's kernel CM on rxe in g1 (issue 11, "Proof
 * in the lab"), IPv4, one run per proof: a REQ to a port nobody listens on is REJECTED 8 (invalid
 * service ID) both ways; a Linux server that rejects with private data gives jrdma REJECTED 28 with
 * that data; killing either side while connected gives the other DISCONNECTED, then TIMEWAIT_EXIT.
 * jrdma's own capture of each run ({@code -Djrdma.pcap}) holds the CM messages the proof is about
 * (read by tshark's InfiniBand CM dissector) and passes the lab's {@code roce.py icrc} and tshark
 * without malformed packets; one capture of the bridge for the whole class passes every check of
 * {@link Captures} (roce.py, jrdma's pcap-check, tshark).
 *
 * <p>The jrdma side is {@code peer/CmPeer}; the Linux side rdmacm-utils' {@code rping} and
 * {@code src/test/c/cm-probe.c} (an rdma_cm listener that rejects with private data or reports
 * TIMEWAIT_EXIT, which no packaged tool does), built here with the host's gcc (the guests have none)
 * into the lab's shared directory and run in g1 as {@code /shared/cm-probe}.
 */
@Order(6)
class RxeCmRobustInteropTest {
    private static final String HOST = Tools.Family.IPV4.hostAddress;
    private static final int REJ = 0x0012;
    private static final int DREQ = 0x0015;
    private static final int DREP = 0x0016;
    private static Lab lab;
    private static Path classes;
    private static Path dir;
    private static String g1;

    @BeforeAll
    static void labPeerAndProbe() throws Exception {
        lab = Lab.fromEnvironment();
        g1 = lab.get("LAB_G1_ROCE");
        Path module = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
        dir = module.resolve("target/interop-cm-robust");
        Files.createDirectories(dir);
        classes = module.resolve("target/cm-peer-classes");
        Files.createDirectories(classes);
        Path javac = Path.of(Tools.javaCommand().getFirst()).resolveSibling("javac");
        Path log = dir.resolve("javac.txt");
        int rc = Bounded.run(List.of(javac.toString(), "-proc:none", "--module-path", Tools.modulePath(),
                "--add-modules", "org.jrdma.perftest", "-d", classes.toString(),
                module.resolve("src/test/java/org/jrdma/interop/peer/CmPeer.java").toString()), Map.of(), log,
                Duration.ofSeconds(120));
        assertEquals(0, rc, "javac CmPeer: " + Files.readString(log));
        Path shared = Path.of(lab.get("LAB_SHARED"));
        Path gcc = dir.resolve("gcc.txt");
        rc = Bounded.run(List.of("gcc", "-O2", "-Wall", "-o", shared.resolve("cm-probe").toString(),
                module.resolve("src/test/c/cm-probe.c").toString(), "-lrdmacm", "-libverbs"), Map.of(), gcc,
                Duration.ofSeconds(60));
        assertEquals(0, rc, "gcc cm-probe.c: " + Files.readString(gcc));
        // one capture of the lab bridge for the whole class (its checks once, at the end)
        bridgePcap = dir.resolve("cm-robust.bridge.pcap");
        bridge = lab.startCapture(bridgePcap, dir.resolve("cm-robust.bridge.dumpcap.txt"));
    }

    /** {@code ip netns exec ... java -Djrdma.pcap=OWN ... CmPeer ARGS}, bounded by {@code timeout}. */
    private static List<String> peer(String name, int limitSeconds, String... args) throws Exception {
        List<String> c = new ArrayList<>(List.of("timeout", "-k", "5", Integer.toString(limitSeconds)));
        List<String> java = Tools.javaCommand();
        c.add(java.getFirst());
        c.add("-Djrdma.pcap=" + dir.resolve(name + ".jrdma-own.pcap"));
        c.addAll(java.subList(1, java.size()));
        c.addAll(List.of("--add-modules", "org.jrdma.perftest", "-cp", classes.toString(), "org.jrdma.interop.peer.CmPeer"));
        c.addAll(List.of(args));
        return lab.inNamespace(c);
    }

    private static Map<String, String> env() {
        return Tools.Family.IPV4.env();
    }

    /** Waits until {@code out} holds {@code text} while {@code p} runs (at most 60 s: a JVM or a guest starting). */
    private static void awaitOutput(Bounded p, Path out, String text) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!(Files.exists(out) && Files.readString(out).contains(text))) {
            if (!p.alive() || System.nanoTime() > deadline) {
                fail("no \"" + text + "\" from " + out.getFileName() + ": "
                        + (Files.exists(out) ? Files.readString(out) : "(no output)"));
            }
            Thread.sleep(100);
        }
    }

    /**
     * The CM messages (attribute IDs) jrdma's own capture of {@code name} must hold, and the REJ
     * reason it must carry ({@code rejReason}, e.g. 0x0008; null: none asked), as tshark's
     * InfiniBand CM dissector reads them (one tshark run); the capture's checks come at the end
     * ({@link #checkCaptures}).
     */
    private static void assertMads(String name, String rejReason, int... attributes) throws Exception {
        Path own = dir.resolve(name + ".jrdma-own.pcap");
        assertTrue(Files.exists(own), "jrdma wrote no capture " + own.getFileName() + " (-Djrdma.pcap)");
        OWN.add(own);
        List<String> mads = Captures.frames(own, "infiniband.mad.attributeid", "infiniband.mad.attributeid",
                "infiniband.cm.rej.reason");
        for (int a : attributes) {
            String hex = String.format("0x%04x", a);
            assertTrue(mads.stream().anyMatch(l -> l.split("\t", -1)[0].trim().equals(hex)),
                    own.getFileName() + ": no CM MAD with attribute " + hex + " (tshark: " + mads + ")");
        }
        if (rejReason != null) {
            assertTrue(mads.stream().anyMatch(l -> l.split("\t", -1).length > 1 && l.split("\t", -1)[1].trim().equals(rejReason)),
                    own.getFileName() + ": no REJ with reason " + rejReason + " (tshark: attribute, REJ reason: " + mads + ")");
        }
    }

    private static final List<Path> OWN = new java.util.concurrent.CopyOnWriteArrayList<>();
    private static Bounded bridge;
    private static Path bridgePcap;

    /**
     * The bridge's capture through every check of {@link Captures} (ICRC by the lab's roce.py,
     * jrdma's pcap-check, tshark without malformed packets), and each of jrdma's own captures
     * through roce.py and tshark.
     */
    @AfterAll
    static void checkCaptures() throws Exception {
        if (bridge == null) {
            return;
        }
        Thread.sleep(300);
        bridge.close();
        // jrdma's own captures, one after another in one file (mergecap -a), so that each checker runs
        // once: the machine is shared, and a checker per file took minutes beside other builds
        Path own = dir.resolve("cm-robust.jrdma-own-all.pcap");
        List<String> merge = new ArrayList<>(List.of("mergecap", "-a", "-F", "pcap", "-w", own.toString()));
        OWN.forEach(o -> merge.add(o.toString()));
        int rc = Bounded.run(merge, Map.of(), dir.resolve("mergecap.txt"), Duration.ofSeconds(60));
        List<String> problems = new ArrayList<>();
        if (rc != 0) {
            problems.add("mergecap " + OWN + " failed (rc " + rc + "): " + Files.readString(dir.resolve("mergecap.txt")));
        }
        List<Map.Entry<Path, Captures.Check>> checks = new ArrayList<>();
        Captures.checkAll(lab, bridgePcap).forEach(c -> checks.add(Map.entry(bridgePcap, c)));
        if (rc == 0) {
            checks.add(Map.entry(own, Captures.roceIcrc(lab, own)));
            checks.add(Map.entry(own, Captures.tshark(own)));
        }
        for (var e : checks) {
            System.out.println("interop: " + e.getKey().getFileName() + ": " + e.getValue().summary());
            problems.addAll(e.getValue().problems().stream().map(x -> e.getKey().getFileName() + ": " + x).toList());
        }
        if (!problems.isEmpty()) {
            fail("captures:\n  " + String.join("\n  ", problems));
        }
    }

    @Test
    @Timeout(90)
    void aLinuxClientConnectingToAPortNobodyListensOnIsRejectedWithInvalidServiceId() throws Exception {
        String name = "cm-linux-client-no-listener";
        int port = Ports.next();
        Path serveOut = dir.resolve(name + ".jrdma.txt");
        Path rpingOut = dir.resolve(name + ".rping-g1.txt");
        try (Bounded serve = Bounded.start(peer(name, 60, "serve", HOST, "40"), env(), serveOut)) {
            awaitOutput(serve, serveOut, "serving");
            Bounded.run(lab.exec(30, "g1", "rping -c -a " + HOST + " -p " + port + " -C 1"), Map.of(), rpingOut,
                    Duration.ofSeconds(45));
            String rping = Files.readString(rpingOut);
            assertTrue(rping.contains("cma event RDMA_CM_EVENT_REJECTED, error 8"), "Linux rping: " + rping);
            assertMads(name, "0x0008", REJ);
        }
    }

    @Test
    @Timeout(90)
    void jrdmaConnectingToALinuxHostWithNoListenerIsRejectedWithInvalidServiceId() throws Exception {
        String name = "cm-jrdma-client-no-listener";
        Path out = dir.resolve(name + ".jrdma.txt");
        int rc = Bounded.run(peer(name, 60, "connect", HOST, g1, Integer.toString(Ports.next()), "40"), env(), out,
                Duration.ofSeconds(70));
        String text = Files.readString(out);
        assertEquals(0, rc, text);
        assertTrue(text.contains("event RDMA_CM_EVENT_REJECTED status 8"), text);
        assertMads(name, "0x0008", REJ);
    }

    @Test
    @Timeout(120)
    void aLinuxServerThatRejectsGivesJrdmaRejectedWithItsPrivateData() throws Exception {
        String name = "cm-linux-server-rejects";
        int port = Ports.next();
        String text = "jrdma-lab: not today";
        Path probeOut = dir.resolve(name + ".cm-probe-g1.txt");
        Path out = dir.resolve(name + ".jrdma.txt");
        try (Bounded probe = Bounded.start(lab.exec(80, "g1", "/shared/cm-probe reject " + g1 + " " + port + " '" + text + "'"),
                     Map.of(), probeOut)) {
            awaitOutput(probe, probeOut, "listening");
            int rc = Bounded.run(peer(name, 60, "connect", HOST, g1, Integer.toString(port), "40"), env(), out,
                    Duration.ofSeconds(70));
            String jrdma = Files.readString(out);
            assertEquals(0, rc, jrdma);
            assertTrue(jrdma.contains("event RDMA_CM_EVENT_REJECTED status 28"), "IBTA table 112, consumer reject: " + jrdma);
            assertTrue(jrdma.contains("private data \"" + text + "\""), jrdma);
            assertEquals(0, probe.await(Duration.ofSeconds(30)), Files.readString(probeOut));
            assertMads(name, "0x001c", REJ);
        }
    }

    @Test
    @Timeout(150)
    void killingTheLinuxRpingServerGivesJrdmaDisconnectedThenTimewaitExit() throws Exception {
        String name = "cm-kill-linux-rping-server";
        int port = Ports.next();
        Path rpingOut = dir.resolve(name + ".rping-g1.txt");
        Path out = dir.resolve(name + ".jrdma.txt");
        try (Bounded rping = Bounded.start(lab.exec(100, "g1", "rping -s -v -a " + g1 + " -p " + port
                     + " & echo \"rping pid $!\"; wait"), Map.of(), rpingOut)) {
            awaitOutput(rping, rpingOut, "rping pid ");
            awaitListening(port);
            try (Bounded client = Bounded.start(peer(name, 90, "connect", HOST, g1, Integer.toString(port), "80"), env(), out)) {
                awaitOutput(client, out, "established");
                String pid = Files.readString(rpingOut).replaceAll("(?s).*rping pid (\\d+).*", "$1");
                lab.run(20, "g1", "kill -9 " + pid);
                int rc = client.await(Duration.ofSeconds(60));
                String jrdma = Files.readString(out);
                assertEquals(0, rc, jrdma);
                int est = jrdma.indexOf("event RDMA_CM_EVENT_ESTABLISHED");
                int disc = jrdma.indexOf("event RDMA_CM_EVENT_DISCONNECTED status 0");
                int tw = jrdma.indexOf("event RDMA_CM_EVENT_TIMEWAIT_EXIT status 0");
                assertTrue(est >= 0 && disc > est && tw > disc, "ESTABLISHED, DISCONNECTED, TIMEWAIT_EXIT in order: " + jrdma);
            }
            assertMads(name, null, DREQ, DREP);
        }
    }

    @Test
    @Timeout(150)
    void killingTheJrdmaClientGivesLinuxDisconnectedThenTimewaitExit() throws Exception {
        String name = "cm-kill-jrdma-client";
        int port = Ports.next();
        Path probeOut = dir.resolve(name + ".cm-probe-g1.txt");
        Path out = dir.resolve(name + ".jrdma.txt");
        try (Bounded probe = Bounded.start(lab.exec(100, "g1", "/shared/cm-probe accept " + g1 + " " + port), Map.of(), probeOut)) {
            awaitOutput(probe, probeOut, "listening");
            try (Bounded client = Bounded.start(peer(name, 90, "connect", HOST, g1, Integer.toString(port), "80"), env(), out)) {
                awaitOutput(client, out, "established");
                awaitOutput(probe, probeOut, "event RDMA_CM_EVENT_ESTABLISHED");
                // SIGTERM to the JVM (the process this test started, by its pid): the CM's exit hook
                // ends the connection as the kernel ends a killed process's (DREQ)
                Optional<ProcessHandle> jvm = client.descendants().filter(h -> h.info().command().orElse("").endsWith("/java"))
                        .findFirst();
                assertTrue(jvm.isPresent(), "the jrdma JVM among " + client.descendants().toList());
                jvm.get().destroy();
                client.await(Duration.ofSeconds(30));
            }
            assertEquals(0, probe.await(Duration.ofSeconds(60)), "cm-probe: " + Files.readString(probeOut));
            String linux = Files.readString(probeOut);
            int disc = linux.indexOf("event RDMA_CM_EVENT_DISCONNECTED status 0");
            int tw = linux.indexOf("event RDMA_CM_EVENT_TIMEWAIT_EXIT status 0");
            assertTrue(disc >= 0 && tw > disc, "Linux: DISCONNECTED, then TIMEWAIT_EXIT: " + linux);
            assertMads(name, null, DREQ);
        }
    }

    /** The Linux server's cm_id in LISTEN shows in {@code rdma resource show cm_id}. */
    private static void awaitListening(int port) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        Path out = dir.resolve("cm_id.txt");
        while (Bounded.run(lab.exec(10, "g1", "rdma resource show cm_id | grep LISTEN | grep -q ':" + port + "'"), Map.of(),
                out, Duration.ofSeconds(25)) != 0) {
            if (System.nanoTime() > deadline) {
                fail("the Linux rping server does not listen on " + port);
            }
            Thread.sleep(200);
        }
    }
}
