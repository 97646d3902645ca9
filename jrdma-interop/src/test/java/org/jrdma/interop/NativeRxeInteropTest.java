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
 * the same device through the same libibverbs), and jrdma's {@code ib_write_bw} over native rxe0 in
 * g2 completes against Linux perftest's server on g1's rxe0 (RoCE v2, IPv4 GID index 1). Not here yet:
 * {@code ib_send_bw} (64 KiB SENDs; its one run here failed at the Linux server with REM_INV_REQ_ERR
 * after 4 messages, not yet diagnosed). Time limits are those of a loaded host: under emulation a
 * guest JVM took up to two minutes to start there. The runtime and module path are copied to the guests'
 * {@code /shared} first ({@link GuestJrdma}). One run per proof. Measured (2026-12-02, host load ~15
 * on 2 cores): the class 152 s (devinfo 69 s, ib_write_bw 78 s) with {@code target/guest-jdk} already
 * built; building it (jlink) took 60 s more on that host.
 */
@Order(20)
class NativeRxeInteropTest {
    private static final int SIZE = 65536;
    private static final int ITERATIONS = 50;
    private static final int LAT_ITERATIONS = 200;
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
     * {@code ib_write_bw}, {@code ib_read_bw}, {@code ib_send_bw} and {@code ib_write_lat} between
     * jrdma on native rxe0 in g2 and Linux perftest on g1's rxe0, both ways: Linux servers for the
     * four jrdma clients are started first (one port each), then one guest JVM runs the four jrdma
     * clients and then four jrdma servers ({@code jrdma batch}: a JVM start costs a minute there),
     * while g1 runs the four Linux clients against those servers, each retried while perftest says
     * "Couldn't connect" (the server is not listening yet). Every side must exit 0 and print a
     * result row with the size and iteration count asked for.
     */
    @Test
    @Timeout(900)
    void perftestToolsBothWaysAgainstLinux() throws Exception {
        Path shared = Path.of(lab.get("LAB_SHARED")).resolve(GuestJrdma.DIR).resolve("run");
        Files.createDirectories(shared);
        String g = "/shared/" + GuestJrdma.DIR + "/run";
        String g1 = lab.get("LAB_G1_ROCE");
        String g2 = lab.get("LAB_G2_ROCE");
        List<String> tools = List.of("ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_write_lat");
        StringBuilder batch = new StringBuilder();
        StringBuilder linux = new StringBuilder("R=" + g + "\n"
                + "srv() { o=$1; shift; \"$@\" >$o 2>&1; echo $? >$o.rc; }\n"
                + "cli() { o=$1; shift; i=0; while :; do \"$@\" >$o 2>&1; rc=$?; [ $rc -eq 0 ] && break;"
                + " grep -q \"Couldn't connect\" $o || break; i=$((i+1)); [ $i -lt 300 ] || break; sleep 2; done;"
                + " echo $rc >$o.rc; }\n");
        int[] ports = new int[2 * tools.size()];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = Ports.next();
        }
        for (int i = 0; i < tools.size(); i++) {
            String t = tools.get(i);
            linux.append("srv $R/linux-server-").append(t).append(".txt ").append(t).append(args(t, ports[i]))
                    .append(" &\n");
            batch.append(g).append("/jrdma-client-").append(t).append(".txt ").append(t).append(" --jit_warm_up 0")
                    .append(args(t, ports[i])).append(' ').append(g1).append('\n');
        }
        for (int i = 0; i < tools.size(); i++) {
            String t = tools.get(i);
            int port = ports[tools.size() + i];
            linux.append("cli $R/linux-client-").append(t).append(".txt ").append(t).append(args(t, port)).append(' ')
                    .append(g2).append('\n');
            batch.append(g).append("/jrdma-server-").append(t).append(".txt ").append(t).append(" --jit_warm_up 0")
                    .append(args(t, port)).append('\n');
        }
        linux.append("wait\n");
        try (var files = Files.list(shared)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.writeString(shared.resolve("g1.sh"), linux);
        Files.writeString(shared.resolve("batch.txt"), batch);
        Path dir = PerftestPair.outputDir();
        Path g1Out = dir.resolve("native-perftest.g1-linux.txt");
        Path g2Out = dir.resolve("native-perftest.g2-jrdma-batch.txt");
        long t0 = System.nanoTime();
        int brc;
        int lrc;
        try (Bounded l = Bounded.start(lab.exec(840, "g1", "sh " + g + "/g1.sh"), Map.of(), g1Out)) {
            brc = Bounded.run(lab.exec(820, "g2", jrdma + " batch " + g + "/batch.txt"), Map.of(), g2Out,
                    Duration.ofSeconds(830));
            lrc = l.await(Duration.ofSeconds(60));
        }
        System.out.println("interop: native: 4 tools both ways in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        Files.copy(shared.resolve("batch.txt"), dir.resolve("native-perftest.batch.txt"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        StringBuilder report = new StringBuilder("jrdma batch (g2) rc " + brc + ":\n" + Files.readString(g2Out)
                + "\ng1 script rc " + lrc + "\n");
        List<String> problems = new java.util.ArrayList<>();
        for (String t : tools) {
            for (String side : List.of("linux-server-", "jrdma-client-", "linux-client-", "jrdma-server-")) {
                Path f = shared.resolve(side + t + ".txt");
                List<String> out = Files.exists(f) ? Files.readAllLines(f) : List.of("(no output)");
                Files.write(dir.resolve("native-" + side + t + ".txt"), out);
                PerftestOutput.Row row = PerftestOutput.resultRow(out);
                String rc = side.startsWith("linux") && Files.exists(shared.resolve(side + t + ".txt.rc"))
                        ? Files.readString(shared.resolve(side + t + ".txt.rc")).strip() : null;
                boolean ok = row != null && row.bytes() == size(t) && row.iterations() == iterations(t)
                        && (rc == null || rc.equals("0"));
                report.append(side).append(t).append(": ").append(ok ? "ok " : "FAILED ")
                        .append(row == null ? "no result row" : row.line().strip()).append(rc == null ? "" : " rc " + rc)
                        .append('\n');
                if (!ok) {
                    problems.add(side + t + ":\n" + String.join("\n", out));
                }
            }
        }
        System.out.println("interop: native perftest:\n" + report);
        assertEquals(List.of(), problems, report.toString());
        assertEquals(0, brc, report.toString());
    }

    private static int size(String tool) {
        return tool.endsWith("_lat") ? 2 : SIZE;
    }

    private static int iterations(String tool) {
        return tool.endsWith("_lat") ? LAT_ITERATIONS : ITERATIONS;
    }

    /** Both sides' perftest arguments for {@code tool} on rxe0 (IPv4 GID index 1). */
    private static String args(String tool, int port) {
        return " -d rxe0 -x 1 " + String.join(" ", Tools.args(size(tool), iterations(tool), port));
    }
}
