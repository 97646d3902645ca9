package org.jrdma.iwarp.transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.spi.CmEndpoint;
import org.jrdma.cm.spi.CmHost;
import org.jrdma.cm.spi.CmTransport;
import org.jrdma.iwarp.wire.FpduDropReason;
import org.jrdma.iwarp.wire.Mpa;
import org.jrdma.iwarp.wire.MpaFrame;
import org.jrdma.iwarp.wire.MpaIrdOrd;
import org.jrdma.iwarp.wire.TerminateCodes;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * iWARP's side of the connection manager for one device, as Linux's {@code iw_cm} with siw's
 * {@code siw_cm.c}: a TCP listen on the ID's address and port; a TCP connect to the peer, then the
 * MPA request (revision 2, Enhanced, with the RFC 6581 IRD/ORD block before the application's
 * private data; CRC not asked, as siw's {@code mpa_crc_required=false}), answered by the MPA reply
 * on {@code rdma_accept} or a reply with the Reject bit on {@code rdma_reject}. A peer asking for
 * CRC gets it (siw's {@code mpa_crc_strict=false}); one asking for markers is rejected (siw has
 * none). The ORD asked for must fit the peer's IRD (else a Terminate with INSUFFICIENT_IRD, as siw
 * without {@code relaxed_ird_negotiation}). {@code rdma_disconnect} moves the QP to ERR and sends a
 * FIN; the peer's FIN (or a reset) brings DISCONNECTED. Destroying a connected ID aborts it (RST).
 * There is no timewait on iWARP: no TIMEWAIT_EXIT.
 *
 * <p>Events as librdmacm's {@code cma_iw_handler} maps iw_cm's: a refused or reset connect and an
 * MPA reject are REJECTED ({@code -ECONNREFUSED} / {@code -ECONNRESET}), an unanswered MPA request
 * UNREACHABLE ({@code -ETIMEDOUT}), another failure CONNECT_ERROR.
 *
 * <p>Threads and locks: the {@link CmTransport} calls and every {@code Conn} event handler run
 * under the CM lock (the latter on the CM thread, handed over from the device's I/O thread); under
 * it the CM moves QPs (their locks come after) and queues socket work to the I/O thread.
 */
final class SiwCm implements CmTransport {
    private static final Logger LOG = LoggerFactory.getLogger(SiwCm.class);
    /** How long an active side waits for the MPA reply, ms (siw's MPAREQ_TIMEOUT, 10 s). */
    static final long MPA_TIMEOUT_MS = 10_000;
    private static final int MAX_IRD_ORD = 128;

    /**
     * siw's {@code mpa_crc_required}: ask for MPA CRC in every request and reply (system property
     * {@code jrdma.iwarp.mpaCrcRequired}, default false as siw). Without it CRC is used only when the
     * peer asks (siw's {@code mpa_crc_strict = false}: a peer's request or reply with C is honoured).
     */
    static boolean crcRequired() {
        return Boolean.getBoolean("jrdma.iwarp.mpaCrcRequired");
    }

    /**
     * siw's {@code peer_to_peer}: ask for RFC 6581 peer-to-peer mode in every request (system
     * property {@code jrdma.iwarp.peerToPeer}, default false as siw). jsiw offers only the zero-length
     * RDMA WRITE as its RTR frame (siw offers WRITE and READ and sends the WRITE, which a responder
     * picks first); a reply that picks none jsiw offered gets a Terminate (LLP, MPA, no matching RTR).
     * As responder jsiw always honours a peer-to-peer request, as siw does.
     */
    static boolean peerToPeer() {
        return Boolean.getBoolean("jrdma.iwarp.peerToPeer");
    }

    /**
     * Private data an application may pass, bytes: librdmacm's {@code private_data_len} is a
     * {@code uint8_t} (connect and reject: 255, which siw sends whole); siw's {@code siw_accept}
     * refuses more than {@code MPA_MAX_PRIVDATA} (256) minus the 4-byte IRD/ORD block (252). A Linux
     * siw peer refuses any frame of more than 256 bytes of private data (EPROTO), so connect with
     * more than 252 bytes reaches a jsiw listener but not a siw one.
     */
    static final int MAX_CONNECT_PRIVATE_DATA = 255;
    static final int MAX_ACCEPT_PRIVATE_DATA = Mpa.SIW_MAX_PRIVATE_DATA - MpaIrdOrd.LENGTH;
    static final int MAX_REJECT_PRIVATE_DATA = 255;

    @Override
    public int maxConnectPrivateData() {
        return MAX_CONNECT_PRIVATE_DATA;
    }

    @Override
    public int maxAcceptPrivateData() {
        return MAX_ACCEPT_PRIVATE_DATA;
    }

    @Override
    public int maxRejectPrivateData() {
        return MAX_REJECT_PRIVATE_DATA;
    }

    private final SiwAgent agent;
    private final CmHost host;
    private final Map<CmEndpoint, ServerSocketChannel> listeners = new HashMap<>();

    SiwCm(SiwAgent agent, CmHost host) {
        this.agent = agent;
        this.host = host;
    }

    private enum State { CONNECTING, MPA_REQ_SENT, MPA_REQ_RCVD, ESTABLISHED, CLOSING, CLOSED }

    /** One connection's CM state (guarded by the CM lock). */
    private final class Conn implements SiwConnection.Events {
        SiwConnection sc;
        CmEndpoint id;
        final CmEndpoint listener;
        State state;
        int ird;
        int ord;
        int peerIrd;
        int peerOrd;
        boolean crc;
        byte[] privateData;
        ScheduledFuture<?> timer;
        boolean disconnectedPosted;
        /** The peer's MPA request (passive side), answered by accept or reject as siw echoes it. */
        MpaFrames.Frame request;
        /** Peer-to-peer mode: asked for (active side) or granted (passive side). */
        boolean p2p;
        /** Passive side, peer-to-peer: the RTR frame picked for the initiator (Write or Read RTR bit). */
        int rtrChoice;
        /** Passive side, peer-to-peer: ESTABLISHED waits for the initiator's RTR frame. */
        boolean awaitingRtr;

        Conn(CmEndpoint id, CmEndpoint listener, State state) {
            this.id = id;
            this.listener = listener;
            this.state = state;
        }

        // I/O thread: hand everything to the CM thread
        @Override
        public void connected(SiwConnection c, int errno) {
            host.execute(() -> onConnected(this, errno));
        }

        @Override
        public void mpaFrame(SiwConnection c, MpaFrames.Frame frame) {
            host.execute(() -> onFrame(this, frame));
        }

        @Override
        public void mpaError(SiwConnection c, int errno) {
            host.execute(() -> onMpaError(this, errno));
        }

        @Override
        public void rtrReceived(SiwConnection c) {
            host.execute(() -> onRtr(this));
        }

        @Override
        public void closed(SiwConnection c, int errno) {
            host.execute(() -> onClosed(this, errno));
        }
    }

    // ---------------------------------------------------------------- listening

    @Override
    public void listen(CmEndpoint listener) {
        InetSocketAddress bound = listener.localAddress();
        InetSocketAddress at = new InetSocketAddress(agent.address(), bound.getPort());
        ServerSocketChannel ss;
        try {
            ss = ServerSocketChannel.open();
            ss.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ss.configureBlocking(false);
            ss.bind(at, 128);
        } catch (IOException e) {
            throw new VerbsException(Errno.EADDRINUSE, "rdma_listen: TCP " + at + ": " + e.getMessage());
        }
        listeners.put(listener, ss);
        agent.execute(() -> {
            try {
                ss.register(agent.selector(), SelectionKey.OP_ACCEPT, (SiwAgent.Handler) key -> accept(listener, ss));
            } catch (IOException e) {
                LOG.warn("{}: listen {}: {}", agent.name(), at, e.toString());
            }
        });
    }

    /** A TCP connection arrived (I/O thread): its MPA request is awaited on the connection. */
    private void accept(CmEndpoint listener, ServerSocketChannel ss) {
        for (;;) {
            SocketChannel ch;
            try {
                ch = ss.accept();
                if (ch == null) {
                    return;
                }
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            } catch (IOException e) {
                LOG.debug("{}: accept: {}", agent.name(), e.toString());
                return;
            }
            Conn conn = new Conn(null, listener, State.MPA_REQ_SENT);
            SiwConnection sc = new SiwConnection(agent, ch, false, conn);
            conn.sc = sc;
            sc.register(SelectionKey.OP_READ, false);
        }
    }

    @Override
    public void unlisten(CmEndpoint listener) {
        ServerSocketChannel ss = listeners.remove(listener);
        if (ss != null) {
            agent.execute(() -> {
                try {
                    ss.close();
                } catch (IOException e) {
                    LOG.debug("{}: unlisten: {}", agent.name(), e.toString());
                }
            });
        }
    }

    // ---------------------------------------------------------------- active side

    @Override
    public void connect(CmEndpoint id, ConnParam param) {
        if (SiwQp.of(id.qp()) == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_connect: an iWARP connection needs a QP of the device on the ID");
        }
        Conn conn = new Conn(id, null, State.CONNECTING);
        conn.ird = Math.min(param.responderResources(), MAX_IRD_ORD);
        conn.ord = Math.min(param.initiatorDepth(), MAX_IRD_ORD);
        conn.privateData = param.privateData() == null ? new byte[0] : param.privateData();
        conn.p2p = peerToPeer();
        if (conn.p2p && conn.ord == 0) {
            conn.ord = 1; // siw_connect: an RTR needs ORD >= 1
        }
        try {
            conn.sc = SiwConnection.connect(agent, id.peerAddress(), conn);
        } catch (IOException e) {
            throw new VerbsException(SiwConnection.errnoOf(e), "rdma_connect: TCP " + id.peerAddress() + ": " + e.getMessage());
        }
        id.connection(conn);
    }

    private void onConnected(Conn c, int errno) {
        if (c.state != State.CONNECTING || c.id == null) {
            return;
        }
        if (errno != 0) {
            c.state = State.CLOSED;
            c.id.connection(null);
            c.id.post(connectFailure(errno), -errno, null, null);
            return;
        }
        int flags = MpaFrame.FLAG_ENHANCED | (crcRequired() ? MpaFrame.FLAG_CRC : 0);
        byte[] req = MpaFrames.frame(true, flags, Mpa.REVISION_2, c.ird | (c.p2p ? MpaIrdOrd.PEER_TO_PEER : 0),
                c.ord | (c.p2p ? MpaIrdOrd.RDMA_WRITE_RTR : 0), c.privateData);
        synchronized (c.sc.txLock) {
            c.sc.append(req);
            c.sc.flushLocked();
        }
        c.state = State.MPA_REQ_SENT;
        c.timer = host.schedule(() -> {
            if (c.state == State.MPA_REQ_SENT && c.id != null) {
                c.state = State.CLOSED;
                c.sc.close(true);
                c.id.connection(null);
                c.id.post(CmEventType.UNREACHABLE, -Errno.ETIMEDOUT, null, null);
            }
        }, MPA_TIMEOUT_MS);
    }

    /** cma_iw_handler's mapping of a failed CONNECT_REPLY. */
    private static CmEventType connectFailure(int errno) {
        return switch (errno) {
            case Errno.ECONNREFUSED, Errno.ECONNRESET -> CmEventType.REJECTED;
            case Errno.ETIMEDOUT -> CmEventType.UNREACHABLE;
            default -> CmEventType.CONNECT_ERROR;
        };
    }

    private void onFrame(Conn c, MpaFrames.Frame f) {
        if (c.sc.active) {
            onReply(c, f);
        } else {
            onRequest(c, f);
        }
    }

    /**
     * The MPA reply (siw_proc_mpareply). Failures as siw reports them through iw_cm's CONNECT_REPLY
     * (librdmacm's {@code cma_iw_handler}: -ECONNRESET and -ECONNREFUSED are REJECTED, others
     * CONNECT_ERROR): a Reject bit -ECONNRESET with the reject's private data (REJECTED); markers
     * -ECONNREFUSED; no Enhanced in answer to ours -ECONNRESET; a wrong key a Terminate (LLP, MPA,
     * invalid request/reply) and -EINVAL; a revision above 2 -EINVAL; the reply's ORD above the
     * device's IRD a Terminate (insufficient IRD) and -EINVAL; peer-to-peer asked for and no RTR
     * frame jsiw offered picked a Terminate (no matching RTR) and -EINVAL. In peer-to-peer mode the
     * zero-length WRITE goes out before ESTABLISHED.
     */
    private void onReply(Conn c, MpaFrames.Frame f) {
        if (c.state != State.MPA_REQ_SENT || c.id == null) {
            return;
        }
        if (c.timer != null) {
            c.timer.cancel(false);
        }
        CmEndpoint id = c.id;
        SiwQp qp = SiwQp.of(id.qp());
        if (f.drop() == FpduDropReason.MPA_BAD_REVISION) {
            fail(c, CmEventType.CONNECT_ERROR, -Errno.EINVAL, null);
            return;
        }
        if (f.drop() == FpduDropReason.MPA_BAD_KEY) {
            terminateAndFail(c, qp, TerminateCodes.LLP_INVALID_REQ_RESP);
            return;
        }
        if (f.reject()) { // siw: "got mpa reject", CONNECT_REPLY -ECONNRESET
            agent.counters().increment(SiwCounters.MPA_REJECTS_RCVD);
            fail(c, CmEventType.REJECTED, -Errno.ECONNRESET, f.privateData());
            return;
        }
        if (f.markers()) { // siw: CONNECT_REPLY -ECONNREFUSED
            fail(c, CmEventType.REJECTED, -Errno.ECONNREFUSED, null);
            return;
        }
        if (!f.enhanced() || f.revision() < Mpa.REVISION_2) { // we sent revision 2 with Enhanced: the reply must have it (RFC 6581)
            fail(c, CmEventType.REJECTED, -Errno.ECONNRESET, null);
            return;
        }
        int peerIrd = f.ird();
        int peerOrd = f.ord();
        if (c.ird < peerOrd && peerOrd > MAX_IRD_ORD) {
            // siw with relaxed_ird_negotiation (its constant): only a peer ORD above the device's IRD fails
            terminateAndFail(c, qp, TerminateCodes.LLP_INSUFFICIENT_IRD);
            return;
        }
        if (c.p2p && (f.rtr() & MpaIrdOrd.RDMA_WRITE_RTR) == 0) {
            terminateAndFail(c, qp, TerminateCodes.LLP_NO_MATCHING_RTR);
            return;
        }
        try {
            // siw: "always report negotiated peer values": IRD = the peer's ORD, ORD = the peer's IRD
            qp.establish(c.sc, peerOrd, peerIrd, f.crc());
        } catch (VerbsException e) {
            fail(c, CmEventType.CONNECT_ERROR, -e.errno(), null);
            return;
        }
        if (c.p2p) {
            qp.sendRtrWrite();
        }
        c.crc = f.crc();
        c.state = State.ESTABLISHED;
        c.sc.resumeReceive();
        id.post(CmEventType.ESTABLISHED, 0, f.privateData(),
                new ConnParam().responderResources(peerOrd).initiatorDepth(peerIrd));
    }

    /** A Terminate (LLP, MPA, {@code code}) on the connection before it closes, then CONNECT_ERROR -EINVAL (siw's out_err). */
    private void terminateAndFail(Conn c, SiwQp qp, int code) {
        c.sc.bind(qp, false);
        qp.establishForTerminate(c.sc, TerminateCodes.LAYER_LLP, TerminateCodes.LLP_ETYPE_MPA, code);
        fail(c, CmEventType.CONNECT_ERROR, -Errno.EINVAL, null);
    }

    private void fail(Conn c, CmEventType type, int status, byte[] pd) {
        c.state = State.CLOSED;
        c.sc.close(true);
        if (c.id != null) {
            c.id.connection(null);
            c.id.post(type, status, pd, null);
        }
    }

    // ---------------------------------------------------------------- passive side

    /**
     * The MPA request (siw_proc_mpareq): a CONNECT_REQUEST on the listener, or a reject. A wrong key
     * or a revision above 2 closes the connection without an answer (siw: -EPROTO); markers asked
     * for, or Enhanced without the IRD/ORD block, get siw's reject frame ({@link MpaFrames#rejectRequest})
     * and the connection ends. Revisions 0, 1 and 2 are taken, as siw; a peer-to-peer request is
     * granted with the Write RTR if offered, else the Read RTR, else the Write RTR (siw).
     */
    private void onRequest(Conn c, MpaFrames.Frame f) {
        if (c.state != State.MPA_REQ_SENT) {
            return;
        }
        if (f.drop() == FpduDropReason.MPA_BAD_KEY || f.drop() == FpduDropReason.MPA_BAD_REVISION) {
            agent.counters().increment(SiwCounters.RCVD_DROP_MPA_FRAME);
            c.state = State.CLOSED;
            c.sc.close(false);
            return;
        }
        if (f.drop() == FpduDropReason.MPA_NO_IRD_ORD || f.markers()) {
            sendReject(c, MpaFrames.rejectRequest(f));
            return;
        }
        c.request = f;
        if (f.peerToPeer()) {
            c.p2p = true;
            c.rtrChoice = (f.rtr() & MpaIrdOrd.RDMA_WRITE_RTR) != 0 ? MpaIrdOrd.RDMA_WRITE_RTR
                    : (f.rtr() & MpaIrdOrd.RDMA_READ_RTR) != 0 ? MpaIrdOrd.RDMA_READ_RTR : MpaIrdOrd.RDMA_WRITE_RTR;
        }
        if (!c.listener.alive() || !c.listener.admitRequest()) {
            c.state = State.CLOSED;
            c.sc.close(true);
            return;
        }
        c.crc = f.crc() || crcRequired();
        c.peerIrd = f.enhanced() ? Math.min(f.ird(), MAX_IRD_ORD) : MAX_IRD_ORD;
        c.peerOrd = f.enhanced() ? Math.min(f.ord(), MAX_IRD_ORD) : MAX_IRD_ORD;
        c.state = State.MPA_REQ_RCVD;
        InetSocketAddress local = c.sc.localAddress();
        InetSocketAddress peer = c.sc.remoteAddress();
        if (local == null || peer == null) {
            c.state = State.CLOSED;
            c.sc.close(true);
            return;
        }
        CmEndpoint id = c.listener.newRequest(local, peer);
        c.id = id;
        id.connection(c);
        // the passive side's view: its responder resources answer the peer's ORD, its depth the peer's IRD
        id.postRequest(f.privateData(), new ConnParam().responderResources(c.peerOrd).initiatorDepth(c.peerIrd));
    }

    @Override
    public void accept(CmEndpoint id, ConnParam param) {
        Conn c = conn(id, "rdma_accept");
        if (c.state != State.MPA_REQ_RCVD) {
            throw new VerbsException(c.state == State.CLOSED ? Errno.ECONNRESET : Errno.EINVAL,
                    "rdma_accept: connection is " + c.state);
        }
        SiwQp qp = SiwQp.of(id.qp());
        if (qp == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_accept: an iWARP connection needs a QP of the device on the ID");
        }
        int ird = param == null ? c.peerOrd : param.responderResources();
        int ord = param == null ? c.peerIrd : param.initiatorDepth();
        if (ird > MAX_IRD_ORD || ord > MAX_IRD_ORD) {
            throw new VerbsException(Errno.EINVAL, "rdma_accept: responder_resources " + ird + " / initiator_depth " + ord
                    + " above the device's " + MAX_IRD_ORD);
        }
        byte[] pd = param == null || param.privateData() == null ? new byte[0] : param.privateData();
        byte[] rep;
        if (c.request.enhanced()) {
            rep = MpaFrames.frame(false, MpaFrame.FLAG_ENHANCED | (c.crc ? MpaFrame.FLAG_CRC : 0), Mpa.REVISION_2,
                    ird | (c.p2p ? MpaIrdOrd.PEER_TO_PEER : 0), ord | (c.p2p ? c.rtrChoice : 0), pd);
        } else {
            rep = MpaFrames.frame(false, c.crc ? MpaFrame.FLAG_CRC : 0, c.request.revision(), -1, 0, pd);
        }
        synchronized (c.sc.txLock) {
            c.sc.append(rep); // before any FPDU: the QP binds below
        }
        qp.establish(c.sc, ird, Math.min(ord, c.peerIrd), c.crc);
        c.state = State.ESTABLISHED;
        if (c.p2p) {
            c.awaitingRtr = true; // siw_accept with wait_for_peer_rts: ESTABLISHED once the RTR frame arrived
            c.sc.awaitRtr = true;
            c.sc.resumeReceive();
            return;
        }
        c.sc.resumeReceive();
        id.post(CmEventType.ESTABLISHED, 0, null, null);
    }

    @Override
    public void reject(CmEndpoint id, byte[] privateData) {
        Conn c = conn(id, "rdma_reject");
        if (c.state != State.MPA_REQ_RCVD) {
            throw new VerbsException(Errno.EINVAL, "rdma_reject: connection is " + c.state);
        }
        MpaFrames.Frame f = c.request;
        if (f.revision() >= Mpa.REVISION_1) {
            // siw_reject: the reply to the request with R set, its IRD/ORD block as negotiated, then the private data
            int flags = (f.flags() & ~MpaFrame.FLAG_MARKERS) | MpaFrame.FLAG_REJECT | (c.crc ? MpaFrame.FLAG_CRC : 0);
            int irdWord = f.enhanced() ? c.peerOrd | (c.p2p ? MpaIrdOrd.PEER_TO_PEER : 0) : -1;
            int ordWord = c.peerIrd | (c.p2p ? c.rtrChoice : 0);
            sendReject(c, MpaFrames.frame(false, flags, f.revision(), irdWord, ordWord, privateData));
        } else {
            c.state = State.CLOSED; // revision 0 has no reject frame: siw closes the socket
            c.sc.close(false);
        }
        id.connection(null);
    }

    @Override
    public void establish(CmEndpoint id) {
        throw new VerbsException(Errno.EINVAL, "rdma_establish: iWARP connections carry their QP (no CONNECT_RESPONSE)");
    }

    // ---------------------------------------------------------------- teardown

    @Override
    public void disconnect(CmEndpoint id) {
        Conn c = conn(id, "rdma_disconnect");
        switch (c.state) {
            case ESTABLISHED -> {
                c.state = State.CLOSING;
                id.disconnecting();
                SiwQp qp = SiwQp.of(id.qp());
                if (qp != null) {
                    qp.disconnect(); // ERR, then the FIN
                } else {
                    c.sc.disconnect();
                }
            }
            case CLOSED, CLOSING -> {
                id.disconnecting();
                SiwQp qp = SiwQp.of(id.qp());
                if (qp != null) {
                    qp.disconnect();
                }
            }
            default -> throw new VerbsException(Errno.EINVAL, "rdma_disconnect: connection is " + c.state);
        }
    }

    @Override
    public void destroy(CmEndpoint id) {
        Conn c = (Conn) id.connection();
        if (c == null) {
            return;
        }
        id.connection(null);
        c.id = null;
        if (c.timer != null) {
            c.timer.cancel(false);
        }
        if (c.state != State.CLOSED) {
            c.state = State.CLOSED;
            c.sc.close(true); // abort: RST
        }
    }

    /** Sends an MPA reply with the Reject bit, then the FIN; the connection is done. */
    private void sendReject(Conn c, byte[] frame) {
        synchronized (c.sc.txLock) {
            c.sc.append(frame);
            c.sc.flushLocked();
            c.sc.finAfterFlush();
        }
        agent.counters().increment(SiwCounters.MPA_REJECTS_SENT);
        c.state = State.CLOSED;
    }

    /** Peer-to-peer, passive side: the initiator's RTR frame was taken; the connection is established. */
    private void onRtr(Conn c) {
        if (c.state == State.ESTABLISHED && c.awaitingRtr) {
            c.awaitingRtr = false;
            if (c.id != null) {
                c.id.post(CmEventType.ESTABLISHED, 0, null, null);
            }
        }
    }

    private void onMpaError(Conn c, int errno) {
        if (c.state == State.CLOSED) {
            return;
        }
        agent.counters().increment(SiwCounters.RCVD_DROP_MPA_FRAME);
        if (c.sc.active && c.id != null) {
            fail(c, CmEventType.CONNECT_ERROR, -Errno.EINVAL, null); // siw_proc_mpareply's out_err
        } else {
            c.state = State.CLOSED;
            c.sc.close(true);
        }
    }

    private void onClosed(Conn c, int errno) {
        switch (c.state) {
            case ESTABLISHED, CLOSING -> {
                c.state = State.CLOSED;
                if (c.awaitingRtr) { // the initiator never sent its RTR frame
                    c.awaitingRtr = false;
                    if (c.id != null) {
                        c.id.connection(null);
                        c.id.post(CmEventType.CONNECT_ERROR, -Errno.ECONNRESET, null, null);
                    }
                    return;
                }
                if (c.id != null && !c.disconnectedPosted) {
                    c.disconnectedPosted = true;
                    c.id.disconnecting();
                    c.id.post(CmEventType.DISCONNECTED, 0, null, null);
                }
            }
            case MPA_REQ_SENT -> {
                if (c.timer != null) {
                    c.timer.cancel(false);
                }
                if (c.sc.active && c.id != null) {
                    fail(c, CmEventType.REJECTED, -Errno.ECONNRESET, null);
                } else {
                    c.state = State.CLOSED;
                }
            }
            default -> c.state = State.CLOSED;
        }
    }

    private static Conn conn(CmEndpoint id, String call) {
        if (!(id.connection() instanceof Conn c)) {
            throw new VerbsException(Errno.EINVAL, call + ": the ID has no iWARP connection");
        }
        return c;
    }

    /**
     * {@code rdma_init_qp_attr} as {@code iw_cm_init_qp_attr}: INIT with LOCAL_WRITE, REMOTE_WRITE
     * and REMOTE_READ (and port 1, P_Key index 0, which the soft core's INIT needs); RTR and RTS
     * name the state only (the CM moves the QP itself once the MPA exchange is done).
     */
    @Override
    public int initQpAttr(CmEndpoint id, QpAttr attr) {
        QpState s = attr.qpState();
        if (s == QpState.INIT) {
            attr.pkeyIndex(0).portNum(1)
                    .qpAccessFlags(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            return QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS;
        }
        if (s == QpState.RTR || s == QpState.RTS) {
            return QpAttrMask.STATE;
        }
        throw new VerbsException(Errno.EINVAL, "rdma_init_qp_attr: no attributes for " + s);
    }
}
