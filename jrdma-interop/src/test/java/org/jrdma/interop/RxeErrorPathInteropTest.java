package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jrdma.interop.Tools.Family;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RC error paths with Linux rdma_rxe as the peer (issue 4), over IPv4 (rxe GID index 1, jrdma's raw
 * IPv4 port). Linux's packaged tools never make these errors on purpose, so the jrdma side is the
 * small verbs program {@code peer.RcPeer} ({@link Peer}), connected to a cooperating Linux program
 * through that program's own TCP exchange:
 * <ul>
 * <li>RDMA WRITE with a bad rkey to a Linux {@code ib_write_bw} server: REM_ACCESS_ERR at jrdma, and
 * Linux answered with a NAK "remote access error";</li>
 * <li>a SEND with no receive posted, jrdma the responder: a Linux {@code ibv_rc_pingpong} client
 * sends at once to a jrdma server that posts its receives a second later; Linux gets RNR NAKs
 * ({@code rcvd_rnr_err}), retries, and completes;</li>
 * <li>a SEND with no receive posted, Linux the responder: a Linux {@code ib_send_bw -n ITERS} server
 * posts its receives before the run and reposts none it does not need; jrdma sends ITERS SENDs, then
 * more until one finds the receive queue empty: RNR NAKs ({@code send_rnr_err}) until jrdma's
 * rnr_retry is exhausted: RNR_RETRY_EXC_ERR;</li>
 * <li>the peer vanishing: the Linux {@code ibv_rc_pingpong} server is killed after two ping-pongs; the
 * next SEND is retried retry_cnt times, then RETRY_EXC_ERR.</li>
 * </ul>
 * Each case keeps a capture of the bridge (checked like every run, {@link Captures}), both sides'
 * output and g1's rxe0 counter changes in {@code target/interop/error-*}.
 */
@Order(4)
class RxeErrorPathInteropTest {
    private static final Family FAMILY = Family.IPV4;
    private static final String G1_ROCE = "10.77.0.11";
    private static final String HOST_ROCE = "10.77.0.1";
    private static Lab lab;

    @BeforeEach
    void lab() throws Exception {
        if (lab == null) {
            lab = Lab.fromEnvironment();
        }
    }

    /** What one case saw: outputs, counter changes, capture verdicts. */
    private static final class Case implements AutoCloseable {
        final String name;
        final Path dir;
        final Path pcap;
        /** jrdma's own capture (-Djrdma.pcap) of the peer program's device. */
        final Path own;
        final List<String> problems = new ArrayList<>();
        final StringBuilder evidence = new StringBuilder();
        Map<String, Long> before;
        Bounded capture;
        Bounded linux;
        Path linuxOut;

        Case(String name) throws Exception {
            this.name = "error-" + name;
            this.dir = PerftestPair.outputDir();
            this.pcap = dir.resolve(this.name + ".pcap");
            this.own = dir.resolve(this.name + ".jrdma-own.pcap");
        }

        void start() throws Exception {
            before = lab.rxeCounters("g1");
            capture = lab.startCapture(pcap, dir.resolve(name + ".dumpcap.txt"));
        }

        Bounded linux(String command) throws Exception {
            linuxOut = dir.resolve(name + ".g1.txt");
            evidence.append("---- g1: ").append(command).append('\n');
            linux = Bounded.start(lab.exec(60, "g1", command), Map.of(), linuxOut);
            return linux;
        }

        void waitGuestListening(int port) throws Exception {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (linux.alive() && System.nanoTime() < deadline) {
                if (lab.guestListening("g1", port)) {
                    return;
                }
                Thread.sleep(200);
            }
            throw new AssertionError(name + ": the Linux side never listened on TCP port " + port + ": "
                    + Files.readString(linuxOut));
        }

        Bounded peer(List<String> args) throws Exception {
            Path out = dir.resolve(name + ".jrdma.txt");
            Files.deleteIfExists(own);
            List<String> cmd = Peer.command(lab, 90, own, args);
            evidence.append("---- host: RcPeer ").append(String.join(" ", args)).append("   (env ")
                    .append(FAMILY.env()).append(")\n");
            return Bounded.start(cmd, FAMILY.env(), out);
        }

