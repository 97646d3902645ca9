package org.jrdma.nvmeof;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.jrdma.nvmeof.wire.Commands;
import org.jrdma.nvmeof.wire.ConnectData;
import org.jrdma.nvmeof.wire.DiscoveryLog;
import org.jrdma.nvmeof.wire.Fabrics;
import org.jrdma.nvmeof.wire.IdentifyController;
import org.jrdma.nvmeof.wire.IdentifyNamespace;
import org.jrdma.nvmeof.wire.Opcodes;
import org.jrdma.nvmeof.wire.Properties;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.DeviceCapFlags;
import org.jrdma.verbs.ProtectionDomain;

/**
 * An NVMe over Fabrics controller reached over RDMA (NVMe-oF 1.1 and its RDMA transport binding), as
 * Linux's {@code nvme-rdma} host sets one up ({@code nvme_rdma_setup_ctrl}):
 * <ol>
 * <li>the admin queue (QID 0, 32 entries) connected by the RDMA CM with {@code nvme_rdma_cm_req}
 *     private data, then the Fabrics Connect command (KATO, host ID, CNTLID FFFFh, SUBNQN, HOSTNQN),
 *     whose response gives the controller ID;</li>
 * <li>Property Get CAP and VS, Property Set CC (IOSQES 6, IOCQES 4, the command sets, EN) and Property
 *     Get CSTS until RDY (at most CAP.TO × 500 ms);</li>
 * <li>Identify Controller; for an NVM subsystem Set Features Number of Queues, then each granted I/O
 *     queue (QID 1.., {@link NvmeConnectOptions#queueSize()} entries, at most CAP.MQES + 1) connected
 *     and its Fabrics Connect with the controller ID; Identify of the active namespace list and of
 *     each namespace;</li>
 * <li>Keep Alive on the admin queue every KATO / 2 while connected; one Asynchronous Event Request
 *     outstanding on it (no deadline).</li>
 * </ol>
 * {@link #close()} disconnects the I/O queues, shuts the controller down (CC.SHN normal, CSTS.SHST
 * complete) and disconnects the admin queue. A discovery controller ({@link NvmeConnectOptions#DISCOVERY_NQN})
 * has only the admin queue and KATO 0; {@link #discoveryLog()} reads its log page.
 *
 * <p>I/O: {@link NvmeNamespace}'s read/write/flush on the I/O queues in turn. Data moves between the
 * controller and {@link IoBuffer}s registered by {@link #allocBuffer(long)}; see {@link RdmaQueue} for
 * the per-I/O memory windows and remote invalidation.
 *
 * <p>Threads: {@link #connect} and the synchronous calls run on the caller's thread; each queue has a
 * poller thread that completes the futures; one scheduler thread ({@code nvme-keep-alive}) sends the
 * keep alives. {@link #adminLock} serializes admin commands that use the admin data buffer.
 */
public final class NvmeController implements AutoCloseable {
    /** Entries of the admin queue (Linux's NVME_AQ_DEPTH). */
    public static final int ADMIN_QUEUE_SIZE = 32;
    /** Bytes of the admin data buffer: Identify data (4 KiB), Connect data, log pages up to 64 KiB. */
    static final int ADMIN_BUFFER = 64 << 10;

    private final NvmeConnectOptions opts;
    private final boolean discovery;
    private final RdmaQueue admin;
    private final List<RdmaQueue> io = new ArrayList<>();
    private final ReentrantLock adminLock = new ReentrantLock();
    private final AtomicInteger nextQueue = new AtomicInteger();
    private final List<NvmeNamespace> namespaces = new ArrayList<>();
    private final List<Integer> asyncEvents = new java.util.concurrent.CopyOnWriteArrayList<>();
    private ProtectionDomain pd;
    private boolean memoryWindows;
    private IoBuffer adminBuf;
    private int cntlid;
    private long cap;
    private int vs;
    private IdentifyController identify;
    private int kato;
    private ScheduledExecutorService keepAlive;
    private volatile NvmeException keepAliveFailure;
    private boolean enabled;

    private NvmeController(NvmeConnectOptions opts) {
        this.opts = opts;
        this.discovery = NvmeConnectOptions.DISCOVERY_NQN.equals(opts.subsysNqn());
        this.admin = new RdmaQueue(0, ADMIN_QUEUE_SIZE, opts.source(), opts.target(), opts.connectTimeout());
    }

