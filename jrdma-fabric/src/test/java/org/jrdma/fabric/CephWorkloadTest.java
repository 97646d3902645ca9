package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Ceph read workload in small (4 OSDs, 4 clients): every read issued is served and measured;
 * with a fixed OSD service time no read is faster than that service plus the network's and the
 * CPU model's least delay; at equal link speed the RoCE NIC's reads are faster and its CPU share
 * lower than TCP's (less CPU per message, none per packet). The full case study is
 * {@code jrdma fabric run ceph-case-study} (a report, not a test).
 */
class CephWorkloadTest {
    private static String scenario(String transport, String cpu) {
        return """
                topology single-switch hosts=8 rate=25Gbps delay=1us
                packet mtu=4096 header=62
                buffer size=16MB
                pfc mode=xon-xoff
                nic transport=%s
                workload ceph-read osds=4 clients=4 iops=2000 request=512B response=4352B osd-service=250us osd-workers=16 warmup=2ms
                cpu %s
                duration 30ms
                """.formatted(transport, cpu);
    }

    @Test
    void everyReadIsServedAndNoneBeatsTheFixedServiceTime(@TempDir Path tmp) throws Exception {
        Runs.run(scenario("roce", "per-message=2us per-packet=0"), 1, tmp);
        Map<String, String> s = Runs.summary(tmp);
        long issued = Runs.num(s, "reads_issued");
        assertTrue(issued > 150, "issued " + issued);
        List<long[]> rpc = Runs.rows(tmp, "rpc.txt");
        assertEquals(Runs.num(s, "reads_measured"), rpc.size());
        // least latency: 2 us CPU x 4 (send and receive of request and response) + OSD 250 us + two
        // trips of 2 links of 1 us
        long least = 4 * 2_000 + 250_000 + 4 * 1_000;
        assertTrue(rpc.stream().allMatch(r -> r[3] >= least), "a read faster than the least possible");
        assertTrue(rpc.stream().allMatch(r -> r[3] < least + 100_000), "a read waited 100 us for a free network");
    }

    @Test
    void roceBeatsTcpAtEqualLinkSpeed(@TempDir Path tmp) throws Exception {
        Runs.run(scenario("roce", "per-message=2us per-packet=0"), 1, tmp.resolve("roce"));
        Runs.run(scenario("tcp", "per-message=10us per-packet=1us").replace("mtu=4096 header=62", "mtu=1448 header=70")
                .replace("pfc mode=xon-xoff", "pfc off"), 1, tmp.resolve("tcp"));
        Map<String, String> roce = Runs.summary(tmp.resolve("roce"));
        Map<String, String> tcp = Runs.summary(tmp.resolve("tcp"));
        double lr = Double.parseDouble(roce.get("read_latency_mean_us"));
        double lt = Double.parseDouble(tcp.get("read_latency_mean_us"));
        assertTrue(lr < lt, lr + " vs " + lt);
        assertTrue(Double.parseDouble(roce.get("cpu_share_osd_percent")) < Double.parseDouble(tcp.get(
                "cpu_share_osd_percent")));
        assertEquals("tcp", tcp.get("transport"));
    }
}
