package org.jrdma.nvmeof;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.nvmeof.wire.Cqe;
import org.jrdma.nvmeof.wire.RdmaCmReject;
import org.jrdma.nvmeof.wire.RdmaCmReply;
import org.jrdma.nvmeof.wire.RdmaCmRequest;
import org.jrdma.nvmeof.wire.Sgl;
import org.jrdma.nvmeof.wire.Sqe;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.MemoryWindow;
import org.jrdma.verbs.MwBindInfo;
import org.jrdma.verbs.MwType;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;

/**
 * One NVMe/RDMA queue pair of a controller (the admin queue, QID 0, or an I/O queue): an RC QP
 * connected by the RDMA CM with {@code nvme_rdma_cm_req} private data (NVMe-oF 1.1 RDMA transport
 * binding §3.4), a submission slot per command ID, command capsules by SEND, response capsules by
 * RECV (NVMe-oF §2).
 *
 * <p><b>Data.</b> A write of at most the controller's in-capsule data size (IOCCSZ × 16 − 64, I/O
 * queues only) sends its data in the command capsule: the SEND gathers the SQE and the caller's buffer
 * (two SGEs, no copy) and SGL1 is a data block of sub type offset 1h at ICDOFF 0, as Linux's host does;
 * nothing of the buffer is exposed to the controller. Any other command with data describes the host memory with one keyed SGL data block. When the
 * device has type 2 memory windows, each slot owns one: the submission binds it over exactly the I/O's
 * range with only the right the transfer needs (REMOTE_READ for a write, REMOTE_WRITE for a read), and
 * the SGL asks for remote invalidation (sub type Fh); the controller's response then comes as a
 * SEND_WITH_INV of that rkey, which the receive completion reports ({@link WcFlags#WITH_INV}), and if
 * it does not, the host posts a LOCAL_INV before the command completes (as Linux's host does with its
 * per-I/O FRWR keys). So the controller can reach an I/O's buffer only while the I/O is outstanding.
 * Without memory windows the region's own rkey is sent (sub type 0h) and the region must grant the
 * remote rights itself ({@link IoBuffer}).
 *
 * <p><b>Bad input.</b> A response capsule that is not 16 bytes, names a command ID that is not
 * outstanding, or invalidates an rkey other than its command's, any work completion in error, a
 * timed-out command and a disconnect by the target all cut the queue off: every outstanding future
 * fails with an {@link NvmeException} saying why, later submissions fail at once.
 *
 * <p><b>Threads and locks.</b> The caller's thread connects and submits; one poller thread per queue
 * ({@code nvme-q<qid>}) polls the queue's completion queue (sends and receives), the CM event
 * channel and the commands' deadlines. {@link #lock} guards the slots, the free list and posting to
 * the QP (taken by submitters and by the poller for each completion); futures complete on the poller
 * thread after the lock is released, so dependent stages run there unless made async: they must not
 * block on this queue. No lock of the verbs or CM layers is held while this lock is taken other than
 * what {@code postSend}/{@code postRecv} take inside (docs/DESIGN.md's order: this lock is above the
 * provider's).
 */
final class RdmaQueue implements AutoCloseable {
    private static final long KIND_SEND = 1L << 32;
    private static final long KIND_BIND = 2L << 32;
    private static final long KIND_INV = 3L << 32;
    private static final long KIND_RECV = 4L << 32;
    /** Outstanding RDMA READs (of the controller, reading write data) a queue accepts: the REQ's responder resources. */
    static final int RESPONDER_RESOURCES = 16;
    /** How often the poller looks at the CM channel and the deadlines. */
    private static final long HOUSEKEEPING_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** Writes a command into its SQE; {@code cid} is the slot's command ID. */
    interface Command {
        void fill(Sqe sqe, int cid);
    }

