package org.jrdma.perftest;

import java.io.PrintStream;
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
import org.jrdma.cm.UdParam;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;

/**
 * The test's own QPs connected through the CM ({@code -R}, perftest's {@code work_rdma_cm}), as
 * perftest 4.5's {@code create_rdma_cm_connection} makes them: a second set of RC connections (one
 * per QP, {@code -q}) on the test's port, after the exchange's connection ({@link CmLink}) is up; a
 * zeroed QP hand-shake before and after them on that exchange. Each QP is created on its
 * connection's ID ({@code rdma_create_qp}) with the test's attributes and moved to RTR/RTS by the CM;
 * connection parameters {@code retry_count} 7, {@code rnr_retry_count} 7 and, for READ and atomic
 * tests, responder resources and initiator depth = the outstanding reads ({@code -o}); no private
 * data. The server's QPs get {@code min_rnr_timer} 12 after the accept ({@code MIN_RNR_TIMER}), as
 * perftest sets it.
 *
 * <p>UD ({@code -c UD}): the IDs are in port space UDP, so a "connection" is a SIDR_REQ answered by
 * a SIDR_REP ({@code rdma_cm_allocate_nodes}, {@code rdma_cm_establish_ud_connection}): the client's
 * ESTABLISHED gives the address handle, the server QP's QPN and Q_Key ({@link UdParam}), which the
 * test's sends use ({@link Resources#remoteQpn}). In a latency test the server sends too: it posts a
 * receive before the accept (which carries its QPN), the client sends a SEND_WITH_IMM whose immediate
 * is its QPN, and the server makes its address handle from that completion and the GRH
 * ({@code ibv_create_ah_from_wc}) with its own QP's Q_Key. The hand-shakes on the exchange are the
 * same as for RC (their QPNs are not used for UD). UD IDs are not disconnected at the end.
 *
 * <p>The client connects right after the first hand-shake, perhaps before the peer listens (perftest's
 * server listens only after it): a REJECTED connect (UD: an UNREACHABLE with a SIDR_REP status) is
 * made again, with new IDs and QPs, after 100 ms, at most {@value #MAX_ATTEMPTS} times
 * ({@code rdma_cm_client_connection}, which tries again after any failure). jrdma's server listens
 * before that hand-shake, so a client never finds it not listening.
 *
 * <p>At the end ({@link #close()}) every connection is disconnected, waiting at most
 * {@link CmLink#LINGER} for the peer's part, so that the peer's DREQ or DREP is answered while this
 * process lives. Threads: the tool's main thread only; the connections' events come on a channel of
 * their own.
 */
final class CmQps implements AutoCloseable {
    /** Attempts of the client's connect ({@code max_retries} of {@code rdma_cm_client_connection}). */
    static final int MAX_ATTEMPTS = 10;
    /** The pause between two attempts, 100 ms. */
    static final long RETRY_DELAY_MS = 100;

    private final Params p;
    private final PrintStream err;
    private final EventChannel ch = EventChannel.create();
    private CmId listener;
    private final CmId[] ids;
    private final boolean[] connected;
    private final boolean[] disconnected;

    private CmQps(Params p, PrintStream err) {
        this.p = p;
        this.err = err;
        this.ids = new CmId[p.numQps];
        this.connected = new boolean[p.numQps];
        this.disconnected = new boolean[p.numQps];
    }

    /**
     * The server: binds to {@code address} and listens (backlog = the number of QPs, as
     * {@code rdma_cm_server_connection}).
     *
     * @throws PerftestException when the port cannot be bound
     */
    static CmQps listen(Params p, InetSocketAddress address, PrintStream err) {
        CmQps q = new CmQps(p, err);
        try {
            q.listener = CmId.create(q.ch, null, q.portSpace());
            q.listener.bind(address);
            q.listener.listen(p.numQps);
            return q;
        } catch (VerbsException e) {
            q.close();
            throw new PerftestException("Failed to bind RDMA CM address on the server (" + address.getAddress().getHostAddress()
                    + " port " + address.getPort() + "): " + e.getMessage());
        }
    }

    /** The client's connections, made by {@link #connectAll}. */
    static CmQps client(Params p, PrintStream err) {
        return new CmQps(p, err);
    }

    /** {@code rdma_cm_allocate_nodes}: port space UDP for UD (SIDR), TCP for RC. */
    private PortSpace portSpace() {
        return p.connection == Params.Connection.UD ? PortSpace.UDP : PortSpace.TCP;
    }