    /**
     * Connects to the controller and brings it up (caller's thread; see the class comment).
     *
     * @throws NvmeException when a queue cannot be connected or a step fails (the target's status in an
     *         {@link NvmeStatusException} cause); what was set up is torn down again
     * @throws NullPointerException without a target or subsystem NQN
     */
    public static NvmeController connect(NvmeConnectOptions opts) {
        Objects.requireNonNull(opts.target(), "target");
        Objects.requireNonNull(opts.subsysNqn(), "subsysNqn");
        NvmeController c = new NvmeController(opts);
        try {
            c.setUp();
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void setUp() {
        pd = admin.verbs().allocPd();
        DeviceAttr da = admin.verbs().queryDevice();
        int slots = ADMIN_QUEUE_SIZE + opts.ioQueues() * opts.queueSize();
        memoryWindows = (da.deviceCapFlags() & (DeviceCapFlags.MEM_WINDOW_TYPE_2A | DeviceCapFlags.MEM_WINDOW_TYPE_2B)) != 0
                && da.maxMw() >= slots;
        adminBuf = allocBuffer(ADMIN_BUFFER);
        admin.connect(pd, memoryWindows, 0, opts.connectTimeout(), opts.commandTimeout());
        kato = discovery ? 0 : opts.keepAliveTimeoutMs();
        cntlid = fabricsConnect(admin, ConnectData.CNTLID_DYNAMIC, kato);
        cap = propertyGet(Properties.CAP, true);
        vs = (int) propertyGet(Properties.VS, false);
        enable();
        identify = identifyController();
        if (kato > 0) {
            keepAlive = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon()
                    .name("nvme-keep-alive").unstarted(r));
            long period = Math.max(100, kato / 2);
            keepAlive.scheduleAtFixedRate(this::sendKeepAlive, period, period, TimeUnit.MILLISECONDS);
        }
        if (discovery) {
            return;
        }
        submitAsyncEventRequest();
        int granted = Commands.grantedQueues(admin("Set Features (Number of Queues)", Opcodes.ADMIN_SET_FEATURES,
                (q, cid) -> Commands.setNumQueues(q, cid, opts.ioQueues()), 0, false).dw0());
        int queues = Math.min(granted, opts.ioQueues());
        int qsize = Math.min(opts.queueSize(), Properties.capMqes(cap) + 1);
        for (int qid = 1; qid <= queues; qid++) {
            RdmaQueue q = new RdmaQueue(qid, qsize, opts.source(), opts.target(), opts.connectTimeout());
            io.add(q);
            q.connect(pd, memoryWindows, inCapsuleBytes(), opts.connectTimeout(), opts.commandTimeout());
            fabricsConnect(q, cntlid, 0);
        }
        for (int nsid : activeNamespaces()) {
            namespaces.add(new NvmeNamespace(this, nsid, identifyNamespace(nsid)));
        }
    }

    /** Fabrics Connect on {@code q}; its response's CNTLID. */
    private int fabricsConnect(RdmaQueue q, int cntlidField, int katoMs) {
        adminLock.lock();
        try {
            ConnectData.write(adminBuf.segment(), 0, opts.hostId(), cntlidField, opts.subsysNqn(), opts.hostNqn());
            NvmeCompletion c = await(q.submit("Connect (queue " + q.qid + ")", Opcodes.FABRICS,
                    (s, cid) -> Fabrics.connect(s, cid, q.qid, q.size - 1, katoMs), adminBuf, 0, ConnectData.SIZE, true),
                    "Connect (queue " + q.qid + ")");
            return c.dw0() & 0xffff;
        } finally {
            adminLock.unlock();
        }
    }

    private long propertyGet(int offset, boolean eight) {
        return admin("Property Get 0x" + Integer.toHexString(offset), Opcodes.FABRICS,
                (s, cid) -> Fabrics.propertyGet(s, cid, offset, eight), 0, false).result() & (eight ? -1L : 0xffffffffL);
    }

    private void propertySet(int offset, int value) {
        admin("Property Set 0x" + Integer.toHexString(offset), Opcodes.FABRICS,
                (s, cid) -> Fabrics.propertySet(s, cid, offset, value), 0, false);
    }

    /** CC.EN = 1 with the entry sizes and command sets, then CSTS.RDY within CAP.TO (NVMe Base 2.0 §3.5.1). */
    private void enable() {
        // CAP.CSS bit 6 (CAP bit 43): I/O command sets beyond NVM; then CC.CSS 110b, else 000b (NVM), as Linux
        int css = (cap >>> 43 & 1) != 0 ? 6 << 4 : 0;
        int mps = Properties.capMpsmin(cap) << 7;
        propertySet(Properties.CC, Properties.CC_IOSQES | Properties.CC_IOCQES | css | mps | Properties.CC_EN);
        enabled = true;
        waitCsts(Properties.CSTS_RDY, Properties.CSTS_RDY, Math.max(1, Properties.capTimeout(cap)) * 500L, "CSTS.RDY");
    }

    private void waitCsts(int mask, int value, long timeoutMs, String what) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            int csts = (int) propertyGet(Properties.CSTS, false);
            if ((csts & Properties.CSTS_CFS) != 0) {
                throw new NvmeException("controller fatal status (CSTS 0x" + Integer.toHexString(csts) + ") waiting for " + what);
            }
            if ((csts & mask) == value) {
                return;
            }
            if (System.nanoTime() - end > 0) {
                throw new NvmeException(what + " not reached within " + timeoutMs + " ms (CSTS 0x" + Integer.toHexString(csts) + ")");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new NvmeException("interrupted waiting for " + what);
            }
        }
    }

    private IdentifyController identifyController() {
        adminLock.lock();
        try {
            admin("Identify Controller", Opcodes.ADMIN_IDENTIFY, (s, cid) -> Commands.identify(s, cid, Opcodes.CNS_CONTROLLER, 0),
                    IdentifyController.SIZE, false);
            return IdentifyController.decode(adminBuf.segment(), 0);
        } finally {
            adminLock.unlock();
        }
    }

    private IdentifyNamespace identifyNamespace(int nsid) {
        adminLock.lock();
        try {
            admin("Identify Namespace " + nsid, Opcodes.ADMIN_IDENTIFY, (s, cid) -> Commands.identify(s, cid, Opcodes.CNS_NAMESPACE, nsid),
                    IdentifyNamespace.SIZE, false);
            return IdentifyNamespace.decode(adminBuf.segment(), 0);
        } finally {
            adminLock.unlock();
        }
    }

    /** Identify CNS 02h from NSID 0: up to 1024 active NSIDs, ascending. */
    private List<Integer> activeNamespaces() {
        adminLock.lock();
        try {
            admin("Identify Active Namespace List", Opcodes.ADMIN_IDENTIFY,
                    (s, cid) -> Commands.identify(s, cid, Opcodes.CNS_ACTIVE_NS_LIST, 0), 4096, false);
            List<Integer> l = new ArrayList<>();
            for (int i = 0; i < 1024; i++) {
                int nsid = adminBuf.segment().get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 4L * i);
                if (nsid == 0) {
                    break;
                }
                l.add(nsid);
            }
            return l;
        } finally {
            adminLock.unlock();
        }
    }

    /**
     * The discovery log page (log 70h; NVMe-oF 1.1 §5.3), read as nvme-cli does: the first 4 KiB, then
     * all of it when it has more records, then the header again until GENCTR is stable.
     *
     * @throws NvmeException when this is not a discovery controller or the page does not fit 64 KiB
     */
    public DiscoveryLog discoveryLog() {
        if (!discovery) {
            throw new NvmeException("not a discovery controller (" + opts.subsysNqn() + ")");
        }
        adminLock.lock();
        try {
            for (int attempt = 0; attempt < 10; attempt++) {
                int len = 4096;
                getLog(Opcodes.LOG_DISCOVERY, len);
                long genctr = DiscoveryLog.genctr(adminBuf.segment(), 0);
                long numrec = DiscoveryLog.numrec(adminBuf.segment(), 0);
                long need = DiscoveryLog.HEADER_SIZE + numrec * DiscoveryLog.ENTRY_SIZE;
                if (need > ADMIN_BUFFER) {
                    throw new NvmeException("discovery log of " + numrec + " records does not fit " + ADMIN_BUFFER + " bytes");
                }
                if (need > len) {
                    len = (int) need;
                    getLog(Opcodes.LOG_DISCOVERY, len);
                }
                DiscoveryLog log = DiscoveryLog.decode(adminBuf.segment(), 0, len);
                if (log.genctr() == genctr) {
                    return log;
                }
            }
            throw new NvmeException("the discovery log kept changing (GENCTR) over 10 reads");
        } finally {
            adminLock.unlock();
        }
    }

    private void getLog(int lid, int len) {
        admin("Get Log Page 0x" + Integer.toHexString(lid), Opcodes.ADMIN_GET_LOG_PAGE,
                (s, cid) -> Commands.getLogPage(s, cid, lid, 0, len, 0), len, false);
    }

    private void sendKeepAlive() {
        admin.submit("Keep Alive", Opcodes.ADMIN_KEEP_ALIVE, Commands::keepAlive, null, 0, 0, false)
                .whenComplete((c, e) -> {
                    if (e != null && keepAliveFailure == null) {
                        keepAliveFailure = e instanceof NvmeException ne ? ne : new NvmeException("Keep Alive: " + e, e);
                    }
                });
    }

    /** An admin command, synchronously; data ({@code len} > 0) in the admin buffer (hold {@link #adminLock}). */
    private NvmeCompletion admin(String what, int opcode, RdmaQueue.Command c, int len, boolean hostToController) {
        return await(admin.submit(what, opcode, c, len > 0 ? adminBuf : null, 0, len, hostToController), what);
    }

    /** Waits for {@code f} (the command timeout plus 5 s: the queue's own timeout fails it first). */
    NvmeCompletion await(CompletableFuture<NvmeCompletion> f, String what) {
        try {
            return f.get(opts.commandTimeout().toMillis() + 5000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable t = e.getCause();
            if (t instanceof NvmeException ne) {
                throw ne instanceof NvmeStatusException s ? new NvmeStatusException(what, s.opcode(), s.status()) : ne;
            }
            throw new NvmeException(what + ": " + t, t);
        } catch (TimeoutException e) {
            throw new NvmeException(what + ": no completion within " + opts.commandTimeout().toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NvmeException(what + ": interrupted");
        }
    }

    /**
     * The largest write whose data goes in the command capsule (as Linux's host: when the controller's
     * IOCCSZ leaves room after the SQE and ICDOFF is 0, and the keyed SGL otherwise); 0 for none, or
     * when {@link NvmeConnectOptions#inCapsuleData(boolean)} is off.
     */
    public int inCapsuleBytes() {
        if (!opts.inCapsuleData() || identify == null || identify.icdoff() != 0) {
            return 0;
        }
        return Math.min(identify.inCapsuleDataSize(), 16 << 10);
    }

    /**
     * One Asynchronous Event Request outstanding on the admin queue while connected (as Linux's host):
     * no deadline; its completion's DW0 (event type 2:0, information 15:8, log page 23:16; NVMe Base
     * 2.0 Figure 146) goes to {@link #asyncEvents()} and another is submitted. An error status (e.g. the
     * controller's AER limit) stops it.
     */
    private void submitAsyncEventRequest() {
        admin.submit("Asynchronous Event Request", Opcodes.ADMIN_ASYNC_EVENT, Commands::asyncEventRequest, null, 0, 0, false, false)
                .whenComplete((c, e) -> {
                    if (e == null) {
                        asyncEvents.add(c.dw0());
                        if (admin.failure() == null) {
                            submitAsyncEventRequest();
                        }
                    }
                });
    }

    /** The DW0 of each Asynchronous Event Request the controller completed, in order. */
    public List<Integer> asyncEvents() {
        return List.copyOf(asyncEvents);
    }

    /**
     * Abort (NVMe Base 2.0 §5.1) of command {@code cid} on submission queue {@code sqid}: true when the
     * controller says it aborted it (DW0 bit 0 clear), false when it did not (bit 0 set: nvmet always).
     *
     * @throws NvmeException on a failed queue; an {@link NvmeStatusException} for an error status (e.g. Abort Command Limit Exceeded)
     */
    public boolean abort(int sqid, int cid) {
        return (admin("Abort (SQID " + sqid + ", CID " + cid + ")", Opcodes.ADMIN_ABORT,
                (s, id) -> Commands.abort(s, id, sqid, cid), 0, false).dw0() & 1) == 0;
    }

    /** The next I/O queue, round robin. */
    RdmaQueue ioQueue() {
        if (io.isEmpty()) {
            throw new NvmeException("the controller has no I/O queues" + (discovery ? " (a discovery controller)" : ""));
        }
        return io.get(Math.floorMod(nextQueue.getAndIncrement(), io.size()));
    }

    /** The largest transfer of one command: MDTS (in CAP.MPSMIN pages; 0 none) bounded by the keyed SGL's 24-bit length. */
    public int maxTransferBytes() {
        int mdts = identify.mdts();
        long page = 4096L << Properties.capMpsmin(cap);
        long max = mdts == 0 ? Long.MAX_VALUE : page << mdts;
        return (int) Math.min(max, org.jrdma.nvmeof.wire.Sgl.MAX_KEYED_LENGTH & ~4095);
    }

    /**
     * Host memory registered in the controller's protection domain for I/O (page aligned).
     *
     * @param bytes 1..2^31
     */
    public IoBuffer allocBuffer(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("buffer of " + bytes + " bytes");
        }
        Arena a = Arena.ofShared();
        try {
            MemorySegment s = a.allocate(bytes, 4096);
            int access = AccessFlags.LOCAL_WRITE
                    | (memoryWindows ? AccessFlags.MW_BIND : AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
            return new IoBuffer(a, s, pd.regMr(s, access));
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
    }

    /** Whether each I/O's buffer is exposed through a memory window of its own (else the buffer's rkey). */
    public boolean memoryWindows() {
        return memoryWindows;
    }

    /** The controller ID the Connect response gave. */
    public int cntlid() {
        return cntlid;
    }

    /** CAP. */
    public long cap() {
        return cap;
    }

    /** VS. */
    public int vs() {
        return vs;
    }

    /** The Identify Controller data read at connect. */
    public IdentifyController identify() {
        return identify;
    }

    /** The I/O queues connected (0 for a discovery controller). */
    public int ioQueueCount() {
        return io.size();
    }

    /** Entries of each I/O queue. */
    public int ioQueueSize() {
        return io.isEmpty() ? 0 : io.getFirst().size;
    }

    /** The keep alive timeout sent in the admin Connect, ms (0: none). */
    public int keepAliveTimeoutMs() {
        return kato;
    }

    /** The first failed keep alive, or null. */
    public NvmeException keepAliveFailure() {
        return keepAliveFailure;
    }

    /** The active namespaces, by NSID. */
    public List<NvmeNamespace> namespaces() {
        return List.copyOf(namespaces);
    }

    /**
     * Namespace {@code nsid}.
     *
     * @throws NvmeException when not active
     */
    public NvmeNamespace namespace(int nsid) {
        for (NvmeNamespace n : namespaces) {
            if (n.nsid() == nsid) {
                return n;
            }
        }
        throw new NvmeException("namespace " + nsid + " is not active on controller " + cntlid + " of " + opts.subsysNqn());
    }

    /** The subsystem NQN connected to. */
    public String subsysNqn() {
        return opts.subsysNqn();
    }

    /**
     * Disconnects the I/O queues, shuts the controller down (CC.SHN = 01b, then CSTS.SHST = 10b within
     * 5 s) and disconnects the admin queue, as Linux's {@code nvme_rdma_teardown_io_queues},
     * {@code nvme_disable_ctrl(ctrl, true)}, {@code nvme_rdma_teardown_admin_queue}. Idempotent; failures
     * of the shutdown are not thrown (the queues are freed regardless).
     */
    @Override
    public void close() {
        if (keepAlive != null) {
            keepAlive.shutdownNow();
            keepAlive = null;
        }
        for (RdmaQueue q : io) {
            q.close();
        }
        io.clear();
        if (enabled && admin.failure() == null) {
            enabled = false;
            try {
                int cc = (int) propertyGet(Properties.CC, false);
                propertySet(Properties.CC, (cc & ~Properties.CC_SHN_MASK) | Properties.CC_SHN_NORMAL);
                waitCsts(Properties.CSTS_SHST_MASK, Properties.CSTS_SHST_CMPLT, Duration.ofSeconds(5).toMillis(), "CSTS.SHST complete");
            } catch (NvmeException e) {
                // the controller is gone or slow: the admin queue is torn down all the same
            }
        }
        admin.close();
        if (adminBuf != null) {
            adminBuf.close();
            adminBuf = null;
        }
        if (pd != null) {
            try {
                pd.close();
            } catch (RuntimeException e) {
                // EBUSY: an IoBuffer of the caller is still registered; it keeps the PD until closed
            }
            pd = null;
        }
    }
}
