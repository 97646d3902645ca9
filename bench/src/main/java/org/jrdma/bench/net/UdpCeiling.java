package org.jrdma.bench.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Java ceiling of {@code bench/run}: what a plain {@link DatagramChannel} moves on loopback with
 * the datagram sizes of jrdma's RoCE v2 packets, one datagram per system call (Java has no
 * sendmmsg).
 *
 * <ul>
 *   <li>{@code bw SIZE SECONDS ADDR_A ADDR_B}: a blaster thread sends SIZE-byte datagrams from ADDR_A
 *       to a receiver thread on ADDR_B for SECONDS; the rate is what the receiver got between its
 *       first and last datagram.</li>
 *   <li>{@code lat SIZE ITERS ADDR_A ADDR_B}: ping-pong of SIZE-byte datagrams, both sides
 *       busy-polling non-blocking channels; the half round trip, median and mean, after a warm-up of
 *       ITERS/10.</li>
 * </ul>
 * Prints one line {@code RESULT key=value ...} ({@code gbit} is 10^9 bit/s of UDP payload, {@code us}
 * is microseconds). Plain main program: {@code java -cp bench/target/classes org.jrdma.bench.net.UdpCeiling ...}.
 */
public final class UdpCeiling {
    private static final int PORT = 47911;

    private UdpCeiling() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5 || !(args[0].equals("bw") || args[0].equals("lat"))) {
            System.err.println("usage: UdpCeiling bw SIZE SECONDS ADDR_A ADDR_B | lat SIZE ITERS ADDR_A ADDR_B");
            System.exit(2);
        }
        int size = Integer.parseInt(args[1]);
        InetSocketAddress a = new InetSocketAddress(args[3], PORT);
        InetSocketAddress b = new InetSocketAddress(args[4], PORT);
        if (args[0].equals("bw")) {
            bw(size, Double.parseDouble(args[2]), a, b);
        } else {
            lat(size, Integer.parseInt(args[2]), a, b);
        }
    }

    static DatagramChannel open(InetSocketAddress local, InetSocketAddress peer) throws IOException {
        DatagramChannel c = DatagramChannel.open();
        c.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
        c.setOption(StandardSocketOptions.SO_SNDBUF, 4 << 20);
        c.bind(local);
        c.connect(peer);
        return c;
    }

    static void bw(int size, double seconds, InetSocketAddress a, InetSocketAddress b) throws Exception {
        try (DatagramChannel tx = open(a, b); DatagramChannel rx = open(b, a)) {
            rx.configureBlocking(false);
            AtomicBoolean stop = new AtomicBoolean();
            long[] r = new long[3]; // received, first ns, last ns
            Thread receiver = new Thread(() -> {
                ByteBuffer buf = ByteBuffer.allocateDirect(65536);
                try {
                    while (!stop.get()) {
                        buf.clear();
                        int n = rx.read(buf);
                        if (n == size) {
                            long now = System.nanoTime();
                            if (r[0]++ == 0) {
                                r[1] = now;
                            }
                            r[2] = now;
                        } else if (n == 0) {
                            Thread.onSpinWait();
                        }
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, "rx");
            receiver.start();
            ByteBuffer out = ByteBuffer.allocateDirect(size);
            long sent = 0;
            long end = System.nanoTime() + (long) (seconds * 1e9);
            while (System.nanoTime() - end < 0) {
                for (int i = 0; i < 64; i++) {
                    out.clear();
                    try {
                        tx.write(out);
                        sent++;
                    } catch (java.net.PortUnreachableException ignored) {
                        // loopback ICMP while the receiver starts
                    }
                }
            }
            Thread.sleep(200);
            stop.set(true);
            receiver.join();
            double secs = (r[2] - r[1]) / 1e9;
            double pps = secs > 0 ? (r[0] - 1) / secs : 0;
            System.out.printf(Locale.ROOT, "RESULT gbit=%.3f pps=%.0f sent=%d received=%d size=%d%n",
                    pps * size * 8 / 1e9, pps, sent, r[0], size);
        }
    }

    static void lat(int size, int iters, InetSocketAddress a, InetSocketAddress b) throws Exception {
        try (DatagramChannel ping = open(a, b); DatagramChannel pong = open(b, a)) {
            ping.configureBlocking(false);
            pong.configureBlocking(false);
            int warm = Math.max(iters / 10, 10);
            int total = warm + iters;
            Thread ponger = new Thread(() -> {
                ByteBuffer buf = ByteBuffer.allocateDirect(65536);
                try {
                    for (int i = 0; i < total; i++) {
                        buf.clear();
                        while (pong.read(buf) == 0) {
                            Thread.onSpinWait();
                        }
                        buf.flip();
                        pong.write(buf);
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, "pong");
            ponger.start();
            ByteBuffer out = ByteBuffer.allocateDirect(size);
            ByteBuffer in = ByteBuffer.allocateDirect(65536);
            long[] rtt = new long[iters];
            for (int i = 0; i < total; i++) {
                long t0 = System.nanoTime();
                out.clear();
                ping.write(out);
                in.clear();
                while (ping.read(in) == 0) {
                    Thread.onSpinWait();
                }
                if (i >= warm) {
                    rtt[i - warm] = System.nanoTime() - t0;
                }
            }
            ponger.join();
            Arrays.sort(rtt);
            double median = rtt[iters / 2] / 2.0 / 1000;
            double avg = Arrays.stream(rtt).average().orElse(0) / 2.0 / 1000;
            System.out.printf(Locale.ROOT, "RESULT half_rtt_median_us=%.2f half_rtt_avg_us=%.2f iters=%d size=%d%n",
                    median, avg, iters, size);
        }
    }
}
