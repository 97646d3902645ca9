package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jrdma.interop.Tools.Family;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code jrdma rc_pingpong} against rdma-core's {@code ibv_rc_pingpong} on Linux rxe (issue 4): jrdma
 * as the server and as the client, over IPv4 ({@code -g 1} on Linux) and IPv6 ({@code -g 2}), with
 * 4096-byte messages (4 packets of the 1024-byte MTU). Each run: both sides exit 0 and print
 * {@code N iters in ... usec/iter} with no error line; the capture passes {@link Captures}. Skipped
 * while {@code bin/jrdma} has no {@code rc_pingpong}.
 */
@Order(3)
class RxePingpongInteropTest {
    static final int SIZE = 4096;
    static final int ITERATIONS = 20;
    private static final Pattern ITERS = Pattern.compile("^(\\d+) iters in ([0-9.]+) seconds = ([0-9.]+) usec/iter$");
    private static Lab lab;
    private static String missing;

    @BeforeAll
    static void labAndRcPingpong() throws Exception {
        lab = Lab.fromEnvironment(); // first: without the lab the class is skipped, whatever bin/jrdma can do
        missing = Tools.jrdmaCommands().contains("rc_pingpong") ? null
                : "bin/jrdma has no rc_pingpong; its commands: " + Tools.jrdmaCommands();
    }

    @BeforeEach
    void hasRcPingpong() {
        assumeTrue(missing == null, missing);
    }

    @ParameterizedTest(name = "rc_pingpong -s " + SIZE + " -n " + ITERATIONS + " over {0}: jrdma {1}")
    @CsvSource({"IPV4, client", "IPV4, server", "IPV6, client", "IPV6, server"})
    @Timeout(value = 150)
    void rcPingpongCompletesAgainstIbvRcPingpong(Family family, String jrdmaRole) throws Exception {
        int port = Ports.next();
        List<String> opts = List.of("-s", Integer.toString(SIZE), "-n", Integer.toString(ITERATIONS), "-m", "1024",
                "-p", Integer.toString(port));
        String linuxCmd = "ibv_rc_pingpong -d rxe0 -g " + family.rxeGidIndex + " " + String.join(" ", opts);
        List<String> jrdmaCmd = new ArrayList<>(Arrays.asList("timeout", "-k", "5", "65",
                Tools.root().resolve("bin/jrdma").toString(), "rc_pingpong", "-d", Tools.JRDMA_DEVICE, "-g",
                Tools.JRDMA_GID_INDEX));
        jrdmaCmd.addAll(opts);
        PerftestPair.Side server;
        PerftestPair.Side client;
        String name = "rc_pingpong-s" + SIZE + "." + family.name().toLowerCase(java.util.Locale.ROOT) + ".";
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
        String sideS = check(problems, "server (" + server.where().name() + ")", r.serverRc(), r.serverOut());
        String sideC = check(problems, "client (" + client.where().name() + ")", r.clientRc(), r.clientOut());
        if (!r.serverReady()) {
            problems.add("the server never listened on TCP port " + port);
        }
        for (Captures.Check c : r.captures()) {
            problems.addAll(c.problems());
        }
        System.out.println("interop: " + name + ": server " + sideS + "; client " + sideC);
        Files.writeString(PerftestPair.outputDir().resolve("rc_pingpong.txt"), name + ": server " + sideS + "; client "
                + sideC + (problems.isEmpty() ? "" : "; FAILED") + "\n", java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        if (!problems.isEmpty()) {
            fail(name + ":\n  " + String.join("\n  ", problems) + "\n---- server: " + String.join(" ", server.command())
                    + "\n" + String.join("\n", r.serverOut()) + "\n---- client: " + String.join(" ", client.command())
                    + "\n" + String.join("\n", r.clientOut()) + "\n----");
        }
    }

    /** Exit 0, "ITERATIONS iters in ... usec/iter", no error line; returns the usec/iter figure. */
    static String check(List<String> problems, String who, int rc, List<String> out) {
        String figure = "-";
        for (String l : out) {
            Matcher m = ITERS.matcher(l.strip());
            if (m.matches()) {
                figure = m.group(3) + " usec/iter";
                if (Integer.parseInt(m.group(1)) != ITERATIONS) {
                    problems.add(who + ": " + l.strip() + ", expected " + ITERATIONS + " iters");
                }
            }
        }
        if (rc != 0) {
            problems.add(who + ": exit code " + rc);
        }
        if (figure.equals("-")) {
            problems.add(who + ": no '" + ITERATIONS + " iters in ... usec/iter' line");
        }
        List<String> errors = PerftestOutput.errorLines(out);
        if (!errors.isEmpty()) {
            problems.add(who + ": reported errors: " + errors);
        }
        return figure;
    }
}
