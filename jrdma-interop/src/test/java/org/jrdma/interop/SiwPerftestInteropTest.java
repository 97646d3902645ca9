package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * perftest over iWARP with rdma_cm (issue 12): jrdma's tools on jsiw0 (10.77.1.1) against
 * Linux perftest 4.5 on siw0 in g1 (10.77.1.11), each in both roles; every connection a TCP
 * connection, MPA revision 2 request/reply, and RDMAP/DDP over it.
 * <ul>
 *   <li>{@code ib_write_bw -R}, {@code ib_read_bw -R}, {@code ib_send_bw -R}, {@code ib_write_lat -R},
 *       at {@code -s 2} and {@code -s 65536} ({@link #full()}; CI: 65536 for the bandwidth tools, 2 for the latency one), {@code -n 5}, over IPv4 (perftest 4.5's {@code -R} resolves
 *       AF_INET only; {@code SiwRpingInteropTest} gives the IPv6 proof): both sides exit 0 with a result row
 *       for the size and iterations, MPA CRC off (siw's default);</li>
 *   <li>{@code ib_write_bw -R -s 65536} with MPA CRC on, both ways: jrdma asks for CRC
 *       ({@code -Djrdma.iwarp.mpaCrcRequired=true}); siw's default image ({@code mpa_crc_required=0,
 *       mpa_crc_strict=0}) honours a request or reply with C set, so every FPDU carries a CRC32c, which
 *       the capture checks confirm;</li>
 *   <li>{@code ib_write_bw -R -s 65536 -n 100} with {@code netem loss 1%} on g1's eth1 (removed in a
 *       finally), both ways: TCP recovers and both complete; the bandwidth is printed ({@code interop:} line)
 *       and in {@code target/interop/results.tsv}.</li>
 * </ul>
 * Every run is in one capture of the bridge's TCP traffic, checked at the end ({@link IwarpCaptures}:
 * roce.py mpa, pcap-check, tshark's iWARP dissectors).
 *
 * <p>CI time: the whole matrix ({@code -Djrdma.interop.iwarp.full=true}, 20 runs) took 518 s here one
 * after the other (16 to 29 s a run, jrdma as client the longer, most of it waiting for the JVM, the
 * emulated guest and lab exec); so CI runs one size per tool (12 runs): 201.8 s for the class on
 * 2026-12-02, capture check included (8 s); with netem loss 1% ib_write_bw -s 65536 -n 100 gave 4.76 MB/s
 * average (jrdma client, loss on g1's ACKs) and 0.85 MB/s (jrdma server, loss on g1's data). Running a test's runs at the
 * same time failed under the shared machine's load (35): JVMs and the guest then took over 60 s to
 * listen.
 */
