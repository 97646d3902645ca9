package org.jrdma.bench.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Java TCP baselines of {@code bench/iwarp} (issue 12's speed table): what a plain
 * {@link SocketChannel} does on loopback, the transport jsiw runs on.
 *
 * <ul>
 *   <li>{@code bw SIZE SECONDS ADDR_A ADDR_B}: a writer thread on ADDR_A streams SIZE-byte buffers
 *       (blocking writes, TCP_NODELAY as jsiw) to a reader on ADDR_B for SECONDS; the rate is what the
 *       reader got between its first and last byte. The stream baseline when iperf3 is missing.</li>
 *   <li>{@code lat SIZE ITERS ADDR_A ADDR_B}: ping-pong of SIZE-byte messages over one TCP connection
 *       (TCP_NODELAY), both sides busy-polling non-blocking channels; the half round trip, median and
 *       mean, after a warm-up of ITERS/10.</li>
 * </ul>
 * Prints one line {@code RESULT key=value ...} ({@code gbit} is 10^9 bit/s of TCP payload, {@code us}
 * microseconds). Plain main program: {@code java -cp bench/target/classes org.jrdma.bench.net.TcpCeiling ...}.
 * {@link #connect}, {@link #bw} and {@link #lat} are also called in-process by
 * {@code org.jrdma.bench.apps.AppsTable} (issue 15), which takes their results as records.
 */
public final class TcpCeiling {
    private TcpCeiling() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5 || !(args[0].equals("bw") || args[0].equals("lat"))) {
            System.err.println("usage: TcpCeiling bw SIZE SECONDS ADDR_A ADDR_B | lat SIZE ITERS ADDR_A ADDR_B");
            System.exit(2);
        }
        int size = Integer.parseInt(args[1]);
        SocketChannel[] pair = connect(args[3], args[4]);
        try (SocketChannel a = pair[0]; SocketChannel b = pair[1]) {
            if (args[0].equals("bw")) {
                BwResult r = bw(size, Double.parseDouble(args[2]), a, b);
                System.out.printf(Locale.ROOT, "RESULT gbit=%.3f bytes=%d sent=%d size=%d%n", r.gbit(), r.bytes(), r.sent(), size);
            } else {
                LatResult r = lat(size, Integer.parseInt(args[2]), a, b);
                System.out.printf(Locale.ROOT, "RESULT half_rtt_median_us=%.2f half_rtt_avg_us=%.2f iters=%d size=%d%n",
                        r.medianUs(), r.avgUs(), r.iters(), size);
            }
        }
    }

    /**
     * A stream run: {@code gbit} 10^9 bit/s of payload the reader got between its first and last byte,
     * {@code bytes} it got, {@code sent} bytes the writer wrote, {@code size} bytes per write.
     */
    public record BwResult(double gbit, long bytes, long sent, int size) {
    }

    /**
     * A ping-pong run: the half round trip in microseconds, median, mean and 99th percentile, over
     * {@code iters} timed round trips of {@code size}-byte messages.
     */
    public record LatResult(double medianUs, double avgUs, double p99Us, int iters, int size) {
    }

    /** A connected pair: [0] bound on {@code a}, [1] the accepted end on {@code b} (TCP_NODELAY on both). */
    public static SocketChannel[] connect(String a, String b) throws IOException {
        try (ServerSocketChannel ss = ServerSocketChannel.open()) {
            ss.bind(new InetSocketAddress(b, 0));
            SocketChannel c = SocketChannel.open();
            c.bind(new InetSocketAddress(a, 0));
            c.connect(ss.getLocalAddress());
            SocketChannel s = ss.accept();
            for (SocketChannel x : new SocketChannel[] {c, s}) {
                x.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            return new SocketChannel[] {c, s};
        }
    }

    /** Streams {@code size}-byte writes from {@code tx} to a reader thread on {@code rx} for {@code seconds}; shuts {@code tx}'s output down. */
    public static BwResult bw(int size, double seconds, SocketChannel tx, SocketChannel rx) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        long[] r = new long[3]; // bytes, first ns, last ns
        Thread reader = new Thread(() -> {
            ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
            try {
                for (;;) {
                    buf.clear();
                    int n = rx.read(buf);
                    if (n < 0) {
                        return;
                    }
                    long now = System.nanoTime();
                    if (r[0] == 0) {
                        r[1] = now;
                    }
                    r[0] += n;
                    r[2] = now;
                }
            } catch (IOException e) {
                if (!stop.get()) {
                    throw new RuntimeException(e);
                }
            }
        }, "rx");
        reader.start();
        ByteBuffer out = ByteBuffer.allocateDirect(size);
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long sent = 0;
        while (System.nanoTime() - end < 0) {
            out.clear();
            while (out.hasRemaining()) {
                sent += tx.write(out);
            }
        }
        stop.set(true);
        tx.shutdownOutput();
        reader.join();
        double secs = (r[2] - r[1]) / 1e9;
        double gbit = secs > 0 ? r[0] * 8 / secs / 1e9 : 0;
        return new BwResult(gbit, r[0], sent, size);
    }

    /** Ping-pong of {@code size}-byte messages, {@code iters} timed after {@code iters/10} (at least 10) untimed; both channels are left non-blocking. */
    public static LatResult lat(int size, int iters, SocketChannel ping, SocketChannel pong) throws Exception {
        ping.configureBlocking(false);
        pong.configureBlocking(false);
        int warm = Math.max(iters / 10, 10);
        int total = warm + iters;
        Thread ponger = new Thread(() -> {
            ByteBuffer buf = ByteBuffer.allocateDirect(size);
            try {
                for (int i = 0; i < total; i++) {
                    buf.clear();
                    while (buf.hasRemaining()) {
                        if (pong.read(buf) == 0) {
                            Thread.onSpinWait();
                        }
                    }
                    buf.flip();
                    while (buf.hasRemaining()) {
                        pong.write(buf);
                    }
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, "pong");
        ponger.start();
        ByteBuffer out = ByteBuffer.allocateDirect(size);
        ByteBuffer in = ByteBuffer.allocateDirect(size);
        long[] rtt = new long[iters];
        for (int i = 0; i < total; i++) {
            long t0 = System.nanoTime();
            out.clear();
            while (out.hasRemaining()) {
                ping.write(out);
            }
            in.clear();
            while (in.hasRemaining()) {
                if (ping.read(in) == 0) {
                    Thread.onSpinWait();
                }
            }
            if (i >= warm) {
                rtt[i - warm] = System.nanoTime() - t0;
            }
        }
        ponger.join();
        Arrays.sort(rtt);
        double median = rtt[iters / 2] / 2.0 / 1000;
        double avg = Arrays.stream(rtt).average().orElse(0) / 2.0 / 1000;
        double p99 = rtt[Math.min(iters - 1, (int) (iters * 0.99))] / 2.0 / 1000;
        return new LatResult(median, avg, p99, iters, size);
    }
}