    private ConnParam connParam() {
        ConnParam c = new ConnParam().retryCount(7).rnrRetryCount(7);
        if (p.verb == Verb.READ || p.verb == Verb.ATOMIC) {
            c.responderResources(p.outReads).initiatorDepth(p.outReads);
        }
        return c;
    }

    /**
     * The server ({@code rdma_cm_connection_request_handler} per QP): takes a connection request per
     * QP, creates the QP on its ID, accepts; then stops listening.
     */
    void acceptAll(Resources res) {
        for (int i = 0; i < p.numQps; i++) {
            CmEvent req = null;
            while (req == null) {
                Optional<CmEvent> e = ch.getEvent(Duration.ofSeconds(1));
                if (e.isEmpty()) {
                    continue;
                }
                e.get().ack();
                if (e.get().type() == CmEventType.CONNECT_REQUEST) {
                    req = e.get();
                } else {
                    note(e.get());
                }
            }
            ids[i] = req.id();
            try {
                res.createQpOn(ids[i], i);
                ConnParam c = connParam();
                if (p.connection == Params.Connection.UD) {
                    c.qpNum(res.qp[i].qpNum());
                    if (udAddressExchange()) {
                        postRecvForAh(res, i);
                    }
                }
                ids[i].accept(c);
            } catch (VerbsException e) {
                throw new PerftestException("Failed to accept RDMA CM connection: " + e.getMessage());
            }
            connected[i] = true;
            if (p.connection == Params.Connection.UD && udAddressExchange()) {
                ahFromFirstReceive(res, i);
            }
            if (p.connection == Params.Connection.RC) {
                try {
                    res.qp[i].modify(new QpAttr().minRnrTimer(Params.MIN_RNR_TIMER), QpAttrMask.MIN_RNR_TIMER);
                } catch (VerbsException ignored) {
                    // perftest ignores this modify's outcome too; the CM's 0 (655 ms) then stays
                }
            }
        }
        listener.destroy();
        listener = null;
    }

    /**
     * The client ({@code rdma_cm_client_connection}): per QP an ID resolved to {@code dst} (through
     * {@code src}), its QP, the connect; all ESTABLISHED, or everything made again after a REJECTED.
     *
     * @throws PerftestException when an attempt fails otherwise, or every attempt was rejected
     */
    void connectAll(Resources res, InetSocketAddress src, InetSocketAddress dst) {
        for (int attempt = 1; ; attempt++) {
            CmEvent failed = connectOnce(res, src, dst);
            if (failed == null) {
                return;
            }
            destroyIds(res);
            if (!refused(failed) || attempt == MAX_ATTEMPTS) {
                throw new PerftestException("RDMA CM event error: Event: " + failed.type().eventStr() + "; error: "
                        + failed.status() + (attempt > 1 ? " (attempt " + attempt + " of " + MAX_ATTEMPTS + ")" : ""));
            }
            err.printf(" rdma_cm: %s refused the connection (%s %d: not listening yet?); connecting again in"
                    + " %d ms (attempt %d of %d)%n", dst.getAddress().getHostAddress(),
                    failed.type() == CmEventType.REJECTED ? "REJ reason" : "SIDR_REP status", failed.status(),
                    RETRY_DELAY_MS, attempt + 1, MAX_ATTEMPTS);
            try {
                Thread.sleep(RETRY_DELAY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerftestException("interrupted while connecting");
            }
        }
    }

    /**
     * Whether the peer answered "no" (perhaps because it does not listen yet): REJECTED, or on UD an
     * UNREACHABLE with a SIDR_REP status (1 service ID not supported, 2 rejected; an unanswered
     * SIDR_REQ gives a negative status, -ETIMEDOUT, after the CM's own retries and is not tried again).
     */
    private boolean refused(CmEvent e) {
        return e.type() == CmEventType.REJECTED
                || (p.connection == Params.Connection.UD && e.type() == CmEventType.UNREACHABLE && e.status() > 0);
    }

    /** One attempt; null when every QP is connected, else the event that ended it. */
    private CmEvent connectOnce(Resources res, InetSocketAddress src, InetSocketAddress dst) {
        int established = 0;
        try {
            for (int i = 0; i < p.numQps; i++) {
                ids[i] = CmId.create(ch, i, portSpace());
                ids[i].resolveAddr(src, dst, CmLink.RESOLVE_TIMEOUT);
            }
            while (established < p.numQps) {
                Optional<CmEvent> o = ch.getEvent(CmLink.CONNECT_WAIT);
                if (o.isEmpty()) {
                    throw new PerftestException("no RDMA CM event within " + CmLink.CONNECT_WAIT.toSeconds()
                            + " s while connecting to " + dst.getAddress().getHostAddress());
                }
                CmEvent e = o.get();
                e.ack();
                int i = index(e.id());
                switch (e.type()) {
                    case ADDR_RESOLVED -> e.id().resolveRoute(CmLink.RESOLVE_TIMEOUT);
                    case ROUTE_RESOLVED -> {
                        res.createQpOn(e.id(), i);
                        e.id().connect(connParam());
                    }
                    case ESTABLISHED -> {
                        connected[i] = true;
                        established++;
                        if (p.connection == Params.Connection.UD) {
                            udEstablished(res, i, e.udParam());
                        }
                    }
                    case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                        return e;
                    }
                    default -> note(e);
                }
            }
            return null;
        } catch (VerbsException e) {
            throw new PerftestException("Failed to connect through RDMA CM: " + e.getMessage());
        }
    }

