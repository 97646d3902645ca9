package org.jrdma.nvmeof;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.nvmeof.wire.ConnectData;
import org.jrdma.nvmeof.wire.Cqe;
import org.jrdma.nvmeof.wire.Fabrics;
import org.jrdma.nvmeof.wire.Opcodes;
import org.jrdma.nvmeof.wire.Properties;
import org.jrdma.nvmeof.wire.RdmaCmReply;
import org.jrdma.nvmeof.wire.RdmaCmRequest;
import org.jrdma.nvmeof.wire.Sgl;
import org.jrdma.nvmeof.wire.Sqe;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;

/**
 * A test double of an NVMe/RDMA target on a jrdma device, enough for the host's tests: one RAM
 * namespace (NSID 1, 512-byte blocks), the Fabrics Connect / Property Get/Set, Identify (CNS 0, 1, 2),
 * Set Features Number of Queues, Keep Alive, Read, Write, Flush, each answered as Linux's nvmet-rdma
 * does (data by RDMA WRITE / RDMA READ at the keyed SGL, the response by SEND_WITH_INV of the key when
 * the SGL asks, else SEND). Field values follow the capture's Linux target where the host reads them.
 * {@link #misbehave} makes it answer the next data command wrongly, for the host's bad-input tests.
 * Not the project's target ({@code org.jrdma.nvmeof.target.NvmeTarget}): a double that records the
 * host's requests and can misbehave, with no checks beyond what the tests need.
 *
 * <p>Threads: one listener thread, one thread per connected queue polling its CQ.
 */
final class TestTarget implements AutoCloseable {
    static final String NQN = "nqn.2026-01.org.jrdma:test";
    static final int BLOCK = 512;
    static final long BLOCKS = 2048;

    /** How the next data command is answered wrongly. */
    enum Misbehave {
        NONE,
        /** SEND_WITH_INV of a key that is no window's (the host's RECV completes in error). */
        INVALIDATE_UNKNOWN_KEY,
        /** Hold the first data command; answer the second with SEND_WITH_INV of the first's key. */
        INVALIDATE_OTHER_COMMANDS_KEY,
        UNKNOWN_COMMAND_ID,
        SILENT
    }

    private static final ValueLayout.OfInt LE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private final Arena arena = Arena.ofShared();
    final MemorySegment disk = arena.allocate(BLOCK * BLOCKS, 4096);
    private final EventChannel ch = EventChannel.create();
    private final CmId listener;
    private final Thread accepter;
    private final List<Conn> conns = new CopyOnWriteArrayList<>();
    private volatile boolean running = true;
    volatile Misbehave misbehave = Misbehave.NONE;
    volatile int cc;
    final List<String> connects = new CopyOnWriteArrayList<>();
    final List<RdmaCmRequest> requests = new CopyOnWriteArrayList<>();
    /** Keep Alive commands received. */
    final java.util.concurrent.atomic.AtomicInteger keepAlives = new java.util.concurrent.atomic.AtomicInteger();

    TestTarget(InetSocketAddress address) {
        listener = CmId.create(ch, null, PortSpace.TCP);
        listener.bind(address);
        listener.listen(8);
        accepter = Thread.ofPlatform().daemon().name("test-target").start(this::accept);
    }

    private void accept() {
        while (running) {
            Optional<CmEvent> e = ch.getEvent(Duration.ofMillis(50));
            if (e.isEmpty()) {
                continue;
            }
            e.get().ack();
            if (e.get().type() == CmEventType.CONNECT_REQUEST) {
                RdmaCmRequest req = RdmaCmRequest.decode(e.get().privateData());
                requests.add(req);
                conns.add(new Conn(e.get().id(), req));
            } else if (e.get().type() == CmEventType.DISCONNECTED) {
                try {
                    e.get().id().disconnect();
                } catch (RuntimeException ignored) {
                    // this side disconnected first (disconnectAll): nothing to answer
                }
            }
        }
    }

    private final class Conn {
        final CmId id;
        final int qid;
        final int size;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemorySegment rx;
        final MemorySegment tx;
        final MemorySegment bounce;
        final MemoryRegion rxMr;
        final MemoryRegion txMr;
        final MemoryRegion diskMr;
        final MemoryRegion bounceMr;
        final Thread thread;
        /** RDMA READs in flight: wrId → what to do on completion. */
        final Map<Long, Runnable> reads = new HashMap<>();
        long nextWr = 1L << 40;