        Path peerOut() {
            return dir.resolve(name + ".jrdma.txt");
        }

        /** Stops the capture, runs the capture checks, takes g1's counter changes. */
        Map<String, Long> finish() throws Exception {
            Thread.sleep(300);
            capture.close();
            capture = null;
            for (Captures.Check c : Captures.checkAll(lab, pcap)) {
                problems.addAll(c.problems());
                evidence.append("capture: ").append(c.summary()).append('\n');
            }
            if (!Files.exists(own)) {
                problems.add("jrdma wrote no capture of its own (" + own.getFileName() + ", -Djrdma.pcap)");
            } else {
                for (Captures.Check c : Captures.checkAll(lab, own)) {
                    c.problems().forEach(p -> problems.add("jrdma's own capture: " + p));
                    evidence.append("jrdma's own capture: ").append(c.summary()).append('\n');
                }
            }
            Map<String, Long> delta = delta(before, lab.rxeCounters("g1"));
            Files.writeString(dir.resolve(name + ".rxe-counters.txt"), "g1 rxe0 hw_counters, change: " + delta + "\n");
            evidence.append("g1 rxe0 counter changes: ").append(delta).append('\n');
            return delta;
        }

        void check(boolean ok, String problem) {
            if (!ok) {
                problems.add(problem);
            }
        }

        void report() throws Exception {
            String peer = Files.exists(peerOut()) ? Files.readString(peerOut()) : "(no output)";
            String g1 = linuxOut != null && Files.exists(linuxOut) ? Files.readString(linuxOut) : "(no output)";
            System.out.println("interop: " + name + ": " + (problems.isEmpty() ? "ok" : "FAILED " + problems) + "; "
                    + evidence.toString().lines().filter(l -> l.startsWith("g1 rxe0") || l.startsWith("capture: tshark"))
                            .reduce((a, b) -> a + "; " + b).orElse(""));
            if (!problems.isEmpty()) {
                fail(name + ":\n  " + String.join("\n  ", problems) + "\n" + evidence + "---- jrdma output:\n" + peer
                        + "---- g1 output:\n" + g1 + "----");
            }
        }

