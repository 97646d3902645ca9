package org.jrdma.nvmeof.target;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.nvmeof.NvmeConnectOptions;
import org.jrdma.nvmeof.wire.ConnectData;
import org.jrdma.nvmeof.wire.Cqe;
import org.jrdma.nvmeof.wire.Fabrics;
import org.jrdma.nvmeof.wire.Opcodes;
import org.jrdma.nvmeof.wire.Properties;
import org.jrdma.nvmeof.wire.RdmaCmReply;
import org.jrdma.nvmeof.wire.RdmaCmRequest;
import org.jrdma.nvmeof.wire.Sgl;
import org.jrdma.nvmeof.wire.Sqe;
import org.jrdma.nvmeof.wire.Status;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;

/**
 * One queue of the target: an RC QP, HSQSIZE + 1 receive buffers for command capsules, twice as
 * many response contexts (as nvmet-rdma: a receive is posted again as soon as its capsule has been
 * read, before the response goes out), and the thread that runs the commands.
 *
 * <p><b>A command</b>, on its capsule's receive completion: (1) checks, in this order, the capsule's
 * length (under 64 bytes: the queue is cut off), FUSE/PSDT (PSDT must be 01b: Invalid Field in
 * Command), the queue's state (before Connect only Connect; Command Sequence Error before CSTS.RDY),
 * the opcode (Invalid Command Opcode), the NSID (Invalid Namespace or Format), the LBA range (LBA Out
 * of Range), the transfer size against MDTS (Invalid Field in Command), then SGL1 against the
 * transfer: a keyed data block (sub type 0h or Fh) or, for host-to-controller data on an I/O queue,
 * an in-capsule data block (sub type 1h); any other type or sub type is SGL Descriptor Type Invalid;
 * a length other than the transfer's (or a transfer without data) Data SGL Length Invalid; in-capsule
 * data beyond the capsule's data area SGL Offset Invalid; in-capsule data beyond the bytes received
 * Data SGL Length Invalid. All with DNR. (2) Moves the data: in-capsule data is copied, a keyed SGL
 * is read with one RDMA READ straight into the namespace (a Write) or the context's buffer; a Read's
 * RDMA WRITE goes out from the namespace chained before the response. (3) Responds: a SEND of the
 * 16-byte CQE, SEND_WITH_INV of the key when the SGL's sub type asked (whatever the status).
 *
 * <p><b>Transport faults</b> (a work completion in error: a bad rkey or a host buffer too short for
 * the RDMA READ/WRITE, a capsule longer than the receive buffer, a SEND_WITH_INV the host refused)
 * cut the queue off: the target disconnects it and counts it; the CM thread frees it on
 * DISCONNECTED. No fault escapes the thread.
 */
final class TargetQueue {
    private static final long K_RECV = 1L << 32;
    private static final long K_SEND = 2L << 32;
    private static final long K_READ = 3L << 32;
    private static final long K_WRITE = 4L << 32;
    /** Bytes of a response context's buffer: Connect data, Identify data, log pages, DSM ranges. */
    static final int SCRATCH = 4096;
    private static final int NONE = 0;
    private static final int H2C = 1;
    private static final int C2H = 2;

    /** A response context: the command in flight, its CQE and its work requests. */
    private static final class Rsp {
        final int idx;
        final Cqe cqe = new Cqe();
        final SendWr send = new SendWr().sendFlags(SendFlags.SIGNALED);
        final SendWr rdma = new SendWr();
        final Sge sendSge;
        final Sge rdmaSge = new Sge();
        final long scratch;
        int cid;
        int opcode;
        int fctype;
        int nsid;
        long slba;
        int nlb;
        int cdw10;
        int cdw11;
        int dir;
        int len;
        long hostAddr;
        int hostKey;
        boolean keyed;
        boolean invalidate;
        /** Local memory of the transfer: segment, offset, its address and lkey. */
        MemorySegment localSeg;
        long localOff;
        long localAddr;
        int localKey;
        long result;

        Rsp(int idx, MemorySegment tx, MemoryRegion txMr, long scratch) {
            this.idx = idx;
            cqe.wrap(tx, (long) idx * Cqe.SIZE);
            sendSge = new Sge(tx.address() + (long) idx * Cqe.SIZE, Cqe.SIZE, txMr.lkey());
            send.wrId(K_SEND | idx).sgList(sendSge);
            rdma.sgList(rdmaSge);
            this.scratch = scratch;
        }
    }

