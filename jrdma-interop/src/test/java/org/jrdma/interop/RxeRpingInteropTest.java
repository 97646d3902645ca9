package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jrdma rping} against rdmacm-utils' {@code rping} on Linux rxe in g1 (issue 11): the
 * connection made by jrdma's IB CM and Linux's kernel CM over QP1, in both roles, over IPv4 and
 * IPv6, {@code -C 100 -S 4096 -v -V}. Each run: both sides exit 0, each prints the 100 ping lines
 * rping.c makes (the client after verifying them, {@code -V}), the server sees the disconnect; the
 * capture passes {@link Captures}. Skipped while {@code bin/jrdma} has no {@code rping}.
 */
@Order(6)
class RxeRpingInteropTest {
    static final int COUNT = 100;
    static final int SIZE = 4096;
    private static Lab lab;
    private static String missing;

    @BeforeAll
    static void labAndRping() throws Exception {
        lab = Lab.fromEnvironment();
        missing = Tools.jrdmaCommands().contains("rping") ? null
                : "bin/jrdma has no rping; its commands: " + Tools.jrdmaCommands();
    }

    @BeforeEach
    void hasRping() {
        assumeTrue(missing == null, missing);
    }

    /** rping.c's ping text: "rdma-ping-%d: " then letters from 'A' + ping, cycling 'A'..'z'. */
    static String expected(int ping) {
        StringBuilder sb = new StringBuilder(String.format("rdma-ping-%d: ", ping));
        int c = 65 + ping % 58;
        while (sb.length() < SIZE - 1) {
            sb.append((char) c);
            c = c == 122 ? 65 : c + 1;
        }
        return sb.toString();
    }

    /** A Linux rping server listens once its cm_id in LISTEN shows in {@code rdma resource show cm_id}. */
    private static PerftestPair.Where linuxRpingServer(String g) {
        return new PerftestPair.Where() {
            @Override
            public String name() {
                return g;
            }

            @Override
            public boolean listening(int port) throws IOException, InterruptedException {
                Path out = Files.createTempFile("lab-cmid", ".txt");
                try {
                    return Bounded.run(lab.exec(10, g, "rdma resource show cm_id | grep LISTEN | grep -q ':" + port + "'"),
                            Map.of(), out, Duration.ofSeconds(25)) == 0;
                } finally {
                    Files.deleteIfExists(out);
                }
            }
        };
    }

    /** A jrdma rping server listens once it printed its debug line "rdma_listen" (-d). */
    private static PerftestPair.Where jrdmaRpingServer(Path output) {
        return new PerftestPair.Where() {
            @Override
            public String name() {
                return "host";
            }

            @Override
            public boolean listening(int port) throws IOException {
                return Files.exists(output) && Files.readString(output).contains("rdma_listen");
            }
        };
    }

