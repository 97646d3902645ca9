package org.jrdma.fabric.net;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import org.jrdma.fabric.scenario.CpuSpec;
import org.jrdma.fabric.scenario.WorkloadSpec;
import org.jrdma.fabric.sim.EventHandler;

/**
 * The Ceph 4 KiB random-read workload ({@link WorkloadSpec}) on persistent connections, with the
 * host CPU cost model ({@link CpuSpec}). Reads are numbered; per read it keeps the client, the
 * OSD and the issue time. An event's kind is {@code read << 3 | step} or {@code client << 3 |
 * ARRIVAL}. Results: {@code rpc.txt} ({@code issue_ns client osd latency_ns} per measured read)
 * and summary lines (count, mean, P50, P99, P99.9, CPU shares). Simulator thread only.
 */
final class CephReadWorkload implements EventHandler, Flow.MessageSink {
    private static final int ARRIVAL = 0;
    private static final int SEND_REQUEST = 1;
    private static final int SERVICE_DONE = 2;
    private static final int SEND_RESPONSE = 3;
    private static final int DELIVER_RESPONSE = 4;
    private static final int DELIVER_REQUEST = 5;

    private final Network net;
    private final WorkloadSpec spec;
    private final CpuSpec cpu;
    private final Nic[] osds;
    private final Nic[] clients;
    /** request[c][o]: client c to OSD o; response[o][c]: OSD o to client c. */
    private final Flow[][] request;
    private final Flow[][] response;
    private final SplittableRandom random;
    private final int[] busyWorkers;
    private final int[][] waiting;
    private final int[] waitHead;
    private final int[] waitCount;
    private int[] readClient = new int[1024];
    private int[] readOsd = new int[1024];
    private long[] readIssued = new long[1024];
    private int reads;
    private long[] latencies = new long[1024];
    private int measured;
    private final long[] cpuBusyPs;
    private long osdOps;

    CephReadWorkload(Network net, WorkloadSpec spec, CpuSpec cpu, Nic[] osds, Nic[] clients, Flow[][] request,
            Flow[][] response, SplittableRandom random) {
        this.net = net;
        this.spec = spec;
        this.cpu = cpu;
        this.osds = osds;
        this.clients = clients;
        this.request = request;
        this.response = response;
        this.random = random;
        busyWorkers = new int[osds.length];
        waiting = new int[osds.length][64];
        waitHead = new int[osds.length];
        waitCount = new int[osds.length];
        cpuBusyPs = new long[net.nodeCount()];
        for (Flow[] row : request) {
            for (Flow f : row) {
                f.sink = this;
            }
        }
        for (Flow[] row : response) {
            for (Flow f : row) {
                f.sink = this;
            }
        }
    }

    void start() {
        for (int c = 0; c < clients.length; c++) {
            net.sim.after(exp(1e12 / spec.iopsPerClient()), this, c << 3 | ARRIVAL, null);
        }
    }

    private long exp(double meanPs) {
        return (long) (-Math.log(1 - random.nextDouble()) * meanPs);
    }

    /** Packets a message of {@code bytes} takes. */
    private long packets(long bytes) {
        return (bytes + net.mtu - 1) / net.mtu;
    }

    /**
     * The delay a message of {@code bytes} takes through a host's CPU on each side. Its CPU time is
     * the per-message part here; the per-packet part is counted from the NIC's packets.
     */
    private long messageCostPs(long bytes) {
        return cpu.perMessagePs() + cpu.perPacketPs() * packets(bytes);
    }

    @Override
    public void onEvent(int kind, Object payload) {
        int step = kind & 7;
        int x = kind >>> 3;
        long now = net.sim.now();
        switch (step) {
            case ARRIVAL -> {
                int read = newRead(x, random.nextInt(osds.length), now);
                cpuBusyPs[clients[x].id()] += cpu.perMessagePs();
                net.sim.after(messageCostPs(spec.requestBytes()), this, read << 3 | SEND_REQUEST, null);
                net.sim.after(exp(1e12 / spec.iopsPerClient()), this, x << 3 | ARRIVAL, null);
            }
            case SEND_REQUEST -> {
                Flow f = request[readClient[x]][readOsd[x]];
                f.send(spec.requestBytes(), x);
                f.src.port.kick();
            }
            case DELIVER_REQUEST -> {
                int o = readOsd[x];
                if (busyWorkers[o] < spec.osdWorkers()) {
                    serve(o, x);
                } else {
                    enqueue(o, x);
                }
            }
            case SERVICE_DONE -> {
                int o = readOsd[x];
                busyWorkers[o]--;
                if (waitCount[o] > 0) {
                    int next = waiting[o][waitHead[o]];
                    waitHead[o] = (waitHead[o] + 1) % waiting[o].length;
                    waitCount[o]--;
                    serve(o, next);
                }
                cpuBusyPs[osds[o].id()] += cpu.perMessagePs();
                net.sim.after(messageCostPs(spec.responseBytes()), this, x << 3 | SEND_RESPONSE, null);
            }
            case SEND_RESPONSE -> {
                Flow f = response[readOsd[x]][readClient[x]];
                f.send(spec.responseBytes(), x);
                f.src.port.kick();
            }
            case DELIVER_RESPONSE -> {
                if (readIssued[x] >= spec.warmupPs()) {
                    if (measured == latencies.length) {
                        latencies = Arrays.copyOf(latencies, 2 * measured);
                    }
                    long lat = now - readIssued[x];
                    latencies[measured++] = lat;
                    net.out.rpc(readIssued[x], clients[readClient[x]].id(), osds[readOsd[x]].id(), lat);
                }
            }
            default -> throw new IllegalStateException("step " + step);
        }
    }

