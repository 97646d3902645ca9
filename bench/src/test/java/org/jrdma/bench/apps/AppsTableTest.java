package org.jrdma.bench.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link AppsTable} with tiny runs on loopback (jrxe0/jrxe1, jsiw0/jsiw1 on a random 127.x pair):
 * every row of the table is there and has its numbers (throughput positive, CPU finite, latency
 * where the workload has one, ratios against its TCP row), the lab rows carry their note, and the
 * three formats name every row. No timing is asserted: the machine is shared. The one exception
 * accepted: a raw-verbs row whose RC QP exhausted its retries, only while the load average is above
 * four times the cores (a starved peer; see {@code RawVerbs}).
 */
class AppsTableTest {
    private static AppsTable.Devices devices;

    @BeforeAll
    static void pickLoopbackPair() {
        for (int attempt = 0; ; attempt++) {
            String net = "127." + ThreadLocalRandom.current().nextInt(1, 255) + "." + ThreadLocalRandom.current().nextInt(0, 256) + ".";
            try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(net + "1", 4791));
                 DatagramSocket b = new DatagramSocket(new InetSocketAddress(net + "2", 4791))) {
                System.setProperty("jrdma.devices", "jrxe0=" + net + "1,jrxe1=" + net + "2,jsiw0=" + net + "3,jsiw1=" + net + "4");
                devices = AppsTable.Devices.fromProperty();
                return;
            } catch (IOException e) {
                if (attempt > 50) {
                    throw new AssertionError("no free loopback pair");
                }
            }
        }
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void tinyRunsFillEveryRow() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<Row> rows = AppsTable.measure(AppsTable.Config.tiny(), devices, new PrintStream(log, true, StandardCharsets.UTF_8));
        String text = TableFormat.text(rows);
        System.out.println(text);

        // 3 raw latency + 3 raw bandwidth + 4 KV + 2 x 3 RPC + 4 file, then 5 lab rows
        assertEquals(25, rows.size(), text);
        List<Row> lab = rows.stream().filter(r -> r.transport().startsWith("lab")).toList();
        assertEquals(5, lab.size(), text);
        lab.forEach(r -> assertEquals(AppsTable.LAB_NOTE, r.note(), text));
        // A raw-verbs run may fail RC's retries when the machine is overloaded (a soft QP's peer starved of
        // a core for half a second, RawVerbs.ATTEMPTS times); accepted only then, and only that failure.
        double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        boolean overloaded = load > 4.0 * Runtime.getRuntime().availableProcessors();
        for (Row r : rows) {
            if (!r.measured() && !lab.contains(r)) {
                assertTrue(overloaded && r.workload().startsWith("WRITE") && r.note().contains("retry counter exceeded"),
                        "only a raw-verbs row may fail, with RC's retries exhausted, at load > 4 x cores (load " + load + "): "
                                + r.workload() + " / " + r.transport() + "\n" + text);
                System.out.println("AppsTableTest: at load " + load + ", " + r.workload() + " / " + r.transport() + ": " + r.note());
            }
        }
        List<Row> measured = rows.stream().filter(Row::measured).toList();
        for (Row r : measured) {
            String what = r.workload() + " / " + r.transport() + "\n" + text;
            assertTrue(r.throughput() > 0 && Double.isFinite(r.throughput()), "throughput: " + what);
            // CPU time comes in clock ticks on some kernels: a tiny run of a starved process may show 0
            assertTrue(r.cpu() >= 0 && Double.isFinite(r.cpu()), "CPU: " + what);
            assertNotNull(r.copies(), what);
            boolean stream = r.workload().startsWith("WRITE bw") || r.workload().startsWith("file");
            assertEquals(!stream, r.hasLatency(), "latency present only where the workload has one: " + what);
            if (!stream) {
                assertTrue(r.p50Us() > 0 && r.p99Us() >= r.p50Us(), "p50 <= p99: " + what);
            }
            if (r.transport().startsWith("TCP")) {
                assertTrue(r.baseline() == null, what);
            } else {
                assertNotNull(r.baseline(), "an RDMA row has its TCP row: " + what);
                assertTrue(Double.isFinite(r.throughputRatio()), "ratio: " + what);
            }
        }
        for (String transport : List.of(AppsTable.RXE, AppsTable.SIW)) {     // lat, bw, KV, RPC x1, RPC xN, file
            assertEquals(6, rows.stream().filter(r -> r.transport().equals(transport)).count(), transport + "\n" + text);
        }
        assertEquals(8, measured.stream().filter(r -> r.transport().startsWith("TCP")).count(), text);

        assertFalse(text.contains("NaN"), text);
        String csv = TableFormat.csv(rows);
        String md = TableFormat.markdown(rows);
        assertEquals(rows.size() + 1, csv.split("\n").length, csv);
        assertEquals(rows.size() + 2, md.split("\n").length, md);
        for (Row r : rows) {
            assertTrue(csv.contains(r.transport()) && md.contains(r.workload()), r.workload() + "\n" + csv + md);
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void copiesAreCountedPerLayerAndHardwareKeepsOnlyTheApplicationsAndTheFilesCopies() {
        assertEquals("4 (0+0+2+2)", Copies.WRITE_RXE.toString());
        assertEquals(0, Copies.WRITE_RXE.onHardware(0).total());
        assertEquals(1, Copies.KV_READ.onHardware(0).total());
        assertEquals(2, Copies.FILE_RDMA.onHardware(2).total());
        assertTrue(Copies.KV_READ.total() < Copies.KV_TCP.total());
        assertEquals("8 (4+0+0+4)", Copies.RPC_TCP.toString());         // the NIO twin: direct buffers, no JDK copy
        assertEquals("4 (0+0+0+4)", Copies.FILE_TCP.toString());
        assertTrue(Copies.FILE_TCP.total() < Copies.FILE_RDMA.total());
    }
}
