package org.jrdma.iwarp.transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * ({@link #resumeReceive()}), so no FPDU reaches a QP that is not yet in RTS. In RDMA mode a thread
 * polling an empty CQ of the device receives too ({@link #pollReceive()}, the RoCE provider's
 * "receive in the polling thread"): one non-blocking read and the FPDUs it completed, exactly as the
 * I/O thread would, so that a busy-polling application sees its completion without waiting for the
 * I/O thread to wake. The MPA exchange, the end of the stream and socket errors stay with the I/O
 * thread (a polling thread that reads the FIN or an error hands the connection back to it).
 *
 * <p>Receive lock: whoever receives holds the connection's receive lock ({@link #rxOwned}, a
 * try-lock flag that allocates nothing): the I/O thread and polling threads only try it (a thread
 * that fails leaves the bytes to the holder; the I/O thread's selector reports them again), the
 * I/O thread's {@link #resumeReceive()} waits for it. It guards the receive buffer and
 * {@code rxSuspended}. Lock order: receive lock → QP lock → the connection's {@link #txLock} or a
 * CQ's lock; nobody takes the receive lock while holding a QP or CQ lock.
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
    /** The receive lock (see the class comment): true while a thread receives. */
    private final AtomicBoolean rxOwned = new AtomicBoolean();
    /** A polling thread read the end of the stream or an error: from now on only the I/O thread receives. */
    private volatile boolean handedOver;

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
        agent.addPolled(this);
    }

    SiwQp qp() {
        return qp;
    }

    /** Receiving resumes after an MPA frame was dealt with (any thread). */
    void resumeReceive() {
        agent.execute(() -> {
            while (!rxOwned.compareAndSet(false, true)) {
                Thread.onSpinWait(); // a polling thread found rxSuspended and lets go at once
            }
            try {
                rxSuspended = false;
                if (key != null && key.isValid()) {
                    key.interestOpsOr(SelectionKey.OP_READ);
                    processRx();
                    if (eof) {
                        onEof();
                    }
                }
            } finally {
                rxOwned.set(false);
            }
        });
    }

    // ---------------------------------------------------------------- polling threads

    /**
     * Receives in the calling thread, a thread that found a CQ of the device empty
     * ({@code SiwAgent.progress()}): if the connection carries FPDUs, receiving is not suspended and
     * no other thread holds the receive lock (a try, never a wait), one non-blocking read and the
     * whole FPDUs it completed, placed under the QP's lock as on the I/O thread. The end of the
     * stream or a socket error is handed to the I/O thread ({@link #handedOver}), which ends the
     * connection as it always does. Allocates nothing (but on that error path); never blocks.
     */
    void pollReceive() {
        if (phase != Phase.RDMA || awaitRtr || handedOver || !rxOwned.compareAndSet(false, true)) {
            return;
        }
        try {
            if (rxSuspended || eof || phase != Phase.RDMA) {
                return;
            }
            int p0 = rx.position();
            int n = ch.read(rx);
            if (n > 0) {
                agent.capture().data(flow, this, false, rx, p0, n);
                processRx();
            } else if (n < 0) {
                handedOver = true; // the I/O thread reads the end again (a socket stays at EOF) and closes
                agent.wakeup();
            }
        } catch (IOException e) {
            handOver(errnoOf(e));
        } catch (RuntimeException e) {
            LOG.warn("{}: connection {} (polling thread): {}", agent.name(), remoteAddress(), e.toString(), e);
            handOver(Errno.EIO);
        } finally {
            rxOwned.set(false);
        }
    }

    /** A polling thread met a socket error: the I/O thread ends the connection (polling thread, error path). */
    private void handOver(int errno) {
        handedOver = true;
        agent.execute(() -> fail(errno));
    }

    /**
     * Whether polling threads receive here, so the I/O thread may leave it to them: RDMA mode, not
     * suspended, no RTR awaited, not handed back (I/O thread).
     */
    private boolean pollable() {
        return phase == Phase.RDMA && !rxSuspended && !eof && !awaitRtr && !handedOver;
    }

    /**
     * The I/O thread steps back from receiving ({@code back}: polling threads receive, so the
     * socket's OP_READ is dropped and its data wakes nobody) or takes it up again (I/O thread).
     */
    void readInterest(boolean back) {
        SelectionKey k = key;
        if (k == null || !k.isValid() || rxSuspended || eof) {
            return;
        }
        // interestOpsAnd/Or: atomic against a posting thread's OP_WRITE change (flushLocked)
        int ops = k.interestOps();
        if (back && pollable()) {
            if ((ops & SelectionKey.OP_READ) != 0) {
                k.interestOpsAnd(~SelectionKey.OP_READ);
            }
        } else if ((ops & SelectionKey.OP_READ) == 0) {
            k.interestOpsOr(SelectionKey.OP_READ);
        }
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
        if (!rxOwned.compareAndSet(false, true)) {
            return; // a polling thread receives; what it leaves is reported again
        }
        try {
            onReadableLocked();
        } finally {
            rxOwned.set(false);
        }
    }

    private void onReadableLocked() throws IOException {
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

    /** Cuts the received bytes into MPA frames or FPDUs (the receive lock's holder: I/O thread, or a polling thread in RDMA mode). */
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
        agent.removePolled(this);
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
