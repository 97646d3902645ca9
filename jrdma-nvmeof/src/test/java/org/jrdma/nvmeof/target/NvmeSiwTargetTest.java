package org.jrdma.nvmeof.target;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jrdma.nvmeof.IoBuffer;
import org.jrdma.nvmeof.NvmeConnectOptions;
import org.jrdma.nvmeof.NvmeController;
import org.jrdma.nvmeof.NvmeNamespace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jrdma's host and target over jrdma's soft iWARP (jsiw0 target, jsiw1 host, a random loopback pair).
 * siw has no memory windows, so the host exposes each I/O through its buffer's own region (sub type
 * 0h, no remote invalidation) — see {@code RdmaQueue}; small writes go in the capsule; iWARP has no
 * RNR retry, so this also shows the target's receives are posted again before its responses go out.
 */
@Timeout(120)
class NvmeSiwTargetTest {
    private static final String NET = pick();

    private static String pick() {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        String net = "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + ".";
        System.setProperty("jrdma.devices", "jsiw0=" + net + "1,jsiw1=" + net + "2");
        return net;
    }

    @Test
    void writesThenReadsOverIwarpAreVerified() throws Exception {
        InetSocketAddress at = new InetSocketAddress(InetAddress.getByName(NET + "1"), 4420);
        try (NvmeTarget target = NvmeTarget.start(new NvmeTargetOptions().address(at).namespace(16L << 20))) {
            NvmeConnectOptions o = new NvmeConnectOptions().target(at).source(new InetSocketAddress(InetAddress.getByName(NET + "2"), 0))
                    .subsysNqn(target.subsysNqn()).ioQueues(2).queueSize(32).commandTimeout(Duration.ofSeconds(20))
                    .connectTimeout(Duration.ofSeconds(20));
            int ios = 96;
            Random rnd = new Random(12);
            try (NvmeController c = NvmeController.connect(o); IoBuffer w = c.allocBuffer(8192L * ios);
                    IoBuffer r = c.allocBuffer(8192L * ios)) {
                assertFalse(c.memoryWindows(), "siw has no memory windows");
                assertEquals(4096, c.inCapsuleBytes());
                NvmeNamespace ns = c.namespace(1);
                byte[] data = new byte[8192 * ios];
                rnd.nextBytes(data);
                MemorySegment.copy(data, 0, w.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
                List<CompletableFuture<Void>> fs = new ArrayList<>();
                for (int i = 0; i < ios; i++) {
                    fs.add(ns.write(64L * i, i % 2 == 0 ? 8 : 16, w, 8192L * i));
                }
                CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                fs.clear();
                for (int i = 0; i < ios; i++) {
                    fs.add(ns.read(64L * i, i % 2 == 0 ? 8 : 16, r, 8192L * i));
                }
                CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                for (int i = 0; i < ios; i++) {
                    int len = (i % 2 == 0 ? 8 : 16) * 512;
                    assertArrayEquals(Arrays.copyOfRange(data, 8192 * i, 8192 * i + len),
                            r.segment().asSlice(8192L * i, len).toArray(ValueLayout.JAVA_BYTE), "I/O " + i);
                    assertArrayEquals(Arrays.copyOfRange(data, 8192 * i, 8192 * i + len),
                            target.namespaceMemory(1).asSlice(64L * 512 * i, len).toArray(ValueLayout.JAVA_BYTE), "on the target " + i);
                }
                ns.flushSync();
            }
            assertEquals(0, target.counters().transportErrors());
            assertEquals(0, target.counters().errorStatuses());
        }
    }
}