        Conn(CmId id, RdmaCmRequest req) {
            this.id = id;
            this.qid = req.qid();
            this.size = req.hrqsize();
            pd = id.verbs().allocPd();
            cq = id.verbs().createCq(4 * size + 8, null);
            QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq);
            ia.cap().maxSendWr(4 * size).maxRecvWr(size).maxSendSge(1).maxRecvSge(1);
            qp = id.createQp(pd, ia);
            rx = arena.allocate(64L * size, 64);
            tx = arena.allocate(16L * size, 64);
            bounce = arena.allocate(8192, 4096);
            rxMr = pd.regMr(rx, AccessFlags.LOCAL_WRITE);
            txMr = pd.regMr(tx, AccessFlags.LOCAL_WRITE);
            diskMr = pd.regMr(disk, AccessFlags.LOCAL_WRITE);
            bounceMr = pd.regMr(bounce, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < size; i++) {
                qp.postRecv(new RecvWr().wrId(i).sgList(new Sge(rx.address() + 64L * i, 64, rxMr.lkey())));
            }
            id.accept(new ConnParam().privateData(new RdmaCmReply(0, size).encode()).responderResources(0).initiatorDepth(16)
                    .retryCount(7).rnrRetryCount(7));
            thread = Thread.ofPlatform().daemon().name("test-target-q" + qid).start(this::run);
        }