    final NvmeTarget target;
    final CmId id;
    final int qid;
    /** Receives posted: HSQSIZE + 1. */
    final int recvCount;
    /** The CM request's HSQSIZE + 1, SQHD wraps at it. */
    final int sqSize;
    final int capsuleSize;
    final int icd;
    private final int initiatorDepth;
    private final NvmeTarget.Device dev;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment rx;
    private final MemorySegment tx;
    private final MemorySegment scratch;
    private final MemoryRegion rxMr;
    private final MemoryRegion txMr;
    private final MemoryRegion scratchMr;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final Rsp[] rsps;
    private final int[] free;
    private int freeCount;
    /** Capsules received while no response context was free: receive index and byte length. */
    private final long[] backlog;
    private int backlogHead;
    private int backlogCount;
    private final WorkCompletion[] wcs = new WorkCompletion[32];
    private final RecvWr recvWr = new RecvWr();
    private final Sge recvSge = new Sge();
    private final Sqe sqe = new Sqe();
    private final Sgl sgl = new Sgl();
    private int sqHead;
    private TargetController ctrl;
    private Thread thread;
    private volatile boolean running;
    private volatile String failure;
    private boolean connected;

    TargetQueue(NvmeTarget target, CmId id, RdmaCmRequest req, ConnParam peer) {
        this.target = target;
        this.id = id;
        this.qid = req.qid();
        this.recvCount = req.hsqsize() + 1;
        this.sqSize = req.hsqsize() + 1;
        this.icd = qid == 0 ? 0 : target.opts.inCapsuleDataSize();
        this.capsuleSize = Sqe.SIZE + icd;
        // the RDMA READs the host's QP takes at once (its REQ's responder resources): jrdma's IB CM gives the
        // REQ's fields as sent, its iWARP CM (as Linux's event->param.conn) from this side's view, where the
        // peer's IRD is the initiator depth
        boolean iwarp = id.verbs().device().transportType() == org.jrdma.verbs.TransportType.IWARP;
        int rd = peer == null ? 0 : iwarp ? peer.initiatorDepth() : peer.responderResources();
        this.initiatorDepth = Math.min(rd, Math.min(16, id.verbs().queryDevice().maxQpInitRdAtom()));
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        int nrsp = 2 * recvCount;
        dev = target.device(id.verbs());
        boolean ok = false;
        CompletionQueue c = null;
        MemoryRegion a = null;
        MemoryRegion b = null;
        MemoryRegion d = null;
        try {
            rx = arena.allocate((long) capsuleSize * recvCount, 64);
            tx = arena.allocate((long) Cqe.SIZE * nrsp, 64);
            scratch = arena.allocate((long) SCRATCH * nrsp, 4096);
            a = dev.pd.regMr(rx, AccessFlags.LOCAL_WRITE);
            b = dev.pd.regMr(tx, AccessFlags.LOCAL_WRITE);
            d = dev.pd.regMr(scratch, AccessFlags.LOCAL_WRITE);
            c = id.verbs().createCq(recvCount + 3 * nrsp + 8, null);
            QpInitAttr ia = new QpInitAttr().sendCq(c).recvCq(c);
            ia.cap().maxSendWr(2 * nrsp).maxRecvWr(recvCount).maxSendSge(1).maxRecvSge(1);
            qp = id.createQp(dev.pd, ia);
            rxMr = a;
            txMr = b;
            scratchMr = d;
            cq = c;
            rsps = new Rsp[nrsp];
            free = new int[nrsp];
            for (int i = 0; i < nrsp; i++) {
                rsps[i] = new Rsp(i, tx, txMr, scratch.address() + (long) SCRATCH * i);
                free[freeCount++] = nrsp - 1 - i;
            }
            backlog = new long[recvCount];
            recvWr.sgList(recvSge);
            for (int i = 0; i < recvCount; i++) {
                postRecv(i);
            }
            ok = true;
        } finally {
            if (!ok) {
                if (c != null) {
                    id.destroyQp();
                    c.close();
                }
                for (MemoryRegion m : new MemoryRegion[] {a, b, d}) {
                    if (m != null) {
                        m.close();
                    }
                }
                arena.close();
            }
        }
    }

