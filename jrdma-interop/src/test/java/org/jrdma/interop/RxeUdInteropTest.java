package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jrdma.interop.Tools.Family;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * UD in the lab (issues 10 and 11): {@code ib_send_bw -c UD} and {@code ib_send_lat -c UD} between
 * jrdma and Linux perftest 4.5 on rxe0 in guest g1, jrdma as the client and as the server, over
 * IPv4 and IPv6, {@code ib_send_bw} with messages of the whole 1024-byte path MTU (perftest's UD
 * limit) and {@code ib_send_lat} with 2-byte messages; and {@code jrdma ud_pingpong} against rdma-core's {@code ibv_ud_pingpong} both ways, with
 * 1024-byte messages and {@code -c} (the receiver checks the sender's pattern). Each run: both sides
 * exit 0 with their result lines and no error line, and the capture passes {@link Captures}, as
 * {@link RxePerftestInteropTest}'s and {@link RxePingpongInteropTest}'s runs.
 */
@Order(6)
class RxeUdInteropTest {
    static final int ITERATIONS = 20;
    private static Lab lab;

    @BeforeEach
    void lab() throws Exception {
        if (lab == null) {
            lab = Lab.fromEnvironment();
        }
    }

    static Stream<Arguments> runs() {
        List<Arguments> a = new ArrayList<>();
        for (Family f : List.of(Family.IPV4, Family.IPV6)) {
            // bandwidth with datagrams of the whole path MTU, latency with the smallest: one size
            // per tool keeps the emulated lab's share of bin/test bounded (each run is ~15 s there)
            for (String tool : List.of("ib_send_bw", "ib_send_lat")) {
                int size = tool.equals("ib_send_bw") ? 1024 : 2;
                for (RxePerftestInteropTest.Jrdma j : RxePerftestInteropTest.Jrdma.values()) {
                    a.add(Arguments.of(f, tool, size, j));
                }
            }
        }
        return a.stream();
    }

    @ParameterizedTest(name = "{1} -c UD -s {2} -n " + ITERATIONS + " over {0}: {3}")
    @MethodSource("runs")
    @Timeout(value = 150)
    void udSendCompletesBetweenJrdmaAndRxe(Family family, String tool, int size, RxePerftestInteropTest.Jrdma jrdma)
            throws Exception {
        int port = Ports.next();
        List<String> args = new ArrayList<>(List.of("-c", "UD"));
        args.addAll(Tools.args(size, ITERATIONS, port));
        Tools.RxePair pair = Tools.withRxeOnG1(lab, family, tool, args, jrdma == RxePerftestInteropTest.Jrdma.CLIENT);
        String name = tool + "-c-UD-s" + size + "." + family.name().toLowerCase(java.util.Locale.ROOT) + "." + pair.roles();
        PerftestPair.Result r = PerftestPair.run(name, port, pair.server(), pair.client(), lab, "g1");
        PerftestPair.assertBothCompleted(r, pair.server(), pair.client(), size, ITERATIONS, true);
    }

    @ParameterizedTest(name = "ud_pingpong -s 1024 -n " + ITERATIONS + " -c over {0}: jrdma {1}")
    @CsvSource({"IPV4, client", "IPV4, server", "IPV6, client", "IPV6, server"})
    @Timeout(value = 150)
    void udPingpongCompletesAgainstIbvUdPingpong(Family family, String jrdmaRole) throws Exception {
        int port = Ports.next();
        List<String> opts = List.of("-s", "1024", "-n", Integer.toString(ITERATIONS), "-c", "-p", Integer.toString(port));
        String linuxCmd = "ibv_ud_pingpong -d rxe0 -g " + family.rxeGidIndex + " " + String.join(" ", opts);
        List<String> jrdmaCmd = new ArrayList<>(Arrays.asList("timeout", "-k", "5", "65",
                Tools.root().resolve("bin/jrdma").toString(), "ud_pingpong", "-d", Tools.JRDMA_DEVICE, "-g",
                Tools.JRDMA_GID_INDEX, "--jit_warm_up", "300"));
        jrdmaCmd.addAll(opts);
        PerftestPair.Side server;
        PerftestPair.Side client;
        String name = "ud_pingpong-s1024." + family.name().toLowerCase(java.util.Locale.ROOT) + ".";
        if (jrdmaRole.equals("client")) {
            jrdmaCmd.add(lab.get("LAB_G1_ROCE"));
            server = new PerftestPair.Side(Tools.guest(lab, "g1"), lab.exec(60, "g1", linuxCmd), Map.of(),
                    Duration.ofSeconds(75));
            client = new PerftestPair.Side(Tools.host(lab), lab.inNamespace(jrdmaCmd), family.env(), Tools.HOST_LIMIT);
            name += "rxe-g1-server.jrdma-client";
        } else {
            server = new PerftestPair.Side(Tools.host(lab), lab.inNamespace(jrdmaCmd), family.env(), Tools.HOST_LIMIT);
            client = new PerftestPair.Side(Tools.guest(lab, "g1"),
                    lab.exec(60, "g1", linuxCmd + " " + lab.get("LAB_HOST_ROCE")), Map.of(), Duration.ofSeconds(75));
            name += "jrdma-server.rxe-g1-client";
        }
        PerftestPair.Result r = PerftestPair.run(name, port, server, client, lab, "g1");
        List<String> problems = new ArrayList<>();
        String sideS = RxePingpongInteropTest.check(problems, "server (" + server.where().name() + ")", r.serverRc(),
                r.serverOut());
        String sideC = RxePingpongInteropTest.check(problems, "client (" + client.where().name() + ")", r.clientRc(),
                r.clientOut());
        for (List<String> out : List.of(r.serverOut(), r.clientOut())) {
            if (out.stream().anyMatch(l -> l.startsWith("invalid data in page"))) {
                problems.add("-c found invalid data: " + out);
            }
        }
        if (!r.serverReady()) {
            problems.add("the server never listened on TCP port " + port);
        }
        for (Captures.Check c : r.captures()) {
            problems.addAll(c.problems());
        }
        System.out.println("interop: " + name + ": server " + sideS + "; client " + sideC);
        Files.writeString(PerftestPair.outputDir().resolve("ud_pingpong.txt"), name + ": server " + sideS + "; client "
                + sideC + (problems.isEmpty() ? "" : "; FAILED") + "\n", java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        if (!problems.isEmpty()) {
            fail(name + ":\n  " + String.join("\n  ", problems) + "\n---- server: " + String.join(" ", server.command())
                    + "\n" + String.join("\n", r.serverOut()) + "\n---- client: " + String.join(" ", client.command())
                    + "\n" + String.join("\n", r.clientOut()) + "\n----");
        }
    }
}
