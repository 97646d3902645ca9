package org.jrdma.nvmeof.target;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.nvmeof.NvmeException;
import org.jrdma.nvmeof.wire.RdmaCmReject;
import org.jrdma.nvmeof.wire.RdmaCmRequest;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;

/**
 * An NVMe over Fabrics target on a jrdma device (NVMe-oF 1.1 and its RDMA transport binding; modelled
 * on Linux's {@code nvmet} and {@code nvmet-rdma}): one NVM subsystem of RAM namespaces and the
 * discovery controller, at one address and port, for any host.
 *
 * <ul>
 * <li><b>Queues</b>: each RDMA CM connect request carries {@code nvme_rdma_cm_req}; a bad one is
 *     refused with {@code nvme_rdma_cm_rej} (invalid length, record format, QID, HSQSIZE, HRQSIZE);
 *     else the queue gets HSQSIZE + 1 receives of 64 bytes (admin) or 64 + the in-capsule data size (I/O)
 *     and the reply's CRQSIZE says so. Each queue has a thread polling its completion queue.</li>
 * <li><b>Controllers</b> ({@link TargetController}): Fabrics Connect on the admin queue creates one
 *     (CNTLID from 1); I/O queues join it by CNTLID and host NQN. Property Get/Set CAP, VS, CC, CSTS;
 *     Identify (controller, namespace, active namespace list), Set/Get Features (Number of Queues, Keep
 *     Alive Timer), Keep Alive, Get Log Page (the discovery log on the discovery controller, its two entries as nvmet's; error,
 *     SMART and firmware logs zero-filled on the NVM controller), Asynchronous Event Request (held:
 *     the target has no events to report), Abort (answered "not aborted", as nvmet).</li>
 * <li><b>Keep alive</b>: a controller whose KATO (from its Connect, or Set Features) passes without
 *     a command on any of its queues is ended (CSTS.CFS, every queue disconnected), as nvmet's
 *     {@code nvmet_keep_alive_timer}.</li>
 * <li><b>I/O</b>: Read, Write, Flush, Write Zeroes, Dataset Management (deallocate: the ranges read as
 *     zeros after it). Data moves between the namespace's memory and the host with RDMA READ (Write)
 *     and RDMA WRITE (Read) at the command's keyed SGL, or from the capsule's in-capsule data; the
 *     response is a SEND, a SEND_WITH_INV of the SGL's key when its sub type asks for it (Fh).</li>
 * <li><b>Checks</b> ({@link TargetQueue}): every command's PSDT/FUSE, opcode, NSID, LBA range and
 *     transfer size, and its SGL against the transfer (type, sub type, length, in-capsule offset),
 *     refused with the NVMe status the specifications give, before any data moves. A host that breaks
 *     the transport (a capsule that does not fit, a key that fails the RDMA READ or WRITE) has its
 *     queue disconnected; the target counts it and goes on.</li>
 * </ul>
 *
 * <p>Threads: one CM thread ({@code nvmet-cm}) takes the CM events and checks the keep alive
 * timers; one thread per queue ({@code nvmet-q<qid>}) runs its commands. The data path
 * allocates nothing.
 */
public final class NvmeTarget implements AutoCloseable {
    /** What the target counted (a snapshot). */
    public record Counters(long queuesAccepted, long queuesRejected, long commands, long errorStatuses,
            long transportErrors, long keepAliveExpiries) {
    }

    final NvmeTargetOptions opts;
    final String subsysNqn;
    final int blockSize;
    final int lbads;
    private final Arena arena = Arena.ofShared();
    /** The namespaces' memory, by NSID - 1. */
    final MemorySegment[] namespaces;
    final long[] namespaceBlocks;
    final MemorySegment idController;
    final MemorySegment idDiscovery;
    final MemorySegment[] idNamespaces;
    MemorySegment discoveryLog;
    private final EventChannel ch;
    private final CmId listener;
    private final InetSocketAddress bound;
    private final Thread cmThread;
    private volatile boolean running = true;
    private final Map<CmId, TargetQueue> queues = new IdentityHashMap<>();
    private final Map<Context, Device> devices = new HashMap<>();
    final Map<Integer, TargetController> controllers = new ConcurrentHashMap<>();
    private final AtomicInteger nextCntlid = new AtomicInteger(1);
    final AtomicLong accepted = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong commands = new AtomicLong();
    final AtomicLong errorStatuses = new AtomicLong();
    final AtomicLong transportErrors = new AtomicLong();
    final AtomicLong keepAliveExpiries = new AtomicLong();

    /** The protection domain of a device and the namespaces registered in it. */
    static final class Device {
        final ProtectionDomain pd;
        final MemoryRegion[] namespaceMrs;