    private static final class Slot {
        final int cid;
        final SendWr send = new SendWr().opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED);
        /** The capsule's second part: in-capsule data straight from the caller's buffer. */
        final Sge dataSge = new Sge();
        final SendWr bind = new SendWr().opcode(WrOpcode.BIND_MW);
        final SendWr inv = new SendWr().opcode(WrOpcode.LOCAL_INV).sendFlags(SendFlags.SIGNALED);
        final MwBindInfo bindInfo = new MwBindInfo();
        final Sqe sqe = new Sqe();
        MemoryWindow mw;
        boolean busy;
        boolean sendDone;
        boolean respDone;
        boolean keyed;
        boolean invalidated;
        int rkey;
        long deadline;
        /** False for a command that may stay outstanding (an Asynchronous Event Request): no deadline. */
        boolean timed;
        String what;
        int opcode;
        long result;
        int status;
        int sqHead;
        CompletableFuture<NvmeCompletion> future;

        Slot(int cid) {
            this.cid = cid;
        }
    }

    final int qid;
    final int size;
    private final EventChannel ch;
    private final CmId id;
    private final ReentrantLock lock = new ReentrantLock();
    private final Cqe cqe = new Cqe();
    private final Sgl sgl = new Sgl();
    private final WorkCompletion[] wcs = new WorkCompletion[16];
    private final RecvWr recvWr = new RecvWr();
    private final Sge recvSge = new Sge();
    private Slot[] slots;
    private final ArrayDeque<Slot> free = new ArrayDeque<>();
    private Semaphore credits;
    private Arena arena;
    private MemorySegment sqes;
    private MemorySegment cqes;
    private MemoryRegion sqeMr;
    private MemoryRegion cqeMr;
    private CompletionQueue cq;
    private QueuePair qp;
    private boolean useMw;
    /** The largest write sent as in-capsule data (0: none). */
    private int inCapsule;
    private Duration commandTimeout;
    private int crqsize;
    private volatile NvmeException failed;
    private volatile boolean running;
    /** Commands submitted and not yet complete (the poller parks longer when 0). */
    private volatile int outstanding;
    private Thread poller;
    private boolean connected;

    /**
     * Creates the queue's CM ID and resolves the address and route to {@code target} (caller's thread).
     *
     * @throws NvmeException when resolution fails or times out
     */
    RdmaQueue(int qid, int size, InetSocketAddress source, InetSocketAddress target, Duration timeout) {
        this.qid = qid;
        this.size = size;
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        ch = EventChannel.create();
        try {
            id = CmId.create(ch, this, PortSpace.TCP);
            id.resolveAddr(source, target, Duration.ofMillis(2000));
            expect(await(timeout, "rdma_resolve_addr"), CmEventType.ADDR_RESOLVED, "rdma_resolve_addr");
            id.resolveRoute(Duration.ofMillis(2000));
            expect(await(timeout, "rdma_resolve_route"), CmEventType.ROUTE_RESOLVED, "rdma_resolve_route");
        } catch (RuntimeException e) {
            ch.close();
            throw e instanceof NvmeException ne ? ne : new NvmeException(where() + ": " + e.getMessage(), e);
        }
    }

    private String where() {
        return "NVMe/RDMA queue " + qid;
    }

    /** The device context the CM resolved to (all queues of a controller share its PD). */
    Context verbs() {
        return id.verbs();
    }

    /**
     * Creates the QP and buffers, posts the receives, connects with the NVMe/RDMA private data and
     * starts the poller (caller's thread).
     *
     * @param memoryWindows bind a type 2 window per command (see the class comment)
     * @param inCapsule host-to-controller data up to this many bytes goes in the command capsule (the
     *        controller's IOCCSZ × 16 − 64; 0 on the admin queue, whose capsules are 64 bytes)
     * @throws NvmeException when rejected (with the target's {@code nvme_rdma_cm_rej} status), unreachable or timed out
     */
    void connect(ProtectionDomain pd, boolean memoryWindows, int inCapsule, Duration timeout, Duration commandTimeout) {
        this.useMw = memoryWindows;
        this.inCapsule = inCapsule;
        this.commandTimeout = commandTimeout;
        try {
            arena = Arena.ofShared();
            sqes = arena.allocate((long) Sqe.SIZE * size, 64);
            cqes = arena.allocate((long) Cqe.SIZE * size, 64);
            sqeMr = pd.regMr(sqes, AccessFlags.LOCAL_WRITE);
            cqeMr = pd.regMr(cqes, AccessFlags.LOCAL_WRITE);
            cq = id.verbs().createCq(4 * size + 8, null);
            QpInitAttr ia = new QpInitAttr().sendCq(cq).recvCq(cq);
            ia.cap().maxSendWr(3 * size).maxRecvWr(size).maxSendSge(inCapsule > 0 ? 2 : 1).maxRecvSge(1);
            qp = id.createQp(pd, ia);
            slots = new Slot[size];
            for (int i = 0; i < size; i++) {
                Slot s = new Slot(i);
                s.sqe.wrap(sqes, (long) i * Sqe.SIZE);
                s.send.wrId(KIND_SEND | i).sgList(new Sge(sqes.address() + (long) i * Sqe.SIZE, Sqe.SIZE, sqeMr.lkey()), s.dataSge);
                s.bind.wrId(KIND_BIND | i);
                s.inv.wrId(KIND_INV | i);
                if (useMw) {
                    s.mw = pd.allocMw(MwType.TYPE_2);
                }
                slots[i] = s;
            }
            recvWr.sgList(recvSge);
            for (int i = 0; i < size; i++) {
                postRecv(i);
            }
            int rr = Math.min(RESPONDER_RESOURCES, id.verbs().queryDevice().maxQpRdAtom());
            id.connect(new ConnParam().privateData(RdmaCmRequest.forQueue(qid, size).encode()).responderResources(rr)
                    .initiatorDepth(0).flowControl(1).retryCount(7).rnrRetryCount(7));
            CmEvent e = await(timeout, "rdma_connect");
            if (e.type() == CmEventType.REJECTED) {
                String why = RdmaCmReject.decode(e.privateData()).map(RdmaCmReject::toString)
                        .orElse("no NVMe/RDMA reject record");
                throw new NvmeException(where() + ": the target rejected the connection (CM reason " + e.rejectReason()
                        + ", " + why + ")");
            }
            expect(e, CmEventType.ESTABLISHED, "rdma_connect");
            connected = true;
            RdmaCmReply rep = RdmaCmReply.decode(e.privateData());
            if (rep.recfmt() != 0) {
                throw new NvmeException(where() + ": nvme_rdma_cm_rep record format " + rep.recfmt() + " (0 expected)");
            }
            crqsize = rep.crqsize();
            // a full queue holds size - 1 commands; the controller takes at most CRQSIZE capsules
            int depth = Math.min(size - 1, crqsize);
            if (depth < 1) {
                throw new NvmeException(where() + ": the controller's receive queue size (CRQSIZE) is " + crqsize);
            }
            credits = new Semaphore(depth);
            for (int i = 0; i < depth; i++) {
                free.add(slots[i]);
            }
            running = true;
            poller = Thread.ofPlatform().daemon().name("nvme-q" + qid).start(this::poll);
        } catch (RuntimeException e) {
            close();
            throw e instanceof NvmeException ne ? ne : new NvmeException(where() + ": " + e.getMessage(), e);
        }
    }

    /** CRQSIZE of the target's REP. */
    int crqsize() {
        return crqsize;
    }

    private CmEvent await(Duration timeout, String what) {
        Optional<CmEvent> e = ch.getEvent(timeout);
        if (e.isEmpty()) {
            throw new NvmeException(where() + ": " + what + ": no event within " + timeout.toMillis() + " ms");
        }
        e.get().ack();
        return e.get();
    }

    private void expect(CmEvent e, CmEventType type, String what) {
        if (e.type() != type) {
            throw new NvmeException(where() + ": " + what + ": " + e.type().eventStr() + " (status " + e.status()
                    + "), " + type.eventStr() + " expected");
        }
    }

    private void postRecv(int i) {
        recvSge.set(cqes.address() + (long) i * Cqe.SIZE, Cqe.SIZE, cqeMr.lkey());
        recvWr.wrId(KIND_RECV | i);
        qp.postRecv(recvWr);
    }

    /**
     * Submits a command (caller's thread; blocks while the queue is full). {@code buf} null: no data
     * (SGL1 a null keyed block).
     *
     * @param hostToController the controller reads {@code buf} (RDMA READ: a write), else it writes it
     * @return the command's completion; exceptionally {@link NvmeStatusException} for an error status,
     *         {@link NvmeException} when the queue fails
     */
    CompletableFuture<NvmeCompletion> submit(String what, int opcode, Command command, IoBuffer buf, long off, int len,
            boolean hostToController) {
        return submit(what, opcode, command, buf, off, len, hostToController, true);
    }

    /** {@link #submit}; {@code timed} false: the command has no deadline (an Asynchronous Event Request). */
    CompletableFuture<NvmeCompletion> submit(String what, int opcode, Command command, IoBuffer buf, long off, int len,
            boolean hostToController, boolean timed) {
        NvmeException f = failed;
        if (f != null) {
            return CompletableFuture.failedFuture(f);
        }
        if (buf != null && (off < 0 || len <= 0 || off + len > buf.size() || len > Sgl.MAX_KEYED_LENGTH)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(what + ": " + len + " bytes at " + off
                    + " of a " + buf.size() + "-byte buffer"));
        }
        try {
            if (!credits.tryAcquire(commandTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
                return CompletableFuture.failedFuture(new NvmeException(where() + ": " + what + ": queue full for "
                        + commandTimeout.toMillis() + " ms"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(new NvmeException(where() + ": " + what + ": interrupted"));
        }
        CompletableFuture<NvmeCompletion> future = new CompletableFuture<>();
        lock.lock();
        try {
            if (failed != null) {
                credits.release();
                return CompletableFuture.failedFuture(failed);
            }
            Slot s = free.pop();
            s.busy = true;
            outstanding++;
            s.sendDone = false;
            s.respDone = false;
            s.invalidated = false;
            boolean capsule = buf != null && hostToController && len <= inCapsule;
            s.keyed = buf != null && !capsule;
            s.what = what;
            s.opcode = opcode;
            s.future = future;
            s.deadline = System.nanoTime() + commandTimeout.toNanos();
            s.timed = timed;
            command.fill(s.sqe, s.cid);
            s.sqe.sgl1(sgl);
            long addr = buf == null ? 0 : buf.segment().address() + off;
            try {
                s.send.numSge(capsule ? 2 : 1);
                if (buf == null) {
                    sgl.none();
                } else if (capsule) {
                    // NVMe-oF 1.1 §2.1 / RDMA binding §3.3: a data block with sub type offset, from ICDOFF (0)
                    s.dataSge.set(addr, len, buf.mr().lkey());
                    sgl.inCapsule(0, len);
                } else if (useMw) {
                    s.rkey = SendWr.incRkey(s.mw.rkey());
                    s.bindInfo.set(buf.mr(), addr, len, hostToController ? AccessFlags.REMOTE_READ : AccessFlags.REMOTE_WRITE);
                    s.bind.bindMw(s.mw, s.rkey, s.bindInfo);
                    sgl.keyed(addr, len, s.rkey, Sgl.SUBTYPE_INVALIDATE);
                    qp.postSend(s.bind);
                } else {
                    s.rkey = buf.mr().rkey();
                    sgl.keyed(addr, len, s.rkey, Sgl.SUBTYPE_ADDRESS);
                }
                qp.postSend(s.send);
            } catch (VerbsException e) {
                // nothing of the command reached the wire unless the bind did: the queue cannot be trusted
                s.busy = false;
                outstanding--;
                free.push(s);
                credits.release();
                NvmeException ne = new NvmeException(where() + ": " + what + ": post_send: " + e.getMessage(), e);
                lock.unlock();
                try {
                    fail(ne);
                } finally {
                    lock.lock();
                }
                return CompletableFuture.failedFuture(ne);
            }
        } finally {
            lock.unlock();
        }
        LockSupport.unpark(poller);
        return future;
    }

    private void poll() {
        long nextHousekeeping = System.nanoTime() + HOUSEKEEPING_NANOS;
        int idle = 0;
        List<Runnable> done = new ArrayList<>();
        while (running) {
            int n;
            try {
                n = cq.poll(wcs);
            } catch (RuntimeException e) {
                fail(new NvmeException(where() + ": poll_cq: " + e.getMessage(), e));
                break;
            }
            if (n > 0) {
                lock.lock();
                try {
                    for (int i = 0; i < n; i++) {
                        handle(wcs[i], done);
                    }
                } catch (NvmeException e) {
                    lock.unlock();
                    try {
                        fail(e);
                    } finally {
                        lock.lock();
                    }
                } finally {
                    lock.unlock();
                }
                for (Runnable r : done) {
                    r.run();
                }
                done.clear();
                idle = 0;
                continue;
            }
            long now = System.nanoTime();
            if (now - nextHousekeeping >= 0) {
                nextHousekeeping = now + HOUSEKEEPING_NANOS;
                housekeeping(now);
            }
            if (++idle < 256) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(outstanding > 0 ? 20_000 : 1_000_000);
            }
        }
    }

    /** The poller, every {@value #HOUSEKEEPING_NANOS} ns: a DISCONNECTED from the target, expired commands. */
    private void housekeeping(long now) {
        Optional<CmEvent> e = ch.getEvent(Duration.ZERO);
        if (e.isPresent()) {
            e.get().ack();
            if (e.get().type() == CmEventType.DISCONNECTED) {
                connected = false;
                fail(new NvmeException(where() + ": the target disconnected the queue"));
            }
        }
        if (failed != null) {
            return;
        }
        String expired = null;
        lock.lock();
        try {
            for (Slot s : slots) {
                if (s.busy && s.timed && now - s.deadline > 0) {
                    expired = s.what + " (command ID " + s.cid + ")";
                    break;
                }
            }
        } finally {
            lock.unlock();
        }
        if (expired != null) {
            fail(new NvmeException(where() + ": " + expired + " timed out after " + commandTimeout.toMillis() + " ms"));
        }
    }

    /** One work completion (poller thread, under {@link #lock}). */
    private void handle(WorkCompletion wc, List<Runnable> done) {
        long kind = wc.wrId() & 0xffffffff00000000L;
        int idx = (int) wc.wrId();
        if (wc.status() != WcStatus.SUCCESS) {
            if (failed == null) {
                throw new NvmeException(where() + ": " + kindName(kind) + " completed with " + wc.status()
                        + (kind == KIND_BIND ? " (binding the memory window of command ID " + idx + ")" : ""));
            }
            return;
        }
        if (failed != null) {
            return;
        }
        if (kind == KIND_RECV) {
            if (wc.byteLen() != Cqe.SIZE) {
                throw new NvmeException(where() + ": a response capsule of " + wc.byteLen() + " bytes (16 expected)");
            }
            cqe.wrap(cqes, (long) idx * Cqe.SIZE);
            int cid = cqe.commandId();
            Slot s = cid < size ? slots[cid] : null;
            if (s == null || !s.busy || s.respDone) {
                throw new NvmeException(where() + ": a response for command ID " + cid + ", which is not outstanding");
            }
            if ((wc.wcFlags() & WcFlags.WITH_INV) != 0) {
                if (!s.keyed || wc.invalidatedRkey() != s.rkey) {
                    throw new NvmeException(where() + ": the target invalidated rkey 0x"
                            + Integer.toHexString(wc.invalidatedRkey()) + " with the response to command ID " + cid
                            + (s.keyed ? ", whose key is 0x" + Integer.toHexString(s.rkey) : ", which has no data"));
                }
                s.invalidated = true;
            }
            s.result = cqe.result();
            s.status = cqe.status();
            s.sqHead = cqe.sqHead();
            s.respDone = true;
            postRecv(idx);
            if (s.keyed && useMw && !s.invalidated) {
                s.inv.invalidateRkey(s.rkey);
                qp.postSend(s.inv);
            }
            complete(s, done);
        } else if (kind == KIND_SEND) {
            slots[idx].sendDone = true;
            complete(slots[idx], done);
        } else if (kind == KIND_INV) {
            slots[idx].invalidated = true;
            complete(slots[idx], done);
        }
    }

    private static String kindName(long kind) {
        return kind == KIND_SEND ? "the SEND of a command capsule" : kind == KIND_BIND ? "a BIND_MW"
                : kind == KIND_INV ? "a LOCAL_INV" : "a RECV";
    }

    /** Frees the slot once its send, response and (memory window) invalidation are all done (under {@link #lock}). */
    private void complete(Slot s, List<Runnable> done) {
        if (!s.busy || !s.sendDone || !s.respDone || (s.keyed && useMw && !s.invalidated)) {
            return;
        }
        s.busy = false;
        outstanding--;
        CompletableFuture<NvmeCompletion> f = s.future;
        s.future = null;
        int status = s.status;
        if ((status & 0x7ff) == 0) {
            NvmeCompletion c = new NvmeCompletion(s.result, s.sqHead);
            done.add(() -> f.complete(c));
        } else {
            NvmeStatusException e = new NvmeStatusException(s.what, s.opcode, status);
            done.add(() -> f.completeExceptionally(e));
        }
        free.push(s);
        credits.release();
    }

    /** Cuts the queue off: every outstanding command fails with {@code e} (any thread; not under {@link #lock}). */
    void fail(NvmeException e) {
        List<CompletableFuture<NvmeCompletion>> fs = new ArrayList<>();
        lock.lock();
        try {
            if (failed != null) {
                return;
            }
            failed = e;
            if (slots != null) {
                for (Slot s : slots) {
                    if (s.busy) {
                        s.busy = false;
                        outstanding--;
                        fs.add(s.future);
                        s.future = null;
                        if (s.keyed && s.mw != null && !s.invalidated) {
                            // the window may still be bound: freeing it revokes the controller's access at once
                            // and lets the caller deregister the buffer
                            s.mw.close();
                            s.mw = null;
                        }
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        if (credits != null) {
            credits.release(size);
        }
        for (CompletableFuture<NvmeCompletion> f : fs) {
            f.completeExceptionally(e);
        }
        if (qp != null && connected) {
            try {
                id.disconnect();
            } catch (RuntimeException ignored) {
                // the connection is gone already; the QP moves to the error state either way
            }
        }
    }

    /** Why the queue failed, or null. */
    NvmeException failure() {
        return failed;
    }

    /** Stops the poller, disconnects (waiting up to 3 s for the target's DREP) and frees everything (caller's thread). */
    @Override
    public void close() {
        running = false;
        if (poller != null) {
            LockSupport.unpark(poller);
            try {
                poller.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        fail(new NvmeException(where() + ": closed"));
        if (connected) {
            connected = false;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < end) {
                Optional<CmEvent> e = ch.getEvent(Duration.ofMillis(100));
                if (e.isPresent()) {
                    e.get().ack();
                    if (EnumSet.of(CmEventType.DISCONNECTED, CmEventType.TIMEWAIT_EXIT).contains(e.get().type())) {
                        break;
                    }
                }
            }
        }
        if (slots != null) {
            for (Slot s : slots) {
                if (s != null && s.mw != null) {
                    s.mw.close();
                }
            }
        }
        if (id != null) {
            id.destroyQp();
        }
        if (cq != null) {
            cq.close();
        }
        if (sqeMr != null) {
            sqeMr.close();
        }
        if (cqeMr != null) {
            cqeMr.close();
        }
        if (arena != null) {
            arena.close();
        }
        if (id != null) {
            id.destroy();
        }
        ch.close();
    }
}
