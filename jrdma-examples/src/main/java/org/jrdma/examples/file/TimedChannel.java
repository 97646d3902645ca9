package org.jrdma.examples.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * One side of the TCP twin's connection: a non-blocking {@link SocketChannel} and a private
 * {@link Selector} that bounds every wait, so a peer that goes silent (or stops reading) fails the
 * transfer after {@code timeout} without progress instead of blocking forever; a blocking channel has
 * no read or write timeout of its own (SO_TIMEOUT only acts on the socket adaptor's streams).
 *
 * <p>Failures are {@link FileTransferException}s naming {@code what}: "no ... within PT20S: the peer is
 * gone or stuck" (no byte moved for {@code timeout}), "the peer went away (connection closed) during
 * ..." (end of stream), "the peer went away (...) during ..." (reset, broken pipe).
 *
 * <p>Threads: one at a time (the transfer's); no lock. Allocates nothing per read or write.
 */
final class TimedChannel implements AutoCloseable {
    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final Duration timeout;
    private final long timeoutNanos;

    /** Takes {@code channel} (connected) over: makes it non-blocking; {@link #close} (or a failure here) closes it. */
    TimedChannel(SocketChannel channel, Duration timeout) throws IOException {
        this.channel = channel;
        this.timeout = timeout;
        this.timeoutNanos = Math.max(1, timeout.toNanos());
        Selector sel = null;
        try {
            channel.configureBlocking(false);
            sel = Selector.open();
            this.key = channel.register(sel, 0);
        } catch (IOException e) {
            if (sel != null) {
                sel.close();
            }
            channel.close();                                  // taken over: not left open on a failure
            throw e;
        }
        this.selector = sel;
    }

    /** Reads until {@code b} is full. */
    void readFully(ByteBuffer b, String what) throws FileTransferException {
        while (b.hasRemaining()) {
            read(b, what);
        }
    }

    /** Reads at least one byte into {@code b} (which has room); returns how many. */
    int read(ByteBuffer b, String what) throws FileTransferException {
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            while (true) {
                int n = channel.read(b);
                if (n > 0) {
                    return n;
                }
                if (n < 0) {
                    throw new FileTransferException("the peer went away (connection closed) during " + what, null);
                }
                await(SelectionKey.OP_READ, deadline, what);
            }
        } catch (FileTransferException e) {
            throw e;
        } catch (IOException e) {
            throw new FileTransferException("the peer went away (" + e.getMessage() + ") during " + what, e);
        }
    }

    /** Writes all of {@code b}; each wait for the peer to take more lasts at most the timeout. */
    void writeFully(ByteBuffer b, String what) throws FileTransferException {
        try {
            long deadline = System.nanoTime() + timeoutNanos;
            while (b.hasRemaining()) {
                if (channel.write(b) > 0) {
                    deadline = System.nanoTime() + timeoutNanos;
                } else {
                    await(SelectionKey.OP_WRITE, deadline, what);
                }
            }
        } catch (FileTransferException e) {
            throw e;
        } catch (IOException e) {
            throw new FileTransferException("the peer went away (" + e.getMessage() + ") during " + what, e);
        }
    }

    private void await(int op, long deadline, String what) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new FileTransferException("no " + what + " within " + timeout + ": the peer is gone or stuck", null);
        }
        key.interestOps(op);
        selector.select(Math.max(1, left / 1_000_000));
        selector.selectedKeys().clear();
    }

    @Override
    public void close() throws IOException {
        try {
            selector.close();
        } finally {
            channel.close();
        }
    }
}
