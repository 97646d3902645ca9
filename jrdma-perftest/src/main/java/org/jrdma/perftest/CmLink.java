package org.jrdma.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;

/**
 * perftest's out-of-band exchange over the connection manager ({@code -R}, {@code -z}), as perftest
 * 4.5 does it ({@code perftest_communication.c}: {@code create_comm_struct},
 * {@code rdma_server_connect}, {@code rdma_client_connect}, {@code rdma_write_data},
 * {@code rdma_read_data}): one RC connection of port space TCP on the test's port (18515 by default)
 * with no private data, retry and RNR retry counts 7, responder resources and initiator depth 0; one
 * receive of {@value Dest#STRUCT_SIZE} bytes ({@code sizeof(struct pingpong_dest)}) always posted
 * (before the connect or accept, and again after each message); each message one signaled SEND
 * ({@code wr_id} {@value #SYNC_SPEC_ID}) whose completion is awaited. The server stops listening once
 * it has accepted (the port is free again for the test's own connections, {@link CmQps}).
 *
 * <p>jrdma binds the server to its device's address (perftest binds the wildcard; a jrdma wildcard
 * listener would open every jrdma device of the host, taking their QP1 in this process) and uses
 * separate send and receive buffers (perftest shares one; the bytes on the wire are the same).
 *
 * <p>Threads: the tool's main thread only; the CM's events of the connection come on a channel of
 * its own, which the waits here drain.
 */
final class CmLink implements OobChannel.Link {
    /** {@code SYNC_SPEC_ID}: the wr_id of the exchange's sends and receives. */
    static final int SYNC_SPEC_ID = 5;
    /** {@code NUM_OF_RETRIES}: address and route resolution attempts of the client. */
    static final int NUM_OF_RETRIES = 10;
    /** The timeout of {@code rdma_resolve_addr} and {@code rdma_resolve_route} perftest passes, 2000 ms. */
    static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(2000);
    /**
     * How long a resolution's event may take: jrdma resolves locally, but the first one opens the
     * device (its sockets, QP1), which takes seconds on a loaded machine.
     */
    static final Duration RESOLVE_WAIT = Duration.ofSeconds(30);
    /** How long a connect may wait for its outcome (the CM's own retries end it sooner: UNREACHABLE). */
    static final Duration CONNECT_WAIT = Duration.ofSeconds(120);
    /** How long the end of a run waits for the peer's part of the disconnect (its DREQ or DREP). */
    static final Duration LINGER = Duration.ofSeconds(3);