        @Override
        public void close() throws Exception {
            if (capture != null) {
                capture.close();
            }
            if (linux != null) {
                linux.close();
            }
        }
    }

    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new TreeMap<>();
        after.forEach((k, v) -> {
            long x = v - before.getOrDefault(k, 0L);
            if (x != 0 && !k.equals("lifespan")) {
                d.put(k, x);
            }
        });
        return d;
    }

    private static boolean contains(Path f, String s) throws Exception {
        return Files.exists(f) && Files.readString(f).contains(s);
    }

    @Test
    @Timeout(150)
    void rdmaWriteWithBadRkeyGetsRemoteAccessErrorFromLinux() throws Exception {
        int port = Ports.next();
        try (Case c = new Case("write-bad-rkey")) {
            c.linux("ib_write_bw -d rxe0 -x " + FAMILY.rxeGidIndex + " -F -m 1024 -s 64 -n 5 -p " + port);
            c.waitGuestListening(port);
            c.start();
            int rc;
            try (Bounded p = c.peer(List.of("write-bad-rkey", lab.get("LAB_G1_ROCE"), Integer.toString(port)))) {
                rc = p.await(Duration.ofSeconds(90));
            }
            c.linux.close();    // the Linux server waits for the rest of the test; it is not part of the check
            Map<String, Long> d = c.finish();
            c.check(rc == 0 && contains(c.peerOut(), "peer: result REM_ACCESS_ERR"),
                    "jrdma: expected the WRITE to complete with REM_ACCESS_ERR (exit " + rc + ")");
            List<String> naks = Captures.frames(c.pcap, "ip.src == " + G1_ROCE + " && infiniband.aeth.syndrome == 0x62",
                    "frame.number", "infiniband.bth.psn");
            c.check(!naks.isEmpty(), "the capture has no NAK 'remote access error' (AETH syndrome 0x62) from Linux");
            c.check(d.getOrDefault("rcvd_pkts", 0L) >= 1,
                    "g1 rcvd_pkts did not move: rxe dropped jrdma's WRITE before its responder saw it");
            c.check(d.getOrDefault("sent_pkts", 0L) >= 1, "g1 sent_pkts did not move: no NAK sent");
            c.evidence.append("NAK remote access error from Linux: frames ").append(naks).append('\n');
            c.report();
        }
    }

    @Test
    @Timeout(150)
    void sendWithNoReceivePostedAtJrdmaGetsRnrNakThenCompletes() throws Exception {
        int port = Ports.next();
        int iters = 5;
        try (Case c = new Case("rnr-jrdma-responder")) {
            c.start();
            try (Bounded p = c.peer(List.of("pingpong-server-late-recv", Integer.toString(port), "64",
                    Integer.toString(iters), "1000"))) {
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (p.alive() && !lab.hostListening(port) && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                c.linux("ibv_rc_pingpong -d rxe0 -g " + FAMILY.rxeGidIndex + " -s 64 -n " + iters + " -p " + port + " "
                        + HOST_ROCE);
                int linuxRc = c.linux.await(Duration.ofSeconds(75));
                int rc = p.await(Duration.ofSeconds(30));
                Map<String, Long> d = c.finish();
                c.check(linuxRc == 0 && contains(c.linuxOut, iters + " iters in"),
                        "Linux ibv_rc_pingpong client: expected exit 0 and '" + iters + " iters in' (exit " + linuxRc + ")");
                c.check(rc == 0 && contains(c.peerOut(), "peer: result SUCCESS"), "jrdma: expected every completion"
                        + " SUCCESS (exit " + rc + ")");
                List<String> rnr = Captures.frames(c.pcap, "ip.src == " + HOST_ROCE
                        + " && infiniband.aeth.syndrome >= 0x20 && infiniband.aeth.syndrome <= 0x3f", "frame.number");
                c.check(!rnr.isEmpty(), "the capture has no RNR NAK from jrdma");
                c.check(d.getOrDefault("rcvd_rnr_err", 0L) >= 1, "g1 rcvd_rnr_err did not move: Linux saw no RNR NAK");
                c.evidence.append("RNR NAKs from jrdma: ").append(rnr.size()).append('\n');
                c.report();
            }
        }
    }

    @Test
    @Timeout(150)
    void sendWithNoReceivePostedAtLinuxExhaustsRnrRetry() throws Exception {
        int port = Ports.next();
        int iters = 5;
        int rnrRetry = 2;
        try (Case c = new Case("rnr-linux-responder")) {
            c.linux("ib_send_bw -d rxe0 -x " + FAMILY.rxeGidIndex + " -F -m 1024 -s 64 -n " + iters + " -p " + port);
            c.waitGuestListening(port);
            c.start();
            int rc;
            try (Bounded p = c.peer(List.of("send-rnr-exceeded", lab.get("LAB_G1_ROCE"), Integer.toString(port),
                    Integer.toString(iters), "64", Integer.toString(rnrRetry)))) {
                rc = p.await(Duration.ofSeconds(90));
            }
            c.linux.close();
            Map<String, Long> d = c.finish();
            c.check(rc == 0 && contains(c.peerOut(), "peer: result RNR_RETRY_EXC_ERR"),
                    "jrdma: expected " + iters + " SENDs SUCCESS, then (when Linux has no receive left)"
                    + " RNR_RETRY_EXC_ERR (exit " + rc + ")");
            List<String> rnr = Captures.frames(c.pcap, "ip.src == " + G1_ROCE
                    + " && infiniband.aeth.syndrome >= 0x20 && infiniband.aeth.syndrome <= 0x3f", "frame.number");
            c.check(rnr.size() == rnrRetry + 1, "expected " + (rnrRetry + 1) + " RNR NAKs from Linux (the first try and "
                    + rnrRetry + " retries), the capture has " + rnr.size());
            c.check(d.getOrDefault("send_rnr_err", 0L) == rnrRetry + 1,
                    "g1 send_rnr_err: expected " + (rnrRetry + 1) + ", changed by " + d.getOrDefault("send_rnr_err", 0L));
            c.evidence.append("RNR NAKs from Linux: ").append(rnr.size()).append('\n');
            c.report();
        }
    }

    @Test
    @Timeout(150)
    void peerVanishingGivesRetryExceeded() throws Exception {
        int port = Ports.next();
        int timeout = 14;       // 4.096 us x 2^14 = 67 ms
        int retryCnt = 3;
        Path trigger = PerftestPair.outputDir().resolve("error-peer-vanish.trigger");
        Files.deleteIfExists(trigger);
        try (Case c = new Case("peer-vanish")) {
            c.linux("ibv_rc_pingpong -d rxe0 -g " + FAMILY.rxeGidIndex + " -s 64 -n 1000 -p " + port);
            c.waitGuestListening(port);
            try (Bounded p = c.peer(List.of("pingpong-client-vanish", lab.get("LAB_G1_ROCE"), Integer.toString(port),
                    "64", trigger.toString(), Integer.toString(timeout), Integer.toString(retryCnt)))) {
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (p.alive() && !contains(c.peerOut(), "peer: ready") && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                c.check(contains(c.peerOut(), "peer: ready"), "jrdma: the first two ping-pongs did not complete");
                // the peer vanishes: lab exec's SIGTERM makes the guest kill ibv_rc_pingpong (its QP goes with it)
                c.linux.close();
                for (int i = 0; i < 50 && lab.guestHas("g1", "ibv_rc_pingpong"); i++) {
                    Thread.sleep(200);
                }
                c.check(!lab.guestHas("g1", "ibv_rc_pingpong"), "ibv_rc_pingpong still runs in g1 after the kill");
                c.start();
                Files.writeString(trigger, "go\n");
                int rc = p.await(Duration.ofSeconds(60));
                Map<String, Long> d = c.finish();
                c.check(rc == 0 && contains(c.peerOut(), "peer: result RETRY_EXC_ERR"),
                        "jrdma: expected RETRY_EXC_ERR for the SEND to the vanished peer (exit " + rc + ")");
                List<String> sent = Captures.frames(c.pcap, "ip.src == " + HOST_ROCE + " && infiniband.bth",
                        "frame.number", "infiniband.bth.psn");
                List<String> answered = Captures.frames(c.pcap, "ip.src == " + G1_ROCE + " && infiniband.bth",
                        "frame.number");
                // jrdma's tail-loss probe (issue 14) may resend the last packet once before the first ACK
                // timeout; it is not a retry (retry_cnt counts the timeouts' retransmissions) and comes at
                // most once, since no probe follows a timeout until progress. The peer prints its counters
                // at "ready" and at the end: a probe during the slow guest's ping-pongs (before the
                // capture starts) is in both and does not count here
                String out = Files.readString(c.peerOut());
                long before = counter(out, "peer: ready", "tail_loss_probes");
                long after = counter(out, "peer: counters", "tail_loss_probes");
                long probes = after - before;
                c.check(probes >= 0 && probes <= 1, "expected at most one tail-loss probe after the kill, the peer"
                        + " counted " + before + " before it and " + after + " in all");
                long expected = retryCnt + 1 + probes;
                c.check(sent.size() == expected && sent.stream().map(l -> l.split("\t")[1]).distinct().count() == 1,
                        "expected the SEND " + expected + " times with one PSN (first try + retry_cnt " + retryCnt
                        + " + " + probes + " tail-loss probe), the capture has from jrdma: " + sent);
                c.check(answered.isEmpty(), "the vanished peer answered: frames " + answered);
                c.evidence.append("after the kill, jrdma sent (frame, PSN): ").append(sent)
                        .append("; g1 answered: ").append(answered).append('\n');
                c.report();
            } finally {
                Files.deleteIfExists(trigger);
            }
        }
    }

    /** A counter from the peer's line starting with {@code line} ({@code name=N} in its map; absent is 0). */
    private static long counter(String out, String line, String name) {
        for (String l : out.split("\n")) {
            if (l.startsWith(line)) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("[{ ,]" + name + "=(\\d+)").matcher(l);
                return m.find() ? Long.parseLong(m.group(1)) : 0;
            }
        }
        return 0;
    }
}
