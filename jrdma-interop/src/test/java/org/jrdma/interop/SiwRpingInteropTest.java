package org.jrdma.interop;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jrdma rping} on the soft iWARP device jsiw0 (10.77.1.1) as the client of rdmacm-utils'
 * {@code rping} on Linux siw0 in g1 (issue 12): TCP connect, MPA revision 2 request/reply with
 * IRD/ORD, then rping's SEND / RDMA READ / RDMA WRITE exchange, {@code -C 20 -S 4096 -v -V}
 * (4096 bytes are three FPDUs at the lab's 1448-byte MSS), and the disconnect. Both sides exit 0;
 * the client prints the 20 ping lines rping.c makes after verifying them ({@code -V}), the server
 * its 20 "server ping data" lines (20, not the 100: the class must stay under a minute in the emulated lab; a 100-ping run took 35.6 and 87.4 s; this class, -C 20, 37.2 s on 2026-12-02). One direction, IPv4, MPA CRC off (the default image).
 */
@Order(8)
class SiwRpingInteropTest {
    static final int COUNT = 20;
    static final int SIZE = 4096;
    private static Lab lab;

    @BeforeAll
    static void labAndRping() throws Exception {
        lab = Lab.fromEnvironment();
        assumeTrue(Tools.jrdmaCommands().contains("rping"), "bin/jrdma has no rping");
    }

    @Test
    @Timeout(value = 120)
    void jrdmaRpingClientOnJsiw0AgainstLinuxRpingServerOnSiw0() throws Exception {
        int port = Ports.next();
        String g1 = lab.get("LAB_G1_IW");
        String host = lab.get("LAB_HOST_IW");
        List<String> opts = List.of("-C", Integer.toString(COUNT), "-S", Integer.toString(SIZE), "-v", "-V", "-p",
                Integer.toString(port));
        List<String> jrdma = new ArrayList<>(List.of("timeout", "-k", "5", "90",
                Tools.root().resolve("bin/jrdma").toString(), "rping", "-c", "-a", g1, "-I", host));
        jrdma.addAll(opts);
        Map<String, String> env = Map.of("JRDMA_DEVICES", "jsiw0=" + host, "JRDMA_BUILD", "never");
        PerftestPair.Side server = new PerftestPair.Side(CmPair.linuxListener(lab, "g1"),
                lab.exec(100, "g1", "rping -s -a " + g1 + " " + String.join(" ", opts)), Map.of(), Duration.ofSeconds(110));
        PerftestPair.Side client = new PerftestPair.Side(Tools.host(lab), lab.inNamespace(jrdma), env,
                Duration.ofSeconds(100));
        String name = "rping-S" + SIZE + ".ipv4.siw-g1-server.jrdma-jsiw0-client";
        PerftestPair.Result r = PerftestPair.run(name, port, server, client);
        List<String> problems = CmPair.problems(r, server, client);
        CmPair.checkRpingLines(problems, "server (g1)", r.serverOut(), "server ping data: ", COUNT, SIZE);
        CmPair.checkRpingLines(problems, "client (host jsiw0)", r.clientOut(), "ping data: ", COUNT, SIZE);
        CmPair.report(name, problems, r, server, client);
    }
}
