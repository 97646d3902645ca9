package org.jrdma.interop;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code jrdma udaddy} against rdma-core's {@code udaddy} on Linux rxe in g1 (issue 11): UD QPs
 * set up through SIDR (jrdma's {@code Sidr} and Linux's kernel CM over QP1), in both roles, over
 * IPv4 and IPv6, udaddy's defaults (one connection, 10 datagrams of 100 bytes each way: the client's
 * SEND with immediate = its QPN to the QPN and Q_Key of the SIDR_REP, the server's replies to the
 * address of the first datagram's GRH). Each run: both sides exit 0 and print udaddy.c's lines in
 * order ({@code udaddy: starting ...}, ..., {@code data transfers complete}, {@code test complete},
 * {@code return status 0}); the capture passes {@link Captures} (the lab's ICRC checker, jrdma's
 * pcap-check, tshark's InfiniBand CM dissector on the SIDR MADs). Budget: 2 minutes for the class.
 * Skipped while {@code bin/jrdma} has no {@code udaddy}.
 */
@Order(7)
class RxeUdaddyInteropTest {
    /** udaddy's fixed port. */
    static final int PORT = 7174;
    private static Lab lab;
    private static String missing;

    @BeforeAll
    static void labAndUdaddy() throws Exception {
        lab = Lab.fromEnvironment();
        missing = Tools.jrdmaCommands().contains("udaddy") ? null
                : "bin/jrdma has no udaddy; its commands: " + Tools.jrdmaCommands();
    }

    @BeforeEach
    void hasUdaddy() {
        assumeTrue(missing == null, missing);
    }

    static final List<String> CLIENT_LINES = List.of("udaddy: starting client", "udaddy: connecting",
            "initiating data transfers", "receiving data transfers", "data transfers complete", "test complete",
            "return status 0");
    static final List<String> SERVER_LINES = List.of("udaddy: starting server", "receiving data transfers",
            "sending replies", "data transfers complete", "test complete", "return status 0");

    @ParameterizedTest(name = "udaddy over {0}: jrdma {1}")
    @CsvSource({"IPV4, client", "IPV4, server", "IPV6, client", "IPV6, server"})
    @Timeout(value = 150)
    void udaddyAgainstLinuxUdaddy(Tools.Family family, String jrdmaRole) throws Exception {
        String g1 = family == Tools.Family.IPV4 ? lab.get("LAB_G1_ROCE") : "fd77::11";
        String host = family.hostAddress;
        List<String> jrdma = new ArrayList<>(Arrays.asList("timeout", "-k", "5", "100",
                Tools.root().resolve("bin/jrdma").toString(), "udaddy"));
        String name = "udaddy." + family.name().toLowerCase(java.util.Locale.ROOT) + ".";
        PerftestPair.Side server;
        PerftestPair.Side client;
        if (jrdmaRole.equals("client")) {
            jrdma.addAll(List.of("-s", g1, "-b", host));
            // a Linux udaddy server listens once its cm_id in LISTEN (ps UDP) shows
            server = new PerftestPair.Side(CmPair.linuxListener(lab, "g1", "UDP"), lab.exec(90, "g1", "udaddy -b " + g1),
                    Map.of(), Duration.ofSeconds(100));
            client = new PerftestPair.Side(Tools.host(lab), lab.inNamespace(jrdma), family.env(), Duration.ofSeconds(100));
            name += "rxe-g1-server.jrdma-client";
        } else {
            name += "jrdma-server.rxe-g1-client";
            jrdma.addAll(List.of("-b", host, "--debug"));
            // a jrdma udaddy server listens once it printed "rdma_listen" (--debug, a jrdma extension)
            server = new PerftestPair.Side(CmPair.jrdmaListener(CmPair.serverOutput(name), "rdma_listen"),
                    lab.inNamespace(jrdma), family.env(), Duration.ofSeconds(100));
            client = new PerftestPair.Side(Tools.guest(lab, "g1"), lab.exec(90, "g1", "udaddy -s " + host + " -b " + g1),
                    Map.of(), Duration.ofSeconds(100));
        }
        PerftestPair.Result r = PerftestPair.run(name, PORT, server, client, lab, "g1");
        List<String> problems = CmPair.problems(r, server, client);
        check(problems, "server (" + server.where().name() + ")", r.serverOut(), SERVER_LINES);
        check(problems, "client (" + client.where().name() + ")", r.clientOut(), CLIENT_LINES);
        CmPair.report(name, problems, r, server, client);
    }

    /** udaddy.c's lines in order (the jrdma server's "rdma_listen" aside). */
    private static void check(List<String> problems, String who, List<String> output, List<String> expected) {
        List<String> out = new ArrayList<>(output);
        out.remove("rdma_listen");
        out.removeIf(String::isBlank);
        if (!out.equals(expected)) {
            problems.add(who + ": printed " + out + ", udaddy prints " + expected);
        }
    }
}
