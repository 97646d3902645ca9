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
    private static final int ITERATIONS = 200;
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

    @Test
    @Timeout(300)
    void ibWriteBwOnNativeRxe0CompletesAgainstLinuxPerftest() throws Exception {
        againstLinuxServer("ib_write_bw");
    }

    /** Linux perftest's {@code tool} as the server on g1's rxe0, jrdma's as the client on g2's native rxe0. */
    private static void againstLinuxServer(String tool) throws Exception {
        int port = Ports.next();
        String args = " -d rxe0 -x 1 " + String.join(" ", Tools.args(SIZE, ITERATIONS, port));
        Path dir = PerftestPair.outputDir();
        Path sOut = dir.resolve("native-" + tool + ".g1-linux-server.txt");
        Path cOut = dir.resolve("native-" + tool + ".g2-jrdma-client.txt");
        try (Bounded server = Bounded.start(lab.exec(270, "g1", tool + args), Map.of(), sOut)) {
            long deadline = System.nanoTime() + PerftestPair.SERVER_START.toNanos();
            while (!lab.guestListening("g1", port)) {
                assertTrue(server.alive() && System.nanoTime() < deadline, tool + " server on g1 did not listen on "
                        + port + ":\n" + Files.readString(sOut));
                Thread.sleep(500);
            }
            // no JIT warm-up loop: under emulation timings mean nothing, and it costs a guest's seconds
        int crc = Bounded.run(lab.exec(240, "g2", jrdma + " " + tool + " --jit_warm_up 0" + args + " "
                        + lab.get("LAB_G1_ROCE")),
                    Map.of(), cOut, Duration.ofSeconds(260));
            int src = server.await(Duration.ofSeconds(30));
            List<String> client = Files.readAllLines(cOut);
            List<String> linux = Files.readAllLines(sOut);
            assertEquals(0, crc, "jrdma " + tool + " client (native rxe0, g2):\n" + String.join("\n", client)
                    + "\nLinux server (g1):\n" + String.join("\n", linux));
            assertEquals(0, src, "Linux " + tool + " server (g1):\n" + String.join("\n", linux));
            for (List<String> out : List.of(client, linux)) {
                PerftestOutput.Row row = PerftestOutput.resultRow(out);
                assertNotNull(row, "no result row:\n" + String.join("\n", out));
                assertEquals(SIZE, row.bytes(), row.line());
                assertEquals(ITERATIONS, row.iterations(), row.line());
            }
            System.out.println("interop: native: " + tool + " g2 jrdma (native rxe0) -> g1 Linux: "
                    + PerftestOutput.resultRow(client).line().strip());
        }
    }
}