    /** Accepts the connection with {@code nvme_rdma_cm_rep} (CRQSIZE: the receives posted) and starts the thread. */
    void accept() {
        running = true;
        thread = Thread.ofPlatform().daemon().name("nvmet-q" + qid).start(this::run);
        id.accept(new ConnParam().privateData(new RdmaCmReply(0, recvCount).encode()).responderResources(0)
                .initiatorDepth(initiatorDepth).flowControl(1).retryCount(7).rnrRetryCount(7));
        connected = true;
    }

    private void postRecv(int i) {
        recvSge.set(rx.address() + (long) i * capsuleSize, capsuleSize, rxMr.lkey());
        recvWr.wrId(K_RECV | i);
        qp.postRecv(recvWr);
    }

    private void run() {
        int idle = 0;
        while (running) {
            int n;
            try {
                n = cq.poll(wcs);
            } catch (RuntimeException e) {
                fail("poll_cq: " + e.getMessage());
                break;
            }
            if (n == 0) {
                if (++idle < 512) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(idle < 20_000 ? 10_000 : 1_000_000);
                }
                continue;
            }
            idle = 0;
            for (int i = 0; i < n; i++) {
                try {
                    completion(wcs[i]);
                } catch (RuntimeException e) {
                    // a post on a QP that went to ERR meanwhile, or a fault of this code: the queue only
                    fail("internal: " + e);
                }
            }
        }
    }

    private void completion(WorkCompletion wc) {
        long kind = wc.wrId() & 0xffffffff00000000L;
        int idx = (int) wc.wrId();
        if (failure != null) {
            return;
        }
        if (wc.status() != WcStatus.SUCCESS) {
            // flushed: the QP went to ERR because the connection ended (the host disconnected): not a fault
            fail((kind == K_RECV ? "RECV" : kind == K_SEND ? "SEND of a response" : kind == K_READ ? "RDMA READ"
                    : "RDMA WRITE") + " completed with " + wc.status(), wc.status() != WcStatus.WR_FLUSH_ERR);
            return;
        }
        if (kind == K_RECV) {
            capsule(idx, wc.byteLen());
        } else if (kind == K_SEND) {
            free[freeCount++] = idx;
            if (backlogCount > 0) {
                long b = backlog[backlogHead];
                backlogHead = (backlogHead + 1) % backlog.length;
                backlogCount--;
                capsule((int) (b >>> 32), (int) b);
            }
        } else if (kind == K_READ) {
            Rsp p = rsps[idx];
            respond(p, execute(p));
        }
    }

    /** Cuts the queue off (any thread): disconnects it; the CM thread frees it on DISCONNECTED. */
    void fail(String why) {
        fail(why, true);
    }

    /** {@link #fail(String)}; {@code transport}: a transport fault of this queue (counted), else the controller's end. */
    void fail(String why, boolean transport) {
        synchronized (this) {
            if (failure != null) {
                return;
            }
            failure = why;
        }
        if (transport) {
            target.transportErrors.incrementAndGet();
        }
        if (connected) {
            try {
                id.disconnect();
            } catch (RuntimeException ignored) {
                // not connected (any more): the QP is in ERR or gone
            }
        }
    }

    /** Why the queue was cut off, or null. */
    String failure() {
        return failure;
    }

    private static int error(int status) {
        return status | Status.DNR;
    }

    /** A command capsule in receive buffer {@code r}, {@code len} bytes. */
    private void capsule(int r, int len) {
        if (len < Sqe.SIZE) {
            fail("a command capsule of " + len + " bytes (64 at least)");
            return;
        }
        if (freeCount == 0) {
            backlog[(backlogHead + backlogCount) % backlog.length] = (long) r << 32 | len;
            backlogCount++;
            return;
        }
        Rsp p = rsps[free[--freeCount]];
        target.commands.incrementAndGet();
        TargetController c = ctrl;
        if (c != null) {
            c.lastCommand = System.nanoTime();
        }
        sqHead = (sqHead + 1) % sqSize;
        long base = (long) r * capsuleSize;
        sqe.wrap(rx, base);
        p.cid = sqe.commandId();
        p.opcode = sqe.opcode();
        p.nsid = sqe.nsid();
        p.cdw10 = sqe.cdw(10);
        p.cdw11 = sqe.cdw(11);
        p.fctype = p.opcode == Opcodes.FABRICS ? Fabrics.fctype(sqe) : -1;
        p.result = 0;
        p.dir = NONE;
        p.len = 0;
        p.keyed = false;
        p.invalidate = false;
        int st = check(p, sqe);
        if (st == 0) {
            st = sgl(p, sqe.sgl1(sgl), base, len);
        } else {
            // the host's key is invalidated as asked whatever the status (the host need not LOCAL_INV it)
            Sgl g = sqe.sgl1(sgl);
            if (g.type() == Sgl.TYPE_KEYED_DATA_BLOCK && g.subType() == Sgl.SUBTYPE_INVALIDATE && g.length() > 0) {
                p.invalidate = true;
                p.hostKey = g.key();
            }
        }
        postRecv(r);
        if (st != 0) {
            respond(p, st);
        } else if (p.dir == H2C && p.keyed) {
            p.rdma.opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED).wrId(K_READ | p.idx).rdma(p.hostAddr, p.hostKey)
                    .next(null);
            p.rdmaSge.set(p.localAddr, p.len, p.localKey);
            qp.postSend(p.rdma);
        } else {
            respond(p, execute(p));
        }
    }

    /**
     * Checks the command (not its SGL) and decides its transfer: direction, length and the local memory
     * (the namespace's or the context's buffer). 0 or an NVMe status.
     */
    private int check(Rsp p, Sqe s) {
        int flags = s.flags();
        if ((flags & 0x3) != 0 || (flags >>> 6) != 1) {
            return error(Status.INVALID_FIELD);
        }
        if (p.opcode == Opcodes.FABRICS) {
            if (p.fctype == Opcodes.FCTYPE_CONNECT) {
                if (ctrl != null) {
                    return error(Status.CONNECT_CONTROLLER_BUSY);
                }
                p.result = Fabrics.connectKato(s) & 0xffffffffL;
                return scratch(p, H2C, ConnectData.SIZE);
            }
            if (ctrl == null) {
                return error(Status.INVALID_OPCODE);   // nvmet: only Connect on an unconnected queue
            }
            if (qid != 0 || (p.fctype != Opcodes.FCTYPE_PROPERTY_GET && p.fctype != Opcodes.FCTYPE_PROPERTY_SET)) {
                return error(Status.INVALID_OPCODE);
            }
            p.slba = Fabrics.propertyOffset(s) & 0xffffffffL;
            p.nlb = Fabrics.propertyAttrib(s);
            p.result = Fabrics.propertyValue(s);
            return 0;
        }
        if (ctrl == null) {
            return error(Status.INVALID_OPCODE);
        }
        if (!ctrl.ready()) {
            return error(Status.COMMAND_SEQUENCE_ERROR);
        }
        return qid == 0 ? checkAdmin(p, s) : checkIo(p, s);
    }

    private int scratch(Rsp p, int dir, int len) {
        p.dir = dir;
        p.len = len;
        p.localSeg = scratch;
        p.localOff = (long) p.idx * SCRATCH;
        p.localAddr = p.scratch;
        p.localKey = scratchMr.lkey();
        return 0;
    }

    private int checkAdmin(Rsp p, Sqe s) {
        boolean disc = ctrl.discovery;
        switch (p.opcode) {
            case Opcodes.ADMIN_IDENTIFY -> {
                int cns = p.cdw10 & 0xff;
                if (cns == Opcodes.CNS_CONTROLLER) {
                    return scratch(p, C2H, TargetData.IDENTIFY_SIZE);
                }
                if (disc) {
                    return error(Status.INVALID_FIELD);
                }
                if (cns == Opcodes.CNS_NAMESPACE) {
                    if (p.nsid < 1 || p.nsid > target.namespaces.length) {
                        return error(Status.INVALID_NAMESPACE);
                    }
                    return scratch(p, C2H, TargetData.IDENTIFY_SIZE);
                }
                if (cns == Opcodes.CNS_ACTIVE_NS_LIST) {
                    if (Integer.compareUnsigned(p.nsid, 0xfffffffe) >= 0) {
                        return error(Status.INVALID_NAMESPACE);
                    }
                    return scratch(p, C2H, TargetData.IDENTIFY_SIZE);
                }
                return error(Status.INVALID_FIELD);
            }
            case Opcodes.ADMIN_GET_LOG_PAGE -> {
                int lid = p.cdw10 & 0xff;
                long numd = ((p.cdw10 >>> 16) & 0xffffL | (p.cdw11 & 0xffffL) << 16) + 1;
                long lpo = (s.cdw(12) & 0xffffffffL) | (long) s.cdw(13) << 32;
                if (disc ? lid != Opcodes.LOG_DISCOVERY : lid < 1 || lid > 3) {
                    return error(Status.INVALID_LOG_PAGE);
                }
                if (numd * 4 > SCRATCH || (lpo & 3) != 0 || lpo < 0 || lpo > 1 << 20) {
                    return error(Status.INVALID_FIELD);
                }
                p.slba = lpo;
                return scratch(p, C2H, (int) numd * 4);
            }
            case Opcodes.ADMIN_SET_FEATURES, Opcodes.ADMIN_GET_FEATURES -> {
                int fid = p.cdw10 & 0xff;
                if (fid == Opcodes.FEAT_KATO || (fid == Opcodes.FEAT_NUM_QUEUES && !disc)) {
                    if (p.opcode == Opcodes.ADMIN_SET_FEATURES && fid == Opcodes.FEAT_NUM_QUEUES
                            && ((p.cdw11 & 0xffff) == 0xffff || (p.cdw11 >>> 16) == 0xffff)) {
                        return error(Status.INVALID_FIELD);
                    }
                    return 0;
                }
                return error(Status.INVALID_FIELD);
            }
            case Opcodes.ADMIN_KEEP_ALIVE -> {
                return 0;
            }
            case Opcodes.ADMIN_ASYNC_EVENT -> {
                synchronized (ctrl) {
                    if (ctrl.aersHeld > TargetData.AERL) {
                        return error(Status.AER_LIMIT_EXCEEDED);
                    }
                }
                return 0;
            }
            case Opcodes.ADMIN_ABORT -> {
                return disc ? error(Status.INVALID_OPCODE) : 0;
            }
            default -> {
                return error(Status.INVALID_OPCODE);
            }
        }
    }

    private int checkIo(Rsp p, Sqe s) {
        int op = p.opcode;
        if (op != Opcodes.IO_READ && op != Opcodes.IO_WRITE && op != Opcodes.IO_FLUSH && op != Opcodes.IO_WRITE_ZEROES
                && op != Opcodes.IO_DSM) {
            return error(Status.INVALID_OPCODE);
        }
        if (op == Opcodes.IO_FLUSH && p.nsid == 0xffffffff) {
            return 0;
        }
        if (p.nsid < 1 || p.nsid > target.namespaces.length) {
            return error(Status.INVALID_NAMESPACE);
        }
        long blocks = target.namespaceBlocks[p.nsid - 1];
        switch (op) {
            case Opcodes.IO_FLUSH -> {
                return 0;
            }
            case Opcodes.IO_DSM -> {
                int ranges = (p.cdw10 & 0xff) + 1;
                return scratch(p, H2C, ranges * 16);
            }
            default -> {
                p.slba = s.cdw10and11();
                p.nlb = (s.cdw(12) & 0xffff) + 1;
                if (p.slba < 0 || p.slba > blocks - p.nlb) {
                    return error(Status.LBA_OUT_OF_RANGE);
                }
                if (op == Opcodes.IO_WRITE_ZEROES) {
                    return 0;
                }
                long bytes = (long) p.nlb * target.blockSize;
                if (bytes > (4096L << TargetData.MDTS)) {
                    return error(Status.INVALID_FIELD);
                }
                p.dir = op == Opcodes.IO_WRITE ? H2C : C2H;
                p.len = (int) bytes;
                p.localSeg = target.namespaces[p.nsid - 1];
                p.localOff = p.slba * target.blockSize;
                p.localAddr = p.localSeg.address() + p.localOff;
                p.localKey = dev.namespaceMrs[p.nsid - 1].lkey();
                return 0;
            }
        }
    }

    /** Checks SGL1 against the transfer decided (see the class comment); copies in-capsule data. */
    private int sgl(Rsp p, Sgl g, long capsule, int received) {
        int type = g.type();
        int sub = g.subType();
        long len = g.length();
        if (type == Sgl.TYPE_KEYED_DATA_BLOCK) {
            if (sub != Sgl.SUBTYPE_ADDRESS && sub != Sgl.SUBTYPE_INVALIDATE) {
                return error(Status.SGL_DESCRIPTOR_TYPE_INVALID);
            }
            p.invalidate = sub == Sgl.SUBTYPE_INVALIDATE && len > 0;
            p.hostKey = g.key();
            if (len != p.len) {
                return error(Status.SGL_DATA_LENGTH_INVALID);
            }
            if (p.len > 0) {
                p.keyed = true;
                p.hostAddr = g.address();
            }
            return 0;
        }
        if (type == Sgl.TYPE_DATA_BLOCK && sub == Sgl.SUBTYPE_OFFSET) {
            if (len == 0 && p.len == 0) {
                return 0;
            }
            if (p.dir != H2C) {
                // nvmet: in-capsule data only with a command that carries data to the controller
                return error(p.dir == NONE ? Status.SGL_DATA_LENGTH_INVALID : Status.INVALID_FIELD);
            }
            long off = g.address();
            if (off < 0 || off > icd || len > icd - off) {
                return error(Status.SGL_OFFSET_INVALID);
            }
            if (len != p.len) {
                return error(Status.SGL_DATA_LENGTH_INVALID);
            }
            if (Sqe.SIZE + off + len > received) {
                return error(Status.SGL_DATA_LENGTH_INVALID);
            }
            MemorySegment.copy(rx, capsule + Sqe.SIZE + off, p.localSeg, p.localOff, len);
            return 0;
        }
        return error(Status.SGL_DESCRIPTOR_TYPE_INVALID);
    }

    /** Runs a checked command whose host-to-controller data (if any) is in place; its status. */
    private int execute(Rsp p) {
        if (p.opcode == Opcodes.FABRICS) {
            return p.fctype == Opcodes.FCTYPE_CONNECT ? connect(p) : property(p);
        }
        return qid == 0 ? admin(p) : io(p);
    }

    private MemorySegment scratchOf(Rsp p) {
        return scratch.asSlice((long) p.idx * SCRATCH, SCRATCH);
    }

    /** Fabrics Connect (NVMe-oF 1.1 §3.3), the checks of nvmet's {@code nvmet_execute_admin_connect} / {@code io_connect}. */
    private int connect(Rsp p) {
        MemorySegment d = scratchOf(p);
        int recfmt = p.cdw10 & 0xffff;
        int cqid = p.cdw10 >>> 16;
        int sqsize = p.cdw11 & 0xffff;
        int kato = (int) p.result;
        if (recfmt != 0) {
            return error(Status.CONNECT_INCOMPATIBLE_FORMAT);
        }
        if (cqid != qid) {
            p.result = Status.invalidParameter(false, 42);
            return error(Status.CONNECT_INVALID_PARAMETERS);
        }
        if (sqsize == 0 || sqsize + 1 > recvCount || sqsize > target.opts.maxQueueSize() - 1) {
            p.result = Status.invalidParameter(false, 44);
            return error(Status.CONNECT_INVALID_PARAMETERS);
        }
        if (d.get(ValueLayout.JAVA_BYTE, 256 + 255) != 0 || d.get(ValueLayout.JAVA_BYTE, 512 + 255) != 0) {
            p.result = Status.invalidParameter(true, d.get(ValueLayout.JAVA_BYTE, 256 + 255) != 0 ? 256 : 512);
            return error(Status.CONNECT_INVALID_PARAMETERS);
        }
        String subnqn = ConnectData.subsysNqn(d, 0);
        String hostnqn = ConnectData.hostNqn(d, 0);
        UUID hostId = ConnectData.hostId(d, 0);
        int cntlid = ConnectData.cntlid(d, 0);
        boolean disc = NvmeConnectOptions.DISCOVERY_NQN.equals(subnqn);
        if (!disc && !target.subsysNqn.equals(subnqn)) {
            p.result = Status.invalidParameter(true, 256);
            return error(Status.CONNECT_INVALID_PARAMETERS);
        }
        if (hostnqn.isEmpty()) {
            p.result = Status.invalidParameter(true, 512);
            return error(Status.CONNECT_INVALID_PARAMETERS);
        }
        if (qid == 0) {
            if (cntlid != ConnectData.CNTLID_DYNAMIC) {
                p.result = Status.invalidParameter(true, 16);
                return error(Status.CONNECT_INVALID_PARAMETERS);
            }
            TargetController c = target.newController(disc, hostnqn, hostId, kato);
            if (c == null) {
                return error(Status.CONNECT_CONTROLLER_BUSY);
            }
            c.queues[0] = this;
            ctrl = c;
            p.result = c.cntlid;
            return 0;
        }
        TargetController c = target.controllers.get(cntlid);
        if (c == null || c.discovery || !c.hostNqn.equals(hostnqn) || !c.hostId.equals(hostId)) {
            p.result = Status.invalidParameter(true, 16);
            return error(Status.CONNECT_INVALID_PARAMETERS);
        }
        if (!c.ready()) {
            return error(Status.COMMAND_SEQUENCE_ERROR);
        }
        if (qid >= c.queues.length) {
            p.result = Status.invalidParameter(false, 42);
            return error(Status.CONNECT_INVALID_PARAMETERS);
        }
        if (!c.install(this)) {
            return error(Status.CONNECT_CONTROLLER_BUSY);
        }
        ctrl = c;
        c.lastCommand = System.nanoTime();
        p.result = c.cntlid;
        return 0;
    }

    /** Property Get/Set (NVMe-oF 1.1 §3.4-3.5): CAP (8 bytes), VS, CC, CSTS (4 bytes); CC only is writable. */
    private int property(Rsp p) {
        int offset = (int) p.slba;
        boolean eight = (p.nlb & 1) != 0;
        if (p.fctype == Opcodes.FCTYPE_PROPERTY_SET) {
            if (offset != Properties.CC || eight) {
                return error(Status.INVALID_FIELD);
            }
            ctrl.setCc((int) p.result);
            p.result = 0;
            return 0;
        }
        if (eight != (offset == Properties.CAP)) {
            return error(Status.INVALID_FIELD);
        }
        p.result = switch (offset) {
            // CAP: MQES, CQR 0, TO 15 (7.5 s), CSS NVM (bit 37), MPSMIN 0 (4 KiB), MPSMAX 0
            case Properties.CAP -> (target.opts.maxQueueSize() - 1) | 15L << 24 | 1L << 37;
            case Properties.VS -> TargetData.VERSION;
            case Properties.CC -> ctrl.cc() & 0xffffffffL;
            case Properties.CSTS -> ctrl.csts & 0xffffffffL;
            default -> -1;
        };
        if (p.result == -1) {
            p.result = 0;
            return error(Status.INVALID_FIELD);
        }
        return 0;
    }

    private int admin(Rsp p) {
        TargetController c = ctrl;
        switch (p.opcode) {
            case Opcodes.ADMIN_IDENTIFY -> {
                MemorySegment d = scratchOf(p);
                int cns = p.cdw10 & 0xff;
                if (cns == Opcodes.CNS_CONTROLLER) {
                    MemorySegment.copy(c.discovery ? target.idDiscovery : target.idController, 0, d, 0, TargetData.IDENTIFY_SIZE);
                    d.set(TargetData.U16, TargetData.ID_CNTLID, (short) c.cntlid);
                } else if (cns == Opcodes.CNS_NAMESPACE) {
                    MemorySegment.copy(target.idNamespaces[p.nsid - 1], 0, d, 0, TargetData.IDENTIFY_SIZE);
                } else {
                    d.fill((byte) 0);
                    int n = 0;
                    for (int nsid = 1; nsid <= target.namespaces.length && n < 1024; nsid++) {
                        if (Integer.compareUnsigned(nsid, p.nsid) > 0) {
                            d.set(TargetData.U32, 4L * n++, nsid);
                        }
                    }
                }
                return 0;
            }
            case Opcodes.ADMIN_GET_LOG_PAGE -> {
                MemorySegment d = scratchOf(p);
                d.asSlice(0, p.len).fill((byte) 0);
                if (c.discovery) {
                    long have = target.discoveryLog.byteSize();
                    if (p.slba < have) {
                        MemorySegment.copy(target.discoveryLog, p.slba, d, 0, Math.min(p.len, have - p.slba));
                    }
                }
                return 0;
            }
            case Opcodes.ADMIN_SET_FEATURES, Opcodes.ADMIN_GET_FEATURES -> {
                int fid = p.cdw10 & 0xff;
                int max = target.opts.maxIoQueues() - 1;
                if (fid == Opcodes.FEAT_NUM_QUEUES) {
                    // as nvmet: the controller's limit whatever was asked (the host takes the smaller)
                    p.result = (max & 0xffff) | (long) max << 16;
                } else if (p.opcode == Opcodes.ADMIN_SET_FEATURES) {
                    c.katoMs = p.cdw11;
                    c.lastCommand = System.nanoTime();
                } else {
                    p.result = c.katoMs & 0xffffffffL;
                }
                return 0;
            }
            case Opcodes.ADMIN_KEEP_ALIVE -> {
                return 0;
            }
            case Opcodes.ADMIN_ASYNC_EVENT -> {
                synchronized (c) {
                    c.aersHeld++;
                }
                return -1;
            }
            case Opcodes.ADMIN_ABORT -> {
                p.result = 1;   // DW0 bit 0: the command was not aborted (nvmet does the same)
                return 0;
            }
            default -> {
                return error(Status.INVALID_OPCODE);
            }
        }
    }

    private int io(Rsp p) {
        switch (p.opcode) {
            case Opcodes.IO_WRITE_ZEROES -> {
                target.namespaces[p.nsid - 1].asSlice(p.slba * target.blockSize, (long) p.nlb * target.blockSize).fill((byte) 0);
                return 0;
            }
            case Opcodes.IO_DSM -> {
                if ((p.cdw11 & 1 << 2) == 0) {
                    return 0;   // only attributes (IDR, IDW): advisory
                }
                MemorySegment d = scratchOf(p);
                long blocks = target.namespaceBlocks[p.nsid - 1];
                int ranges = p.len / 16;
                for (int i = 0; i < ranges; i++) {
                    long nlb = d.get(TargetData.U32, 16L * i + 4) & 0xffffffffL;
                    long slba = d.get(TargetData.U64, 16L * i + 8);
                    if (slba < 0 || slba > blocks - nlb) {
                        return error(Status.LBA_OUT_OF_RANGE);
                    }
                }
                for (int i = 0; i < ranges; i++) {
                    long nlb = d.get(TargetData.U32, 16L * i + 4) & 0xffffffffL;
                    long slba = d.get(TargetData.U64, 16L * i + 8);
                    target.namespaces[p.nsid - 1].asSlice(slba * target.blockSize, nlb * target.blockSize).fill((byte) 0);
                }
                return 0;
            }
            default -> {
                return 0;   // Read (the data goes out with the response), Write (in place), Flush
            }
        }
    }

    /** Sends the response of {@code p} with {@code status} (-1: held, an Asynchronous Event Request). */
    private void respond(Rsp p, int status) {
        if (status == -1) {
            return;
        }
        if (status != 0) {
            target.errorStatuses.incrementAndGet();
        }
        // all 16 bytes written: DW0-1, SQHD, SQID, CID, status
        p.cqe.result(p.result).sqHead(sqHead).sqId(qid).commandId(p.cid).statusField(Status.field(status));
        if (p.invalidate) {
            p.send.opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(p.hostKey);
        } else {
            p.send.opcode(WrOpcode.SEND);
        }
        if (status == 0 && p.dir == C2H && p.keyed) {
            p.rdma.opcode(WrOpcode.RDMA_WRITE).sendFlags(0).wrId(K_WRITE | p.idx).rdma(p.hostAddr, p.hostKey).next(p.send);
            p.rdmaSge.set(p.localAddr, p.len, p.localKey);
            qp.postSend(p.rdma);
        } else {
            qp.postSend(p.send);
        }
    }

    /** Stops the thread and frees the queue (the CM thread, after DISCONNECTED, or the target's close). */
    void close() {
        running = false;
        if (thread != null) {
            LockSupport.unpark(thread);
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        TargetController c = ctrl;
        if (c != null) {
            if (qid == 0) {
                target.adminGone(c);
            } else {
                c.remove(this);
            }
        }
        try {
            id.destroyQp();
        } catch (RuntimeException ignored) {
            // destroyed already
        }
        cq.close();
        rxMr.close();
        txMr.close();
        scratchMr.close();
        arena.close();
    }
}