    @ParameterizedTest(name = "rping -C " + COUNT + " -S " + SIZE + " -v -V over {0}: jrdma {1}")
    @CsvSource({"IPV4, client", "IPV4, server", "IPV6, client", "IPV6, server"})
    @Timeout(value = 240)
    void rpingAgainstLinuxRping(Tools.Family family, String jrdmaRole) throws Exception {
        int port = Ports.next();
        String g1 = family == Tools.Family.IPV4 ? lab.get("LAB_G1_ROCE") : "fd77::11";
        String host = family.hostAddress;
        List<String> opts = List.of("-C", Integer.toString(COUNT), "-S", Integer.toString(SIZE), "-v", "-V", "-p",
                Integer.toString(port));
        List<String> jrdma = new ArrayList<>(Arrays.asList("timeout", "-k", "5", "150",
                Tools.root().resolve("bin/jrdma").toString(), "rping"));
        String name = "rping-S" + SIZE + "." + family.name().toLowerCase(java.util.Locale.ROOT) + ".";
        PerftestPair.Side server;
        PerftestPair.Side client;
        if (jrdmaRole.equals("client")) {
            jrdma.addAll(List.of("-c", "-a", g1, "-I", host));
            jrdma.addAll(opts);
            server = new PerftestPair.Side(linuxRpingServer("g1"),
                    lab.exec(150, "g1", "rping -s -a " + g1 + " " + String.join(" ", opts)), Map.of(), Duration.ofSeconds(170));
            client = new PerftestPair.Side(Tools.host(lab), lab.inNamespace(jrdma), family.env(), Duration.ofSeconds(160));
            name += "rxe-g1-server.jrdma-client";
        } else {
            name += "jrdma-server.rxe-g1-client";
            jrdma.addAll(List.of("-s", "-d", "-a", host));
            jrdma.addAll(opts);
            Path serverOut = PerftestPair.outputDir().resolve(name + ".server-host.txt");
            Files.deleteIfExists(serverOut);
            server = new PerftestPair.Side(jrdmaRpingServer(serverOut), lab.inNamespace(jrdma), family.env(),
                    Duration.ofSeconds(160));
            client = new PerftestPair.Side(Tools.guest(lab, "g1"),
                    lab.exec(150, "g1", "rping -c -a " + host + " " + String.join(" ", opts)), Map.of(), Duration.ofSeconds(170));
        }
        PerftestPair.Result r = PerftestPair.run(name, port, server, client, lab, "g1");
        List<String> problems = new ArrayList<>();
        check(problems, "server (" + server.where().name() + ")", r.serverRc(), r.serverOut(), "server ping data: ");
        check(problems, "client (" + client.where().name() + ")", r.clientRc(), r.clientOut(), "ping data: ");
        if (!r.serverReady()) {
            problems.add("the server never listened");
        }
        for (Captures.Check c : r.captures()) {
            problems.addAll(c.problems());
        }
        System.out.println("interop: " + name + ": " + (problems.isEmpty() ? "ok" : "FAILED"));
        if (!problems.isEmpty()) {
            fail(name + ":\n  " + String.join("\n  ", problems) + "\n---- server: " + String.join(" ", server.command())
                    + "\n" + tail(r.serverOut()) + "\n---- client: " + String.join(" ", client.command())
                    + "\n" + tail(r.clientOut()) + "\n----");
        }
    }

    private static String tail(List<String> out) {
        List<String> l = new ArrayList<>();
        for (String s : out.subList(Math.max(0, out.size() - 15), out.size())) {
            l.add(s.length() > 120 ? s.substring(0, 120) + "..." : s);
        }
        return String.join("\n", l);
    }

    /** What rping writes to stderr; a side's stdout and stderr share one file, and Linux rping's block-buffered stdout gets them in the middle of a line. */
    private static final List<String> STDERR_LINES = List.of("server DISCONNECT EVENT...\n", "client DISCONNECT EVENT...\n",
            "wait for RDMA_READ_ADV state 10\n", "wait for RDMA_WRITE_ADV state 10\n", "wait for RDMA_WRITE_COMPLETE state 10\n");

    /** Exit 0, the COUNT ping lines of rping.c in order, no "data mismatch!". */
    private static void check(List<String> problems, String who, int rc, List<String> output, String prefix) {
        if (rc != 0) {
            problems.add(who + ": exit code " + rc);
        }
        String text = String.join("\n", output) + "\n";
        for (String e : STDERR_LINES) {
            text = text.replace(e, "");
        }
        List<String> out = Arrays.asList(text.split("\n"));
        int ping = 0;
        for (String l : out) {
            if (l.startsWith(prefix)) {
                if (!l.equals(prefix + expected(ping))) {
                    problems.add(who + ": ping " + ping + " printed other data: "
                            + l.substring(0, Math.min(80, l.length())) + "...");
                    return;
                }
                ping++;
            }
            if (l.contains("data mismatch!")) {
                problems.add(who + ": " + l);
            }
        }
        if (ping != COUNT) {
            problems.add(who + ": " + ping + " ping lines, expected " + COUNT);
        }
    }
}
