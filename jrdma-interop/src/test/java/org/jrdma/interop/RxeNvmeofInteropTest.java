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
 * 4420. Each {@code jrdma nvme} run but discover's (admin queue only) connects the admin queue and 2 I/O queues through the CM with
 * NVMe/RDMA private data, enables the controller, identifies it and its namespaces, and shuts it
 * down and disconnects at its end. The test: the discovery log lists the subsystem, line for line as
 * Linux's {@code nvme discover} in g2 prints it; id-ctrl prints Linux's controller (model "Linux",
 * the NQN); a 4 KiB write of random bytes at block 8 (the target RDMA READs them through the
 * command's memory window and answers with Send with Invalidate), read back (the target RDMA WRITEs
 * them) and compared; {@code jrdma nvme bench --rw verify}: 1,000 4 KiB writes at distinct random
 * offsets over 2 I/O queues (16 outstanding), a flush, the 1,000 reads compared. The target is removed in a
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
        long t0 = System.nanoTime();
        int rc = Bounded.run(lab.inNamespace(cmd), Tools.Family.IPV4.env(), out, Duration.ofSeconds(60));
        String o = Files.readString(out);
        System.out.printf("interop: jrdma nvme %s (%s): rc %d, %.1f s%n", sub, name, rc, (System.nanoTime() - t0) / 1e9);
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
            // Linux's nvme-cli in g2 prints the same discovery log, line for line
            Path linux = PerftestPair.outputDir().resolve("nvmeof.linux-discover.txt");
            long t0 = System.nanoTime();
            int lrc = Bounded.run(lab.exec(40, "g2", "nvme discover -t rdma -a " + g1 + " -s 4420"), java.util.Map.of(),
                    linux, Duration.ofSeconds(50));
            System.out.printf("interop: g2 nvme discover: rc %d, %.1f s%n", lrc, (System.nanoTime() - t0) / 1e9);
            assertEquals(0, lrc, Files.readString(linux));
            assertEquals(discoveryLines(Files.readString(linux)), discoveryLines(d.output()));

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

            // 1,000 random 4 KiB writes at distinct offsets over 2 I/O queues, flush, read back and compare
            Run b = jrdma("bench-verify", "bench", List.of("-n", NQN, "-i", "2", "--rw", "verify", "--bs", "4096",
                    "--iodepth", "16", "--ios", "1000"));
            assertEquals(0, b.rc(), b.output());
            assertTrue(b.output().contains("queues=2"), b.output());
            assertTrue(b.output().contains("verify: 1000 I/Os of 4096 bytes written, flushed and read back: 0 mismatches"), b.output());
        } finally {
            lab.run(60, "g1", "nvmet-target down");
        }
    }

    /** The discovery log's lines from "Discovery Log Number of Records" on (the rest is each tool's own). */
    private static List<String> discoveryLines(String out) {
        List<String> l = out.lines().map(String::stripTrailing).toList();
        int from = 0;
        while (from < l.size() && !l.get(from).startsWith("Discovery Log Number of Records")) {
            from++;
        }
        return l.subList(from, l.size()).stream().filter(x -> !x.isEmpty() && !x.startsWith("interop")).toList();
    }

    private static List<String> concat(List<String> a, String... b) {
        List<String> l = new ArrayList<>(a);
        l.addAll(List.of(b));
        return l;
    }
}