        Device(ProtectionDomain pd, MemoryRegion[] mrs) {
            this.pd = pd;
            this.namespaceMrs = mrs;
        }
    }

    private NvmeTarget(NvmeTargetOptions o) {
        this.opts = o;
        this.subsysNqn = o.subsysNqn();
        this.blockSize = o.blockSize();
        this.lbads = Integer.numberOfTrailingZeros(blockSize);
        List<Long> sizes = o.namespaces();
        namespaces = new MemorySegment[sizes.size()];
        namespaceBlocks = new long[sizes.size()];
        idNamespaces = new MemorySegment[sizes.size()];
        for (int i = 0; i < sizes.size(); i++) {
            if (sizes.get(i) % blockSize != 0) {
                throw new IllegalArgumentException("namespace " + (i + 1) + ": " + sizes.get(i) + " bytes is not a multiple of "
                        + blockSize);
            }
            namespaces[i] = arena.allocate(sizes.get(i), 4096);
            namespaceBlocks[i] = sizes.get(i) / blockSize;
            idNamespaces[i] = TargetData.namespace(arena, namespaceBlocks[i], lbads, i + 1, subsysNqn);
        }
        idController = TargetData.nvmController(arena, o, namespaces.length);
        idDiscovery = TargetData.discoveryController(arena, o);
        ch = EventChannel.create();
        try {
            listener = CmId.create(ch, this, PortSpace.TCP);
            listener.bind(o.address());
            listener.listen(64);
            bound = listener.localAddress();
        } catch (RuntimeException e) {
            ch.close();
            arena.close();
            throw e;
        }
        discoveryLog = TargetData.discoveryLog(arena, bound, subsysNqn);
        cmThread = Thread.ofPlatform().daemon().name("nvmet-cm").start(this::cmLoop);
    }

    /**
     * Starts a target: binds and listens on {@code o.address()} at once.
     *
     * @throws org.jrdma.verbs.VerbsException EADDRINUSE, EADDRNOTAVAIL (no jrdma device has the address)
     * @throws NullPointerException without an address
     */
    public static NvmeTarget start(NvmeTargetOptions o) {
        java.util.Objects.requireNonNull(o.address(), "address");
        return new NvmeTarget(o);
    }

    /** The address and port listened on (the port chosen when 0 was asked). */
    public InetSocketAddress address() {
        return bound;
    }

    public String subsysNqn() {
        return subsysNqn;
    }

    /** The memory of namespace {@code nsid} (1..), read-only: what the hosts wrote. */
    public MemorySegment namespaceMemory(int nsid) {
        return namespaces[nsid - 1].asReadOnly();
    }

    /** Logical blocks of namespace {@code nsid}. */
    public long namespaceBlocks(int nsid) {
        return namespaceBlocks[nsid - 1];
    }

    public int blockSize() {
        return blockSize;
    }

    public Counters counters() {
        return new Counters(accepted.get(), rejected.get(), commands.get(), errorStatuses.get(), transportErrors.get(),
                keepAliveExpiries.get());
    }

    /** Controllers alive now. */
    public int controllerCount() {
        return controllers.size();
    }

    /** Queues connected now. */
    public int queueCount() {
        synchronized (queues) {
            return queues.size();
        }
    }

    Device device(Context c) {
        synchronized (devices) {
            Device d = devices.get(c);
            if (d == null) {
                ProtectionDomain pd = c.allocPd();
                MemoryRegion[] mrs = new MemoryRegion[namespaces.length];
                for (int i = 0; i < mrs.length; i++) {
                    mrs[i] = pd.regMr(namespaces[i], AccessFlags.LOCAL_WRITE);
                }
                d = new Device(pd, mrs);
                devices.put(c, d);
            }
            return d;
        }
    }

    /** A new controller for an admin Connect, or null when the IDs are used up (Controller Busy). */
    TargetController newController(boolean discovery, String hostNqn, UUID hostId, int kato) {
        int id = nextCntlid.getAndIncrement();
        if (id > 0xffef) {
            return null;
        }
        TargetController c = new TargetController(id, discovery, hostNqn, hostId, kato, discovery ? 0 : opts.maxIoQueues());
        controllers.put(id, c);
        return c;
    }

    private void cmLoop() {
        while (running) {
            Optional<CmEvent> o;
            try {
                o = ch.getEvent(Duration.ofMillis(20));
            } catch (RuntimeException e) {
                break;
            }
            if (o.isPresent()) {
                CmEvent e = o.get();
                e.ack();
                try {
                    event(e);
                } catch (RuntimeException ex) {
                    // a CM call on a connection that went away meanwhile: that connection only
                    transportErrors.incrementAndGet();
                }
            }
            keepAlive();
        }
    }

