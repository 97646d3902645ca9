package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jrdma.interop.Tools.Family;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * jrdma's QP1 against Linux (issue 11), both ways, IPv4 and IPv6: Linux rxe in g1 answers a CM
 * Get(ClassPortInfo) that jrdma sends from QP1 (its MAD layer has no agent for Get in class CM: a GetResp
 * with status 0x000C, TID and class data unchanged, routed back to the sending agent), and jrdma answers the
 * lab's {@code roce.py mad-ping} as Linux does (what {@code testdata/captures/host-mad-ping.pcap} holds). For
 * the second, jrdma's device sits on the bridge's other host address (10.77.1.1 / fd77:1::1) so that
 * roce.py, which needs port 4791 of its own address for the answer, can send from the usual one. The
 * jrdma side is {@code peer/GsiPeer}, compiled against the tools' module path as {@link Peer} compiles
 * RcPeer.
 */
@Order(6)
class RxeGsiInteropTest {
    private static Lab lab;
    private static Path classes;
    private static Path dir;

    @BeforeAll
    static void labAndPeer() throws Exception {
        lab = Lab.fromEnvironment();
        Path module = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
        dir = module.resolve("target/interop-gsi");
        Files.createDirectories(dir);
        classes = module.resolve("target/gsi-peer-classes");
        Files.createDirectories(classes);
        Path src = module.resolve("src/test/java/org/jrdma/interop/peer/GsiPeer.java");
        Path javac = Path.of(Tools.javaCommand().getFirst()).resolveSibling("javac");
        Path log = dir.resolve("javac.txt");
        int rc = Bounded.run(List.of(javac.toString(), "-proc:none", "--module-path", Tools.modulePath(),
                "--add-modules", "org.jrdma.perftest", "-d", classes.toString(), src.toString()), Map.of(), log,
                Duration.ofSeconds(120));
        assertEquals(0, rc, "javac GsiPeer: " + Files.readString(log));
    }

    private static List<String> peer(int limitSeconds, String... args) throws Exception {
        List<String> c = new ArrayList<>(List.of("timeout", "-k", "5", Integer.toString(limitSeconds)));
        List<String> java = Tools.javaCommand();
        c.addAll(java);
        c.addAll(List.of("--add-modules", "org.jrdma.perftest", "-cp", classes.toString(),
                "org.jrdma.interop.peer.GsiPeer"));
        c.addAll(List.of(args));
        return lab.inNamespace(c);
    }

    @ParameterizedTest(name = "Linux answers jrdma's Get(ClassPortInfo) over {0}")
    @EnumSource(Family.class)
    @Timeout(120)
    void linuxAnswersAMadFromJrdmasQp1(Family family) throws Exception {
        String g1 = lab.get(family == Family.IPV4 ? "LAB_G1_ROCE" : "LAB_G1_ROCE6");
        Path out = dir.resolve("ping-" + family.name() + ".txt");
        int rc = Bounded.run(peer(60, "ping", g1), family.env(), out, Duration.ofSeconds(70));
        String text = Files.readString(out);
        assertEquals(0, rc, text);
        assertTrue(text.contains("answer: class 0x07 version 2 method 0x81 status 0x000c attr 0x0001 tid 0x0000004a12345678"),
            text);
        assertTrue(text.contains("class data unchanged: true"), text);
        assertTrue(text.contains("gsi_resent_mads 0"), "answered at the first try: " + text);
    }

    @ParameterizedTest(name = "jrdma answers roce.py mad-ping over {0}")
    @EnumSource(Family.class)
    @Timeout(120)
    void jrdmaAnswersRocePyMadPing(Family family) throws Exception {
        String jrdma = family == Family.IPV4 ? "10.77.1.1" : "fd77:1::1";
        Map<String, String> env = new HashMap<>(family.env());
        env.put("JRDMA_DEVICES", Tools.JRDMA_DEVICE + "=" + jrdma);
        Path out = dir.resolve("serve-" + family.name() + ".txt");
        try (Bounded server = Bounded.start(peer(60, "serve", "25"), env, out)) {
            long deadline = System.nanoTime() + 40_000_000_000L;
            while (!Files.readString(out).contains("serving")) {
                assertTrue(server.alive() && System.nanoTime() < deadline, "GsiPeer serve: " + Files.readString(out));
                Thread.sleep(100);
            }
            Path roce = lab.script.getParent().resolve("tools/roce.py");
            Path ping = dir.resolve("mad-ping-" + family.name() + ".txt");
            int rc = Bounded.run(lab.inNamespace(List.of("timeout", "30", "python3", roce.toString(), "mad-ping", jrdma,
                    "--src", family.hostAddress)), Map.of(), ping, Duration.ofSeconds(40));
            String text = Files.readString(ping);
            assertEquals(0, rc, text);
            assertTrue(text.contains("method=0x81 status=0x000c attr=0x0001") && text.contains("(matches)"), text);
            assertTrue(text.contains("UDP source port 55410; rxe formula for QPN 1: 55410"), text);
        }
    }
}
