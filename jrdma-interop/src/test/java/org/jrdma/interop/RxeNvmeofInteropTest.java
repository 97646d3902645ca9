package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jrdma's NVMe/RDMA host ({@code jrdma nvme}, issue 17) against Linux's kernel NVMe-oF target
 * ({@code nvmet}, {@code nvmet-rdma}) in g1 over rxe0, RoCE v2 over IPv4: the lab's
 * {@code nvmet-target up 10.77.0.11} exports a RAM disk as {@code nqn.2026-01.org.jrdma:lab} on port
 * 4420. Each {@code jrdma nvme} run connects the admin queue and 2 I/O queues through the CM with
 * NVMe/RDMA private data, enables the controller, identifies it and its namespaces, and shuts it
 * down and disconnects at its end. The test: the discovery log lists the subsystem; id-ctrl prints
 * Linux's controller (model "Linux", the NQN, keyed SGLs in SGLS); a 4 KiB write of random bytes at
 * block 8 (the target RDMA READs them through the command's memory window and answers with Send
 * with Invalidate), read back (the target RDMA WRITEs them) and compared. The target is removed in a
 * finally. Budget: 2 minutes for the class. Skipped while {@code bin/jrdma} has no {@code nvme}.
 */
@Order(9)
class RxeNvmeofInteropTest {
    static final String NQN = "nqn.2026-01.org.jrdma:lab";
    private static Lab lab;
    private static String missing;

    @BeforeAll
    static void labAndNvme() throws Exception {
        lab = Lab.fromEnvironment();
        missing = Tools.jrdmaCommands().contains("nvme") ? null
                : "bin/jrdma has no nvme; its commands: " + Tools.jrdmaCommands();
    }

    private record Run(int rc, String output) {
    }

    /** {@code jrdma nvme SUB -t rdma -a G1 -s 4420 -w HOST ARGS} in the lab namespace, bounded. */
    private static Run jrdma(String name, String sub, List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("timeout", "-k", "5", "50", Tools.root().resolve("bin/jrdma").toString(),
                "nvme", sub, "-t", "rdma", "-a", lab.get("LAB_G1_ROCE"), "-s", "4420", "-w",
                Tools.Family.IPV4.hostAddress));
        cmd.addAll(args);
        Path out = PerftestPair.outputDir().resolve("nvmeof." + name + ".txt");
        int rc = Bounded.run(lab.inNamespace(cmd), Tools.Family.IPV4.env(), out, Duration.ofSeconds(60));
        String o = Files.readString(out);
        System.out.println("interop: jrdma nvme " + sub + " (" + name + "): rc " + rc);
        return new Run(rc, o);
    }

    @Test
    @Timeout(value = 120)
    void jrdmaHostAgainstLinuxNvmetOverRxe() throws Exception {
        assumeTrue(missing == null, missing);
        String g1 = lab.get("LAB_G1_ROCE");
        lab.run(60, "g1", "nvmet-target up " + g1);
        try {
            Run d = jrdma("discover", "discover", List.of());
            assertEquals(0, d.rc(), d.output());
            assertTrue(d.output().contains("subnqn:  " + NQN), d.output());
            assertTrue(d.output().contains("traddr:  " + g1), d.output());
            assertTrue(d.output().contains("trsvcid: 4420"), d.output());
            assertTrue(d.output().contains("trtype:  rdma"), d.output());

            Run id = jrdma("id-ctrl", "id-ctrl", List.of("-n", NQN, "-i", "2"));
            assertEquals(0, id.rc(), id.output());
            assertTrue(id.output().contains("mn        : Linux"), id.output());
            assertTrue(id.output().contains("subnqn    : " + NQN), id.output());

            byte[] data = new byte[4096];
            new Random(17).nextBytes(data);
            Path w = PerftestPair.outputDir().resolve("nvmeof.write.bin");
            Path r = PerftestPair.outputDir().resolve("nvmeof.read.bin");
            Files.write(w, data);
            Files.deleteIfExists(r);
            List<String> io = List.of("-n", NQN, "-i", "2", "--start-block", "8", "--block-count", "7", "--data-size", "4096");
            Run wr = jrdma("write", "write", concat(io, "--data", w.toString()));
            assertEquals(0, wr.rc(), wr.output());
            assertTrue(wr.output().contains("write: Success"), wr.output());
            Run rd = jrdma("read", "read", concat(io, "--data", r.toString()));
            assertEquals(0, rd.rc(), rd.output());
            assertTrue(rd.output().contains("read: Success"), rd.output());
            assertArrayEquals(data, Files.readAllBytes(r), "the 4 KiB read back from blocks 8..15 differ from those written");
        } finally {
            lab.run(60, "g1", "nvmet-target down");
        }
    }

    private static List<String> concat(List<String> a, String... b) {
        List<String> l = new ArrayList<>(a);
        l.addAll(List.of(b));
        return l;
    }
}
