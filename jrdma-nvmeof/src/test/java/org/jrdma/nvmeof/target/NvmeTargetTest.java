package org.jrdma.nvmeof.target;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.concurrent.atomic.AtomicInteger;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.nvmeof.IoBuffer;
import org.jrdma.nvmeof.LoopbackPair;
import org.jrdma.nvmeof.NvmeConnectOptions;
import org.jrdma.nvmeof.NvmeController;
import org.jrdma.nvmeof.NvmeNamespace;
import org.jrdma.nvmeof.wire.Commands;
import org.jrdma.nvmeof.wire.Cqe;
import org.jrdma.nvmeof.wire.DiscoveryLog;
import org.jrdma.nvmeof.wire.Opcodes;
import org.jrdma.nvmeof.wire.RdmaCmReject;
import org.jrdma.nvmeof.wire.Sgl;
import org.jrdma.nvmeof.wire.Sqe;
import org.jrdma.verbs.WcFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The target over jrdma's soft RoCE v2 in one JVM (jrxe0 target, jrxe1 host, a random loopback pair):
 * jrdma's own host against it (discovery, bring-up, verified I/O on two queues), and a hostile host
 * ({@link RawHost}) sending what a host must not: each refused with the NVMe status of the NVMe Base
 * 2.0 / NVM Command Set / NVMe-oF 1.1 figures named beside it (status without the phase tag: SCT in
 * bits 10:8, SC 7:0, DNR bit 14), the namespace unchanged, the target still serving afterwards.
 */
@Timeout(90)
class NvmeTargetTest {
    private static final String[] PAIR = LoopbackPair.configureJrxe();
    private static final AtomicInteger PORTS = new AtomicInteger(25000 + (int) (ProcessHandle.current().pid() % 4000));
    private static final String NQN = "nqn.2026-01.org.jrdma:test-target";
    private static final int DNR = 0x4000;
    /** 64 MiB of 512-byte blocks. */
    private static final long BLOCKS = 131072;
    private NvmeTarget target;
    private InetSocketAddress at;
    private InetSocketAddress from;

    @BeforeEach
    void start() throws Exception {
        at = new InetSocketAddress(InetAddress.getByName(PAIR[0]), PORTS.incrementAndGet());
        from = new InetSocketAddress(InetAddress.getByName(PAIR[1]), 0);
        target = NvmeTarget.start(new NvmeTargetOptions().address(at).subsysNqn(NQN).namespace(64L << 20).namespace(1L << 20));
    }

    @AfterEach
    void stop() {
        target.close();
    }

    private NvmeConnectOptions options() {
        return new NvmeConnectOptions().target(at).source(from).subsysNqn(NQN).ioQueues(2).queueSize(32)
                .commandTimeout(Duration.ofSeconds(10)).connectTimeout(Duration.ofSeconds(20));
    }

    @Test
    void discoveryLogNamesTheSubsystemAtThisPort() {
        try (NvmeController c = NvmeController.connect(options().subsysNqn(NvmeConnectOptions.DISCOVERY_NQN))) {
            DiscoveryLog log = c.discoveryLog();
            // as Linux's nvmet: the current discovery subsystem (subtype 3), then the NVM subsystem
            assertEquals(2, log.numrec());
            assertEquals(3, log.entries().get(0).subtype());
            assertEquals(NvmeConnectOptions.DISCOVERY_NQN, log.entries().get(0).subnqn());
            DiscoveryLog.Entry e = log.entries().get(1);
            assertEquals(1, e.trtype(), "rdma");
            assertEquals(1, e.adrfam(), "ipv4");
            assertEquals(2, e.subtype(), "nvme subsystem");
            assertEquals(NQN, e.subnqn());
            assertEquals(PAIR[0], e.traddr());
            assertEquals(Integer.toString(at.getPort()), e.trsvcid());
            assertEquals(0xffff, e.cntlid());
            assertEquals(1, e.rdmaQptype(), "connected");
            assertEquals(1, e.rdmaCms(), "rdma-cm");
            assertEquals(NvmeConnectOptions.DISCOVERY_NQN, c.identify().subnqn());
            assertEquals(0, c.ioQueueCount());
        }
    }

