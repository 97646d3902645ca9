package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.jrdma.interop.Tools.Family;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Shared receive queues against Linux (issue 10): {@code ib_send_bw --use-srq} between jrdma and
 * Linux rxe on g1, both ways, over IPv4, with one QP and with two QPs sharing the receiving side's
 * SRQ (perftest: max_wr = rx_depth, each QP's receive template posted rx_depth / num_qps times and
 * re-posted to the SRQ as it completes). The receiving side's SRQ is what is under test when jrdma
 * is the server; with Linux the server, jrdma's client proves it interoperates with an rxe responder
 * taking WQEs from an SRQ. Both sides print "Using SRQ : ON", exit 0 and report the iterations;
 * the captures are checked as every run's.
 */
@Order(7)
class RxeSrqInteropTest {
    static final int ITERATIONS = 20;
    private static Lab lab;

    @BeforeEach
    void lab() throws Exception {
        if (lab == null) {
            lab = Lab.fromEnvironment();
        }
    }

    @ParameterizedTest(name = "ib_send_bw --use-srq -q {1} -s {0} -n " + ITERATIONS + " over IPv4: jrdma {2}")
    @CsvSource({"65536, 1, server", "65536, 1, client", "4096, 2, server", "4096, 2, client"})
    @Timeout(value = 150)
    void sendBwWithAnSrqCompletesBetweenJrdmaAndRxe(int size, int qps, String jrdmaRole) throws Exception {
        int port = Ports.next();
        List<String> args = new ArrayList<>(Tools.args(size, ITERATIONS, port));
        args.add("--use-srq");
        if (qps > 1) {
            args.add("-q");
            args.add(Integer.toString(qps));
        }
        Tools.RxePair pair = Tools.withRxeOnG1(lab, Family.IPV4, "ib_send_bw", args, jrdmaRole.equals("client"));
        String name = "ib_send_bw-srq-q" + qps + "-s" + size + ".ipv4." + pair.roles();
        PerftestPair.Result r = PerftestPair.run(name, port, pair.server(), pair.client(), lab, "g1");
        PerftestPair.assertBothCompleted(r, pair.server(), pair.client(), size, (long) ITERATIONS * qps);
        assertTrue(r.serverOut().stream().anyMatch(l -> l.contains("Using SRQ      : ON")),
                "server says it uses an SRQ:\n" + String.join("\n", r.serverOut()));
        assertTrue(r.clientOut().stream().anyMatch(l -> l.contains("Using SRQ      : ON")),
                "client says it uses an SRQ:\n" + String.join("\n", r.clientOut()));
    }
}
