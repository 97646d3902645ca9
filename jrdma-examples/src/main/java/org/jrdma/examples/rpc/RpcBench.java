package org.jrdma.examples.rpc;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.jrdma.app.EndpointConfig;
import org.jrdma.app.EndpointGroup;

/**
 * Echo RPCs of {@code SIZE} bytes over RDMA SEND/RECV or over TCP, in one JVM: the server on
 * {@code SERVER} (for rdma a jrdma device's address: jrxe* for soft RoCE, jsiw* for soft iWARP, as
 * {@code -Djrdma.devices} maps them), the client on {@code CLIENT}. For each concurrency level, that
 * many caller threads each keep one call outstanding (closed loop) for {@code SECONDS} after one
 * untimed second.
 *
 * <pre>
 * RpcBench rdma|tcp SERVER CLIENT [LEVELS [SECONDS [SIZE]]]    defaults 1,4,16  5 s  64 bytes
 * </pre>
 *
 * Prints {@code RESULT kind=... concurrency=... calls=... rps=... p50_us=... p99_us=... p999_us=...}
 * per level. Credits (calls in flight) are the endpoints' recvDepth, 32, so levels above 32 wait.
 */
public final class RpcBench {
    private static final int ECHO = 1;
    private static final int LIMIT = 4096;
    private static final int CREDITS = 32;

    private RpcBench() {
    }

    public static void main(String[] args) throws Exception {
        String kind = args[0];
        InetAddress server = InetAddress.getByName(args[1]);
        InetAddress client = InetAddress.getByName(args[2]);
        String[] levels = (args.length > 3 ? args[3] : "1,4,16").split(",");
        int seconds = args.length > 4 ? Integer.parseInt(args[4]) : 5;
        int size = args.length > 5 ? Integer.parseInt(args[5]) : 64;
        RpcHandler echo = p -> p;
        if (kind.equals("tcp")) {
            try (TcpRpcServer s = TcpRpcServer.start(new InetSocketAddress(server, 0), LIMIT).register(ECHO, echo);
                 TcpRpcClient c = TcpRpcClient.connect(s.address(), LIMIT, CREDITS)) {
                for (String l : levels) {
                    run(kind, c, Integer.parseInt(l), seconds, size);
                }
            }
        } else if (kind.equals("rdma")) {
            try (EndpointGroup g = EndpointGroup.create(new EndpointConfig().recvDepth(CREDITS).recvBufferSize(LIMIT));
                 RdmaRpcServer s = RdmaRpcServer.start(g, new InetSocketAddress(server, 0), LIMIT).register(ECHO, echo);
                 RdmaRpcClient c = RdmaRpcClient.connect(g, s.address(), new InetSocketAddress(client, 0), LIMIT, CREDITS)) {
                for (String l : levels) {
                    run(kind, c, Integer.parseInt(l), seconds, size);
                }
            }
        } else {
            throw new IllegalArgumentException("usage: RpcBench rdma|tcp SERVER CLIENT [LEVELS [SECONDS [SIZE]]]");
        }
    }

    private static void run(String kind, RpcClient c, int concurrency, int seconds, int size) throws Exception {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        long end = warmEnd + TimeUnit.SECONDS.toNanos(seconds);
        long[] calls = new long[concurrency];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < concurrency; i++) {
            int me = i;
            threads.add(Thread.ofPlatform().name("rpc-bench-" + i).start(() -> {
                byte[] payload = new byte[size];
                Histogram mine = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
                long n = 0;
                for (long now = System.nanoTime(); now < end; ) {
                    c.call(ECHO, payload).join();
                    long t = System.nanoTime();
                    if (now >= warmEnd) {
                        mine.recordValue(Math.min(t - now, mine.getHighestTrackableValue()));
                        n++;
                    }
                    now = t;
                }
                synchronized (h) {
                    h.add(mine);
                }
                calls[me] = n;
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        long total = 0;
        for (long n : calls) {
            total += n;
        }
        System.out.printf("RESULT kind=%s concurrency=%d size=%d calls=%d rps=%.0f p50_us=%.1f p99_us=%.1f p999_us=%.1f%n",
                kind, concurrency, size, total, total / (double) seconds, h.getValueAtPercentile(50) / 1e3,
                h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3);
    }
}
