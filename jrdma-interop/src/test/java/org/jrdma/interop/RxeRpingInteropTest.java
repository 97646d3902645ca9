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
            server = new PerftestPair.Side(CmPair.linuxListener(lab, "g1"),
                    lab.exec(150, "g1", "rping -s -a " + g1 + " " + String.join(" ", opts)), Map.of(), Duration.ofSeconds(170));
            client = new PerftestPair.Side(Tools.host(lab), lab.inNamespace(jrdma), family.env(), Duration.ofSeconds(160));
            name += "rxe-g1-server.jrdma-client";
        } else {
            name += "jrdma-server.rxe-g1-client";
            jrdma.addAll(List.of("-s", "-d", "-a", host));
            jrdma.addAll(opts);
            // a jrdma rping server listens once it printed its debug line "rdma_listen" (-d)
            server = new PerftestPair.Side(CmPair.jrdmaListener(CmPair.serverOutput(name), "rdma_listen"),
                    lab.inNamespace(jrdma), family.env(), Duration.ofSeconds(160));
            client = new PerftestPair.Side(Tools.guest(lab, "g1"),
                    lab.exec(150, "g1", "rping -c -a " + host + " " + String.join(" ", opts)), Map.of(), Duration.ofSeconds(170));
        }
        PerftestPair.Result r = PerftestPair.run(name, port, server, client, lab, "g1");
        List<String> problems = CmPair.problems(r, server, client);
        CmPair.checkRpingLines(problems, "server (" + server.where().name() + ")", r.serverOut(), "server ping data: ",
                COUNT, SIZE);
        CmPair.checkRpingLines(problems, "client (" + client.where().name() + ")", r.clientOut(), "ping data: ", COUNT,
                SIZE);
        CmPair.report(name, problems, r, server, client);
    }
}
