package org.jrdma.perftest;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
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
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrdma rping}: rdmacm-utils' {@code rping} (rdma-core {@code librdmacm/examples/rping.c})
 * over jrdma's CM, peer-compatible with it. The client connects through the CM (responder resources
 * and initiator depth 1, retry and RNR retry counts 7) and, per ping, SENDs its start buffer's
 * address, rkey and size ({@code struct rping_rdma_info}: be64, be32, be32), which the server RDMA
 * READs; the server SENDs a go-ahead, the client SENDs its sink buffer's, the server RDMA WRITEs the
 * data back and SENDs a go-ahead again. The ping text is rping's ({@code "rdma-ping-%d: "} then
 * letters from 'A' + ping count, cycling through 'A'..'z'). Same options ({@code -s -c -a -I -p -C
 * -S -v -V -d -P}; {@code -q} is not offered), same output lines ({@code ping data: ...} and
 * {@code server ping data: ...} on stdout with {@code -v}; {@code ... DISCONNECT EVENT...}, the
 * error lines and {@code data mismatch!} on stderr), exit status 0 on success.
 *
 * <p>Threads: each connection runs on one thread, which polls its CQ; a thread per channel takes the
 * CM events and hands them to the connection (rping's cm_thread).
 */
@Command(name = "rping", sortOptions = false, usageHelpAutoWidth = true,
        description = "RDMA ping-pong over the connection manager, compatible with rdmacm-utils' rping.")
public final class Rping implements Callable<Integer> {
    static final int BUFSIZE = 64 * 1024;
    /** {@code sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT)}. */
    static final int MIN_BUFSIZE = 11 + 15;
    static final int SQ_DEPTH = 16;
    static final int INFO_SIZE = 16;
    /** How long one step of the ping loop may wait for the peer before the tool gives up. */
    static final Duration STEP_TIMEOUT = Duration.ofSeconds(60);

    // enum test_state of rping.c (its numbers appear in the error lines)
    static final int IDLE = 1, CONNECT_REQUEST = 2, ADDR_RESOLVED = 3, ROUTE_RESOLVED = 4, CONNECTED = 5,
            RDMA_READ_ADV = 6, RDMA_READ_COMPLETE = 7, RDMA_WRITE_ADV = 8, RDMA_WRITE_COMPLETE = 9,
            DISCONNECTED = 10, ERROR = 11;

    @Option(names = "-s", description = "server side") boolean server;
    @Option(names = "-c", description = "client side") boolean client;
    @Option(names = "-a", paramLabel = "addr", description = "address") String addr;
    @Option(names = "-I", paramLabel = "addr", description = "Source address to bind to for client.") String source;
    @Option(names = "-p", paramLabel = "port", description = "port") int port = 7174;
    @Option(names = "-C", paramLabel = "count", description = "ping count times") int count;
    @Option(names = "-S", paramLabel = "size", description = "ping data size") int size = 64;
    @Option(names = "-v", description = "display ping data to stdout") boolean verbose;
    @Option(names = "-V", description = "validate ping data") boolean validate;
    @Option(names = "-d", description = "debug printfs") boolean debug;
    @Option(names = "-P", description = "persistent server mode allowing multiple connections") boolean persistent;
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help") boolean help;

    private final PrintStream out;
    private final PrintStream err;

    public Rping(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() throws Exception {
        if (size < MIN_BUFSIZE || size > BUFSIZE - 1) {
            err.printf("Invalid size %d (valid range is %d to %d)%n", size, MIN_BUFSIZE, BUFSIZE);
            return 22;
        }
        if (count < 0) {
            err.printf("Invalid count %d%n", count);
            return 22;
        }
        if (server == client) {
            throw new CommandLine.ParameterException(new CommandLine(this), "give -s (server) or -c (client)");
        }
        InetAddress a = addr == null ? InetAddress.getByAddress(new byte[4]) : resolve(addr);
        try (EventChannel ch = EventChannel.create()) {
            Dispatcher d = new Dispatcher(ch);
            Thread cmThread = Thread.ofPlatform().daemon().name("rping-cm").start(d);
            try {
                return server ? runServer(d, a) : runClient(d, a);
            } finally {
                cmThread.interrupt();
            }
        }
    }

    private static InetAddress resolve(String s) throws UnknownHostException {
        return InetAddress.getByName(s);
    }

    private void debug(String fmt, Object... args) {
        if (debug) {
            out.printf(fmt, args);
        }
    }

    // ---- the CM events of a channel, handed to the connection of their ID (rping's cm_thread) ----

    private final class Dispatcher implements Runnable {
        final EventChannel ch;
        final Map<CmId, Conn> conns = new ConcurrentHashMap<>();
        volatile Conn listening;

        Dispatcher(EventChannel ch) {
            this.ch = ch;
        }

        @Override
        public void run() {
            while (!Thread.currentThread().isInterrupted()) {
                Optional<CmEvent> e;
                try {
                    e = ch.getEvent(Duration.ofMillis(100));
                } catch (RuntimeException ex) {
                    return;
                }
                if (e.isEmpty()) {
                    continue;
                }
                CmEvent ev = e.get();
                Conn c = ev.type() == CmEventType.CONNECT_REQUEST ? listening : conns.get(ev.id());
                debug("cma_event type %s cma_id %x (%s)%n", ev.type().eventStr(), System.identityHashCode(ev.id()),
                        c == listening ? "parent" : "child");
                if (c != null) {
                    c.cmEvent(ev);
                }
                ev.ack();
            }
        }
    }

    // ---- one connection: rping's struct rping_cb ----

    private final class Conn {
        final boolean isServer;
        volatile int state = IDLE;
        final Semaphore sem = new Semaphore(0);
        final java.util.concurrent.LinkedBlockingQueue<CmId> requests = new java.util.concurrent.LinkedBlockingQueue<>();
        CmId id;
        QueuePair qp;
        CompletionQueue cq;
        final WorkCompletion[] wc = {new WorkCompletion()};
        Arena arena;
        MemorySegment recvBuf, sendBuf, rdmaBuf, startBuf;
        MemoryRegion recvMr, sendMr, rdmaMr, startMr;
        long remoteAddr;
        int remoteRkey, remoteLen;
        final RecvWr rqWr = new RecvWr();
        final SendWr sqWr = new SendWr();
        final SendWr rdmaWr = new SendWr();

        Conn(boolean isServer) {
            this.isServer = isServer;
        }

        /** rping_cma_event_handler. */
        void cmEvent(CmEvent ev) {
            switch (ev.type()) {
                case ADDR_RESOLVED -> {
                    state = ADDR_RESOLVED;
                    ev.id().resolveRoute(Duration.ofMillis(2000));
                }
                case ROUTE_RESOLVED -> {
                    state = ROUTE_RESOLVED;
                    sem.release();
                }
                case CONNECT_REQUEST -> requests.add(ev.id());
                case CONNECT_RESPONSE -> {
                    state = CONNECTED;
                    sem.release();
                }
                case ESTABLISHED -> {
                    debug("ESTABLISHED%n");
                    if (!isServer) {
                        state = CONNECTED;
                    }
                    sem.release();
                }
                case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                    err.printf("cma event %s, error %d%n", ev.type().eventStr(), ev.status());
                    state = ERROR;
                    sem.release();
                }
                case DISCONNECTED -> {
                    err.printf("%s DISCONNECT EVENT...%n", isServer ? "server" : "client");
                    state = DISCONNECTED;
                    sem.release();
                }
                case DEVICE_REMOVAL -> {
                    err.printf("cma detected device removal!!!!%n");
                    state = ERROR;
                    sem.release();
                }
                case TIMEWAIT_EXIT -> {
                }
                default -> err.printf("unhandled event: %s, ignoring%n", ev.type().eventStr());
            }
        }

        /** rping_setup_qp and rping_setup_buffers. */
        void setup(CmId cmId) {
            id = cmId;
            ProtectionDomain pd = cmId.verbs().allocPd();
            cq = cmId.verbs().createCq(SQ_DEPTH * 2, null);
            QpInitAttr init = new QpInitAttr().sendCq(cq).recvCq(cq);
            init.cap().maxSendWr(SQ_DEPTH).maxRecvWr(2).maxRecvSge(1).maxSendSge(1);
            qp = cmId.createQp(pd, init);
            arena = Arena.ofShared();
            recvBuf = arena.allocate(INFO_SIZE, 8);
            sendBuf = arena.allocate(INFO_SIZE, 8);
            rdmaBuf = arena.allocate(size, 64);
            recvMr = pd.regMr(recvBuf, AccessFlags.LOCAL_WRITE);
            sendMr = pd.regMr(sendBuf, 0);
            int rw = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE;
            rdmaMr = pd.regMr(rdmaBuf, rw);
            if (!isServer) {
                startBuf = arena.allocate(size, 64);
                startMr = pd.regMr(startBuf, rw);
            }
            rqWr.wrId(0).sgList(new Sge(recvBuf.address(), INFO_SIZE, recvMr.lkey()));
            sqWr.opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sgList(new Sge(sendBuf.address(), INFO_SIZE, sendMr.lkey()));
            debug("allocated & registered buffers...%n");
        }

        void close() {
            if (qp != null) {
                qp.close();
            }
            if (arena != null) {
                arena.close();
            }
        }

        /** rping_format_send: the buffer's address, rkey and size, big-endian. */
        void formatSend(MemorySegment buf, MemoryRegion mr) {
            sendBuf.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0, buf.address());
            sendBuf.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8, mr.rkey());
            sendBuf.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12, size);
            debug("RDMA addr %x rkey %x len %d%n", buf.address(), mr.rkey(), size);
        }

        /**
         * sem_wait: the CM thread and this thread's CQ polling (rping's cq_thread) post; waits at most
         * {@link #STEP_TIMEOUT}.
         */
        void semWait() {
            long end = System.nanoTime() + STEP_TIMEOUT.toNanos();
            while (!sem.tryAcquire()) {
                if (qp != null && pollCq() != 0) {
                    continue;
                }
                if (System.nanoTime() > end) {
                    err.printf("no progress within %d s%n", STEP_TIMEOUT.toSeconds());
                    state = ERROR;
                    return;
                }
                LockSupport.parkNanos(20_000);
            }
        }

        /** rping_cq_event_handler for one completion; returns how many it took. */
        int pollCq() {
            if (cq.poll(wc) == 0) {
                return 0;
            }
            WorkCompletion w = wc[0];
            if (w.status() != WcStatus.SUCCESS) {
                if (w.status() == WcStatus.WR_FLUSH_ERR) {
                    return 1;
                }
                err.printf("cq completion failed status %d%n", w.status().value());
                state = ERROR;
                sem.release();
                return 1;
            }
            WcOpcode op = w.opcode();
            if (op == WcOpcode.SEND) {
                debug("send completion%n");
            } else if (op == WcOpcode.RDMA_WRITE) {
                debug("rdma write completion%n");
                state = RDMA_WRITE_COMPLETE;
                sem.release();
            } else if (op == WcOpcode.RDMA_READ) {
                debug("rdma read completion%n");
                state = RDMA_READ_COMPLETE;
                sem.release();
            } else if (op == WcOpcode.RECV) {
                debug("recv completion%n");
                if (w.byteLen() != INFO_SIZE) {
                    err.printf("Received bogus data, size %d%n", w.byteLen());
                    state = ERROR;
                    sem.release();
                    return 1;
                }
                if (isServer) {
                    remoteAddr = recvBuf.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0);
                    remoteRkey = recvBuf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8);
                    remoteLen = recvBuf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12);
                    debug("Received rkey %x addr %x len %d from peer%n", remoteRkey, remoteAddr, remoteLen);
                    state = state <= CONNECTED || state == RDMA_WRITE_COMPLETE ? RDMA_READ_ADV : RDMA_WRITE_ADV;
                } else {
                    state = state == RDMA_READ_ADV ? RDMA_WRITE_ADV : RDMA_WRITE_COMPLETE;
                }
                qp.postRecv(rqWr);
                sem.release();
            }
            return 1;
        }
    }

    // ---- server ----

    private int runServer(Dispatcher d, InetAddress a) throws InterruptedException {
        Conn listen = new Conn(true);
        d.listening = listen;
        CmId lid = CmId.create(d.ch, listen, PortSpace.TCP);
        try {
            lid.bind(new InetSocketAddress(a, port));
            debug("rdma_bind_addr successful%n");
            debug("rdma_listen%n");
            lid.listen(3);
            if (persistent) {
                while (true) {
                    CmId child = listen.requests.take();
                    Thread.ofPlatform().name("rping-server").start(() -> serveOne(d, child));
                }
            }
            CmId child = listen.requests.take();
            return serveOne(d, child);
        } finally {
            lid.destroy();
        }
    }

    private int serveOne(Dispatcher d, CmId child) {
        Conn c = new Conn(true);
        c.state = CONNECT_REQUEST;
        d.conns.put(child, c);
        try {
            c.setup(child);
            c.qp.postRecv(c.rqWr);
            debug("accepting client connection request%n");
            child.accept(null);
            c.semWait();
            if (c.state == ERROR) {
                err.printf("wait for CONNECTED state %d%n", c.state);
                err.printf("connect error %d%n", -1);
                return 1;
            }
            int ret = testServer(c);
            if (ret != 0) {
                err.printf("rping server failed: %d%n", ret);
            }
            disconnect(c);
            return ret == 0 ? 0 : 1;
        } finally {
            child.destroy();
            c.close();
            d.conns.remove(child);
        }
    }

    /** rping_test_server. */
    private int testServer(Conn c) {
        while (true) {
            c.semWait();
            if (c.state != RDMA_READ_ADV) {
                err.printf("wait for RDMA_READ_ADV state %d%n", c.state);
                break;
            }
            debug("server received sink adv%n");
            c.rdmaWr.opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED).rdma(c.remoteAddr, c.remoteRkey)
                    .sgList(new Sge(c.rdmaBuf.address(), c.remoteLen, c.rdmaMr.lkey()));
            c.qp.postSend(c.rdmaWr);
            debug("server posted rdma read req %n");
            c.semWait();
            if (c.state != RDMA_READ_COMPLETE) {
                err.printf("wait for RDMA_READ_COMPLETE state %d%n", c.state);
                break;
            }
            debug("server received read complete%n");
            if (verbose) {
                out.printf("server ping data: %s%n", cString(c.rdmaBuf));
            }
            c.qp.postSend(c.sqWr);
            debug("server posted go ahead%n");
            c.semWait();
            if (c.state != RDMA_WRITE_ADV) {
                err.printf("wait for RDMA_WRITE_ADV state %d%n", c.state);
                break;
            }
            debug("server received sink adv%n");
            int len = cString(c.rdmaBuf).length() + 1;
            c.rdmaWr.opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED).rdma(c.remoteAddr, c.remoteRkey)
                    .sgList(new Sge(c.rdmaBuf.address(), len, c.rdmaMr.lkey()));
            debug("rdma write from lkey %x laddr %x len %d%n", c.rdmaMr.lkey(), c.rdmaBuf.address(), len);
            c.qp.postSend(c.rdmaWr);
            c.semWait();
            if (c.state != RDMA_WRITE_COMPLETE) {
                err.printf("wait for RDMA_WRITE_COMPLETE state %d%n", c.state);
                break;
            }
            debug("server rdma write complete %n");
            c.qp.postSend(c.sqWr);
            debug("server posted go ahead%n");
        }
        return c.state == DISCONNECTED ? 0 : 1;
    }

    // ---- client ----

    private int runClient(Dispatcher d, InetAddress a) throws UnknownHostException {
        Conn c = new Conn(false);
        CmId id = CmId.create(d.ch, c, PortSpace.TCP);
        d.conns.put(id, c);
        c.id = id;
        try {
            InetSocketAddress src = source == null ? null : new InetSocketAddress(resolve(source), 0);
            id.resolveAddr(src, new InetSocketAddress(a, port), Duration.ofMillis(2000));
            c.semWait();
            if (c.state != ROUTE_RESOLVED) {
                err.printf("waiting for addr/route resolution state %d%n", c.state);
                return 1;
            }
            debug("rdma_resolve_addr - rdma_resolve_route successful%n");
            c.setup(id);
            c.qp.postRecv(c.rqWr);
            id.connect(new ConnParam().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7));
            c.semWait();
            if (c.state != CONNECTED) {
                err.printf("wait for CONNECTED state %d%n", c.state);
                err.printf("connect error %d%n", -1);
                return 1;
            }
            debug("rdma_connect successful%n");
            int ret = testClient(c);
            if (ret != 0) {
                err.printf("rping client failed: %d%n", ret);
            }
            disconnect(c);
            return ret == 0 ? 0 : 1;
        } finally {
            id.destroy();
            c.close();
        }
    }

    /** rping_test_client. */
    private int testClient(Conn c) {
        int start = 65;
        for (int ping = 0; count == 0 || ping < count; ping++) {
            c.state = RDMA_READ_ADV;
            byte[] text = String.format("rdma-ping-%d: ", ping).getBytes(StandardCharsets.US_ASCII);
            int cc = Math.min(text.length, size);
            MemorySegment.copy(text, 0, c.startBuf, ValueLayout.JAVA_BYTE, 0, cc);
            int ch = start;
            for (int i = cc; i < size; i++) {
                c.startBuf.set(ValueLayout.JAVA_BYTE, i, (byte) ch);
                ch++;
                if (ch > 122) {
                    ch = 65;
                }
            }
            start++;
            if (start > 122) {
                start = 65;
            }
            c.startBuf.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);

            c.formatSend(c.startBuf, c.startMr);
            c.qp.postSend(c.sqWr);
            c.semWait();
            if (c.state != RDMA_WRITE_ADV) {
                err.printf("wait for RDMA_WRITE_ADV state %d%n", c.state);
                return c.state == DISCONNECTED ? 0 : 1;
            }
            c.formatSend(c.rdmaBuf, c.rdmaMr);
            c.qp.postSend(c.sqWr);
            c.semWait();
            if (c.state != RDMA_WRITE_COMPLETE) {
                err.printf("wait for RDMA_WRITE_COMPLETE state %d%n", c.state);
                return c.state == DISCONNECTED ? 0 : 1;
            }
            if (validate && c.startBuf.mismatch(c.rdmaBuf) != -1) {
                err.printf("data mismatch!%n");
                return 1;
            }
            if (verbose) {
                out.printf("ping data: %s%n", cString(c.rdmaBuf));
            }
        }
        return 0;
    }

    /** rping_disconnect, then waits (bounded) for the DISCONNECTED the peer's answer brings. */
    private void disconnect(Conn c) {
        try {
            if (c.state != DISCONNECTED) {
                c.id.disconnect();
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (c.state != DISCONNECTED && System.nanoTime() < end) {
                    c.sem.tryAcquire(10, TimeUnit.MILLISECONDS);
                    c.pollCq();
                }
            } else {
                c.id.disconnect();
            }
        } catch (RuntimeException | InterruptedException e) {
            debug("rdma_disconnect: %s%n", e.getMessage());
        }
    }

    /** The NUL-terminated ASCII string at the start of {@code buf}. */
    static String cString(MemorySegment buf) {
        long n = 0;
        while (n < buf.byteSize() && buf.get(ValueLayout.JAVA_BYTE, n) != 0) {
            n++;
        }
        return new String(buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }
}
