package org.jrdma.examples.kv;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.jrdma.app.EndpointConfig;
import org.jrdma.app.EndpointGroup;

/**
 * The key-value store over RDMA (GET = one-sided READs) beside the same store over TCP, in one JVM
 * on loopback: the server on {@code SERVER} (a jrdma device's address, e.g. jrxe0's), the client on
 * {@code CLIENT} (another device's); TCP between the same two addresses. Loads {@code KEYS} keys with
 * PUTs, then times {@code GETS} GETs of random keys, one at a time, after {@code GETS}/10 untimed ones.
 *
 * <pre>
 * KvBench SERVER CLIENT [KEYS [GETS]]      defaults 1000 keys, 50000 GETs
 * </pre>
 *
 * Prints {@code RESULT kind=rdma|tcp gets=... ops_per_s=... p50_us=... p99_us=... torn=...}. On one host
 * both ride the kernel's loopback, and soft RDMA's READ is a UDP round trip plus a software
 * responder, so this shows what the one-sided design costs and saves in software (no server thread
 * per GET), not a NIC's advantage.
 */
public final class KvBench {
    private KvBench() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress server = InetAddress.getByName(args[0]);
        InetAddress client = InetAddress.getByName(args[1]);
        int keys = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        int gets = args.length > 3 ? Integer.parseInt(args[3]) : 50_000;
        int buckets = Integer.highestOneBit(keys * 8);            // a load factor of 1/8 to 1/4
        try (EndpointGroup g = EndpointGroup.create(new EndpointConfig());
             RdmaKvServer rs = RdmaKvServer.start(g, new InetSocketAddress(server, 0), buckets);
             RdmaKvClient rc = RdmaKvClient.connect(g, rs.address(), new InetSocketAddress(client, 0));
             TcpKvServer ts = TcpKvServer.start(new InetSocketAddress(server, 0), buckets);
             TcpKvClient tc = TcpKvClient.connect(ts.address())) {
            for (int i = 0; i < keys; i++) {
                rc.put(key(i), value(i));
                tc.put(key(i), value(i));
            }
            Histogram hr = new Histogram(3);
            Histogram ht = new Histogram(3);
            long[] wall = new long[2];
            for (int round = 0; round < 2; round++) {         // interleaved: RDMA, TCP, RDMA, TCP
                wall[0] += run(rc::get, keys, gets / 2, hr);
                wall[1] += run(tc::get, keys, gets / 2, ht);
            }
            report("rdma", hr, wall[0], rc.tornReads());
            report("tcp", ht, wall[1], 0);
            System.out.printf("rdma/tcp: p50 %.2f, p99 %.2f, throughput %.2f%n",
                    (double) hr.getValueAtPercentile(50) / ht.getValueAtPercentile(50),
                    (double) hr.getValueAtPercentile(99) / ht.getValueAtPercentile(99), (double) wall[1] / wall[0]);
        }
    }

    private interface Get {
        byte[] get(byte[] key);
    }

    private static long run(Get get, int keys, int n, Histogram h) {
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < n / 10; i++) {
            check(get.get(key(r.nextInt(keys))));
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            int k = r.nextInt(keys);
            long s = System.nanoTime();
            byte[] v = get.get(key(k));
            h.recordValue((System.nanoTime() - s) / 1000);
            if (v == null || !java.util.Arrays.equals(v, value(k))) {
                throw new AssertionError("GET " + k + " gave a wrong value");
            }
        }
        return System.nanoTime() - t0;
    }

    private static void check(byte[] v) {
        if (v == null) {
            throw new AssertionError("a loaded key is missing");
        }
    }

    private static void report(String kind, Histogram h, long wallNs, long torn) {
        System.out.printf("RESULT kind=%s gets=%d ops_per_s=%.0f p50_us=%d p99_us=%d torn=%d%n", kind, h.getTotalCount(),
                h.getTotalCount() / (wallNs / 1e9), h.getValueAtPercentile(50), h.getValueAtPercentile(99), torn);
    }

    static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(int i) {
        return ("value-of-" + i + "-" + Integer.toHexString(i * 31)).getBytes(StandardCharsets.US_ASCII);
    }
}
