package org.jrdma.interop;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Proves the harness itself, Linux to Linux: perftest on rxe in guest g2 as client against g1 as
 * server, with the options and GID index (2 = fd77::1N, RoCE v2 over IPv6) the jrdma tests use. If
 * this fails, the lab is broken, not jrdma.
 */
@Order(1)
class LinuxHarnessTest {
    private static Lab lab;

    /** Per test, so that without a lab every test is reported as skipped, with the reason. */
    @BeforeEach
    void lab() throws Exception {
        if (lab == null) {
            lab = Lab.fromEnvironment();
        }
    }

    @ParameterizedTest(name = "{0} -s {1} -n {2}: rxe g2 -> rxe g1")
    @CsvSource({"ib_write_bw, 65536, 20", "ib_write_lat, 2, 100"})
    @Timeout(value = 150)
    void linuxClientCompletesAgainstLinuxServer(String tool, int size, int iterations) throws Exception {
        int port = Ports.next();
        PerftestPair.Side server = Tools.linux(lab, "g1", Tools.Family.IPV6, tool, Tools.args(size, iterations, port), null);
        PerftestPair.Side client = Tools.linux(lab, "g2", Tools.Family.IPV6, tool, Tools.args(size, iterations, port),
                lab.get("LAB_G1_ROCE"));
        PerftestPair.Result r = PerftestPair.run(tool + "-s" + size + ".ipv6.rxe-g1-server.rxe-g2-client", port,
                server, client);
        PerftestPair.assertBothCompleted(r, server, client, size, iterations);
    }

}