    private int newRead(int client, int osd, long now) {
        if (reads == readClient.length) {
            readClient = Arrays.copyOf(readClient, 2 * reads);
            readOsd = Arrays.copyOf(readOsd, 2 * reads);
            readIssued = Arrays.copyOf(readIssued, 2 * reads);
        }
        readClient[reads] = client;
        readOsd[reads] = osd;
        readIssued[reads] = now;
        return reads++;
    }

    private void serve(int o, int read) {
        busyWorkers[o]++;
        osdOps++;
        cpuBusyPs[osds[o].id()] += cpu.osdOpPs();
        long t = spec.osdServicePs() + (spec.osdJitterPs() > 0 ? exp(spec.osdJitterPs()) : 0);
        net.sim.after(t, this, read << 3 | SERVICE_DONE, null);
    }

    private void enqueue(int o, int read) {
        if (waitCount[o] == waiting[o].length) {
            int[] q = new int[2 * waitCount[o]];
            for (int i = 0; i < waitCount[o]; i++) {
                q[i] = waiting[o][(waitHead[o] + i) % waitCount[o]];
            }
            waiting[o] = q;
            waitHead[o] = 0;
        }
        waiting[o][(waitHead[o] + waitCount[o]) % waiting[o].length] = read;
        waitCount[o]++;
    }

    @Override
    public void onMessage(Flow f, int read, long nowPs) {
        // receive-side CPU: the message reaches the application after it
        boolean isRequest = f == request[readClient[read]][readOsd[read]];
        long bytes = isRequest ? spec.requestBytes() : spec.responseBytes();
        cpuBusyPs[f.dst.id()] += cpu.perMessagePs();
        net.sim.after(messageCostPs(bytes), this, read << 3 | (isRequest ? DELIVER_REQUEST : DELIVER_RESPONSE), null);
    }

    /** The summary lines: reads, latency statistics, CPU shares over the measured time. */
    void summary(StringBuilder b, long endPs) {
        long[] l = Arrays.copyOf(latencies, measured);
        Arrays.sort(l);
        double mean = 0;
        for (long v : l) {
            mean += v;
        }
        mean = measured == 0 ? 0 : mean / measured;
        // CPU: the packets each NIC moved through the host stack, plus messages and OSD ops counted above
        double osdShare = 0;
        double clientShare = 0;
        long span = Math.max(1, endPs);
        for (Nic n : osds) {
            osdShare += share(n, span);
        }
        for (Nic n : clients) {
            clientShare += share(n, span);
        }
        b.append(String.format(Locale.ROOT, "workload ceph-read osds=%d clients=%d iops_per_client=%.0f osd_service_us=%.1f "
                + "osd_jitter_us=%.1f osd_workers=%d%n", osds.length, clients.length, spec.iopsPerClient(),
                spec.osdServicePs() / 1e6, spec.osdJitterPs() / 1e6, spec.osdWorkers()));
        b.append(String.format(Locale.ROOT, "cpu_model per_message_us=%.2f per_packet_us=%.2f osd_op_us=%.2f cores=%d%n",
                cpu.perMessagePs() / 1e6, cpu.perPacketPs() / 1e6, cpu.osdOpPs() / 1e6, cpu.cores()));
        b.append("reads_issued ").append(reads).append('\n');
        b.append("reads_measured ").append(measured).append('\n');
        b.append("osd_ops ").append(osdOps).append('\n');
        b.append(String.format(Locale.ROOT, "read_latency_mean_us %.1f%n", mean / 1e6));
        b.append(String.format(Locale.ROOT, "read_latency_p50_us %.1f%n", pct(l, 0.50) / 1e6));
        b.append(String.format(Locale.ROOT, "read_latency_p99_us %.1f%n", pct(l, 0.99) / 1e6));
        b.append(String.format(Locale.ROOT, "read_latency_p999_us %.1f%n", pct(l, 0.999) / 1e6));
        b.append(String.format(Locale.ROOT, "read_latency_max_us %.1f%n", measured == 0 ? 0 : l[measured - 1] / 1e6));
        b.append(String.format(Locale.ROOT, "cpu_share_osd_percent %.2f%n", 100 * osdShare / osds.length));
        b.append(String.format(Locale.ROOT, "cpu_share_client_percent %.2f%n", 100 * clientShare / clients.length));
    }

    private double share(Nic n, long spanPs) {
        long packets = n.txData + n.rxData + n.txControl + n.rxControl;
        double busy = cpuBusyPs[n.id()] + (double) cpu.perPacketPs() * packets;
        return busy / ((double) cpu.cores() * spanPs);
    }

    private static long pct(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
