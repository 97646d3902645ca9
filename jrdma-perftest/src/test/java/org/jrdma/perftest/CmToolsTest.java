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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CM's tools jrdma to jrdma, as two JVMs on a random loopback pair (jrxe0 = .1 the server,
 * jrxe1 = .2 the client): {@code ib_write_bw -R}, {@code -R} on ib_read_lat, ib_send_lat, ib_atomic_bw
 * and ib_atomic_lat, {@code ib_send_bw -c UD -R} and
 * {@code ib_send_lat -c UD -R} (SIDR), {@code imm_pingpong -R} (lab-imm's sequence and
 * lines) and {@code ucmatose -c 2}. The server is ready once it printed the line that follows its
 * {@code rdma_listen}. Against Linux: {@code RxeCmToolsInteropTest} in jrdma-interop.
 */
class CmToolsTest {
    private static final Pattern BW_ROW = Pattern.compile(" 8192 {7}5 {16}\\d+\\.\\d\\d +\\d+\\.\\d\\d *\t\t {3}\\d+\\.\\d{6}");

    /** Starts the server, waits for {@code ready} in its output, runs the client to {@code ip[0]}: {server, client}. */
    private static Run[] pair(List<String> server, String ready, List<String> client) throws Exception {
        String[] ip = TwoJvm.addresses();
        String devices = "jrxe0=" + ip[0] + ",jrxe1=" + ip[1];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TwoJvm.LIMIT_SECONDS);
        List<String> s = server.stream().map(a -> a.replace("SERVER", ip[0]).replace("CLIENT", ip[1])).toList();
        List<String> c = client.stream().map(a -> a.replace("SERVER", ip[0]).replace("CLIENT", ip[1])).toList();
        Proc sp = new Proc(TwoJvm.java("org.jrdma.perftest.Jrdma", s), devices);
        Proc cp = null;
        try {
            long listenDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (sp.lines().stream().noneMatch(l -> l.contains(ready))) {
                if (!sp.process.isAlive() || System.nanoTime() - listenDeadline > 0) {
                    fail("the server did not listen:\n" + sp.finish(System.nanoTime()).text());
                }
                Thread.sleep(50);
            }
            cp = new Proc(TwoJvm.java("org.jrdma.perftest.Jrdma", c), devices);
            Run cr = cp.finish(deadline);
            Run sr = sp.finish(cr.exit() == 0 ? deadline : Math.min(deadline, System.nanoTime()
                    + TimeUnit.SECONDS.toNanos(10)));
            return new Run[] {sr, cr};
        } finally {
            sp.process.destroyForcibly();
            if (cp != null) {
                cp.process.destroyForcibly();
            }
        }
    }

    private static List<String> with(String... a) {
        return new ArrayList<>(List.of(a));
    }

    @Test
    void writeBwOverTheCm() throws Exception {
        Run[] r = pair(with("ib_write_bw", "-R", "-d", "jrxe0", "-n", "5", "-s", "8192", "-F", "--jit_warm_up", "0",
                        "-p", "19871"), "Waiting for client to connect",
                with("ib_write_bw", "-R", "-d", "jrxe1", "-n", "5", "-s", "8192", "-F", "--jit_warm_up", "0", "-p",
                        "19871", "SERVER"));
        Run s = r[0];
        Run c = r[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        assertEquals(c.row(BW_ROW), s.row(BW_ROW)); // the client's report, over the CM exchange
        assertTrue(s.has(" rdma_cm QPs\t : ON") && s.has(" Data ex. method : rdma_cm"), s.text());
        assertTrue(s.has(" Waiting for client rdma_cm QP to connect"), s.text());
        // over rdma_cm perftest prints the exchange's verb (SEND): no RKey/VAddr in the address lines
        assertTrue(c.out().stream().anyMatch(l -> l.matches(" local address: LID 0000 QPN 0x[0-9a-f]{4,6} PSN 0x[0-9a-f]+")),
                c.text());
    }

    /** A result row of {@code size} bytes and {@code iterations} iterations (BW and latency tools alike). */
    private static Pattern row(int size, int iterations) {
        return Pattern.compile(" " + size + " +" + iterations + " +\\d+\\.\\d\\d.*");
    }

    /**
     * {@code ib_send_bw -c UD -R}: the QPs "connect" through SIDR (port space UDP); the client sends to
     * the QPN and Q_Key of the SIDR_REP through the address handle of its ESTABLISHED; the server
     * receives all 5 (its own row) and reports the client's.
     */
    @Test
    void sendBwUdOverTheCm() throws Exception {
        Run[] r = pair(with("ib_send_bw", "-c", "UD", "-R", "-d", "jrxe0", "-n", "5", "-s", "1024", "-F",
                        "--jit_warm_up", "0", "-p", "19874"), "Waiting for client to connect",
                with("ib_send_bw", "-c", "UD", "-R", "-d", "jrxe1", "-n", "5", "-s", "1024", "-F", "--jit_warm_up", "0",
                        "-p", "19874", "SERVER"));
        Run s = r[0];
        Run c = r[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        assertTrue(s.out().stream().anyMatch(l -> l.startsWith(" Connection type : UD")), s.text());
        assertTrue(s.has(" rdma_cm QPs\t : ON"), s.text());
        s.row(row(1024, 5));
        c.row(row(1024, 5));
    }

    /**
     * {@code ib_send_lat -c UD -R}: the server, which sends too, learns the client's address from the
     * client's first datagram (SEND_WITH_IMM, immediate = the client's QPN; GRH); 5 ping-pongs.
     */
    @Test
    void sendLatUdOverTheCm() throws Exception {
        Run[] r = pair(with("ib_send_lat", "-c", "UD", "-R", "-d", "jrxe0", "-n", "5", "-s", "2", "-F",
                        "--jit_warm_up", "0", "-p", "19875"), "Waiting for client to connect",
                with("ib_send_lat", "-c", "UD", "-R", "-d", "jrxe1", "-n", "5", "-s", "2", "-F", "--jit_warm_up", "0",
                        "-p", "19875", "SERVER"));
        Run s = r[0];
        Run c = r[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        assertTrue(s.out().stream().anyMatch(l -> l.startsWith(" Connection type : UD")), s.text());
        s.row(row(2, 5));
        c.row(row(2, 5));
    }

    /**
     * {@code -R} on the tools the lab's runs do not cover (RxeCmToolsInteropTest runs ib_write_bw,
     * ib_read_bw, ib_send_bw, ib_write_lat): RC QPs connected by the CM, 5 iterations; the client
     * prints its row (the latency tools of READ and atomics measure on the client only; the server
     * of ib_send_lat prints its own too).
     */
    @ParameterizedTest(name = "{0} -R")
    @ValueSource(strings = {"ib_read_lat", "ib_send_lat", "ib_atomic_bw", "ib_atomic_lat"})
    void theOtherToolsOverTheCm(String tool) throws Exception {
        int port = 19876 + List.of("ib_read_lat", "ib_send_lat", "ib_atomic_bw", "ib_atomic_lat").indexOf(tool);
        int size = tool.startsWith("ib_atomic") ? 8 : 2;
        Run[] r = pair(with(tool, "-R", "-d", "jrxe0", "-n", "5", "-s", Integer.toString(size), "-F", "--jit_warm_up",
                        "0", "-p", Integer.toString(port)), "Waiting for client to connect",
                with(tool, "-R", "-d", "jrxe1", "-n", "5", "-s", Integer.toString(size), "-F", "--jit_warm_up", "0", "-p",
                        Integer.toString(port), "SERVER"));
        Run s = r[0];
        Run c = r[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        assertTrue(s.has(" rdma_cm QPs\t : ON"), s.text());
        c.row(row(size, 5));
        if (tool.equals("ib_send_lat")) {
            s.row(row(size, 5));
        }
    }

    @Test
    void immPingpongOverTheCmIsLabImm() throws Exception {
        Run[] r = pair(with("imm_pingpong", "-R", "-v", "-d", "jrxe0", "-p", "19872"), "listening on",
                with("imm_pingpong", "-R", "-d", "jrxe1", "-p", "19872", "SERVER"));
        Run s = r[0];
        Run c = r[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        // the lines of lab-imm's own run between two Linux guests (testdata/captures/logs/rxe-rc-imm.g1.txt, .g2.txt)
        assertEquals(List.of("recv: opcode=RECV byte_len=64 imm=0x11111111 data=ok",
                "recv: opcode=RECV byte_len=3000 imm=0x22222222 data=ok",
                "recv: opcode=RECV_RDMA_WITH_IMM byte_len=64 imm=0x33333333 data=ok",
                "recv: opcode=RECV_RDMA_WITH_IMM byte_len=3000 imm=0x44444444 data=ok",
                "recv: opcode=RECV byte_len=4 imm=(none) 0x00000000 data=bye!"),
                s.out().stream().filter(l -> l.startsWith("recv: ")).toList(), s.text());
        assertEquals(List.of("SEND_WITH_IMM 64 B imm 0x11111111: completed", "SEND_WITH_IMM 3000 B imm 0x22222222: completed",
                "RDMA_WRITE_WITH_IMM 64 B imm 0x33333333: completed", "RDMA_WRITE_WITH_IMM 3000 B imm 0x44444444: completed",
                "SEND 4 B \"bye!\": completed"), c.out().stream().filter(l -> l.endsWith(": completed")).toList(), c.text());
        String adv = s.out().stream().filter(l -> l.startsWith("server: jrxe0, advertised ")).findFirst().orElseThrow();
        String got = c.out().stream().filter(l -> l.startsWith("client: jrxe1, server buffer ")).findFirst().orElseThrow();
        assertEquals(adv.substring(adv.indexOf("addr=")), got.substring(got.indexOf("addr=")));
    }

    @Test
    void ucmatoseWithTwoConnections() throws Exception {
        Run[] r = pair(with("ucmatose", "-d", "-b", "SERVER", "-p", "19873", "-c", "2", "-C", "5"), "cmatose: listening on",
                with("ucmatose", "-s", "SERVER", "-b", "CLIENT", "-p", "19873", "-c", "2", "-C", "5"));
        Run s = r[0];
        Run c = r[1];
        assertEquals(0, c.exit(), c.text());
        assertEquals(0, s.exit(), s.text());
        // cmatose.c's lines in order (rdma-core 44)
        assertEquals(List.of("cmatose: starting server", "cmatose: listening on " + s.out().get(1).substring(22),
                "initiating data transfers", "completing sends", "receiving data transfers", "data transfers complete",
                "cmatose: disconnecting", "disconnected", "test complete", "return status 0"), s.out(), s.text());
        assertEquals(List.of("cmatose: starting client", "cmatose: connecting", "receiving data transfers",
                "sending replies", "data transfers complete", "test complete", "return status 0"), c.out(), c.text());
    }
}