        void run() {
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            while (running) {
                int n = cq.poll(wcs);
                if (n == 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000);
                    continue;
                }
                for (int i = 0; i < n; i++) {
                    WorkCompletion wc = wcs[i];
                    if (wc.status() != WcStatus.SUCCESS) {
                        continue;
                    }
                    if (wc.opcode() == WcOpcode.RECV) {
                        int slot = (int) wc.wrId();
                        command(slot);
                    } else if (wc.opcode() == WcOpcode.RDMA_READ) {
                        Runnable r = reads.remove(wc.wrId());
                        if (r != null) {
                            r.run();
                        }
                    }
                }
            }
        }

        /** One command capsule in receive slot {@code slot} (this queue's thread). */
        void command(int slot) {
            Sqe s = new Sqe().wrap(MemorySegment.ofArray(rx.asSlice(64L * slot, 64).toArray(ValueLayout.JAVA_BYTE)), 0);
            qp.postRecv(new RecvWr().wrId(slot).sgList(new Sge(rx.address() + 64L * slot, 64, rxMr.lkey())));
            Sgl g = s.sgl1(new Sgl());
            int cid = s.commandId();
            if (s.opcode() == Opcodes.FABRICS) {
                switch (Fabrics.fctype(s)) {
                    case Opcodes.FCTYPE_CONNECT -> read(g, bounce, bounceMr, 0, ConnectData.SIZE, () -> {
                        connects.add(Fabrics.connectQid(s) + ":" + ConnectData.subsysNqn(bounce, 0) + ":"
                                + ConnectData.cntlid(bounce, 0) + ":" + Fabrics.connectKato(s));
                        respond(slot, cid, g, 1, 0);
                    });
                    case Opcodes.FCTYPE_PROPERTY_GET -> {
                        long v = switch (Fabrics.propertyOffset(s)) {
                            case Properties.CAP -> 127L | 15L << 24 | 1L << 37;
                            case Properties.VS -> 0x00010300;
                            case Properties.CC -> cc;
                            case Properties.CSTS -> (cc & 1) | ((cc & Properties.CC_SHN_MASK) != 0 ? Properties.CSTS_SHST_CMPLT : 0);
                            default -> 0;
                        };
                        respond(slot, cid, g, v, 0);
                    }
                    case Opcodes.FCTYPE_PROPERTY_SET -> {
                        cc = (int) Fabrics.propertyValue(s);
                        respond(slot, cid, g, 0, 0);
                    }
                    default -> respond(slot, cid, g, 0, 0x01 << 1);
                }
                return;
            }
            if (qid == 0) {
                switch (s.opcode()) {
                    case Opcodes.ADMIN_IDENTIFY -> {
                        bounce.asSlice(0, 4096).fill((byte) 0);
                        int cns = s.cdw(10) & 0xff;
                        if (cns == Opcodes.CNS_CONTROLLER) {
                            ascii(bounce, 4, "jrdma-test-target   ");
                            ascii(bounce, 24, "jrdma test target");
                            bounce.set(ValueLayout.JAVA_BYTE, 77, (byte) 8);
                            bounce.set(LE32, 536, 0x00100005);
                            ascii(bounce, 768, NQN);
                            bounce.set(LE32, 1792, 4);
                            bounce.set(LE32, 1796, 1);
                        } else if (cns == Opcodes.CNS_ACTIVE_NS_LIST) {
                            bounce.set(LE32, 0, 1);
                        } else if (cns == Opcodes.CNS_NAMESPACE) {
                            bounce.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0, BLOCKS);
                            bounce.set(LE32, 128, 9 << 16);
                        }
                        write(g, bounce, bounceMr, 0, 4096);
                        respond(slot, cid, g, 0, 0);
                    }
                    case Opcodes.ADMIN_SET_FEATURES -> respond(slot, cid, g, s.cdw(11) & 0xffffffffL, 0);
                    case Opcodes.ADMIN_KEEP_ALIVE -> {
                        keepAlives.incrementAndGet();
                        respond(slot, cid, g, 0, 0);
                    }
                    case Opcodes.ADMIN_ASYNC_EVENT -> {
                        // held, as nvmet holds it until an event
                    }
                    default -> respond(slot, cid, g, 0, 0);
                }
                return;
            }
            long slba = s.cdw10and11();
            int bytes = ((s.cdw(12) & 0xffff) + 1) * BLOCK;
            switch (s.opcode()) {
                case Opcodes.IO_READ -> {
                    if (misbehaving(slot, cid, g)) {
                        return;
                    }
                    write(g, disk, diskMr, slba * BLOCK, bytes);
                    respond(slot, cid, g, 0, 0);
                }
                case Opcodes.IO_WRITE -> {
                    if (misbehaving(slot, cid, g)) {
                        return;
                    }
                    read(g, disk, diskMr, slba * BLOCK, bytes, () -> respond(slot, cid, g, 0, 0));
                }
                default -> respond(slot, cid, g, 0, 0);
            }
        }

        Sgl held;

        boolean misbehaving(int slot, int cid, Sgl g) {
            Misbehave m = misbehave;
            if (m == Misbehave.INVALIDATE_OTHER_COMMANDS_KEY && held == null) {
                held = g;
                return true;
            }
            misbehave = Misbehave.NONE;
            switch (m) {
                case INVALIDATE_UNKNOWN_KEY -> post(slot, cid, 0, 0, g.key() ^ 0x100, true);
                case INVALIDATE_OTHER_COMMANDS_KEY -> post(slot, cid, 0, 0, held.key(), true);
                case UNKNOWN_COMMAND_ID -> post(slot, cid ^ 0x7f, 0, 0, 0, false);
                case SILENT -> {
                }
                default -> {
                    return false;
                }
            }
            return true;
        }

        void read(Sgl g, MemorySegment into, MemoryRegion mr, long off, int len, Runnable then) {
            long wr = nextWr++;
            reads.put(wr, then);
            qp.postSend(new SendWr().wrId(wr).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .rdma(g.address(), g.key()).sgList(new Sge(into.address() + off, len, mr.lkey())));
        }

        void write(Sgl g, MemorySegment from, MemoryRegion mr, long off, int len) {
            qp.postSend(new SendWr().wrId(nextWr++).opcode(WrOpcode.RDMA_WRITE).rdma(g.address(), g.key())
                    .sgList(new Sge(from.address() + off, len, mr.lkey())));
        }

        void respond(int slot, int cid, Sgl g, long result, int statusField) {
            boolean inv = g.type() == Sgl.TYPE_KEYED_DATA_BLOCK && g.subType() == Sgl.SUBTYPE_INVALIDATE && g.length() > 0;
            post(slot, cid, result, statusField, inv ? g.key() : 0, inv);
        }

        void post(int slot, int cid, long result, int statusField, int key, boolean inv) {
            Cqe c = new Cqe().wrap(tx, 16L * slot).clear().result(result).sqId(qid).commandId(cid).statusField(statusField);
            SendWr w = new SendWr().wrId(nextWr++).opcode(inv ? WrOpcode.SEND_WITH_INV : WrOpcode.SEND)
                    .sgList(new Sge(tx.address() + 16L * slot, 16, txMr.lkey()));
            if (inv) {
                w.invalidateRkey(key);
            }
            qp.postSend(w);
        }

        void close() {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            id.destroy();
        }
    }

    private static void ascii(MemorySegment s, long off, String v) {
        byte[] b = v.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, off, b.length);
    }

    /** Disconnects every queue from the target's side (the host sees DISCONNECTED). */
    void disconnectAll() {
        for (Conn c : conns) {
            c.id.disconnect();
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            accepter.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Conn> l = new ArrayList<>(conns);
        for (Conn c : l) {
            c.close();
        }
        listener.destroy();
        ch.close();
    }
}
