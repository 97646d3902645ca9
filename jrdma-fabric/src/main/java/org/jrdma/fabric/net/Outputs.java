package org.jrdma.fabric.net;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The run's files, in the HPCC simulator's formats where it has one (third.cc; FABRIC-REFERENCE.md
 * §2 "Outputs"), all times in ns:
 * <ul>
 * <li>{@code fct.txt}: a line per finished flow, in finishing order:
 *     {@code sip dip sport dport size start_ns fct_ns standalone_fct_ns} (addresses in hex as
 *     HPCC's 11.x.y.1 scheme from the node id; sport 10000 + flow index, dport 100).</li>
 * <li>{@code pfc.txt}: {@code time_ns node nodeType ifIndex type}, logged by the node whose port is
 *     paused (1) or resumed (0); nodeType 0 host, 1 switch; ifIndex = port index + 1.</li>
 * <li>{@code qlen.txt}: per switch port, HPCC's queue-length histogram over the run's samples in
 *     1 KB bins: a line {@code time: T}, then {@code node ifIndex c0 c1 ...}.</li>
 * <li>{@code queue.txt} (jrdma): {@code time_ns node ifIndex egress_bytes} per sample, for switch
 *     ports with bytes waiting.</li>
 * <li>{@code rate.txt} (jrdma): {@code time_ns flow dcqcn_rate_bps goodput_bps} per sample and
 *     running flow (goodput: in-order bytes delivered in the last interval).</li>
 * <li>{@code watchdog.txt} (jrdma): {@code time_ns node ifIndex queue event}, event 1 when the PFC
 *     watchdog puts an egress queue in storm mode, 0 when it restores it.</li>
 * <li>{@code rpc.txt} (jrdma, with a workload): {@code issue_ns client osd latency_ns} per measured read.</li>
 * <li>{@code summary.txt}: the run's counters (no wall-clock values, so seeds compare
 *     byte for byte).</li>
 * </ul>
 */
final class Outputs implements Closeable {
    private final BufferedWriter fct;
    private final BufferedWriter pfc;
    private final BufferedWriter queue;
    private final BufferedWriter rate;
    private final BufferedWriter watchdog;
    private BufferedWriter rpc;
    private final Path dir;
    private final StringBuilder line = new StringBuilder(128);

    Outputs(Path dir) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir);
        fct = writer("fct.txt");
        pfc = writer("pfc.txt");
        queue = writer("queue.txt");
        rate = writer("rate.txt");
        watchdog = writer("watchdog.txt");
    }

    private BufferedWriter writer(String name) throws IOException {
        return Files.newBufferedWriter(dir.resolve(name), StandardCharsets.US_ASCII);
    }

    /** HPCC's address of a node: 11.(id / 256).(id % 256).1. */
    static int ip(int node) {
        return 0x0b000001 | ((node / 256) << 16) | ((node % 256) << 8);
    }

    private void write(BufferedWriter w) {
        try {
            line.append('\n');
            w.append(line);
            line.setLength(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String hex8(int v) {
        String h = Integer.toHexString(v);
        return "00000000".substring(h.length()) + h;
    }

    void fct(Flow f) {
        line.append(hex8(ip(f.src.id()))).append(' ').append(hex8(ip(f.dst.id()))).append(' ')
                .append(10000 + f.index).append(' ').append(100).append(' ').append(f.size).append(' ')
                .append(f.spec.startPs() / 1000).append(' ').append((f.finishPs - f.spec.startPs()) / 1000).append(' ')
                .append(f.standalonePs / 1000);
        write(fct);
    }

    void pfc(long nowPs, Node node, Port port, int type) {
        line.append(nowPs / 1000).append(' ').append(node.id()).append(' ').append(node.nodeType()).append(' ')
                .append(port.index + 1).append(' ').append(type);
        write(pfc);
    }

    void queue(long nowPs, int node, int port, long bytes) {
        line.append(nowPs / 1000).append(' ').append(node).append(' ').append(port + 1).append(' ').append(bytes);
        write(queue);
    }

    void rate(long nowPs, int flow, long rateBps, long goodputBps) {
        line.append(nowPs / 1000).append(' ').append(flow).append(' ').append(rateBps).append(' ').append(goodputBps);
        write(rate);
    }

    void watchdog(long nowPs, int node, int port, int q, int event) {
        line.append(nowPs / 1000).append(' ').append(node).append(' ').append(port + 1).append(' ').append(q).append(' ')
                .append(event);
        write(watchdog);
    }

    void rpc(long issuedPs, int client, int osd, long latencyPs) {
        if (rpc == null) {
            try {
                rpc = writer("rpc.txt");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        line.append(issuedPs / 1000).append(' ').append(client).append(' ').append(osd).append(' ')
                .append(latencyPs / 1000);
        write(rpc);
    }

    void text(String name, String content) throws IOException {
        Files.writeString(dir.resolve(name), content, StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        fct.close();
        pfc.close();
        queue.close();
        rate.close();
        watchdog.close();
        if (rpc != null) {
            rpc.close();
        }
    }
}