    // ---------------------------------------------------------------- UD (SIDR)

    /**
     * Whether the server learns the client's UD address from a first datagram: in a latency test
     * (perftest: also in a duplex BW test, which jrdma's tools do not offer), where the server sends
     * too. The client then sends one SEND_WITH_IMM on ESTABLISHED, the server receives it.
     */
    private boolean udAddressExchange() {
        return p.kind == Params.Kind.LAT;
    }

    /** Where QP {@code i}'s address datagrams go and come from: its send half of the buffer ({@code ctx->buf[i]}). */
    private static long slot(Resources res, int i) {
        return i * res.sendQpBuffSize;
    }

    /**
     * {@code rdma_cm_request_ud_connection_parameters}: before the accept, a receive of
     * {@code UD_ADDITION + sizeof(uint32_t)} bytes (wr_id 0) for the client's first datagram.
     */
    private static void postRecvForAh(Resources res, int i) {
        RecvWr wr = new RecvWr().wrId(0).sgList(new Sge(res.buf.address() + slot(res, i), Params.UD_ADDITION + 4,
                res.mr.lkey()));
        try {
            res.qp[i].postRecv(wr);
        } catch (VerbsException e) {
            throw new PerftestException("Failed to post receive for connection " + i
                    + " for RDMA CM UD request connection parameters: " + e.getMessage());
        }
    }

    /**
     * {@code rdma_cm_initialize_ud_connection_parameters}: after the accept, the client's datagram;
     * the address handle from its completion and GRH ({@code ibv_create_ah_from_wc}, {@link AhFromWc}),
     * the remote QPN from its immediate, the remote Q_Key this QP's own (both are {@link CmId#UDP_QKEY}).
     * Bounded by {@link CmLink#CONNECT_WAIT} (perftest polls without end: a lost datagram hangs it).
     */
    private void ahFromFirstReceive(Resources res, int i) {
        WorkCompletion wc = pollOne(res.recvCq, "the client's UD address datagram (SEND_WITH_IMM) on QP " + i);
        if (wc.status() != WcStatus.SUCCESS || (wc.opcode().value() & WcOpcode.RECV.value()) == 0 || wc.wrId() != 0) {
            throw new PerftestException("Failed to poll CQ. Bad WQE status when trying to create AH for UD connection in"
                    + " RDMA CM: Status: " + wc.status().value() + " ; ID: " + wc.wrId());
        }
        CmId id = ids[i];
        try {
            res.ah[i] = res.pd.createAh(AhFromWc.of(id.verbs(), id.portNum(), wc,
                    res.buf.asSlice(slot(res, i), AhFromWc.GRH_BYTES)));
            QpAttr a = new QpAttr();
            res.qp[i].query(a, QpAttrMask.QKEY);
            res.remoteQkey[i] = a.qkey();
        } catch (VerbsException e) {
            throw new PerftestException("Failed to create AH for the RDMA CM UD connection " + i + ": " + e.getMessage());
        }
        res.remoteQpn[i] = wc.immData();
    }

