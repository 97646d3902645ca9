package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code jrdma udaddy} server and client as two processes on jrxe0/jrxe1 (a random loopback pair),
 * connected through jrdma's CM (SIDR over the devices' QP1): both print what Linux's udaddy prints
 * (golden: {@code testdata/udaddy/}, Linux udaddy between the lab guests over rxe0) and exit 0; a
 * client whose SIDR_REQ reaches a CM nobody listens on prints Linux's UNREACHABLE line (error 1).
 */
class UdaddyTest {
    static List<String> linux(String name) throws Exception {
        return Files.readAllLines(Path.of(System.getProperty("jrdma.testdata", "../testdata"), "udaddy", name));
    }

    /** Starts {@code server}, waits for {@code ready} in its output, runs the client; both runs. */
    private static TwoJvm.Run[] pair(List<String> server, String ready, List<String> client, String devices)
            throws Exception {
        TwoJvm.Proc s = new TwoJvm.Proc(TwoJvm.java("org.jrdma.perftest.Jrdma", server), devices);
        TwoJvm.Proc c = null;
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // ready == null: the server's device is open once its UDP 4791 is taken (its CM answers from then on)
            while ((ready != null ? !s.lines().contains(ready) : TwoJvm.free(server.contains("-a") ? server.get(server.indexOf("-a") + 1) : ""))
                    && s.process.isAlive() && System.nanoTime() < end) {
                Thread.sleep(50);
            }
            c = new TwoJvm.Proc(TwoJvm.java("org.jrdma.perftest.Jrdma", client), devices);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TwoJvm.LIMIT_SECONDS);
            TwoJvm.Run cr = c.finish(deadline);
            if (ready != null) {
                return new TwoJvm.Run[] {s.finish(Math.min(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(20))), cr};
            }
            s.process.destroyForcibly();
            return new TwoJvm.Run[] {s.finish(System.nanoTime()), cr};
        } finally {
            s.process.destroyForcibly();
            if (c != null) {
                c.process.destroyForcibly();
            }
        }
    }

    @Test
    void serverAndClientPrintWhatLinuxUdaddyPrints() throws Exception {
        String[] ip = TwoJvm.addresses();
        TwoJvm.Run[] r = pair(List.of("udaddy", "-b", ip[0], "--debug"), "rdma_listen",
                List.of("udaddy", "-s", ip[0], "-b", ip[1]), "jrxe0=" + ip[0] + ",jrxe1=" + ip[1]);
        TwoJvm.Run s = r[0];
        TwoJvm.Run c = r[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        assertEquals(linux("udaddy.g2-client.txt"), c.out());
        List<String> so = new ArrayList<>(s.out());
        so.remove("rdma_listen");
        assertEquals(linux("udaddy.g1-server.txt"), so);
    }

    @Test
    void threeConnectionsOf20MessagesOf1024Bytes() throws Exception {
        String[] ip = TwoJvm.addresses();
        List<String> opts = List.of("-c", "3", "-C", "20", "-S", "1024");
        List<String> server = new ArrayList<>(List.of("udaddy", "-b", ip[0], "--debug"));
        server.addAll(opts);
        List<String> client = new ArrayList<>(List.of("udaddy", "-s", ip[0], "-b", ip[1], "-t", "0x20"));
        client.addAll(opts);
        TwoJvm.Run[] r = pair(server, "rdma_listen", client, "jrxe0=" + ip[0] + ",jrxe1=" + ip[1]);
        assertEquals(0, r[1].exit(), r[1].text());
        assertEquals(0, r[0].exit(), r[0].text());
        assertEquals(linux("udaddy.g2-client.txt"), r[1].out());
    }

    @Test
    void nobodyListeningGivesLinuxsUnreachableLine() throws Exception {
        String[] ip = TwoJvm.addresses();
        // an rping server keeps jrxe0's CM running (as the kernel's always is) without a PS_UDP listener
        TwoJvm.Run[] r = pair(List.of("rping", "-s", "-a", ip[0], "-p", "7174"), null,
                List.of("udaddy", "-s", ip[0], "-b", ip[1]), "jrxe0=" + ip[0] + ",jrxe1=" + ip[1]);
        TwoJvm.Run c = r[1];
        assertEquals(1, c.exit(), c.text());
        assertEquals(linux("udaddy.g2-client-nobody-listens.txt"), c.out());
    }
}
