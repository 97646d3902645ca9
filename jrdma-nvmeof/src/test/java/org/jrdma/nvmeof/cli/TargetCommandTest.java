package org.jrdma.nvmeof.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code jrdma nvme target} on soft RoCE (jrxe0) bounded by {@code -t}, and {@code jrdma nvme discover}
 * and {@code jrdma nvme bench --rw verify} from jrxe1 against it, all through the command line.
 */
@Timeout(120)
class TargetCommandTest {
    private static final String NET = pick();

    private static String pick() {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        String net = "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + ".";
        System.setProperty("jrdma.devices", "jrxe0=" + net + "1,jrxe1=" + net + "2");
        return net;
    }

    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = NvmeCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute(args);
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }

    @Test
    void aTargetOnTheCommandLineServesDiscoverAndVerifiedIo() throws Exception {
        String nqn = "nqn.2026-01.org.jrdma:cli";
        CompletableFuture<String[]> target = CompletableFuture.supplyAsync(() -> run("target", "-a", NET + "1", "-s", "4421",
                "-n", nqn, "--size", "8,1", "-t", "25"));
        Thread.sleep(1500);
        String[] d = run("discover", "-t", "rdma", "-a", NET + "1", "-s", "4421", "-w", NET + "2");
        assertEquals("0", d[0], d[2]);
        assertTrue(d[1].contains("Discovery Log Number of Records 2, Generation counter 1"), d[1]);
        assertTrue(d[1].contains("subtype: nvme subsystem\n") && d[1].contains("subnqn:  " + nqn + "\n"), d[1]);
        assertTrue(d[1].contains("traddr:  " + NET + "1\n") && d[1].contains("trsvcid: 4421\n"), d[1]);
        String[] b = run("bench", "-t", "rdma", "-a", NET + "1", "-s", "4421", "-w", NET + "2", "-n", nqn, "--rw", "verify",
                "--ios", "300", "--iodepth", "8");
        assertEquals("0", b[0], b[1] + b[2]);
        assertTrue(b[1].contains("300 I/Os of 4096 bytes written, flushed and read back: 0 mismatches"), b[1]);
        String[] t = target.get(60, TimeUnit.SECONDS);
        assertEquals("0", t[0], t[2]);
        assertTrue(t[1].startsWith("nvmet: " + nqn + " at " + NET + "1:4421 (rdma), 2 namespace(s)"), t[1]);
        assertTrue(t[1].contains(" 0 error statuses, 0 transport errors"), t[1]);
    }
}
