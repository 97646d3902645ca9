package org.jrdma.iwarp.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.VerbsException;

/**
 * Two QPs of jrdma iWARP devices in this JVM connected without the CM: a TCP connection between
 * their devices' addresses and both QPs moved to RTS over it, with no MPA exchange (MPA revision 2
 * without CRC and with the given IRD/ORD is what both sides would have agreed). For test harnesses
 * (the conformance suite connects QPs itself); applications connect through {@code org.jrdma.cm}.
 */
public final class DirectConnect {
    private DirectConnect() {
    }

    private static final SiwConnection.Events NONE = new SiwConnection.Events() {
        @Override
        public void connected(SiwConnection c, int errno) {
        }

        @Override
        public void mpaFrame(SiwConnection c, MpaFrames.Frame frame) {
        }

        @Override
        public void mpaError(SiwConnection c, int errno) {
        }

        @Override
        public void closed(SiwConnection c, int errno) {
        }
    };

    /**
     * Connects {@code a} (passive side) and {@code b} (active side), both in INIT, each with IRD and
     * ORD {@code depth}; both are in RTS on return. Any thread, no lock held.
     *
     * @throws VerbsException EINVAL unless both are iWARP QPs in INIT; the socket's errno on a failure
     */
    public static void connect(QueuePair a, QueuePair b, int depth) {
        SiwQp qa = SiwQp.of(a);
        SiwQp qb = SiwQp.of(b);
        if (qa == null || qb == null || a.state() != QpState.INIT || b.state() != QpState.INIT) {
            throw new VerbsException(Errno.EINVAL, "both QPs must be iWARP QPs in INIT");
        }
        try (ServerSocketChannel ss = ServerSocketChannel.open()) {
            ss.bind(new InetSocketAddress(qa.agent().address(), 0));
            SocketChannel cb = SocketChannel.open();
            cb.bind(new InetSocketAddress(qb.agent().address(), 0));
            cb.connect(ss.getLocalAddress());
            SocketChannel ca = ss.accept();
            for (SocketChannel ch : new SocketChannel[] {ca, cb}) {
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            SiwConnection sa = new SiwConnection(qa.agent(), ca, false, NONE);
            SiwConnection sb = new SiwConnection(qb.agent(), cb, true, NONE);
            qa.establish(sa, depth, depth, false);
            qb.establish(sb, depth, depth, false);
            qa.agent().execute(() -> sa.register(SelectionKey.OP_READ, false));
            qb.agent().execute(() -> sb.register(SelectionKey.OP_READ, false));
        } catch (IOException e) {
            throw new VerbsException(SiwConnection.errnoOf(e), "direct iWARP connection: " + e.getMessage());
        } catch (UncheckedIOException e) {
            throw new VerbsException(Errno.EIO, "direct iWARP connection: " + e.getMessage());
        }
    }
}
