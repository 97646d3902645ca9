package org.jrdma.nvmeof.target;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.nvmeof.wire.ConnectData;
import org.jrdma.nvmeof.wire.Cqe;
import org.jrdma.nvmeof.wire.Fabrics;
import org.jrdma.nvmeof.wire.Properties;
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
 * A hostile NVMe/RDMA host for the target's tests: one queue over the CM with whatever private data,
 * command capsules written byte by byte (any SQE, any SGL, any in-capsule bytes), one command at a
 * time, its response capsule returned raw. A data buffer of 1 MiB with remote read and write, whose
 * rkey the commands may or may not use.
 */
final class RawHost implements AutoCloseable {
    static final UUID HOST_ID = UUID.fromString("6a1b2c3d-0000-4000-8000-00000000aa55");
    static final String HOST_NQN = "nqn.2014-08.org.nvmexpress:uuid:" + HOST_ID;
    static final int DATA = 1 << 20;
    private final EventChannel ch = EventChannel.create();
    final CmId id;
    final CmEvent connectEvent;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePair qp;
    private final Arena arena = Arena.ofShared();
    final MemorySegment tx = arena.allocate(64 + 16384, 64);
    final MemorySegment rx = arena.allocate(16 * 16, 64);
    final MemorySegment data = arena.allocate(DATA, 4096);
    private MemoryRegion txMr;
    private MemoryRegion rxMr;
    MemoryRegion dataMr;
    final Sqe sqe = new Sqe().wrap(tx, 0);
    private final WorkCompletion wc = new WorkCompletion();
    private int cid;
    /** The last response's receive completion (its flags and invalidated rkey). */
    WorkCompletion lastRecv = new WorkCompletion();

    RawHost(InetSocketAddress src, InetSocketAddress dst, byte[] privateData) {
        id = CmId.create(ch, null, PortSpace.TCP);
        id.resolveAddr(src, dst, Duration.ofSeconds(2));
        expect(CmEventType.ADDR_RESOLVED);
        id.resolveRoute(Duration.ofSeconds(2));
        expect(CmEventType.ROUTE_RESOLVED);
        pd = id.verbs().allocPd();
        cq = id.verbs().createCq(64, null);
        QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq);
        ia.cap().maxSendWr(32).maxRecvWr(16).maxSendSge(1).maxRecvSge(1);
        qp = id.createQp(pd, ia);
        txMr = pd.regMr(tx, AccessFlags.LOCAL_WRITE);
        rxMr = pd.regMr(rx, AccessFlags.LOCAL_WRITE);
        dataMr = pd.regMr(data, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
        for (int i = 0; i < 16; i++) {
            qp.postRecv(new RecvWr().wrId(i).sgList(new Sge(rx.address() + 16L * i, 16, rxMr.lkey())));
        }
        id.connect(new ConnParam().privateData(privateData).responderResources(16).initiatorDepth(0).flowControl(1)
                .retryCount(7).rnrRetryCount(7));
        connectEvent = next(Duration.ofSeconds(20));
    }

    /** A queue of {@code qid} and {@code size} entries, as a Linux host asks for it. */
    static RawHost queue(InetSocketAddress src, InetSocketAddress dst, int qid, int size) {
        return new RawHost(src, dst, RdmaCmRequest.forQueue(qid, size).encode());
    }

    boolean established() {
        return connectEvent != null && connectEvent.type() == CmEventType.ESTABLISHED;
    }

    private CmEvent next(Duration d) {
        Optional<CmEvent> e = ch.getEvent(d);
        if (e.isEmpty()) {
            return null;
        }
        e.get().ack();
        return e.get();
    }

    private void expect(CmEventType t) {
        CmEvent e = next(Duration.ofSeconds(10));
        if (e == null || e.type() != t) {
            throw new AssertionError("expected " + t + ", got " + e);
        }
    }

    /** The next CM event within {@code d} (e.g. DISCONNECTED from the target), or null. */
    CmEvent event(Duration d) {
        return next(d);
    }

    /** A cleared SQE (PSDT 01b) of {@code opcode} with a fresh command ID; SGL1 a null keyed block (no data) unless set after. */
    Sqe command(int opcode, int nsid) {
        sqe.clear().opcode(opcode).flags(Sqe.FLAGS_SGL).commandId(++cid & 0xffff).nsid(nsid);
        sgl().none();
        return sqe;
    }

    Sgl sgl() {
        return sqe.sgl1(new Sgl());
    }

    /** The data buffer described by a keyed SGL: {@code len} bytes at {@code off}, this rkey, sub type {@code sub}. */
    Sqe keyed(long off, int len, int sub) {
        sgl().keyed(data.address() + off, len, dataMr.rkey(), sub);
        return sqe;
    }

    /**
     * Sends the capsule (the SQE and {@code inCapsule} bytes after it, at tx 64..) and waits for one
     * response capsule: its 16 bytes, or null when none came within 10 s or the queue failed.
     */
    Cqe exchange(int inCapsule) {
        qp.postSend(new SendWr().wrId(1000 + cid).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(tx.address(), 64 + inCapsule, txMr.lkey())));
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < end) {
            if (cq.poll(new WorkCompletion[] {wc}) == 0) {
                Thread.onSpinWait();
                continue;
            }
            if (wc.status() != WcStatus.SUCCESS) {
                return null;
            }
            if (wc.opcode() == WcOpcode.RECV) {
                lastRecv = new WorkCompletion().copyFrom(wc);
                int i = (int) wc.wrId();
                MemorySegment copy = Arena.ofAuto().allocate(16);
                MemorySegment.copy(rx, 16L * i, copy, 0, 16);
                qp.postRecv(new RecvWr().wrId(i).sgList(new Sge(rx.address() + 16L * i, 16, rxMr.lkey())));
                return new Cqe().wrap(copy, 0);
            }
        }
        return null;
    }

    /** Sends the 64-byte capsule and returns at once (a command answered later, or never). */
    void sendOnly() {
        qp.postSend(new SendWr().wrId(998).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sgList(new Sge(tx.address(), 64, txMr.lkey())));
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < end && cq.poll(new WorkCompletion[] {wc}) == 0) {
            Thread.onSpinWait();
        }
    }

    /** Sends only {@code bytes} of the capsule (a short capsule) and returns at once. */
    void sendShort(int bytes) {
        qp.postSend(new SendWr().wrId(999).opcode(WrOpcode.SEND).sgList(new Sge(tx.address(), bytes, txMr.lkey())));
    }

    /** Fabrics Connect of this queue with its data by keyed SGL from data[0..1024). */
    Cqe connect(int qid, int sqsize, int kato, int cntlid, String subnqn) {
        ConnectData.write(data, 0, HOST_ID, cntlid, subnqn, HOST_NQN);
        Fabrics.connect(sqe, ++cid & 0xffff, qid, sqsize, kato);
        keyed(0, ConnectData.SIZE, Sgl.SUBTYPE_ADDRESS);
        return exchange(0);
    }

    /** Property Set CC = EN with 64/16-byte entries. */
    Cqe enable() {
        Fabrics.propertySet(sqe, ++cid & 0xffff, Properties.CC, Properties.CC_IOSQES | Properties.CC_IOCQES | Properties.CC_EN);
        sgl().none();
        return exchange(0);
    }

    @Override
    public void close() {
        if (established()) {
            try {
                id.disconnect();
            } catch (RuntimeException ignored) {
                // disconnected by the target already
            }
        }
        id.destroyQp();
        cq.close();
        txMr.close();
        rxMr.close();
        dataMr.close();
        pd.close();
        id.destroy();
        ch.close();
        arena.close();
    }
}
