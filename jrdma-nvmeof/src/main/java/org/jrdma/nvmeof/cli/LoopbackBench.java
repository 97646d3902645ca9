package org.jrdma.nvmeof.cli;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jrdma.nvmeof.NvmeConnectOptions;
import org.jrdma.nvmeof.NvmeController;
import org.jrdma.nvmeof.NvmeNamespace;
import org.jrdma.nvmeof.target.NvmeTarget;
import org.jrdma.nvmeof.target.NvmeTargetOptions;

/**
 * Issue 17's speed table in one JVM and one run (bench/nvme): 4 KiB random Reads from jrdma's host to
 * jrdma's target (a 64 MiB RAM namespace) at queue depth 1 (latency p50/p99) and 32 (IOPS), over soft
 * RoCE v2 (jrxe0 target, jrxe1 host), soft iWARP (jsiw0, jsiw1) and, as the baseline, the same
 * capsules over plain TCP ({@link TcpCapsules}) between the same loopback addresses; each after a
 * warm-up pass, with the load average before and after. A benchmark, not a test.
 *
 * <p>Arguments: {@code NET} (the first three octets and the dot of the loopback /24, e.g.
 * {@code 127.9.8.}; jrdma.devices must name jrxe0=NET1, jrxe1=NET2, jsiw0=NET3, jsiw1=NET4),
 * {@code QD1_IOS}, {@code QD32_IOS}, {@code TRANSPORTS} (comma separated: roce, iwarp, tcp).
 */
public final class LoopbackBench {
    private static final int BS = 4096;

    private LoopbackBench() {
    }

    private static long[] cycle(long[] perm, int n) {
        long[] l = new long[n];
        for (int i = 0; i < n; i++) {
            l[i] = perm[i % perm.length];
        }
        return l;
    }

    private static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    public static void main(String[] args) throws Exception {
        String net = args[0];
        int n1 = Integer.parseInt(args[1]);
        int n32 = Integer.parseInt(args[2]);
        String[] transports = args[3].split(",");
        PrintWriter out = new PrintWriter(System.out, true);
        long bytes = 64L << 20;
        long[] perm = Bench.offsets(bytes / 512, 512, BS, (int) (bytes / BS), true, 17);
        Map<String, Bench.Result[]> results = new LinkedHashMap<>();
        List<String> loads = new ArrayList<>();
        for (String t : transports) {
            String before = load();
            Bench.Result[] r;
            if (t.equals("tcp")) {
                try (TcpCapsules.Target tt = new TcpCapsules.Target(new InetSocketAddress(InetAddress.getByName(net + "1"), 0),
                        (int) bytes, 512)) {
                    TcpCapsules.run(tt.address(), false, cycle(perm, 2000), BS, 512, 1);
                    Bench.Result q1 = TcpCapsules.run(tt.address(), false, cycle(perm, n1), BS, 512, 1);
                    TcpCapsules.run(tt.address(), false, cycle(perm, 5000), BS, 512, 32);
                    r = new Bench.Result[] {q1, TcpCapsules.run(tt.address(), false, cycle(perm, n32), BS, 512, 32)};
                }
            } else {
                boolean roce = t.equals("roce");
                InetSocketAddress at = new InetSocketAddress(InetAddress.getByName(net + (roce ? "1" : "3")), 4420);
                InetSocketAddress from = new InetSocketAddress(InetAddress.getByName(net + (roce ? "2" : "4")), 0);
                try (NvmeTarget target = NvmeTarget.start(new NvmeTargetOptions().address(at).namespace(bytes));
                        NvmeController c = NvmeController.connect(new NvmeConnectOptions().target(at).source(from)
                                .subsysNqn(target.subsysNqn()).ioQueues(1).queueSize(64).commandTimeout(Duration.ofSeconds(30)))) {
                    NvmeNamespace ns = c.namespace(1);
                    Bench.run(c, ns, false, cycle(perm, 2000), BS, 1, false, 17);
                    Bench.Result q1 = Bench.run(c, ns, false, cycle(perm, n1), BS, 1, false, 17);
                    Bench.run(c, ns, false, cycle(perm, 5000), BS, 32, false, 17);
                    Bench.Result q32 = Bench.run(c, ns, false, cycle(perm, n32), BS, 32, false, 17);
                    r = new Bench.Result[] {q1, q32};
                }
            }
            results.put(t, r);
            loads.add(before + " -> " + load());
            out.printf("%s: QD1 p50 %.1f us p99 %.1f us (%d I/Os); QD32 %.0f IOPS p50 %.1f us p99 %.1f us (%d I/Os); load %s%n", t,
                    r[0].percentile(50) / 1e3, r[0].percentile(99) / 1e3, r[0].ios(), r[1].iops(), r[1].percentile(50) / 1e3,
                    r[1].percentile(99) / 1e3, r[1].ios(), loads.getLast());
        }
        Bench.Result[] base = results.get("tcp");
        out.println();
        out.println("| transport | QD1 p50 (us) | QD1 p99 (us) | QD32 IOPS | p50 vs TCP | IOPS vs TCP | load average |");
        out.println("|---|---|---|---|---|---|---|");
        int i = 0;
        for (Map.Entry<String, Bench.Result[]> e : results.entrySet()) {
            Bench.Result[] r = e.getValue();
            out.printf("| %s | %.1f | %.1f | %.0f | %s | %s | %s |%n", e.getKey(), r[0].percentile(50) / 1e3,
                    r[0].percentile(99) / 1e3, r[1].iops(),
                    base == null ? "-" : String.format("%.2fx", (double) r[0].percentile(50) / base[0].percentile(50)),
                    base == null ? "-" : String.format("%.2fx", r[1].iops() / base[1].iops()), loads.get(i++));
        }
    }
}
