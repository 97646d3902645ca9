package org.jrdma.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jrdma examples kv|rpc|file} in this JVM over soft RoCE (exd0 server, exd1 client) and soft
 * iWARP (jsiw80/jsiw81) on addresses of its own: each application's check passes and prints its
 * {@code examples: APP ok} line (exit 0); a client with no server fails within its bound with
 * {@code examples: APP FAILED} (exit 1).
 */
@Timeout(180)
class ExamplesTest {
    private static final String ROCE_S = "127.0.0.81";
    private static final String ROCE_C = "127.0.0.82";
    private static final String IW_S = "127.0.0.83";
    private static final String IW_C = "127.0.0.84";
    private String savedDevices;

    @BeforeEach
    void devices() {
        savedDevices = System.getProperty("jrdma.devices");
        System.setProperty("jrdma.devices", "exd0=" + ROCE_S + ",exd1=" + ROCE_C + ",jsiw80=" + IW_S + ",jsiw81=" + IW_C);
        System.setProperty("jrdma.stats.dir", "off");
    }

    @AfterEach
    void restore() {
        System.clearProperty("jrdma.stats.dir");
        if (savedDevices == null) {
            System.clearProperty("jrdma.devices");
        } else {
            System.setProperty("jrdma.devices", savedDevices);
        }
    }

    private static String run(int wantRc, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc;
        try (PrintStream p = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            String[] a = new String[args.length + 1];
            a[0] = "examples";
            System.arraycopy(args, 0, a, 1, args.length);
            rc = Jrdma.commandLine(p, p).execute(a);
        }
        String s = out.toString(StandardCharsets.UTF_8);
        assertEquals(wantRc, rc, s);
        return s;
    }

    @Test
    void theThreeApplicationsPassTheirChecksOverSoftRoce() {
        String kv = run(0, "-a", ROCE_S, "-b", ROCE_C, "-p", "7481", "-n", "60", "-t", "60", "kv");
        assertTrue(kv.startsWith("examples: kv ok (both, ") && kv.contains("60 PUTs, 61 GETs checked"), kv);
        String rpc = run(0, "-a", ROCE_S, "-b", ROCE_C, "-p", "7482", "-n", "120", "-t", "60", "rpc");
        assertTrue(rpc.startsWith("examples: rpc ok (both, ") && rpc.contains("120 calls checked"), rpc);
        String file = run(0, "-a", ROCE_S, "-b", ROCE_C, "-p", "7483", "--bytes", "200001", "-t", "60", "file");
        assertTrue(file.startsWith("examples: file ok (both, ") && file.contains("200001 bytes in 4 chunks (rdma-imm)"), file);
    }

    @Test
    void overSoftIwarpTheFileGoesByWriteThenSend() {
        String file = run(0, "-a", IW_S, "-b", IW_C, "-p", "7484", "--bytes", "70000", "-t", "60", "file");
        assertTrue(file.contains("70000 bytes in 2 chunks (rdma-send)"), file);
        String kv = run(0, "-a", IW_S, "-b", IW_C, "-p", "7485", "-n", "20", "-t", "60", "kv");
        assertTrue(kv.startsWith("examples: kv ok "), kv);
    }

    @Test
    void aClientWithNoServerFailsWithinItsBound() {
        String rpc = run(1, "-r", "client", "-a", ROCE_S, "-b", ROCE_C, "-p", "7486", "-t", "2", "rpc");
        assertTrue(rpc.startsWith("examples: rpc FAILED (client, "), rpc);
    }
}
