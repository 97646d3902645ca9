package org.jrdma.interop;

import java.util.List;
import org.jrdma.interop.Tools.Family;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Loss against Linux (issue 4): with netem dropping 1% of what guest g1 sends on its RoCE interface
 * ({@code tc qdisc replace dev eth0 root netem loss 1%}; netem runs in the guest, this machine's
 * kernel has none), {@code ib_write_bw} and {@code ib_send_bw} between jrdma and Linux rxe still
 * complete, in both directions, over IPv4. netem drops on g1's egress only: with Linux the sender,
 * its data packets are lost (jrdma's responder NAKs the PSN gap, Linux goes back); with jrdma the
 * sender, Linux's ACKs are (coalesced ACKs cover most; the last one lost means a retransmission
 * timeout at jrdma). g1's rxe0 counter changes show the recovery; the captures are checked as
 * every run's. The qdisc is removed afterwards, whatever happened.
 */
@Order(5)
class RxeLossInteropTest {
    /** More iterations than the other runs, so that 1% loss hits (64 packets per message). */
    static final int ITERATIONS = 50;
    static final String NETEM = "tc qdisc replace dev eth0 root netem loss 1%";
    private static Lab lab;

    @BeforeAll
    static void netem() throws Exception {
        lab = Lab.fromEnvironment();
        lab.run(10, "g1", NETEM);
    }

    @AfterAll
    static void noNetem() throws Exception {
        if (lab != null) {
            lab.run(10, "g1", "tc qdisc del dev eth0 root");
        }
    }

    @ParameterizedTest(name = "{0} -s 65536 -n " + ITERATIONS + " over IPv4 with 1% loss at g1: jrdma {1}")
    @CsvSource({"ib_write_bw, client", "ib_write_bw, server", "ib_send_bw, client", "ib_send_bw, server"})
    @Timeout(value = 150)
    void perftestCompletesUnderLoss(String tool, String jrdmaRole) throws Exception {
        Family family = Family.IPV4;
        int size = 65536;
        int port = Ports.next();
        List<String> args = Tools.args(size, ITERATIONS, port);
        Tools.RxePair pair = Tools.withRxeOnG1(lab, family, tool, args, jrdmaRole.equals("client"));
        String name = tool + "-s" + size + ".ipv4.loss1pct." + pair.roles();
        PerftestPair.Result r = PerftestPair.run(name, port, pair.server(), pair.client(), lab, "g1");
        PerftestPair.assertBothCompleted(r, pair.server(), pair.client(), size, ITERATIONS);
    }
}