    private void event(CmEvent e) {
        switch (e.type()) {
            case CONNECT_REQUEST -> connectRequest(e);
            case DISCONNECTED, CONNECT_ERROR, UNREACHABLE, REJECTED, DEVICE_REMOVAL -> {
                TargetQueue q;
                synchronized (queues) {
                    q = queues.remove(e.id());
                }
                if (q != null) {
                    if (e.type() == CmEventType.DISCONNECTED) {
                        try {
                            e.id().disconnect();
                        } catch (RuntimeException ignored) {
                            // this side disconnected first: nothing to answer
                        }
                    }
                    q.close();
                    e.id().destroy();
                }
            }
            default -> {
            }
        }
    }

    /** A REQ: the private data checked as nvmet-rdma's {@code nvmet_rdma_parse_cm_connect_req}, then the queue made and accepted. */
    private void connectRequest(CmEvent e) {
        byte[] pd = e.privateData();
        int sts = 0;
        RdmaCmRequest req = null;
        if (pd.length < RdmaCmRequest.SIZE) {
            sts = RdmaCmReject.INVALID_LEN;
        } else {
            req = RdmaCmRequest.decode(pd);
            if (req.recfmt() != 0) {
                sts = RdmaCmReject.INVALID_RECFMT;
            } else if (req.qid() > opts.maxIoQueues()) {
                sts = RdmaCmReject.INVALID_QID;
            } else if (req.hsqsize() < 1 || req.hsqsize() + 1 > (req.qid() == 0 ? 32 : opts.maxQueueSize())) {
                sts = RdmaCmReject.INVALID_HSQSIZE;
            } else if (req.hrqsize() < 1 || req.hrqsize() > 2 * opts.maxQueueSize()) {
                sts = RdmaCmReject.INVALID_HRQSIZE;
            }
        }
        if (sts != 0) {
            rejected.incrementAndGet();
            e.id().reject(new RdmaCmReject(0, sts).encode());
            e.id().destroy();
            return;
        }
        TargetQueue q;
        try {
            q = new TargetQueue(this, e.id(), req, e.connParam());
        } catch (RuntimeException ex) {
            rejected.incrementAndGet();
            try {
                e.id().reject(new RdmaCmReject(0, RdmaCmReject.NO_RSC).encode());
            } finally {
                e.id().destroy();
            }
            return;
        }
        synchronized (queues) {
            queues.put(e.id(), q);
        }
        accepted.incrementAndGet();
        try {
            q.accept();
        } catch (RuntimeException ex) {
            synchronized (queues) {
                queues.remove(e.id());
            }
            q.close();
            e.id().destroy();
            throw ex;
        }
    }

    /** Ends every controller whose keep alive timeout passed (the CM thread, every 20 ms). */
    private void keepAlive() {
        long now = System.nanoTime();
        for (TargetController c : controllers.values()) {
            int kato = c.katoMs;
            if (kato > 0 && !c.dead && now - c.lastCommand > TimeUnit.MILLISECONDS.toNanos(kato)) {
                keepAliveExpiries.incrementAndGet();
                controllers.remove(c.cntlid);
                c.fatal("keep alive timeout (" + kato + " ms) of controller " + c.cntlid + " expired");
            }
        }
    }

    /** The admin queue of {@code c} is gone: so is the controller (its I/O queues are disconnected). */
    void adminGone(TargetController c) {
        controllers.remove(c.cntlid);
        c.fatal("the admin queue of controller " + c.cntlid + " disconnected");
    }

    /** Stops listening, disconnects and frees every queue, frees the namespaces. Idempotent. */
    @Override
    public void close() {
        if (!running) {
            return;
        }
        running = false;
        try {
            cmThread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Map.Entry<CmId, TargetQueue>> l;
        synchronized (queues) {
            l = new ArrayList<>(queues.entrySet());
            queues.clear();
        }
        for (Map.Entry<CmId, TargetQueue> q : l) {
            q.getValue().fail("the target is closing");
            q.getValue().close();
            q.getKey().destroy();
        }
        listener.destroy();
        ch.close();
        synchronized (devices) {
            for (Device d : devices.values()) {
                for (MemoryRegion mr : d.namespaceMrs) {
                    mr.close();
                }
                try {
                    d.pd.close();
                } catch (RuntimeException ignored) {
                    // a queue's resource still held: freed with the device
                }
            }
            devices.clear();
        }
        arena.close();
    }

    static NvmeException fail(String m) {
        return new NvmeException(m);
    }
}
