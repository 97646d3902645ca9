package org.jrdma.bench.net;

import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.net.UdpBatch;
import org.jrdma.rocev2.net.UdpSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Datagrams per second on loopback (127.0.0.1 → 127.0.0.2) through {@link UdpSocket}: one
 * datagram per system call, sendmmsg/recvmmsg batches of 32, and UDP GSO trains into a UDP_GRO
 * receiver, at 1 KiB and 4 KiB. One sender thread, one receiver thread; the rate is what the
 * receiver got (drops in the kernel are not counted as delivered).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp ... org.jrdma.bench.net.UdpThroughput [seconds per case, default 2]
 * </pre>
 * The architecture's baselines on this 2-vCPU VM: 0.13–0.19 Mpps one per call, barely more with
 * sendmmsg, ~3 Mpps (1 KiB) / ~0.9 Mpps (4 KiB) with GSO+GRO.
 */
public final class UdpThroughput {
    private static final int BATCH = 32;

    enum Mode { SINGLE, MMSG, GSO }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
        System.out.printf("%-8s %6s %12s %12s %10s%n", "mode", "size", "sent/s", "received/s", "Gbit/s");
        for (int size : new int[] {1024, 4096}) {
            for (Mode m : Mode.values()) {
                run(m, size, seconds);
            }
        }
    }

    static void run(Mode mode, int size, double seconds) throws Exception {
        InetAddress lo1 = InetAddress.getByName("127.0.0.1");
        InetAddress lo2 = InetAddress.getByName("127.0.0.2");
        try (Arena arena = Arena.ofShared();
             UdpSocket tx = UdpSocket.open(lo1, 0, null);
             UdpSocket rx = UdpSocket.open(lo2, 0, new UdpSocket.Options().gro(mode == Mode.GSO))) {
            if (mode == Mode.GSO && !tx.supportsGso()) {
                System.out.printf("%-8s %6d  (no UDP GSO in this kernel)%n", mode, size);
                return;
            }
            int segments = Math.min(UdpSocket.MAX_GSO_SEGMENTS, UdpSocket.MAX_IPV4_PAYLOAD / size);
            MemorySegment txBuf = arena.allocate((long) Math.max(BATCH, segments) * size, 64);
            SockAddr dst = new SockAddr(arena).setIpv4(0x7f000002, rx.localPort());
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong received = new AtomicLong();
            Thread receiver = new Thread(() -> receive(mode, size, rx, arena, stop, received), "rx");
            receiver.start();

            UdpBatch batch = new UdpBatch(BATCH);
            for (int i = 0; i < BATCH; i++) {
                batch.setSend(i, txBuf, (long) i * size, size, dst);
            }
            long warmEnd = System.nanoTime() + 500_000_000L;
            long sent = 0;
            long startReceived = 0;
            long start = 0;
            boolean measuring = false;
            long end = warmEnd + (long) (seconds * 1e9);
            while (true) {
                long now = System.nanoTime();
                if (!measuring && now >= warmEnd) {
                    measuring = true;
                    sent = 0;
                    start = now;
                    startReceived = received.get();
                }
                if (now >= end) {
                    break;
                }
                for (int k = 0; k < 16; k++) {
                    switch (mode) {
                        case SINGLE -> {
                            if (tx.sendTo(txBuf, 0, size, dst) > 0) {
                                sent++;
                            }
                        }
                        case MMSG -> {
                            int n = tx.sendBatch(batch, 0, BATCH);
                            if (n > 0) {
                                sent += n;
                            }
                        }
                        case GSO -> {
                            if (tx.sendGso(txBuf, 0, segments * size, size, dst) > 0) {
                                sent += segments;
                            }
                        }
                    }
                }
            }
            long elapsed = System.nanoTime() - start;
            long got = received.get() - startReceived;
            stop.set(true);
            rx.wakeup();
            receiver.join();
            double rate = got * 1e9 / elapsed;
            System.out.printf("%-8s %6d %12.0f %12.0f %10.2f%n", mode, size, sent * 1e9 / elapsed, rate,
                    rate * size * 8 / 1e9);
        }
    }

    static void receive(Mode mode, int size, UdpSocket rx, Arena arena, AtomicBoolean stop, AtomicLong received) {
        MemorySegment buf = arena.allocate((long) BATCH * 65_536, 64);
        UdpBatch batch = new UdpBatch(BATCH);
        for (int i = 0; i < BATCH; i++) {
            batch.setReceive(i, buf, (long) i * 65_536, 65_536);
        }
        long count = 0;
        while (!stop.get()) {
            long got = 0;
            switch (mode) {
                case SINGLE -> {
                    int n = rx.receive(buf, 0, size, null);
                    got = n > 0 ? 1 : 0;
                }
                case MMSG -> {
                    int n = rx.receiveBatch(batch, BATCH);
                    got = Math.max(n, 0);
                }
                case GSO -> {
                    int n = rx.receive(buf, 0, 65_536, null);
                    if (n > 0) {
                        int seg = rx.receivedSegmentSize();
                        got = (n + seg - 1) / seg;
                    }
                }
            }
            if (got == 0) {
                rx.awaitReadable(1_000_000L);
            } else {
                count += got;
                received.lazySet(count);
            }
        }
    }
}
