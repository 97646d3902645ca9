package org.jrdma.bench.cm;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QueuePair;

/**
 * Connection setup through jrdma's CM between two processes on loopback, beside TCP between the
 * same two processes. The server listens on both (CM port and TCP port PORT of ADDR_A, device
 * jrxe0); the client (ADDR_B, jrxe1) makes ITERS connections of each kind, one after another, after
 * ITERS/10 of each to warm up:
 * <ul>
 *   <li>jrdma: {@code rdma_create_id}, {@code resolveAddr}, {@code resolveRoute}, an RC QP,
 *       {@code connect} → ESTABLISHED (REQ, REP, RTU: the server accepts each request with a QP of its
 *       own), then {@code destroy} (DREQ; the server destroys its side on DISCONNECTED);</li>
 *   <li>TCP: a {@link SocketChannel} bound to ADDR_B, blocking {@code connect} (the kernel's SYN,
 *       SYN-ACK, ACK), then close; the server accepts and closes each.</li>
 * </ul>
 * The latency is {@code connect} → ESTABLISHED (jrdma) and the blocking {@code connect} call (TCP);
 * the rate is whole cycles (create … destroy / open … close) per second. Prints
 * {@code RESULT kind=jrdma|tcp n=… rate=… p50_us=… p99_us=… setup_p50_us=…} per kind.
 *
 * <p>{@code server ADDR_A PORT SECONDS} | {@code client ADDR_A ADDR_B PORT ITERS}. Threads: the
 * server's CM events are taken on its main thread, its TCP accepts on another; the client is one thread.
 */
public final class CmConnect {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private CmConnect() {
    }

    public static void main(String[] a) throws Exception {
        if (a.length == 4 && a[0].equals("server")) {
            server(InetAddress.getByName(a[1]), Integer.parseInt(a[2]), Long.parseLong(a[3]));
        } else if (a.length == 5 && a[0].equals("client")) {
            client(InetAddress.getByName(a[1]), InetAddress.getByName(a[2]), Integer.parseInt(a[3]), Integer.parseInt(a[4]));
        } else {
            System.err.println("usage: CmConnect server ADDR_A PORT SECONDS | client ADDR_A ADDR_B PORT ITERS");
            System.exit(2);
        }
        System.exit(0);
    }

    private static QpInitAttr qpAttr(CompletionQueue cq) {
        QpInitAttr init = new QpInitAttr().sendCq(cq).recvCq(cq);
        init.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
        return init;
    }

    private static void server(InetAddress addr, int port, long seconds) throws Exception {
        ServerSocketChannel tcp = ServerSocketChannel.open().bind(new InetSocketAddress(addr, port), 1024);
        Thread acceptor = Thread.ofPlatform().daemon().name("tcp-accept").start(() -> {
            while (true) {
                try (SocketChannel s = tcp.accept()) {
                    // accepted and closed: all a connect costs the server
                } catch (java.io.IOException e) {
                    return;
                }
            }
        });
        try (EventChannel ch = EventChannel.create()) {
            CmId listener = CmId.create(ch, null, PortSpace.TCP);
            listener.bind(new InetSocketAddress(addr, port));
            listener.listen(1024);
            ProtectionDomain pd = listener.verbs().allocPd();
            CompletionQueue cq = listener.verbs().createCq(1024, null);
            System.out.println("ready");
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            while (System.nanoTime() < end) {
                var o = ch.getEvent(Duration.ofMillis(200));
                if (o.isEmpty()) {
                    continue;
                }
                CmEvent e = o.get();
                CmEventType t = e.type();
                CmId id = e.id();
                e.ack();
                switch (t) {
                    case CONNECT_REQUEST -> {
                        id.createQp(pd, qpAttr(cq));
                        id.accept(null);
                    }
                    case DISCONNECTED, REJECTED, UNREACHABLE, CONNECT_ERROR -> {
                        QueuePair qp = id.qp();
                        id.destroy();
                        if (qp != null) {
                            qp.close();
                        }
                    }
                    default -> {
                    }
                }
            }
            listener.destroy();
        }
        tcp.close();
        acceptor.join(1000);
    }

    private static CmEvent expect(EventChannel ch, CmEventType type) {
        CmEvent e = ch.getEvent(WAIT).orElseThrow(() -> new IllegalStateException("no " + type + " within " + WAIT));
        e.ack();
        if (e.type() != type) {
            throw new IllegalStateException("expected " + type + ", got " + e.type() + " status " + e.status());
        }
        return e;
    }

    private static void client(InetAddress a, InetAddress b, int port, int iters) throws Exception {
        InetSocketAddress dst = new InetSocketAddress(a, port);
        InetSocketAddress src = new InetSocketAddress(b, 0);
        int warm = Math.max(10, iters / 10);
        try (EventChannel ch = EventChannel.create()) {
            ProtectionDomain[] pd = new ProtectionDomain[1];
            CompletionQueue[] cq = new CompletionQueue[1];
            for (int round = 0; round < 2; round++) {
                int n = round == 0 ? warm : iters;
                long[] lat = new long[n];
                long[] setup = new long[n];
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    long s = System.nanoTime();
                    CmId id = CmId.create(ch, null, PortSpace.TCP);
                    id.resolveAddr(src, dst, WAIT);
                    expect(ch, CmEventType.ADDR_RESOLVED);
                    id.resolveRoute(WAIT);
                    expect(ch, CmEventType.ROUTE_RESOLVED);
                    if (pd[0] == null) {
                        pd[0] = id.verbs().allocPd();
                        cq[0] = id.verbs().createCq(1024, null);
                    }
                    QueuePair qp = id.createQp(pd[0], qpAttr(cq[0]));
                    long c = System.nanoTime();
                    id.connect(new ConnParam().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7));
                    expect(ch, CmEventType.ESTABLISHED);
                    long done = System.nanoTime();
                    lat[i] = done - c;
                    setup[i] = done - s;
                    id.destroy();
                    qp.close();
                }
                long elapsed = System.nanoTime() - t0;
                if (round == 1) {
                    report("jrdma", n, elapsed, lat, setup);
                }
            }
        }
        for (int round = 0; round < 2; round++) {
            int n = round == 0 ? warm : iters;
            long[] lat = new long[n];
            long[] setup = new long[n];
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long s = System.nanoTime();
                try (SocketChannel sc = SocketChannel.open()) {
                    sc.bind(src);
                    long c = System.nanoTime();
                    sc.connect(dst);
                    long done = System.nanoTime();
                    lat[i] = done - c;
                    setup[i] = done - s;
                }
            }
            long elapsed = System.nanoTime() - t0;
            if (round == 1) {
                report("tcp", n, elapsed, lat, setup);
            }
        }
    }

    private static void report(String kind, int n, long elapsedNs, long[] lat, long[] setup) {
        Arrays.sort(lat);
        Arrays.sort(setup);
        System.out.printf(Locale.ROOT, "RESULT kind=%s n=%d rate=%.1f p50_us=%.1f p99_us=%.1f setup_p50_us=%.1f setup_p99_us=%.1f%n",
                kind, n, n / (elapsedNs / 1e9), pct(lat, 50), pct(lat, 99), pct(setup, 50), pct(setup, 99));
    }

    private static double pct(long[] sorted, int p) {
        int i = (int) Math.min(sorted.length - 1, Math.ceil(sorted.length * p / 100.0) - 1);
        return sorted[Math.max(0, i)] / 1000.0;
    }
}
