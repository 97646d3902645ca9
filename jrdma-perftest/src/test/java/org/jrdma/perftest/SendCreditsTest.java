package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jrdma.perftest.TwoJvm.Proc;
import org.jrdma.perftest.TwoJvm.Run;
import org.junit.jupiter.api.Test;

/**
 * {@code ib_send_bw -R} over iWARP uses perftest's receive credits ({@link SendCredits}): two JVMs
 * on a random loopback pair of jsiw devices, both with {@code -r 16 -t 64 -n 1000}. iWARP has no
 * RNR retry: a SEND that finds the receive queue empty ends the connection (Terminate, then both
 * sides' WRs flush), so the run completes only if the client holds back until the server's credit
 * WRITEs say it re-posted. Without credits the client, whose SENDs complete once TCP has them, ran
 * 64 ahead of a 16-deep receive queue and both sides failed with WR_FLUSH_ERR after 17 messages.
 * Against Linux perftest (which writes and expects those credits): {@code SiwPerftestInteropTest}.
 */
class SendCreditsTest {
    private static final Pattern ROW = Pattern.compile(" 65536 {6}1000 +\\d+\\.\\d\\d +\\d+\\.\\d\\d *\t\t {3}\\d+\\.\\d{6}");

    @Test
    void sendBwOverIwarpWaitsForTheReceiversCredits() throws Exception {
        String[] ip = TwoJvm.addresses();
        int port = TwoJvm.freeTcpPort();
        String devices = "jsiw0=" + ip[0] + ",jsiw1=" + ip[1];
        List<String> common = List.of("-R", "-r", "16", "-t", "64", "-n", "1000", "-F", "--jit_warm_up", "0", "-p",
                Integer.toString(port));
        List<String> server = new java.util.ArrayList<>(List.of("ib_send_bw", "-d", "jsiw0"));
        server.addAll(common);
        List<String> client = new java.util.ArrayList<>(List.of("ib_send_bw", "-d", "jsiw1"));
        client.addAll(common);
        client.add(ip[0]);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TwoJvm.LIMIT_SECONDS);
        Proc sp = new Proc(TwoJvm.java("org.jrdma.perftest.Jrdma", server), devices);
        Proc cp = null;
        try {
            while (sp.lines().stream().noneMatch(l -> l.contains("Waiting for client to connect"))) {
                if (!sp.process.isAlive() || System.nanoTime() - deadline > 0) {
                    fail("the server did not listen:\n" + sp.finish(System.nanoTime()).text());
                }
                Thread.sleep(50);
            }
            cp = new Proc(TwoJvm.java("org.jrdma.perftest.Jrdma", client), devices);
            Run c = cp.finish(deadline);
            Run s = sp.finish(c.exit() == 0 ? deadline : Math.min(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
            assertEquals(0, c.exit(), c.text());
            assertEquals(0, s.exit(), s.text());
            assertTrue(c.row(ROW) != null && s.row(ROW) != null);
        } finally {
            sp.process.destroyForcibly();
            if (cp != null) {
                cp.process.destroyForcibly();
            }
        }
    }
}
