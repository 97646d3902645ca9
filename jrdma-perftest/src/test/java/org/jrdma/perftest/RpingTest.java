package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code jrdma rping} server and client as two processes on jrxe0/jrxe1 (a random loopback pair),
 * connected by jrdma's CM over the devices' QP1: the ping text both print is rping.c's (golden: the
 * lines of {@code testdata/captures/logs/rxe-cm-rping.g1/g2.txt}, Linux rping -C 3 -S 64), every ping
 * of {@code -C 100 -S 4096 -V} is verified by the client, the server sees the disconnect as rping does.
 */
class RpingTest {
    /** rping.c's ping text: "rdma-ping-%d: " then letters from 'A' + ping, cycling 'A'..'z', the last byte NUL. */
    static String expected(int ping, int size) {
        StringBuilder sb = new StringBuilder(String.format("rdma-ping-%d: ", ping));
        int c = 65 + ping % 58;
        while (sb.length() < size - 1) {
            sb.append((char) c);
            c = c == 122 ? 65 : c + 1;
        }
        return sb.toString();
    }

    @Test
    void theExpectedTextIsLinuxs() {
        // logs/rxe-cm-rping.g2.txt
        assertEquals("rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr", expected(0, 64));
        assertEquals("rdma-ping-2: CDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrst", expected(2, 64));
    }

    static TwoJvm.Run[] pair(List<String> args) throws Exception {
        String[] ip = TwoJvm.addresses();
        String devices = "jrxe0=" + ip[0] + ",jrxe1=" + ip[1];
        int port = 20000 + (int) (System.nanoTime() % 20000);
        List<String> s = new ArrayList<>(List.of("rping", "-s", "-a", ip[0], "-p", Integer.toString(port)));
        s.addAll(args);
        TwoJvm.Proc server = new TwoJvm.Proc(TwoJvm.java("org.jrdma.perftest.Jrdma", s), devices);
        TwoJvm.Proc client = null;
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (TwoJvm.free(ip[0]) && server.process.isAlive() && System.nanoTime() < end) {
                Thread.sleep(50);   // the server's device is open once its UDP 4791 is taken
            }
            Thread.sleep(500);
            List<String> c = new ArrayList<>(List.of("rping", "-c", "-a", ip[0], "-I", ip[1], "-p", Integer.toString(port)));
            c.addAll(args);
            client = new TwoJvm.Proc(TwoJvm.java("org.jrdma.perftest.Jrdma", c), devices);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TwoJvm.LIMIT_SECONDS);
            TwoJvm.Run cr = client.finish(deadline);
            TwoJvm.Run sr = server.finish(Math.min(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(20)));
            return new TwoJvm.Run[] {sr, cr};
        } finally {
            server.process.destroyForcibly();
            if (client != null) {
                client.process.destroyForcibly();
            }
        }
    }

    @Test
    void aHundredPingsOf4096BytesVerified() throws Exception {
        TwoJvm.Run[] r = pair(List.of("-C", "100", "-S", "4096", "-v", "-V"));
        TwoJvm.Run s = r[0];
        TwoJvm.Run c = r[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        assertEquals(100, c.out().size(), c.text());
        assertEquals(100, s.out().size(), s.text());
        for (int i = 0; i < 100; i++) {
            assertEquals("ping data: " + expected(i, 4096), c.out().get(i));
            assertEquals("server ping data: " + expected(i, 4096), s.out().get(i));
        }
        assertTrue(s.err().contains("server DISCONNECT EVENT..."), s.text());
        assertTrue(s.err().contains("wait for RDMA_READ_ADV state 10"), "as Linux's rping server: " + s.text());
        assertTrue(!c.err().contains("data mismatch!"), c.text());
    }

    /** {@code -P}: a persistent server serves one client after the other (rping.c's rping_run_persistent_server) and stays. */
    @Test
    void aPersistentServerServesTwoClientsInTurn() throws Exception {
        String[] ip = TwoJvm.addresses();
        String devices = "jrxe0=" + ip[0] + ",jrxe1=" + ip[1];
        int port = 20000 + (int) (System.nanoTime() % 20000);
        TwoJvm.Proc server = new TwoJvm.Proc(TwoJvm.java("org.jrdma.perftest.Jrdma",
                List.of("rping", "-s", "-P", "-d", "-a", ip[0], "-p", Integer.toString(port))), devices);
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!server.lines().contains("rdma_listen") && server.process.isAlive() && System.nanoTime() < end) {
                Thread.sleep(50);
            }
            for (int client = 0; client < 2; client++) {
                TwoJvm.Proc c = new TwoJvm.Proc(TwoJvm.java("org.jrdma.perftest.Jrdma", List.of("rping", "-c", "-a", ip[0],
                        "-I", ip[1], "-p", Integer.toString(port), "-C", "3", "-S", "64", "-v", "-V")), devices);
                TwoJvm.Run cr = c.finish(System.nanoTime() + TimeUnit.SECONDS.toNanos(TwoJvm.LIMIT_SECONDS));
                assertEquals(0, cr.exit(), "client " + client + ": " + cr.text());
                assertEquals(List.of("ping data: " + expected(0, 64), "ping data: " + expected(1, 64),
                        "ping data: " + expected(2, 64)), cr.out(), "client " + client);
            }
            assertTrue(server.process.isAlive(), "the persistent server is still there");
        } finally {
            server.process.destroyForcibly();
        }
    }

    @Test
    void aSizeOutsideRpingsRangeIsRefusedAsRpingDoes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Jrdma.commandLine(new PrintStream(out, true), new PrintStream(err, true))
                .execute("rping", "-c", "-a", "127.0.0.1", "-S", "10");
        assertEquals(22, rc);
        assertEquals("Invalid size 10 (valid range is 26 to 65536)\n", err.toString(StandardCharsets.US_ASCII));
    }
}
