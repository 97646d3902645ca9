package org.jrdma.nvmeof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.nvmeof.target.NvmeTarget;
import org.jrdma.nvmeof.target.NvmeTargetOptions;
import org.jrdma.nvmeof.wire.RdmaCmRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The host against {@link TestTarget} (where the test needs a target that records what it got or
 * answers wrongly) and against the project's {@link NvmeTarget} (verified I/O, range checks) over jrdma's soft RoCE v2 in one JVM (jrxe1 host → jrxe0 target on
 * a random loopback pair): the bring-up sequence and private data, I/O on two queues with verified data,
 * the memory windows' remote invalidation, and the bad-input paths (a response invalidating another
 * rkey, a response for a command ID not outstanding, a command that never completes, a target that
 * disconnects). The Linux proof is jrdma-interop's {@code RxeNvmeofInteropTest}; field values the host
 * decodes are checked against Linux's bytes in {@code LinuxCaptureCodecTest}.
 */
@Timeout(60)
class NvmeLoopbackTest {
    private static final String[] PAIR = LoopbackPair.configureJrxe();
    private static final AtomicInteger PORTS = new AtomicInteger(21000 + (int) (ProcessHandle.current().pid() % 4000));
    private TestTarget target;
    private int port;

    @BeforeEach
    void start() throws Exception {
        port = PORTS.incrementAndGet();
        target = new TestTarget(new InetSocketAddress(InetAddress.getByName(PAIR[0]), port));
    }

    @AfterEach
    void stop() {
        target.close();
    }

    private NvmeConnectOptions options() throws Exception {
        return new NvmeConnectOptions().target(new InetSocketAddress(InetAddress.getByName(PAIR[0]), port))
                .source(new InetSocketAddress(InetAddress.getByName(PAIR[1]), 0)).subsysNqn(TestTarget.NQN)
                .ioQueues(2).queueSize(16).commandTimeout(Duration.ofSeconds(10)).connectTimeout(Duration.ofSeconds(20));
    }

    @Test
    void bringUpAsLinuxDoesAndShutdownOnClose() throws Exception {
        NvmeConnectOptions o = options();
        try (NvmeController c = NvmeController.connect(o)) {
            assertEquals(1, c.cntlid());
            assertEquals(0x00010300, c.vs());
            assertEquals(2, c.ioQueueCount());
            assertEquals(16, c.ioQueueSize());
            assertEquals("jrdma test target", c.identify().mn());
            assertEquals(TestTarget.NQN, c.identify().subnqn());
            assertEquals(1, c.namespaces().size());
            NvmeNamespace ns = c.namespace(1);
            assertEquals(512, ns.blockSize());
            assertEquals(TestTarget.BLOCKS, ns.blockCount());
            assertTrue(c.memoryWindows(), "jrdma's soft RoCE has type 2 memory windows");
            // CC: IOSQES 6, IOCQES 4, CSS NVM, EN
            assertEquals(0x00460001, target.cc);
            assertEquals(List.of(new RdmaCmRequest(0, 0, 32, 31, 0), new RdmaCmRequest(0, 1, 16, 15, 0),
                    new RdmaCmRequest(0, 2, 16, 15, 0)), target.requests);
            assertEquals(List.of("0:" + TestTarget.NQN + ":65535:5000", "1:" + TestTarget.NQN + ":1:0",
                    "2:" + TestTarget.NQN + ":1:0"), target.connects);
        }
        assertEquals(1, target.cc >>> 14 & 3, "CC.SHN normal shutdown on close");
    }

    @Test
    void keepAliveEveryHalfKato() throws Exception {
        try (NvmeController c = NvmeController.connect(options().ioQueues(1).keepAliveTimeoutMs(400))) {
            assertEquals(400, c.keepAliveTimeoutMs());
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (target.keepAlives.get() < 3 && System.nanoTime() < end) {
                Thread.sleep(50);
            }
            assertTrue(target.keepAlives.get() >= 3, "keep alives: " + target.keepAlives.get());
            assertEquals(null, c.keepAliveFailure());
            assertEquals("0:" + TestTarget.NQN + ":65535:400", target.connects.getFirst(), "KATO in the admin Connect");
        }
    }

    /** The project's target ({@link NvmeTarget}) beside the test double, on the next port, same namespace size. */
    private NvmeTarget realTarget() throws Exception {
        return NvmeTarget.start(new NvmeTargetOptions().address(new InetSocketAddress(InetAddress.getByName(PAIR[0]), port + 1))
                .subsysNqn(TestTarget.NQN).namespace(TestTarget.BLOCKS * TestTarget.BLOCK));
    }

    private NvmeConnectOptions realOptions() throws Exception {
        return options().target(new InetSocketAddress(InetAddress.getByName(PAIR[0]), port + 1));
    }

