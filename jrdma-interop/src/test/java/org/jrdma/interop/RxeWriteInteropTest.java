package org.jrdma.interop;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RDMA WRITE between jrdma and Linux rdma_rxe (issue 2): {@code ib_write_bw} and
 * {@code ib_write_lat}, each way round. jrdma runs on the host in the lab namespace with device
 * jrxe0 = fd77::1; Linux runs perftest on rxe0 in guest g1 with GID index 2 = fd77::11, so the RoCE
 * v2 packets are IPv6 while perftest's TCP exchange goes over IPv4 (10.77.0.x). Sizes 2 B and 64 KiB
 * (64 segments of the 1024-byte MTU); few iterations, since the guest is emulated (~5 MB/s).
 */
@Order(2)
class RxeWriteInteropTest {
    private static Lab lab;

    /** Per test, so that without a lab every test is reported as skipped, with the reason. */
    @BeforeEach
    void lab() throws Exception {
        if (lab == null) {
            lab = Lab.fromEnvironment();
        }
    }

    @ParameterizedTest(name = "{0} -s {1} -n {2}: jrdma client -> rxe server")
    @CsvSource({"ib_write_bw, 2, 100", "ib_write_bw, 65536, 20", "ib_write_lat, 2, 100", "ib_write_lat, 65536, 20"})
    @Timeout(value = 150)
    void jrdmaClientCompletesAgainstRxeServer(String tool, int size, int iterations) throws Exception {
        int port = Ports.next();
        PerftestPair.Side server = Tools.linux(lab, "g1", tool, Tools.args(size, iterations, port), null);
        PerftestPair.Side client = Tools.jrdma(lab, tool, Tools.args(size, iterations, port), lab.get("LAB_G1_ROCE"));
        PerftestPair.Result r = PerftestPair.run(tool + "-s" + size + ".rxe-g1-server.jrdma-client", port, server,
                client, lab, "g1");
        PerftestPair.assertBothCompleted(r, server, client, size, iterations);
    }

    @ParameterizedTest(name = "{0} -s {1} -n {2}: rxe client -> jrdma server")
    @CsvSource({"ib_write_bw, 2, 100", "ib_write_bw, 65536, 20", "ib_write_lat, 2, 100", "ib_write_lat, 65536, 20"})
    @Timeout(value = 150)
    void rxeClientCompletesAgainstJrdmaServer(String tool, int size, int iterations) throws Exception {
        int port = Ports.next();
        PerftestPair.Side server = Tools.jrdma(lab, tool, Tools.args(size, iterations, port), null);
        PerftestPair.Side client = Tools.linux(lab, "g1", tool, Tools.args(size, iterations, port),
                lab.get("LAB_HOST_ROCE"));
        PerftestPair.Result r = PerftestPair.run(tool + "-s" + size + ".jrdma-server.rxe-g1-client", port, server,
                client, lab, "g1");
        PerftestPair.assertBothCompleted(r, server, client, size, iterations);
    }
}
