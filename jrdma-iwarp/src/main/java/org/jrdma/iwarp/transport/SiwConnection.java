package org.jrdma.iwarp.transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import org.jrdma.iwarp.wire.FpduCrc;
import org.jrdma.iwarp.wire.FpduFramer;
import org.jrdma.iwarp.wire.Mpa;
import org.jrdma.iwarp.wire.MpaFrame;
import org.jrdma.iwarp.wire.TerminateCodes;
import org.jrdma.verbs.Errno;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP connection of an iWARP device (siw's {@code siw_cep} socket plus the LLP side of its QP):
 * the MPA request/reply exchange, then the stream of FPDUs in both directions.
 *
 * <p>Receive: the I/O thread reads into a direct buffer and cuts it into MPA frames, then into
 * whole FPDUs (length, pad, CRC32c when negotiated), each handed to the bound {@link SiwQp} under
 * its lock. After an MPA frame reception stops until the CM side has acted on it
 * ({@link #resumeReceive()}), so no FPDU reaches a QP that is not yet in RTS.
 *
 * <p>Transmit: FPDUs and MPA frames are appended to a direct buffer under {@link #txLock} (a leaf
 * monitor, level 9 of the lock order: taken inside a QP's lock by its transmitter, or alone) and
 * written to the non-blocking socket at once; what the socket does not take waits for OP_WRITE,
 * which calls the QP's transmitter again on the I/O thread.
 */
final class SiwConnection implements SiwAgent.Handler {
    private static final Logger LOG = LoggerFactory.getLogger(SiwConnection.class);
    /** Receive and transmit buffer size: several of the largest FPDUs (2 + 65535 + 3 + 4 bytes). */
    static final int BUFFER = 256 * 1024;

    /** The connection's owner on the CM side; called on the I/O thread, which it must not block. */
    interface Events {
        /** An active connect finished (ok) or failed ({@code errno}). */
        void connected(SiwConnection c, int errno);

        /**
         * An MPA request or reply frame arrived (valid or not: {@link MpaFrames.Frame#drop()});
         * receiving stops until {@link #resumeReceive()}.
         */
        void mpaFrame(SiwConnection c, MpaFrames.Frame frame);

        /**
         * Peer-to-peer mode, passive side ({@link #awaitRtr}): the QP took the first FPDU, the
         * initiator's RTR frame (siw_rtr_data_ready).
         */
        default void rtrReceived(SiwConnection c) {
        }

        /** The MPA exchange broke (a frame announcing too much private data: {@code errno} EPROTO). */
        void mpaError(SiwConnection c, int errno);

        /** The TCP connection ended: the peer's FIN ({@code errno} 0) or a reset / error. */
        void closed(SiwConnection c, int errno);
    }

    enum Phase { CONNECTING, MPA, RDMA, CLOSED }

    final SiwAgent agent;
    final SocketChannel ch;
    final boolean active;
    private final Events events;
    private SelectionKey key;
    private volatile Phase phase;
    final Object txLock = new Object();
    private final ByteBuffer rx = ByteBuffer.allocateDirect(BUFFER);
    private final MemorySegment rxSeg = MemorySegment.ofBuffer(rx);
    private int rxStart;
    private boolean rxSuspended;
    private final ByteBuffer tx = ByteBuffer.allocateDirect(BUFFER);
    final MemorySegment txSeg = MemorySegment.ofBuffer(tx);
    private final FpduCrc rxCrc = new FpduCrc();
    private final FpduFramer framer = new FpduFramer();
    private static final java.lang.foreign.ValueLayout.OfShort BE16 =
            java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    /** MPA CRC negotiated (both directions). */
    private volatile boolean crc;
    /** Passive side in MPA peer-to-peer mode: report the first FPDU the QP takes ({@link Events#rtrReceived}); set by the CM before receiving resumes. */
    volatile boolean awaitRtr;
    /** The QP the connection carries once in RDMA mode. */
    private volatile SiwQp qp;
    private boolean outputShut;
    /** This connection in the device's capture ({@link SiwCapture}). */
    private final SiwCapture.Flow flow;
    private boolean closeAfterFlush;
    private boolean eof;

    SiwConnection(SiwAgent agent, SocketChannel ch, boolean active, Events events) {
        this.agent = agent;
        this.ch = ch;
        this.active = active;
        this.events = events;
        this.phase = active ? Phase.CONNECTING : Phase.MPA;
        this.flow = new SiwCapture.Flow(active);
    }

    /** Starts an active connect to {@code peer} from the device's address (any thread). */
    static SiwConnection connect(SiwAgent agent, InetSocketAddress peer, Events events) throws IOException {
        SocketChannel ch = SocketChannel.open();
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.bind(new InetSocketAddress(agent.address(), 0));
        SiwConnection c = new SiwConnection(agent, ch, true, events);
        boolean done = ch.connect(peer);
        agent.execute(() -> c.register(done ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, done));
        return c;
    }

    /** Registers the accepted or connecting channel (I/O thread). */
    void register(int ops, boolean connectedNow) {
        try {
            key = ch.register(agent.selector(), ops, this);
        } catch (ClosedChannelException e) {
            fail(Errno.ECONNRESET);
            return;
        }
        if (connectedNow) {
            phase = Phase.MPA;
            events.connected(this, 0);
        }
    }

    InetSocketAddress localAddress() {
        try {
            return (InetSocketAddress) ch.getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }

    InetSocketAddress remoteAddress() {
        try {
            return (InetSocketAddress) ch.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }

    Phase phase() {
        return phase;
    }

    /** From now on the stream carries FPDUs for {@code q} (CM thread, before receiving resumes). */
    void bind(SiwQp q, boolean withCrc) {
        this.crc = withCrc;
        framer.crcEnabled(withCrc);
        this.qp = q;
        this.phase = Phase.RDMA;
    }

    SiwQp qp() {
        return qp;
    }

    /** Receiving resumes after an MPA frame was dealt with (any thread). */
    void resumeReceive() {
        agent.execute(() -> {
            rxSuspended = false;
            if (key != null && key.isValid()) {
                key.interestOpsOr(SelectionKey.OP_READ);
                processRx();
                if (eof) {
                    onEof();
                }
            }
        });
    }

    // ---------------------------------------------------------------- I/O thread

    @Override
    public void ready(SelectionKey k) {
        try {
            if (k.isConnectable()) {
                try {
                    ch.finishConnect();
                } catch (IOException e) {
                    close(true);
                    events.connected(this, errnoOf(e));
                    return;
                }
                phase = Phase.MPA;
                k.interestOps(SelectionKey.OP_READ);
                events.connected(this, 0);
            }
            if (k.isValid() && k.isWritable()) {
                onWritable();
            }
            if (k.isValid() && k.isReadable()) {
                onReadable();
            }
        } catch (IOException e) {
            LOG.debug("{}: connection {}: {}", agent.name(), remoteAddress(), e.toString());
            fail(errnoOf(e));
        } catch (RuntimeException e) {
            LOG.warn("{}: connection {}: {}", agent.name(), remoteAddress(), e.toString(), e);
            fail(Errno.EIO);
        }
    }

    private void onReadable() throws IOException {
        if (rxSuspended) {
            key.interestOpsAnd(~SelectionKey.OP_READ);
            return;
        }
        int p0 = rx.position();
        int n = ch.read(rx);
        if (n > 0) {
            agent.capture().data(flow, this, false, rx, p0, n);
        }
        if (n < 0) {
            agent.capture().end(flow, this, false, false);
            eof = true;
            key.interestOpsAnd(~SelectionKey.OP_READ);
            processRx();
            if (!rxSuspended) {
                onEof();
            }
            return;
        }
        processRx();
    }

    private void onEof() {
        SiwQp q = qp;
        if (q != null) {
            q.llpClosed(0);
        }
        close(false);
        events.closed(this, 0);
    }

    /** Cuts the received bytes into MPA frames or FPDUs (I/O thread). */
    private void processRx() {
        int end = rx.position();
        while (!rxSuspended && phase != Phase.CLOSED) {
            int avail = end - rxStart;
            if (phase == Phase.MPA) {
                if (avail < MpaFrame.HEADER_LENGTH) {
                    break;
                }
                int pdLen = new MpaFrame().wrap(rxSeg, rxStart).privateDataLength();
                if (pdLen > Mpa.MAX_PRIVATE_DATA) {
                    events.mpaError(this, Errno.EPROTO);
                    return;
                }
                if (avail < MpaFrame.HEADER_LENGTH + pdLen) {
                    break;
                }
                MpaFrames.Frame f = MpaFrames.parse(rxSeg, rxStart, !active);
                rxStart += MpaFrame.HEADER_LENGTH + pdLen;
                rxSuspended = true;
                events.mpaFrame(this, f);
            } else if (phase == Phase.RDMA) {
                if (avail < Mpa.HEADER_LENGTH) {
                    break;
                }
                int len = rxSeg.get(BE16, rxStart) & 0xFFFF;
                int total = Mpa.fpduLength(len);
                if (avail < total) {
                    break;
                }
                SiwQp q = qp;
                agent.counters().increment(SiwCounters.RCVD_FPDUS);
                if (crc && !crcOk(rxStart, total)) {
                    q.llpError(TerminateCodes.LAYER_LLP, TerminateCodes.LLP_ETYPE_MPA, TerminateCodes.LLP_RECEIVED_CRC);
                    rxStart = end;
                    break;
                }
                boolean goOn = q.receive(rxSeg, rxStart, len);
                if (goOn && awaitRtr) {
                    awaitRtr = false;
                    events.rtrReceived(this);
                }
                rxStart += total;
                if (!goOn) {
                    rxStart = end;
                    break;
                }
            } else {
                break;
            }
        }
        if (rxStart > 0) {
            rx.limit(end).position(rxStart);
            rx.compact();
            rxStart = 0;
        }
    }

    private boolean crcOk(int off, int total) {
        int covered = total - Mpa.CRC_LENGTH;
        return rxCrc.compute(rx, off, covered) == FpduCrc.read(rx, off + covered);
    }

    private void onWritable() throws IOException {
        SiwQp q = qp;
        if (q != null) {
            q.resumeTransmit();
        } else {
            synchronized (txLock) {
                flushLocked();
            }
        }
    }

    // ---------------------------------------------------------------- transmit (under txLock)

    /** Free bytes in the transmit buffer. Under {@link #txLock}. */
    int txRoom() {
        return tx.remaining();
    }

    /** Where the next FPDU starts in {@link #txSeg}. Under {@link #txLock}. */
    int txPosition() {
        return tx.position();
    }

    /**
     * Finishes the FPDU of {@code ulpduLen} bytes written at {@link #txPosition()} (its headers and
     * payload already in {@link #txSeg}): the length field, the pad, the CRC (or zeros), and
     * appends it. Under {@link #txLock}; the caller made sure of the room.
     */
    void commitFpdu(int ulpduLen) {
        int p = tx.position();
        tx.position(p + framer.frame(tx, p, ulpduLen));
        agent.counters().increment(SiwCounters.SENT_FPDUS);
    }

    /** Appends raw bytes (an MPA frame). Under {@link #txLock}. */
    void append(byte[] b) {
        tx.put(b);
    }

    /**
     * Writes what the socket takes; when bytes remain, asks for OP_WRITE. Under {@link #txLock}.
     *
     * @return true when the buffer is empty
     */
    boolean flushLocked() {
        if (phase == Phase.CLOSED) {
            tx.clear();
            return true;
        }
        tx.flip();
        try {
            while (tx.hasRemaining()) {
                int p0 = tx.position();
                int n = ch.write(tx);
                if (n == 0) {
                    break;
                }
                agent.capture().data(flow, this, true, tx, p0, n);
            }
        } catch (IOException e) {
            tx.clear();
            int errno = errnoOf(e);
            agent.execute(() -> fail(errno));
            return true;
        }
        boolean empty = !tx.hasRemaining();
        tx.compact();
        if (key != null && key.isValid()) {
            if (!empty) {
                key.interestOpsOr(SelectionKey.OP_WRITE);
                if (!agent.inLoop()) {
                    agent.selector().wakeup();
                }
            } else if ((key.interestOps() & SelectionKey.OP_WRITE) != 0) {
                key.interestOpsAnd(~SelectionKey.OP_WRITE);
            }
        }
        if (empty && closeAfterFlush) {
            closeAfterFlush = false;
            agent.execute(() -> shutdownOutput());
        }
        return empty;
    }

    /** After the bytes queued now: a FIN (siw after a Terminate, and on disconnect). Under {@link #txLock}. */
    void finAfterFlush() {
        if (tx.position() == 0) {
            agent.execute(this::shutdownOutput);
        } else {
            closeAfterFlush = true;
        }
    }

    // ---------------------------------------------------------------- closing

    private void shutdownOutput() {
        if (phase == Phase.CLOSED || outputShut) {
            return;
        }
        outputShut = true;
        agent.capture().end(flow, this, true, false);
        try {
            ch.shutdownOutput();
        } catch (IOException e) {
            LOG.debug("{}: shutdown: {}", agent.name(), e.toString());
        }
    }

    /** Sends FIN after the queued bytes (any thread). */
    void disconnect() {
        synchronized (txLock) {
            finAfterFlush();
        }
    }

    /** Closes the socket: {@code abort} with a RST (SO_LINGER 0), else an ordinary close (any thread). */
    void close(boolean abort) {
        if (phase == Phase.CLOSED) {
            return;
        }
        phase = Phase.CLOSED;
        agent.execute(() -> {
            try {
                if (abort && ch.isOpen()) {
                    agent.capture().end(flow, this, true, true);
                    ch.setOption(StandardSocketOptions.SO_LINGER, 0);
                } else if (!outputShut && ch.isOpen()) {
                    outputShut = true;
                    agent.capture().end(flow, this, true, false);
                }
                ch.close();
            } catch (IOException e) {
                LOG.debug("{}: close: {}", agent.name(), e.toString());
            }
        });
    }

    /** The connection failed (I/O thread): the QP sees its LLP go, the CM side learns it. */
    private void fail(int errno) {
        if (phase == Phase.CLOSED) {
            return;
        }
        SiwQp q = qp;
        close(true);
        if (q != null) {
            q.llpClosed(errno);
        }
        events.closed(this, errno);
    }

    static int errnoOf(IOException e) {
        String m = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        if (e instanceof java.net.ConnectException || m.contains("refused")) {
            return Errno.ECONNREFUSED;
        }
        if (m.contains("reset")) {
            return Errno.ECONNRESET;
        }
        if (m.contains("timed out")) {
            return Errno.ETIMEDOUT;
        }
        if (m.contains("unreachable")) {
            return Errno.ENETUNREACH;
        }
        return Errno.ECONNRESET;
    }
}
