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
 * every row of the table is there and every measured row has its numbers (throughput and CPU
 * positive and finite; latency where the workload has one), the lab rows carry their note, and the
 * three formats name every row. No timing is asserted: the machine is shared.
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
        List<Row> measured = rows.stream().filter(Row::measured).toList();
        assertEquals(20, measured.size(), text);
        for (Row r : measured) {
            String what = r.workload() + " / " + r.transport() + "\n" + text;
            assertTrue(r.throughput() > 0 && Double.isFinite(r.throughput()), "throughput: " + what);
            assertTrue(r.cpu() > 0 && Double.isFinite(r.cpu()), "CPU: " + what);
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
                assertTrue(Double.isFinite(r.throughputRatio()) && Double.isFinite(r.cpuRatio()), "ratios: " + what);
            }
        }
        for (String transport : List.of(AppsTable.RXE, AppsTable.SIW)) {     // lat, bw, KV, RPC x1, RPC xN, file
            assertEquals(6, measured.stream().filter(r -> r.transport().equals(transport)).count(), transport + "\n" + text);
        }
        rows.stream().filter(r -> !r.measured()).forEach(r -> assertEquals(AppsTable.LAB_NOTE, r.note(), text));

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
    }
}