@Order(8)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SiwPerftestInteropTest {
    static final int ITERATIONS = 5;
    static final int LOSS_ITERATIONS = 100;
    static final List<String> TOOLS = List.of("ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_write_lat");
    /** A process' limit on either side. */
    static final Duration LIMIT = Duration.ofSeconds(75);

    private static Lab lab;
    private static IwarpCaptures capture;

    @BeforeAll
    static void labAndCapture() throws Exception {
        lab = Lab.fromEnvironment();
        assumeTrue(Tools.jrdmaCommands().contains("ib_write_bw"), "bin/jrdma has no ib_write_bw");
        lab.ensureGuestsAlive();
        capture = IwarpCaptures.start(lab, "siw-perftest");
    }

    @AfterAll
    static void stopCapture() throws InterruptedException {
        if (capture != null) {
            capture.stop();
        }
    }

    private static PerftestPair.Result run(String tool, int size, int iterations, boolean jrdmaClient, boolean crc,
            boolean lossy, String tag) throws IOException, InterruptedException {
        int port = Ports.next();
        List<String> args = List.of("-R", "-F", "-s", Integer.toString(size), "-n", Integer.toString(iterations),
                "-p", Integer.toString(port));
        Tools.SiwPair pair = Tools.withSiwOnG1(lab, tool, args, jrdmaClient, Tools.siwEnv(lab.get("LAB_HOST_IW"), crc),
                LIMIT);
        String name = tool + "-R-s" + size + tag + ".ipv4." + pair.roles();
        capture.add(port, name, lossy, crc);
        PerftestPair.Result r = PerftestPair.run(name, port, pair.server(), pair.client());
        PerftestPair.assertBothCompleted(r, pair.server(), pair.client(), size, iterations);
        return r;
    }

    /**
     * Whether to run the whole matrix ({@code -Djrdma.interop.iwarp.full=true}): both sizes of every tool.
     * Without it (CI) each tool runs at one size, both ways: the bandwidth tools at 65536 B (several FPDUs
     * per message), ib_write_lat at 2 B.
     */
    static boolean full() {
        return Boolean.getBoolean("jrdma.interop.iwarp.full");
    }

    static Stream<Arguments> runs() {
        List<Arguments> a = new ArrayList<>();
        for (String tool : TOOLS) {
            boolean lat = tool.endsWith("_lat");
            for (int size : full() ? new int[] {2, 65536} : new int[] {lat ? 2 : 65536}) {
                for (String role : List.of("client", "server")) {
                    a.add(Arguments.of(tool, size, role));
                }
            }
        }
        return a.stream();
    }

    @ParameterizedTest(name = "{0} -R -s {1} -n " + ITERATIONS + " over IPv4: jrdma {2}")
    @MethodSource("runs")
    @Order(1)
    @Timeout(value = 150)
    void perftestOverIwarp(String tool, int size, String jrdmaRole) throws Exception {
        lab.ensureGuestsAlive();
        run(tool, size, ITERATIONS, jrdmaRole.equals("client"), false, false, "");
    }

    @ParameterizedTest(name = "ib_write_bw -R -s 65536 -n " + ITERATIONS + ", MPA CRC asked by jrdma: jrdma {0}")
    @CsvSource({"client", "server"})
    @Order(2)
    @Timeout(value = 150)
    void writeBwWithMpaCrc(String jrdmaRole) throws Exception {
        run("ib_write_bw", 65536, ITERATIONS, jrdmaRole.equals("client"), true, false, ".crc");
    }

    /** netem loss 1% on g1's eth1: g1's egress, its data when it sends, its ACKs when jrdma sends. */
    @ParameterizedTest(name = "ib_write_bw -R -s 65536 -n " + LOSS_ITERATIONS + ", netem loss 1% on g1's eth1: jrdma {0}")
    @CsvSource({"client", "server"})
    @Order(3)
    @Timeout(value = 180)
    void writeBwWithLoss(String jrdmaRole) throws Exception {
        lab.run(20, "g1", "tc qdisc add dev eth1 root netem loss 1%");
        PerftestPair.Result r;
        try {
            r = run("ib_write_bw", 65536, LOSS_ITERATIONS, jrdmaRole.equals("client"), false, true, ".loss1pct");
        } finally {
            lab.run(20, "g1", "tc qdisc del dev eth1 root");
        }
        PerftestOutput.Row row = PerftestOutput.resultRow(r.clientOut());
        System.out.println("interop: " + r.name() + ": with netem loss 1% on g1's eth1: "
                + (row == null ? "(no row)" : row.line().strip()));
    }

    /** The capture of every run above passes the three checkers; the CRC runs carry right CRCs, the others none. */
    @Test
    @Order(4)
    @Timeout(value = 240)
    void captureOfEveryRunDecodes() throws Exception {
        assumeTrue(!capture.runs().isEmpty(), "no run was captured");
        IwarpCaptures.Result res = capture.check();
        List<String> problems = res.problems();
        System.out.println("interop: siw-perftest capture " + capture.file().getFileName() + ": " + res.summary());
        if (!problems.isEmpty()) {
            fail("capture " + capture.file() + ":\n  " + String.join("\n  ", problems));
        }
    }
}