    private final EventChannel ch;
    private final boolean server;
    private CmId listener;
    private CmId id;
    private String peer;
    private Arena arena;
    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private QueuePair qp;
    private MemorySegment sendBuf;
    private MemorySegment recvBuf;
    private MemoryRegion sendMr;
    private MemoryRegion recvMr;
    private final RecvWr recvWr = new RecvWr().wrId(SYNC_SPEC_ID);
    private final SendWr sendWr = new SendWr().wrId(SYNC_SPEC_ID).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED);
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private boolean disconnected;

    private CmLink(boolean server) {
        this.ch = EventChannel.create();
        this.server = server;
    }

    /**
     * The address a jrdma side of the rdma_cm mode uses: the address (GID 0) of device {@code ibDev},
     * or of the first device that has one when {@code ibDev} is null.
     *
     * @throws PerftestException when there is no such device
     */
    static InetAddress deviceAddress(String ibDev) {
        for (Device d : Verbs.getDeviceList()) {
            if ((ibDev == null || d.name().equals(ibDev)) && !d.gids().isEmpty()) {
                return d.gids().get(0).toInetAddress();
            }
        }
        throw new PerftestException(ibDev == null ? "no RDMA device with an address for the rdma_cm mode (JRDMA_DEVICES)"
                : "no RDMA device '" + ibDev + "' with an address for the rdma_cm mode (JRDMA_DEVICES)");
    }

    /**
     * The server's first step ({@code rdma_server_connect} up to {@code rdma_listen}): binds to
     * {@code address} and listens (backlog 1). {@link #verbs()} is then the CM's context of the device.
     *
     * @throws PerftestException when the address or port cannot be bound
     */
    static CmLink listen(InetSocketAddress address) {
        CmLink l = new CmLink(true);
        try {
            l.listener = CmId.create(l.ch, null, PortSpace.TCP);
            l.listener.bind(address);
            l.listener.listen(1);
            return l;
        } catch (VerbsException e) {
            l.close();
            throw new PerftestException(" rdma_bind_addr/rdma_listen on " + address.getAddress().getHostAddress() + " port "
                    + address.getPort() + " failed: " + e.getMessage());
        }
    }

    /**
     * The client's first step ({@code rdma_client_connect} up to ROUTE_RESOLVED): resolves the
     * address (again after ADDR_ERROR, {@value #NUM_OF_RETRIES} times in all) and the route.
     *
     * @param src the local address (null: the routing's choice)
     * @throws PerftestException when resolution fails
     */
    static CmLink resolve(InetSocketAddress src, InetSocketAddress dst) {
        CmLink l = new CmLink(false);
        try {
            l.peer = dst.getAddress().getHostAddress() + ":" + dst.getPort();
            l.id = CmId.create(l.ch, null, PortSpace.TCP);
            for (int attempt = 0; ; attempt++) {
                if (attempt == NUM_OF_RETRIES) {
                    throw new PerftestException("Received " + NUM_OF_RETRIES + " times ADDR_ERROR");
                }
                l.id.resolveAddr(src, dst, RESOLVE_TIMEOUT);
                CmEvent e = l.await(RESOLVE_WAIT, "rdma_resolve_addr");
                if (e.type() == CmEventType.ADDR_ERROR) {
                    continue;
                }
                l.expect(e, CmEventType.ADDR_RESOLVED);
                break;
            }
            l.id.resolveRoute(RESOLVE_TIMEOUT);
            l.expect(l.await(RESOLVE_WAIT, "rdma_resolve_route"), CmEventType.ROUTE_RESOLVED);
            return l;
        } catch (VerbsException e) {
            l.close();
            throw new PerftestException("rdma_cm: cannot resolve " + dst.getAddress().getHostAddress() + ": " + e.getMessage());
        } catch (RuntimeException e) {
            l.close();
            throw e;
        }
    }

    /** The CM's device context of this connection (the listener's once bound, the resolved ID's). */
    Context verbs() {
        return server ? (id != null ? id.verbs() : listener.verbs()) : id.verbs();
    }

    /**
     * The server's second step: waits for the connection request, creates the exchange's QP on its
     * ID, posts the receive, accepts, and stops listening.
     */
    void accept() {
        CmEvent req;
        while (true) {
            Optional<CmEvent> e = ch.getEvent(Duration.ofSeconds(1));
            if (e.isEmpty()) {
                continue;
            }
            req = e.get();
            req.ack();
            if (req.type() == CmEventType.CONNECT_REQUEST) {
                break;
            }
        }
        id = req.id();
        InetSocketAddress pa = id.peerAddress();
        peer = pa == null ? "the rdma_cm peer" : pa.getAddress().getHostAddress() + ":" + pa.getPort();
        try {
            setUp();
            id.accept(connParam());
        } catch (VerbsException e) {
            throw new PerftestException("Function rdma_accept failed: " + e.getMessage());
        }
        listener.destroy();
        listener = null;
    }

    /** The client's second step: creates the QP, posts the receive, connects, waits for ESTABLISHED. */
    void connect() {
        try {
            setUp();
            id.connect(connParam());
        } catch (VerbsException e) {
            throw new PerftestException("Function rdma_connect failed: " + e.getMessage());
        }
        expect(await(CONNECT_WAIT, "rdma_connect"), CmEventType.ESTABLISHED);
    }

    /** {@code retry_count} and {@code rnr_retry_count} 7 (the comm struct's out_reads is 0). */
    private static ConnParam connParam() {
        return new ConnParam().retryCount(7).rnrRetryCount(7);
    }

    /** {@code ctx_init} of the comm struct: PD, buffers, CQs, an RC QP of depth 1 on the ID; one receive posted. */
    private void setUp() {
        Context ctx = id.verbs();
        arena = Arena.ofShared();
        pd = ctx.allocPd();
        sendBuf = arena.allocate(Dest.STRUCT_SIZE, 64);
        recvBuf = arena.allocate(Dest.STRUCT_SIZE, 64);
        sendMr = pd.regMr(sendBuf, AccessFlags.LOCAL_WRITE);
        recvMr = pd.regMr(recvBuf, AccessFlags.LOCAL_WRITE);
        sendCq = ctx.createCq(1, null);
        recvCq = ctx.createCq(1, null);
        QpInitAttr ia = new QpInitAttr().sendCq(sendCq).recvCq(recvCq);
        ia.cap().maxSendWr(1).maxRecvWr(1).maxSendSge(1).maxRecvSge(1);
        qp = id.createQp(pd, ia);
        recvWr.sgList(new Sge(recvBuf.address(), Dest.STRUCT_SIZE, recvMr.lkey()));
        qp.postRecv(recvWr);
    }

    @Override
    public boolean rdmaCm() {
        return true;
    }

    /** {@code rdma_write_data}: one signaled SEND of {@code b}, its completion awaited. */
    @Override
    public void write(byte[] b, String what) {
        if (b.length > Dest.STRUCT_SIZE) {
            throw new IllegalArgumentException(what + ": " + b.length + " bytes > " + Dest.STRUCT_SIZE);
        }
        MemorySegment.copy(b, 0, sendBuf, ValueLayout.JAVA_BYTE, 0, b.length);
        sendWr.sgList(new Sge(sendBuf.address(), b.length, sendMr.lkey()));
        try {
            qp.postSend(sendWr);
        } catch (VerbsException e) {
            throw new PerftestException("Function ibv_post_send failed during the " + what + ": " + e.getMessage());
        }
        WorkCompletion w = poll(sendCq, what);
        if (w.status() != WcStatus.SUCCESS || w.opcode() != WcOpcode.SEND || w.wrId() != SYNC_SPEC_ID) {
            throw new PerftestException("lost the rdma_cm connection to " + peer + " during the " + what
                    + ": send completed with " + w.status().str() + " (Bad wc status " + w.status().value() + ")");
        }
    }

    /** {@code rdma_read_data}: the next receive, its first {@code b.length} bytes, and the receive posted again. */
    @Override
    public void read(byte[] b, String what) {
        WorkCompletion w = poll(recvCq, what);
        if (w.status() != WcStatus.SUCCESS || w.opcode() != WcOpcode.RECV || w.wrId() != SYNC_SPEC_ID) {
            throw new PerftestException("lost the rdma_cm connection to " + peer + " during the " + what
                    + ": receive completed with " + w.status().str() + " (Bad wc status " + w.status().value() + ")");
        }
        if (w.byteLen() < b.length) {
            throw new PerftestException("peer " + peer + " sent " + w.byteLen() + " bytes in the " + what + ", expected "
                    + b.length + " (not perftest's rdma_cm exchange)");
        }
        MemorySegment.copy(recvBuf, ValueLayout.JAVA_BYTE, 0, b, 0, b.length);
        try {
            qp.postRecv(recvWr);
        } catch (VerbsException e) {
            throw new PerftestException("Couldn't post recv after the " + what + ": " + e.getMessage());
        }
    }

    /** Polls {@code cq} for one completion; every few milliseconds looks at the CM events (a DISCONNECTED ends the wait). */
    private WorkCompletion poll(CompletionQueue cq, String what) {
        long nextEventCheck = System.nanoTime();
        for (int idle = 0; cq.poll(wc) == 0; idle++) {
            if (System.nanoTime() - nextEventCheck > 0) {
                nextEventCheck = System.nanoTime() + 5_000_000;
                drainEvents();
                if (disconnected && cq.poll(wc) == 0) {
                    throw new PerftestException("the rdma_cm peer " + peer + " disconnected during the " + what);
                }
                if (disconnected) {
                    return wc[0];
                }
            }
            if (idle < 4096) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
        return wc[0];
    }

    private void drainEvents() {
        for (Optional<CmEvent> e = ch.getEvent(Duration.ZERO); e.isPresent(); e = ch.getEvent(Duration.ZERO)) {
            CmEvent ev = e.get();
            ev.ack();
            if (ev.type() == CmEventType.DISCONNECTED && ev.id() == id) {
                disconnected = true;
            }
        }
    }

    private CmEvent await(Duration timeout, String call) {
        Optional<CmEvent> e = ch.getEvent(timeout);
        if (e.isEmpty()) {
            throw new PerftestException(call + ": no CM event within " + timeout.toSeconds() + " s");
        }
        CmEvent ev = e.get();
        ev.ack();
        return ev;
    }

    private void expect(CmEvent e, CmEventType type) {
        if (e.type() != type) {
            throw new PerftestException("unexpected CM event " + e.type().eventStr() + " (" + e.type().value()
                    + ", status " + e.status() + ") from " + (peer == null ? "the peer" : peer) + ", expected "
                    + type.eventStr());
        }
    }

    /** Disconnects (waiting at most {@link #LINGER} for the peer's side of it), then frees everything. */
    @Override
    public void close() {
        if (id != null && qp != null) {
            try {
                drainEvents();
                if (!disconnected) {
                    id.disconnect();
                }
                long end = System.nanoTime() + LINGER.toNanos();
                while (!disconnected && System.nanoTime() < end) {
                    Optional<CmEvent> e = ch.getEvent(Duration.ofMillis(50));
                    if (e.isPresent()) {
                        e.get().ack();
                        if (e.get().type() == CmEventType.DISCONNECTED && e.get().id() == id) {
                            disconnected = true;
                        }
                    }
                }
            } catch (RuntimeException ignored) {
                // the connection is already gone: nothing to tear down
            }
        }
        free();
    }

    private void free() {
        try {
            if (qp != null) {
                qp.close();
            }
            if (sendMr != null) {
                sendMr.close();
                recvMr.close();
            }
            if (sendCq != null) {
                sendCq.close();
                recvCq.close();
            }
            if (pd != null) {
                pd.close();
            }
        } catch (RuntimeException ignored) {
            // best effort at the end of a run
        }
        if (id != null) {
            id.destroy();
        }
        if (listener != null) {
            listener.destroy();
        }
        ch.close();
        if (arena != null) {
            arena.close();
        }
    }
}