    /**
     * {@code rdma_cm_establish_ud_connection} (the client's ESTABLISHED): the address handle from the
     * SIDR_REP's path, the server QP's QPN and Q_Key; in a latency test
     * {@code rdma_cm_send_ud_connection_parameters}: one signaled SEND_WITH_IMM (wr_id 0) of 4 bytes
     * whose immediate is this QP's QPN, its completion awaited.
     */
    private void udEstablished(Resources res, int i, UdParam ud) {
        try {
            res.ah[i] = res.pd.createAh(ud.ahAttr());
        } catch (VerbsException e) {
            throw new PerftestException("Failed to create AH for RDMA CM connection: " + e.getMessage());
        }
        res.remoteQpn[i] = ud.qpNum();
        res.remoteQkey[i] = ud.qkey();
        if (!udAddressExchange()) {
            return;
        }
        SendWr wr = new SendWr().wrId(0).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(SendFlags.SIGNALED)
                .immData(res.qp[i].qpNum()).sgList(new Sge(res.buf.address() + slot(res, i), 4, res.mr.lkey()))
                .ud(res.ah[i], res.remoteQpn[i], res.remoteQkey[i]);
        try {
            res.qp[i].postSend(wr);
        } catch (VerbsException e) {
            throw new PerftestException("Failed to post send for connection " + i
                    + " for RDMA CM UD send connection parameters: " + e.getMessage());
        }
        WorkCompletion wc = pollOne(res.sendCq, "the UD address datagram (SEND_WITH_IMM) of QP " + i);
        if (wc.status() != WcStatus.SUCCESS || wc.opcode() != WcOpcode.SEND || wc.wrId() != 0) {
            throw new PerftestException("Failed to poll CQ. Bad WQE status when trying to send UD connection parameters"
                    + " in RDMA CM: Status: " + wc.status().value() + " ; ID: " + wc.wrId());
        }
    }

    /** One completion of {@code cq}, waiting at most {@link CmLink#CONNECT_WAIT}. */
    private static WorkCompletion pollOne(CompletionQueue cq, String what) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + CmLink.CONNECT_WAIT.toNanos();
        for (int idle = 0; cq.poll(wc) == 0; idle++) {
            if (System.nanoTime() - deadline > 0) {
                throw new PerftestException("no completion of " + what + " within " + CmLink.CONNECT_WAIT.toSeconds()
                        + " s");
            }
            if (idle < 4096) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
        return wc[0];
    }

    private int index(CmId id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        return -1;
    }

    private void note(CmEvent e) {
        int i = index(e.id());
        if (i >= 0 && e.type() == CmEventType.DISCONNECTED) {
            disconnected[i] = true;
        }
    }

    private void destroyIds(Resources res) {
        for (int i = 0; i < ids.length; i++) {
            if (res.ah[i] != null) {
                res.ah[i].close();
                res.ah[i] = null;
            }
            if (ids[i] != null) {
                ids[i].destroyQp();
                ids[i].destroy();
                ids[i] = null;
                connected[i] = false;
            }
        }
    }

    /**
     * {@code rdma_cm_disconnect_nodes}: disconnects every connection (unless the peer did first) and
     * waits at most {@link CmLink#LINGER} for their DISCONNECTED; then destroys the IDs (not the QPs:
     * {@link Resources} owns them).
     */
    @Override
    public void close() {
        try {
            for (Optional<CmEvent> e = ch.getEvent(Duration.ZERO); e.isPresent(); e = ch.getEvent(Duration.ZERO)) {
                e.get().ack();
                note(e.get());
            }
            for (int i = 0; i < ids.length; i++) {
                if (rc() && connected[i] && !disconnected[i]) {
                    try {
                        ids[i].disconnect();
                    } catch (VerbsException ignored) {
                        disconnected[i] = true; // no longer connected: nothing to wait for
                    }
                }
            }
            long end = System.nanoTime() + CmLink.LINGER.toNanos();
            while (System.nanoTime() < end && waiting()) {
                Optional<CmEvent> e = ch.getEvent(Duration.ofMillis(50));
                if (e.isPresent()) {
                    e.get().ack();
                    note(e.get());
                }
            }
        } catch (RuntimeException ignored) {
            // best effort at the end of a run
        }
        for (CmId id : ids) {
            if (id != null) {
                id.destroy();
            }
        }
        if (listener != null) {
            listener.destroy();
        }
        ch.close();
    }

    /** UD "connections" (SIDR) are not disconnected: there is no connection ({@code rdma_cm_disconnect_nodes} skips UD). */
    private boolean rc() {
        return p.connection != Params.Connection.UD;
    }

    private boolean waiting() {
        if (!rc()) {
            return false;
        }
        for (int i = 0; i < ids.length; i++) {
            if (connected[i] && !disconnected[i]) {
                return true;
            }
        }
        return false;
    }
}
