package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jrdma.perftest.TwoJvm.Proc;
import org.jrdma.perftest.TwoJvm.Run;
import org.junit.jupiter.api.Test;

/**
 * Issue 9 point 7: processes share a device as they share an RNIC. Several JVMs open the same
 * {@code jrxe0} / {@code jrxe1} (the same address and UDP port 4791) at once, and each one's traffic
 * reaches it: two {@code ib_write_bw} pairs at the same time (four JVMs); an application and a tool
 * on one device; and a member killed without closing, after which the others still work.
 */
class SharedDeviceProcessesTest {
    static final Pattern ROW = TwoProcessOperationsTest.bwRow(65536, 300);

    /** Starts {@code ib_write_bw ... -p port -d jrxe0} as a server and waits until it listens. */
    static Proc server(String devices, int port, List<String> args) throws Exception {
        List<String> a = new ArrayList<>(List.of("ib_write_bw"));
        a.addAll(args);
        a.addAll(List.of("-p", Integer.toString(port), "-d", "jrxe0"));
        Proc p = new Proc(TwoJvm.java("org.jrdma.perftest.Jrdma", a), devices);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!TwoJvm.listening(port)) {
            if (!p.process.isAlive() || System.nanoTime() - deadline > 0) {
                fail("the server on TCP port " + port + " did not listen:\n" + p.finish(System.nanoTime()).text());
            }
            Thread.sleep(50);
        }
        return p;
    }

    static Proc client(String devices, int port, String serverIp, List<String> args) throws Exception {
        List<String> a = new ArrayList<>(List.of("ib_write_bw"));
        a.addAll(args);
        a.addAll(List.of("-p", Integer.toString(port), "-d", "jrxe1", serverIp));
        return new Proc(TwoJvm.java("org.jrdma.perftest.Jrdma", a), devices);
    }

    static void ok(Run r, String who) {
        ok(r, who, ROW);
    }

    static void ok(Run r, String who, Pattern row) {
        assertEquals(0, r.exit(), who + ":\n" + r.text());
        r.row(row);
    }

    /** With 8 QPs perftest counts the iterations of all. */
    static final Pattern ROW_Q8 = TwoProcessOperationsTest.bwRow(65536, 8 * 300);

    static final List<String> ARGS = List.of("-n", "300", "-s", "65536", "-F");
    static final List<String> Q8 = List.of("-n", "300", "-s", "65536", "-F", "-q", "8");

    @Test
    void twoWriteBwPairsOnTheSameTwoDevicesAtOnce() throws Exception {
        String[] ip = TwoJvm.addresses();
        String devices = "jrxe0=" + ip[0] + ",jrxe1=" + ip[1];
        int p1 = TwoJvm.freeTcpPort();
        int p2 = TwoJvm.freeTcpPort();
        List<Proc> all = new ArrayList<>();
        try {
            Proc s1 = server(devices, p1, ARGS);
            all.add(s1);
            Proc s2 = server(devices, p2, ARGS);
            all.add(s2);
            Proc c1 = client(devices, p1, ip[0], ARGS);
            all.add(c1);
            Proc c2 = client(devices, p2, ip[0], ARGS);
            all.add(c2);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TwoJvm.LIMIT_SECONDS);
            ok(c1.finish(deadline), "client 1");
            ok(c2.finish(deadline), "client 2");
            ok(s1.finish(deadline), "server 1");
            ok(s2.finish(deadline), "server 2");
        } finally {
            all.forEach(p -> p.process.destroyForcibly());
        }
    }

    @Test
    void anApplicationAndAToolOnOneDevice() throws Exception {
        String[] ip = TwoJvm.addresses();
        String devices = "jrxe0=" + ip[0] + ",jrxe1=" + ip[1];
        int port = TwoJvm.freeTcpPort();
        List<Proc> all = new ArrayList<>();
        try {
            Proc app = new Proc(TwoJvm.java("org.jrdma.perftest.SharedDeviceApp", List.of("jrxe0", "120")), devices);
            all.add(app);
            long started = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!app.lines().contains("app: running")) {
                assertTrue(app.process.isAlive() && System.nanoTime() - started < 0, "the application did not run");
                Thread.sleep(50);
            }
            Proc s = server(devices, port, ARGS);
            all.add(s);
            Proc c = client(devices, port, ip[0], ARGS);
            all.add(c);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TwoJvm.LIMIT_SECONDS);
            ok(c.finish(deadline), "client");
            ok(s.finish(deadline), "server");
            assertTrue(app.process.isAlive(), "the application ended while the tool ran");
            app.process.getOutputStream().close(); // the application's input ends: it stops
            Run a = app.finish(deadline);
            assertEquals(0, a.exit(), "application:\n" + a.text());
            assertTrue(a.out().stream().anyMatch(l -> l.matches("app: \\d+ writes, QPNs \\d+ \\d+")), a.text());
        } finally {
            all.forEach(p -> p.process.destroyForcibly());
        }
    }

    /**
     * Three servers on jrxe0 (slots 0, 1, 2 in join order); the first is killed (SIGKILL: no leave),
     * so the kernel moves the third's socket to index 0 and the survivors' keepers must repair the
     * steering; then both survivors serve a client, over 8 QPs each (8 flows: without the repair
     * the third's flows would go by the kernel's hash, half of them to the second server).
     */
    @Test
    void theOthersStillWorkAfterAMemberIsKilled() throws Exception {
        String[] ip = TwoJvm.addresses();
        String devices = "jrxe0=" + ip[0] + ",jrxe1=" + ip[1];
        int p0 = TwoJvm.freeTcpPort();
        int p1 = TwoJvm.freeTcpPort();
        int p2 = TwoJvm.freeTcpPort();
        List<Proc> all = new ArrayList<>();
        try {
            Proc s0 = server(devices, p0, Q8);
            all.add(s0);
            Proc s1 = server(devices, p1, Q8);
            all.add(s1);
            Proc s2 = server(devices, p2, Q8);
            all.add(s2);
            s0.process.destroyForcibly();
            assertTrue(s0.process.waitFor(10, TimeUnit.SECONDS));
            Thread.sleep(300); // the keepers look every 50 ms
            Proc c1 = client(devices, p1, ip[0], Q8);
            all.add(c1);
            Proc c2 = client(devices, p2, ip[0], Q8);
            all.add(c2);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TwoJvm.LIMIT_SECONDS);
            ok(c1.finish(deadline), "client of the second server", ROW_Q8);
            ok(c2.finish(deadline), "client of the third server", ROW_Q8);
            ok(s1.finish(deadline), "second server", ROW_Q8);
            ok(s2.finish(deadline), "third server", ROW_Q8);
        } finally {
            all.forEach(p -> p.process.destroyForcibly());
        }
    }
}
