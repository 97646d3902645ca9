package org.jrdma.examples.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jrdma.app.EndpointConfig;
import org.jrdma.app.EndpointGroup;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;
import org.jrdma.examples.LoopbackDevices;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The key-value store over soft RoCE (jrxe0 server, jrxe1 client), over soft iWARP (jsiw0/jsiw1) and
 * over TCP: PUT then GET of many keys, updates, missing keys, full probe sequences, and a GET that meets
 * a slot the server is rewriting (it reads again until the update is complete, never returning torn bytes).
 */
class KvStoreTest {
    static String[] ips;

    @BeforeAll
    static void devices() {
        ips = LoopbackDevices.configure();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void putGetUpdate(RdmaOrTcp kv) {
        for (int i = 0; i < 300; i++) {
            kv.put(KvBench.key(i), KvBench.value(i));
        }
        for (int i = 0; i < 300; i++) {
            assertArrayEquals(KvBench.value(i), kv.get(KvBench.key(i)), "key " + i);
        }
        assertNull(kv.get(b("never-stored")));
        kv.put(KvBench.key(7), b("seven, updated"));
        assertArrayEquals(b("seven, updated"), kv.get(KvBench.key(7)));
        kv.put(b("empty"), new byte[0]);
        assertArrayEquals(new byte[0], kv.get(b("empty")));
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> kv.put(new byte[33], b("x"))).errno());
    }

    private interface RdmaOrTcp {
        void put(byte[] k, byte[] v);

        byte[] get(byte[] k);
    }

    @Test
    void overSoftRoce() throws Exception {
        try (EndpointGroup g = EndpointGroup.create(new EndpointConfig());
             RdmaKvServer s = RdmaKvServer.start(g, new InetSocketAddress(InetAddress.getByName(ips[0]), 0), 1024);
             RdmaKvClient c = RdmaKvClient.connect(g, s.address(), new InetSocketAddress(InetAddress.getByName(ips[1]), 0))) {
            putGetUpdate(new RdmaOrTcp() {
                public void put(byte[] k, byte[] v) {
                    c.put(k, v);
                }

                public byte[] get(byte[] k) {
                    return c.get(k);
                }
            });
            assertEquals(0, c.tornReads());
        }
    }

    @Test
    void overSoftIwarp() throws Exception {
        try (EndpointGroup g = EndpointGroup.create(new EndpointConfig());
             RdmaKvServer s = RdmaKvServer.start(g, new InetSocketAddress(InetAddress.getByName(ips[2]), 0), 1024);
             RdmaKvClient c = RdmaKvClient.connect(g, s.address(), new InetSocketAddress(InetAddress.getByName(ips[3]), 0))) {
            for (int i = 0; i < 50; i++) {
                c.put(KvBench.key(i), KvBench.value(i));
            }
            for (int i = 0; i < 50; i++) {
                assertArrayEquals(KvBench.value(i), c.get(KvBench.key(i)));
            }
        }
    }

    @Test
    void overTcp() throws Exception {
        try (TcpKvServer s = TcpKvServer.start(new InetSocketAddress(InetAddress.getByName(ips[0]), 0), 1024);
             TcpKvClient c = TcpKvClient.connect(s.address())) {
            putGetUpdate(new RdmaOrTcp() {
                public void put(byte[] k, byte[] v) {
                    c.put(k, v);
                }

                public byte[] get(byte[] k) {
                    return c.get(k);
                }
            });
        }
    }

    @Test
    void aGetThatMeetsASlotMidUpdateReadsAgainAndNeverReturnsTornBytes() throws Exception {
        try (EndpointGroup g = EndpointGroup.create(new EndpointConfig());
             RdmaKvServer s = RdmaKvServer.start(g, new InetSocketAddress(InetAddress.getByName(ips[0]), 0), 64);
             RdmaKvClient c = RdmaKvClient.connect(g, s.address(), new InetSocketAddress(InetAddress.getByName(ips[1]), 0))) {
            c.put(b("k"), b("old value"));
            KvTable t = s.table();
            int slot = t.slotFor(b("k"));
            CompletableFuture<byte[]> got;
            synchronized (t) {                                  // no PUT meanwhile: this thread is the writer now
                KvLayout.beginUpdate(t.slot(slot));             // version odd: the server is rewriting the slot
                got = CompletableFuture.supplyAsync(() -> c.get(b("k")));
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (c.tornReads() < 3 && System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                assertTrue(c.tornReads() >= 3, "the GET kept reading the slot while it was mid-update");
                KvLayout.store(t.slot(slot), b("k"), b("new value"));
            }
            assertArrayEquals(b("new value"), got.get(10, TimeUnit.SECONDS));
            // a slot whose bytes do not match its CRC (a torn read's picture) is not accepted either
            synchronized (t) {
                t.slot(slot).set(java.lang.foreign.ValueLayout.JAVA_BYTE, KvLayout.VALUE, (byte) 'X');
                long before = c.tornReads();
                got = CompletableFuture.supplyAsync(() -> c.get(b("k")));
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (c.tornReads() == before && System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                assertTrue(c.tornReads() > before, "a CRC mismatch counts as torn");
                KvLayout.store(t.slot(slot), b("k"), b("repaired"));
            }
            assertArrayEquals(b("repaired"), got.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aFullProbeSequenceIsEnospc() throws Exception {
        try (EndpointGroup g = EndpointGroup.create(new EndpointConfig());
             RdmaKvServer s = RdmaKvServer.start(g, new InetSocketAddress(InetAddress.getByName(ips[0]), 0), 8);
             RdmaKvClient c = RdmaKvClient.connect(g, s.address(), new InetSocketAddress(InetAddress.getByName(ips[1]), 0))) {
            for (int i = 0; i < 8; i++) {
                c.put(KvBench.key(i), KvBench.value(i));                 // 8 buckets, 8 probes: every key fits
            }
            assertEquals(Errno.ENOSPC, assertThrows(VerbsException.class, () -> c.put(b("one too many"), b("v"))).errno());
            for (int i = 0; i < 8; i++) {
                assertArrayEquals(KvBench.value(i), c.get(KvBench.key(i)));
            }
            assertNull(c.get(b("one too many")));
        }
    }
}
