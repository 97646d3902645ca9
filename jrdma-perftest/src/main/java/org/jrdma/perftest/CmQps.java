package org.jrdma.perftest;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.VerbsException;

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
 * <p>The client connects right after the first hand-shake, perhaps before the peer listens (perftest's
 * server listens only after it): a REJECTED connect is made again, with new IDs and QPs, after 100 ms,
 * at most {@value #MAX_ATTEMPTS} times ({@code rdma_cm_client_connection}). jrdma's server listens
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
            q.listener = CmId.create(q.ch, null, PortSpace.TCP);
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
                ids[i].accept(connParam());
            } catch (VerbsException e) {
                throw new PerftestException("Failed to accept RDMA CM connection: " + e.getMessage());
            }
            connected[i] = true;
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
            destroyIds();
            if (failed.type() != CmEventType.REJECTED || attempt == MAX_ATTEMPTS) {
                throw new PerftestException("RDMA CM event error: Event: " + failed.type().eventStr() + "; error: "
                        + failed.status() + (attempt > 1 ? " (attempt " + attempt + " of " + MAX_ATTEMPTS + ")" : ""));
            }
            err.printf(" rdma_cm: %s refused the connection (REJ reason %d: not listening yet?); connecting again in"
                    + " %d ms (attempt %d of %d)%n", dst.getAddress().getHostAddress(), failed.status(), RETRY_DELAY_MS,
                    attempt + 1, MAX_ATTEMPTS);
            try {
                Thread.sleep(RETRY_DELAY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerftestException("interrupted while connecting");
            }
        }
    }

    /** One attempt; null when every QP is connected, else the event that ended it. */
    private CmEvent connectOnce(Resources res, InetSocketAddress src, InetSocketAddress dst) {
        int established = 0;
        try {
            for (int i = 0; i < p.numQps; i++) {
                ids[i] = CmId.create(ch, i, PortSpace.TCP);
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

    private void destroyIds() {
        for (int i = 0; i < ids.length; i++) {
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
                if (connected[i] && !disconnected[i]) {
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

    private boolean waiting() {
        for (int i = 0; i < ids.length; i++) {
            if (connected[i] && !disconnected[i]) {
                return true;
            }
        }
        return false;
    }
}