    @Test
    void concurrentWritesThenReadsOnTwoQueuesAreVerified() throws Exception {
        Random rnd = new Random(17);
        int ios = 64;
        try (NvmeTarget real = realTarget(); NvmeController c = NvmeController.connect(realOptions().inCapsuleData(false));
                IoBuffer w = c.allocBuffer(4096L * ios); IoBuffer r = c.allocBuffer(4096L * ios)) {
            NvmeNamespace ns = c.namespace(1);
            byte[] data = new byte[4096 * ios];
            rnd.nextBytes(data);
            MemorySegment.copy(data, 0, w.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
            long[] lba = new long[ios];
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (int i = 0; i < ios; i++) {
                lba[i] = (long) i * 32 % (TestTarget.BLOCKS - 8);   // 64 distinct 8-block ranges
                fs.add(ns.write(lba[i], 8, w, 4096L * i));
            }
            CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            for (int i = 0; i < ios; i++) {
                byte[] onDisk = real.namespaceMemory(1).asSlice(lba[i] * 512, 4096).toArray(ValueLayout.JAVA_BYTE);
                assertArrayEquals(java.util.Arrays.copyOfRange(data, 4096 * i, 4096 * (i + 1)), onDisk, "write " + i);
            }
            fs.clear();
            for (int i = 0; i < ios; i++) {
                fs.add(ns.read(lba[i], 8, r, 4096L * i));
            }
            CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertArrayEquals(data, r.segment().toArray(ValueLayout.JAVA_BYTE));
            ns.flushSync();
            // every window was invalidated by the target's SEND_WITH_INV: the next 2 x 16 I/Os bind again
            ns.writeSync(0, 8, w, 0);
            ns.readSync(0, 8, r, 0);
        }
    }

    @Test
    void outOfRangeIsRefusedBeforeTheWire() throws Exception {
        try (NvmeTarget real = realTarget(); NvmeController c = NvmeController.connect(realOptions()); IoBuffer b = c.allocBuffer(4096)) {
            NvmeNamespace ns = c.namespace(1);
            ExecutionException e = assertThrows(ExecutionException.class, () -> ns.read(0, 16, b, 0).get());
            assertInstanceOf(IllegalArgumentException.class, e.getCause(), "8 KiB into a 4 KiB buffer");
            e = assertThrows(ExecutionException.class, () -> ns.read(TestTarget.BLOCKS - 4, 8, b, 0).get());
            assertInstanceOf(IllegalArgumentException.class, e.getCause(), "past the namespace's end");
            ns.readSync(0, 8, b, 0);
        }
    }

    private static Throwable failure(CompletableFuture<Void> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void aResponseInvalidatingAnotherCommandsRkeyCutsTheQueueOff() throws Exception {
        try (NvmeController c = NvmeController.connect(options().ioQueues(1)); IoBuffer b = c.allocBuffer(8192)) {
            NvmeNamespace ns = c.namespace(1);
            target.misbehave = TestTarget.Misbehave.INVALIDATE_OTHER_COMMANDS_KEY;
            CompletableFuture<Void> first = ns.read(0, 8, b, 0);
            CompletableFuture<Void> second = ns.read(8, 8, b, 4096);
            Throwable t = failure(second);
            assertInstanceOf(NvmeException.class, t);
            assertTrue(t.getMessage().contains("invalidated rkey") && t.getMessage().contains("whose key is"), t.getMessage());
            assertTrue(failure(first).getMessage().contains("invalidated rkey"), "every outstanding command fails");
            Throwable again = failure(ns.read(0, 8, b, 0));
            assertTrue(again.getMessage().contains("invalidated rkey"), "the queue stays failed: " + again.getMessage());
        }
    }

    @Test
    void aResponseInvalidatingAnUnknownRkeyCutsTheQueueOff() throws Exception {
        try (NvmeController c = NvmeController.connect(options().ioQueues(1)); IoBuffer b = c.allocBuffer(4096)) {
            target.misbehave = TestTarget.Misbehave.INVALIDATE_UNKNOWN_KEY;
            Throwable t = failure(c.namespace(1).read(0, 8, b, 0));
            // the host's provider itself refuses to invalidate a key that is no window's: the receive completes in error
            assertTrue(t.getMessage().contains("REM_INV_REQ_ERR"), t.getMessage());
        }
    }

    @Test
    void aResponseForACommandIdNotOutstandingCutsTheQueueOff() throws Exception {
        try (NvmeController c = NvmeController.connect(options().ioQueues(1)); IoBuffer b = c.allocBuffer(4096)) {
            target.misbehave = TestTarget.Misbehave.UNKNOWN_COMMAND_ID;
            Throwable t = failure(c.namespace(1).write(0, 8, b, 0));
            assertTrue(t.getMessage().contains("not outstanding"), t.getMessage());
        }
    }

    @Test
    void aCommandWithoutResponseTimesOut() throws Exception {
        try (NvmeController c = NvmeController.connect(options().ioQueues(1).commandTimeout(Duration.ofSeconds(3)));
                IoBuffer b = c.allocBuffer(4096)) {
            target.misbehave = TestTarget.Misbehave.SILENT;
            Throwable t = failure(c.namespace(1).read(0, 8, b, 0));
            assertTrue(t.getMessage().contains("timed out"), t.getMessage());
        }
    }

    @Test
    void aTargetDisconnectFailsTheQueues() throws Exception {
        try (NvmeController c = NvmeController.connect(options().ioQueues(1)); IoBuffer b = c.allocBuffer(4096)) {
            target.disconnectAll();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            Throwable t = null;
            while (System.nanoTime() < end) {
                try {
                    c.namespace(1).read(0, 8, b, 0).get(5, TimeUnit.SECONDS);
                    Thread.sleep(20);
                } catch (ExecutionException e) {
                    t = e.getCause();
                    break;
                }
            }
            assertInstanceOf(NvmeException.class, t);
        }
    }
}
