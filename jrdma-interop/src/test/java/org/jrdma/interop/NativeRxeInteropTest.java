package org.jrdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The native provider (issue 13) on the kernel's rxe0 inside guest g2, against Linux: jrdma's
 * {@code devinfo -d rxe0} there prints what the guest's {@code ibv_devinfo -d rxe0} prints (both read
 * the same device through the same libibverbs), and {@link #toolsBothWaysAgainstLinux} runs
 * {@code ib_write_bw}, {@code ib_read_bw}, {@code ib_send_bw}, {@code ib_write_lat}, {@code rping}
 * and {@code ib_write_bw -R} (librdmacm behind {@code org.jrdma.cm}) both ways against Linux on g1's
 * rxe0. Time limits are those of a loaded host: under emulation a guest JVM took minutes to start
 * there, so all jrdma sides share one guest JVM ({@code jrdma batch}). The runtime and module path
 * are copied to the guests' {@code /shared} first ({@link GuestJrdma}). One run per proof.
 *
 * <p>Measured (2026-12-02, host load 17-30 on 2 cores): one run of {@link #toolsBothWaysAgainstLinux}:
 * all 12 exchanges passed on both sides (24 outputs with their result rows, every rc 0); the guest
 * JVM's batch took 298 s (the first run, cold, 67 s; each later one 2-30 s); devinfo passed; the
 * class 367 s, over the 4 min budget at that load (not measured on a quiet machine). Its rping check then
 * read only the client's "ping data" lines (the servers print "server ping data"), fixed since,
 * without a second run. The REM_INV_REQ_ERR of ib_send_bw seen in the session before did not recur
 * (here and in a 64 KiB x 200 run by hand).
 */
@Order(20)
class NativeRxeInteropTest {
    private static final int SIZE = 65536;
    private static final int ITERATIONS = 50;
    private static final int LAT_ITERATIONS = 200;
    private static final int RPING_COUNT = 3;
    private static Lab lab;
    private static String jrdma;

    @BeforeAll
    static void install() throws Exception {
        lab = Lab.fromEnvironment();
        lab.ensureGuestsAlive();
        long t0 = System.nanoTime();
        jrdma = GuestJrdma.install(lab);
        System.out.println("interop: native: guest runtime installed in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
    }

    @Test
    @Timeout(300)
    void devinfoOnNativeRxe0IsWhatIbvDevinfoPrints() throws Exception {
        Path dir = PerftestPair.outputDir();
        Path jOut = dir.resolve("native-devinfo.g2.jrdma.txt");
        Path lOut = dir.resolve("native-devinfo.g2.ibv.txt");
        int jrc = Bounded.run(lab.exec(240, "g2", jrdma + " devinfo -d rxe0"), Map.of(), jOut, Duration.ofSeconds(260));
        int lrc = Bounded.run(lab.exec(30, "g2", "ibv_devinfo -d rxe0"), Map.of(), lOut, Duration.ofSeconds(45));
        String j = Files.readString(jOut);
        String l = Files.readString(lOut);
        assertEquals(0, lrc, "ibv_devinfo -d rxe0:\n" + l);
        assertEquals(0, jrc, "jrdma devinfo -d rxe0 (native):\n" + j);
        assertTrue(j.startsWith("hca_id:\trxe0\n"), j);
        assertEquals(l.strip(), j.strip(), "jrdma devinfo (native) vs ibv_devinfo on g2's rxe0");
    }

    /**
     * One exchange between jrdma on native rxe0 in g2 and Linux in g1: the server's and the
     * client's command (without output redirection), whether jrdma is the server, and how to read
     * the outcome ({@code perftest}: a result row of {@code bytes} and {@code iterations}; else
     * rping's "ping data" lines).
     */
    private record Run(String name, String linux, String jrdma, boolean jrdmaServer, boolean perftest, int bytes,
                       int iterations) {
    }

    /**
     * Issue 13's tools between jrdma on native rxe0 in g2 and Linux on g1's rxe0, both ways:
     * {@code ib_write_bw}, {@code ib_read_bw}, {@code ib_send_bw}, {@code ib_write_lat} (perftest's
     * TCP exchange, IPv4 GID index 1), {@code rping} and {@code ib_write_bw -R} (the CM: librdmacm
     * behind {@code org.jrdma.cm} in g2, Linux's rdma_cm in g1). The Linux servers are started first
     * (a port each); one guest JVM runs every jrdma side in turn ({@code jrdma batch}: a JVM start
     * costs a minute or more there), first the servers (they wait without a time limit while the cold
     * JVM is slow), then the clients, while g1 runs the Linux
     * clients against those servers in the same order, each retried every 2 s (at most 250 times)
     * until it succeeds, since it cannot see when the next jrdma server listens. Every side must
     * exit 0 (a Linux client within its tries) and print its result (a perftest row with the size
     * and iteration count asked for; rping's "ping data" lines).
     */
    @Test
    @Timeout(1200)
    void toolsBothWaysAgainstLinux() throws Exception {
        String g1 = lab.get("LAB_G1_ROCE");
        String g2 = lab.get("LAB_G2_ROCE");
        List<Run> runs = new java.util.ArrayList<>();
        for (boolean jrdmaServer : new boolean[] {true, false}) {
            String peer = jrdmaServer ? "" : " " + g1;
            String linuxPeer = jrdmaServer ? " " + g2 : "";
            for (String t : List.of("ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_write_lat")) {
                int size = t.endsWith("_lat") ? 2 : SIZE;
                int iters = t.endsWith("_lat") ? LAT_ITERATIONS : ITERATIONS;
                String a = " -d rxe0 -x 1 " + String.join(" ", Tools.args(size, iters, Ports.next()));
                runs.add(new Run(t, t + a + linuxPeer, t + " --jit_warm_up 0" + a + peer, jrdmaServer, true, size, iters));
            }
            String a = " -d rxe0 -R -F -s " + SIZE + " -n " + ITERATIONS + " -p " + Ports.next();
            runs.add(new Run("ib_write_bw-R", "ib_write_bw" + a + linuxPeer, "ib_write_bw --jit_warm_up 0" + a + peer,
                    jrdmaServer, true, SIZE, ITERATIONS));
            String server = jrdmaServer ? g2 : g1;
            String r = " -a " + server + " -p " + Ports.next() + " -C " + RPING_COUNT + " -v";
            runs.add(new Run("rping", "rping " + (jrdmaServer ? "-c" : "-s") + r, "rping " + (jrdmaServer ? "-s" : "-c") + r,
                    jrdmaServer, false, 0, 0));
        }
        Path shared = Path.of(lab.get("LAB_SHARED")).resolve(GuestJrdma.DIR).resolve("run");
        Files.createDirectories(shared);
        try (var files = Files.list(shared)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        String g = "/shared/" + GuestJrdma.DIR + "/run";
        StringBuilder linux = new StringBuilder("R=" + g + "\n"
                + "srv() { o=$1; shift; \"$@\" >$o 2>&1; echo $? >$o.rc; }\n"
                + "cli() { o=$1; shift; i=1; while :; do \"$@\" >$o 2>&1; rc=$?; [ $rc -eq 0 ] && break;"
                + " [ $i -lt 250 ] || break; i=$((i+1)); sleep 2; done; echo $rc >$o.rc; echo $i >$o.tries; }\n");
        StringBuilder batch = new StringBuilder();
        for (Run run : runs) {
            String file = file(run, true);
            if (!run.jrdmaServer()) {
                linux.append("srv $R/").append(file).append(' ').append(run.linux()).append(" &\n");
            }
            batch.append(g).append('/').append(file(run, false)).append(' ').append(run.jrdma()).append('\n');
        }
        for (Run run : runs) {
            if (run.jrdmaServer()) {
                linux.append("cli $R/").append(file(run, true)).append(' ').append(run.linux()).append('\n');
            }
        }
        linux.append("wait\n");
        Files.writeString(shared.resolve("g1.sh"), linux);
        Files.writeString(shared.resolve("batch.txt"), batch);
        Path dir = PerftestPair.outputDir();
        Path g1Out = dir.resolve("native-tools.g1-linux.txt");
        Path g2Out = dir.resolve("native-tools.g2-jrdma-batch.txt");
        long t0 = System.nanoTime();
        int brc;
        int lrc;
        try (Bounded l = Bounded.start(lab.exec(1140, "g1", "sh " + g + "/g1.sh"), Map.of(), g1Out)) {
            brc = Bounded.run(lab.exec(1100, "g2", jrdma + " batch " + g + "/batch.txt"), Map.of(), g2Out,
                    Duration.ofSeconds(1110));
            // a Linux server whose jrdma client never came waits forever: await kills the job then
            lrc = l.await(Duration.ofSeconds(60));
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        Files.copy(shared.resolve("batch.txt"), dir.resolve("native-tools.batch.txt"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        StringBuilder report = new StringBuilder("jrdma batch (g2) rc " + brc + " in " + ms + " ms:\n"
                + Files.readString(g2Out) + "g1 script rc " + lrc + "\n");
        List<String> problems = new java.util.ArrayList<>();
        for (Run run : runs) {
            for (boolean linuxSide : new boolean[] {true, false}) {
                String name = file(run, linuxSide);
                Path f = shared.resolve(name);
                List<String> out = Files.exists(f) ? Files.readAllLines(f) : List.of("(no output)");
                Files.write(dir.resolve("native-" + name), out);
                Path rcFile = shared.resolve(name + ".rc");
                String rc = linuxSide ? (Files.exists(rcFile) ? Files.readString(rcFile).strip() : "none") : null;
                Path triesFile = shared.resolve(name + ".tries");
                String tries = Files.exists(triesFile) ? " after " + Files.readString(triesFile).strip() + " tries" : "";
                String result;
                boolean ok;
                if (run.perftest()) {
                    PerftestOutput.Row row = PerftestOutput.resultRow(out);
                    ok = row != null && row.bytes() == run.bytes() && row.iterations() == run.iterations();
                    result = row == null ? "no result row" : row.line().strip();
                } else {
                    // the client prints "ping data: rdma-ping-N: ...", the server "server ping data: ..."
                    long pings = out.stream().filter(x -> x.contains("ping data: rdma-ping-")).count();
                    ok = pings >= 1;
                    result = pings + " ping data lines";
                }
                ok &= rc == null || rc.equals("0");
                report.append(name).append(": ").append(ok ? "ok, " : "FAILED, ").append(result)
                        .append(rc == null ? "" : ", rc " + rc + tries).append('\n');
                if (!ok) {
                    problems.add(name + ":\n" + String.join("\n", out));
                }
            }
        }
        System.out.println("interop: native tools:\n" + report);
        assertEquals(List.of(), problems, report.toString());
        assertEquals(0, brc, report.toString());
    }

    /** The output file of one side of a run. */
    private static String file(Run run, boolean linuxSide) {
        boolean server = linuxSide != run.jrdmaServer();
        return (linuxSide ? "linux-" : "jrdma-") + (server ? "server-" : "client-") + run.name() + ".txt";
    }
}