    @Test
    void bringUpIdentifyAndShutdown() {
        try (NvmeController c = NvmeController.connect(options())) {
            assertTrue(c.cntlid() >= 1);
            assertEquals(0x00010300, c.vs());
            assertEquals(127, c.cap() & 0xffff, "MQES");
            assertEquals(2, c.ioQueueCount());
            assertEquals(32, c.ioQueueSize());
            assertEquals("jrdma", c.identify().mn());
            assertEquals(NQN, c.identify().subnqn());
            assertEquals(c.cntlid(), c.identify().cntlid());
            assertEquals(4096, c.identify().inCapsuleDataSize(), "IOCCSZ: 64 + 4096 bytes");
            assertTrue(c.identify().keyedSglSupported());
            assertEquals(2, c.namespaces().size());
            assertEquals(BLOCKS, c.namespace(1).blockCount());
            assertEquals(2048, c.namespace(2).blockCount());
            assertEquals(512, c.namespace(1).blockSize());
            assertEquals(1, target.controllerCount());
            assertEquals(3, target.queueCount());
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((target.queueCount() > 0 || target.controllerCount() > 0) && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        assertEquals(0, target.queueCount(), "the queues are freed on disconnect");
        assertEquals(0, target.controllerCount());
    }

    @Test
    void writesThenReadsOnTwoQueuesAreVerifiedKeyedAndInCapsule() throws Exception {
        Random rnd = new Random(17);
        int ios = 64;
        try (NvmeController c = NvmeController.connect(options()); IoBuffer w = c.allocBuffer(8192L * ios);
                IoBuffer r = c.allocBuffer(8192L * ios)) {
            NvmeNamespace ns = c.namespace(1);
            byte[] data = new byte[8192 * ios];
            rnd.nextBytes(data);
            MemorySegment.copy(data, 0, w.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
            long[] lba = new long[ios];
            int[] blocks = new int[ios];
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (int i = 0; i < ios; i++) {
                lba[i] = 1000L + 97L * i;
                blocks[i] = i % 2 == 0 ? 8 : 16;   // 4 KiB (fits the capsule) and 8 KiB (keyed)
                fs.add(ns.write(lba[i], blocks[i], w, 8192L * i));
            }
            CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            MemorySegment disk = target.namespaceMemory(1);
            for (int i = 0; i < ios; i++) {
                byte[] want = Arrays.copyOfRange(data, 8192 * i, 8192 * i + blocks[i] * 512);
                assertArrayEquals(want, disk.asSlice(lba[i] * 512, blocks[i] * 512L).toArray(ValueLayout.JAVA_BYTE), "write " + i);
            }
            fs.clear();
            for (int i = 0; i < ios; i++) {
                fs.add(ns.read(lba[i], blocks[i], r, 8192L * i));
            }
            CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            for (int i = 0; i < ios; i++) {
                assertArrayEquals(Arrays.copyOfRange(data, 8192 * i, 8192 * i + blocks[i] * 512),
                        r.segment().asSlice(8192L * i, blocks[i] * 512L).toArray(ValueLayout.JAVA_BYTE), "read " + i);
            }
            ns.flushSync();
            assertEquals(0, target.counters().errorStatuses());
            assertEquals(0, target.counters().transportErrors());
        }
    }

    @Test
    void theHostsAsyncEventRequestIsHeldWithoutTimingOutAndAbortIsAnswered() throws Exception {
        try (NvmeController c = NvmeController.connect(options().ioQueues(1).keepAliveTimeoutMs(1000)
                .commandTimeout(Duration.ofMillis(1500)))) {
            // the target has no event to report: the AER stays outstanding past the 1.5 s command timeout
            Thread.sleep(2500);
            assertEquals(List.of(), c.asyncEvents());
            assertNull(c.keepAliveFailure(), "the admin queue was not cut off by the AER's age");
            // nvmet answers every Abort "not aborted" (DW0 bit 0 set); so does this target
            assertEquals(false, c.abort(1, 5));
            try (IoBuffer b = c.allocBuffer(4096)) {
                c.namespace(1).readSync(0, 8, b, 0);
            }
        }
    }

    // --- the hostile host ---

    /** An admin queue connected and enabled, and I/O queue 1 connected, both as RawHosts. */
    private RawHost[] connected() {
        RawHost admin = RawHost.queue(from, at, 0, 32);
        assertTrue(admin.established());
        Cqe c = admin.connect(0, 31, 0, 0xffff, NQN);
        assertEquals(0, c.status());
        int cntlid = c.dw0() & 0xffff;
        assertEquals(0, admin.enable().status());
        RawHost io = RawHost.queue(from, at, 1, 32);
        assertTrue(io.established());
        assertEquals(0, io.connect(1, 31, 0, cntlid, NQN).status());
        return new RawHost[] {admin, io};
    }

    private static void closeAll(RawHost[] h) {
        for (RawHost x : h) {
            x.close();
        }
    }

    private byte[] disk(long lba, int blocks) {
        return target.namespaceMemory(1).asSlice(lba * 512, blocks * 512L).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void badCommandsGetTheirNvmeStatusAndMoveNoData() {
        RawHost[] h = connected();
        RawHost io = h[1];
        try {
            byte[] before = disk(0, 64);
            io.data.fill((byte) 0x5a);
            // unknown opcode 55h: SCT 0 SC 01h Invalid Command Opcode (Base 2.0 Figure 101)
            io.command(0x55, 1);
            assertEquals(DNR | 0x001, io.exchange(0).status());
            // NSID 7 of 2 namespaces: SC 0Bh Invalid Namespace or Format
            Commands.readWrite(io.sqe, false, 2, 7, 0, 8);
            io.keyed(0, 4096, Sgl.SUBTYPE_ADDRESS);
            assertEquals(DNR | 0x00b, io.exchange(0).status());
            // past the end, and an SLBA whose sum with NLB overflows: SC 80h LBA Out of Range (NVM Command Set Figure 23)
            Commands.readWrite(io.sqe, true, 3, 1, BLOCKS - 4, 8);
            io.keyed(0, 4096, Sgl.SUBTYPE_ADDRESS);
            assertEquals(DNR | 0x080, io.exchange(0).status());
            Commands.readWrite(io.sqe, false, 4, 1, Long.MAX_VALUE - 2, 8);
            io.keyed(0, 4096, Sgl.SUBTYPE_ADDRESS);
            assertEquals(DNR | 0x080, io.exchange(0).status());
            // a keyed SGL shorter than the 8 blocks: SC 0Fh Data SGL Length Invalid
            Commands.readWrite(io.sqe, true, 5, 1, 0, 8);
            io.keyed(0, 2048, Sgl.SUBTYPE_ADDRESS);
            assertEquals(DNR | 0x00f, io.exchange(0).status());
            // a Last Segment descriptor (type 3h) and a keyed sub type 5h: SC 11h SGL Descriptor Type Invalid
            Commands.readWrite(io.sqe, true, 6, 1, 0, 8);
            io.keyed(0, 4096, Sgl.SUBTYPE_ADDRESS);
            io.tx.set(ValueLayout.JAVA_BYTE, Sqe.DPTR + 15, (byte) 0x30);
            assertEquals(DNR | 0x011, io.exchange(0).status());
            Commands.readWrite(io.sqe, true, 7, 1, 0, 8);
            io.keyed(0, 4096, 0x5);
            assertEquals(DNR | 0x011, io.exchange(0).status());
            // in-capsule data at offset 4000 of a 4096-byte capsule data area: SC 16h SGL Offset Invalid
            Commands.readWrite(io.sqe, true, 8, 1, 0, 8);
            io.sgl().inCapsule(4000, 4096);
            assertEquals(DNR | 0x016, io.exchange(4096).status());
            // in-capsule data announced but not sent (a 64-byte capsule): Data SGL Length Invalid
            Commands.readWrite(io.sqe, true, 9, 1, 0, 8);
            io.sgl().inCapsule(0, 4096);
            assertEquals(DNR | 0x00f, io.exchange(0).status());
            // in-capsule data with a Read (controller to host): SC 02h Invalid Field in Command, as nvmet
            Commands.readWrite(io.sqe, false, 10, 1, 0, 8);
            io.sgl().inCapsule(0, 4096);
            assertEquals(DNR | 0x002, io.exchange(0).status());
            // PSDT 00b (PRPs; fabrics needs SGLs): Invalid Field in Command
            Commands.readWrite(io.sqe, true, 11, 1, 0, 8);
            io.keyed(0, 4096, Sgl.SUBTYPE_ADDRESS);
            io.sqe.flags(0);
            assertEquals(DNR | 0x002, io.exchange(0).status());
            // 65536 blocks (32 MiB) > MDTS (1 MiB): Invalid Field in Command
            Commands.readWrite(io.sqe, false, 12, 1, 0, 65536);
            io.keyed(0, 0xffffff, Sgl.SUBTYPE_ADDRESS);
            assertEquals(DNR | 0x002, io.exchange(0).status());
            assertArrayEquals(before, disk(0, 64), "no refused Write reached the namespace");
            // the queue still works: an in-capsule Write and a keyed Read of it
            Commands.readWrite(io.sqe, true, 13, 1, 0, 8);
            io.sgl().inCapsule(0, 4096);
            io.tx.asSlice(64, 4096).fill((byte) 0x77);
            assertEquals(0, io.exchange(4096).status());
            byte[] sevens = new byte[4096];
            Arrays.fill(sevens, (byte) 0x77);
            assertArrayEquals(sevens, disk(0, 8));
            Commands.readWrite(io.sqe, false, 14, 1, 0, 8);
            io.keyed(8192, 4096, Sgl.SUBTYPE_ADDRESS);
            Cqe ok = io.exchange(0);
            assertEquals(0, ok.status());
            assertEquals(1, ok.sqId());
            assertEquals(14, ok.commandId());
            assertArrayEquals(sevens, io.data.asSlice(8192, 4096).toArray(ValueLayout.JAVA_BYTE));
            assertEquals((byte) 0x5a, io.data.get(ValueLayout.JAVA_BYTE, 8192 + 4096), "nothing past the SGL's 4096 bytes");
            assertEquals((byte) 0x5a, io.data.get(ValueLayout.JAVA_BYTE, 8191), "nothing before it");
            assertEquals(0, io.lastRecv.wcFlags() & WcFlags.WITH_INV, "sub type 0h: a plain SEND");
            assertEquals(0, target.counters().transportErrors());
        } finally {
            closeAll(h);
        }
    }

    @Test
    void writeZeroesAndDeallocateZeroTheirRangesOnly() {
        RawHost[] h = connected();
        RawHost io = h[1];
        try {
            io.data.fill((byte) 0x11);
            Commands.readWrite(io.sqe, true, 1, 1, 100, 64);
            io.keyed(0, 64 * 512, Sgl.SUBTYPE_ADDRESS);
            assertEquals(0, io.exchange(0).status());
            // Write Zeroes of blocks 110..119 (NVM Command Set §3.2.8: CDW12 NLB 0's based)
            io.command(Opcodes.IO_WRITE_ZEROES, 1).cdw10and11(110).cdw(12, 9);
            assertEquals(0, io.exchange(0).status());
            // Dataset Management, AD: one range, blocks 130..139 (range: context attributes, NLB, SLBA)
            io.data.set(ValueLayout.JAVA_INT_UNALIGNED, 65536, 0);
            io.data.set(ValueLayout.JAVA_INT_UNALIGNED, 65536 + 4, 10);
            io.data.set(ValueLayout.JAVA_LONG_UNALIGNED, 65536 + 8, 130);
            io.command(Opcodes.IO_DSM, 1).cdw(10, 0).cdw(11, 1 << 2);
            io.keyed(65536, 16, Sgl.SUBTYPE_ADDRESS);
            assertEquals(0, io.exchange(0).status());
            // a range past the end: LBA Out of Range, nothing deallocated
            io.data.set(ValueLayout.JAVA_LONG_UNALIGNED, 65536 + 8, BLOCKS - 5);
            io.command(Opcodes.IO_DSM, 1).cdw(10, 0).cdw(11, 1 << 2);
            io.keyed(65536, 16, Sgl.SUBTYPE_ADDRESS);
            assertEquals(DNR | 0x080, io.exchange(0).status());
            byte[] d = disk(100, 64);
            for (int b = 0; b < 64; b++) {
                long lba = 100 + b;
                byte want = (lba >= 110 && lba < 120) || (lba >= 130 && lba < 140) ? 0 : (byte) 0x11;
                for (int i = 0; i < 512; i++) {
                    assertEquals(want, d[b * 512 + i], "block " + lba);
                }
            }
        } finally {
            closeAll(h);
        }
    }

    @Test
    void adminAndFabricsRefusals() {
        RawHost[] h = connected();
        RawHost admin = h[0];
        try {
            // Identify CNS 55h: Invalid Field in Command
            Commands.identify(admin.sqe, 1, 0x55, 0);
            admin.keyed(0, 4096, Sgl.SUBTYPE_ADDRESS);
            assertEquals(DNR | 0x002, admin.exchange(0).status());
            // the discovery log on an NVM controller: SCT 1h SC 09h Invalid Log Page (Base 2.0 Figure 199)
            Commands.getLogPage(admin.sqe, 2, Opcodes.LOG_DISCOVERY, 0, 4096, 0);
            admin.keyed(0, 4096, Sgl.SUBTYPE_ADDRESS);
            assertEquals(DNR | 0x109, admin.exchange(0).status());
            // Property Set of CAP: Invalid Field in Command
            org.jrdma.nvmeof.wire.Fabrics.propertySet(admin.sqe, 3, 0, 1);
            admin.sgl().none();
            assertEquals(DNR | 0x002, admin.exchange(0).status());
            // controller-to-host data described as in-capsule data: Invalid Field in Command (nvmet)
            Commands.identify(admin.sqe, 5, Opcodes.CNS_CONTROLLER, 0);
            admin.sgl().inCapsule(0, 4096);
            assertEquals(DNR | 0x002, admin.exchange(0).status());
            // four Asynchronous Event Requests are held (AERL 3), the fifth: SCT 1h SC 05h AER Limit Exceeded
            for (int i = 0; i < 4; i++) {
                admin.command(Opcodes.ADMIN_ASYNC_EVENT, 0);
                admin.sendOnly();
            }
            admin.command(Opcodes.ADMIN_ASYNC_EVENT, 0);
            Cqe c = admin.exchange(0);
            assertNotNull(c);
            assertEquals(DNR | 0x105, c.status());
            assertEquals(admin.sqe.commandId(), c.commandId(), "the answer is the fifth's; the four are held");
            // a second Connect on a connected queue: SCT 1h SC 81h Controller Busy (as nvmet)
            assertEquals(DNR | 0x181, admin.connect(0, 31, 0, 0xffff, NQN).status());
        } finally {
            closeAll(h);
        }
    }

    @Test
    void connectRefusals() {
        // nvme_rdma_cm_rej statuses (RDMA binding Figure 6). A request of 8 bytes of private data: the IB CM
        // carries 56 bytes after the rdma_cm header whatever was given, so on RoCE it reads as zeros, HSQSIZE 0
        // (INVALID_LEN is for iWARP, whose MPA private data has its own length)
        byte[] recfmt = org.jrdma.nvmeof.wire.RdmaCmRequest.forQueue(0, 32).encode();
        recfmt[0] = 1;
        Object[][] cases = {
            {new byte[8], RdmaCmReject.INVALID_HSQSIZE},
            {recfmt, RdmaCmReject.INVALID_RECFMT},
            // an admin queue of 64 entries (32 at most, NVME_AQ_DEPTH)
            {org.jrdma.nvmeof.wire.RdmaCmRequest.forQueue(0, 64).encode(), RdmaCmReject.INVALID_HSQSIZE},
            {org.jrdma.nvmeof.wire.RdmaCmRequest.forQueue(500, 32).encode(), RdmaCmReject.INVALID_QID},
        };
        for (Object[] k : cases) {
            RawHost r = new RawHost(from, at, (byte[]) k[0]);
            try {
                assertEquals(CmEventType.REJECTED, r.connectEvent.type());
                assertEquals((int) k[1], RdmaCmReject.decode(r.connectEvent.privateData()).orElseThrow().status());
            } finally {
                r.close();
            }
        }
        assertEquals(4, target.counters().queuesRejected());
        RawHost a = RawHost.queue(from, at, 0, 32);
        try {
            // Connect naming another subsystem: SCT 1h SC 82h Connect Invalid Parameters, DW0 IATTR 1 IPO 256 (SUBNQN)
            Cqe c = a.connect(0, 31, 0, 0xffff, "nqn.2026-01.org.jrdma:nobody");
            assertEquals(DNR | 0x182, c.status());
            assertEquals(1 << 16 | 256, c.dw0());
            // a command before Connect: Invalid Command Opcode (nvmet)
            a.command(Opcodes.ADMIN_KEEP_ALIVE, 0);
            assertEquals(DNR | 0x001, a.exchange(0).status());
            // SQSIZE 40 on a queue of 32 receives: Connect Invalid Parameters, IPO 44 (SQSIZE)
            c = a.connect(0, 40, 0, 0xffff, NQN);
            assertEquals(DNR | 0x182, c.status());
            assertEquals(44, c.dw0());
        } finally {
            a.close();
        }
        // an I/O queue naming a controller that does not exist: IPO 16 of the data (CNTLID)
        RawHost io = RawHost.queue(from, at, 1, 32);
        try {
            Cqe c = io.connect(1, 31, 0, 0x1234, NQN);
            assertEquals(DNR | 0x182, c.status());
            assertEquals(1 << 16 | 16, c.dw0());
        } finally {
            io.close();
        }
    }

    @Test
    void aBadRkeyCutsOnlyThatQueueOffAndTouchesNothing() throws Exception {
        RawHost[] h = connected();
        try {
            byte[] before = disk(0, 16);
            RawHost io = h[1];
            // a Write whose key is not the host's: the target's RDMA READ fails (remote access error)
            Commands.readWrite(io.sqe, true, 1, 1, 0, 8);
            io.sgl().keyed(io.data.address(), 4096, io.dataMr.rkey() ^ 0x5500, Sgl.SUBTYPE_ADDRESS);
            assertNull(io.exchange(0), "no response: the queue is cut off");
            CmEvent e = io.event(Duration.ofSeconds(10));
            assertNotNull(e);
            assertEquals(CmEventType.DISCONNECTED, e.type());
            assertArrayEquals(before, disk(0, 16));
            assertTrue(target.counters().transportErrors() >= 1);
        } finally {
            closeAll(h);
        }
        // and the target serves the next host
        try (NvmeController c = NvmeController.connect(options().ioQueues(1)); IoBuffer b = c.allocBuffer(4096)) {
            c.namespace(1).readSync(0, 8, b, 0);
        }
    }

    @Test
    void aReadIntoAHostBufferTooShortCutsTheQueueOff() {
        RawHost[] h = connected();
        try {
            RawHost io = h[1];
            // the last 2 KiB of the host's 1 MiB region, described as 4 KiB: the target's RDMA WRITE is out of bounds
            Commands.readWrite(io.sqe, false, 1, 1, 0, 8);
            io.sgl().keyed(io.data.address() + RawHost.DATA - 2048, 4096, io.dataMr.rkey(), Sgl.SUBTYPE_ADDRESS);
            assertNull(io.exchange(0));
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (target.counters().transportErrors() == 0 && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            assertEquals(1, target.counters().transportErrors(), "the target's RDMA WRITE failed: that queue is cut off");
        } finally {
            closeAll(h);
        }
    }

    @Test
    void aShortCapsuleCutsTheQueueOff() {
        RawHost[] h = connected();
        try {
            h[1].command(Opcodes.IO_READ, 1);
            h[1].sendShort(40);
            CmEvent e = h[1].event(Duration.ofSeconds(10));
            assertNotNull(e);
            assertEquals(CmEventType.DISCONNECTED, e.type());
        } finally {
            closeAll(h);
        }
    }

    @Test
    void anIdleControllerIsEndedAfterItsKeepAliveTimeout() {
        RawHost admin = RawHost.queue(from, at, 0, 32);
        try {
            Cqe c = admin.connect(0, 31, 600, 0xffff, NQN);
            assertEquals(0, c.status());
            assertEquals(0, admin.enable().status());
            long t0 = System.nanoTime();
            // a keep alive within the timeout keeps it
            sleep(300);
            admin.command(Opcodes.ADMIN_KEEP_ALIVE, 0);
            assertEquals(0, admin.exchange(0).status());
            CmEvent e = admin.event(Duration.ofSeconds(10));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertNotNull(e, "the target disconnected the idle controller");
            assertEquals(CmEventType.DISCONNECTED, e.type());
            assertTrue(ms >= 900, "KATO 600 ms counted from the last command at ~300 ms: " + ms + " ms");
            assertEquals(1, target.counters().keepAliveExpiries());
        } finally {
            admin.close();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
