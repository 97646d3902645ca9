package org.jrdma.examples.file;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;

/**
 * The file transfer's TCP twin, receiving side, over java.nio: one connection per file; the sender
 * writes {@code size(u64)}, the file's bytes and its SHA-256 (32 bytes); this side reads the bytes in
 * chunks of {@code chunkSize} into one direct buffer, adds each to its SHA-256 and writes it to the
 * output file through a {@link FileChannel}, compares SHA-256s and answers one byte (1 ok, 0 fail).
 * TCP's own flow control plays the part of the RDMA version's credits.
 *
 * <p>The listening channel and every accepted one are non-blocking, each wait bounded by a selector
 * (accept: {@code timeout}; reads and the verdict's write: {@code timeout} without progress, see
 * {@link TimedChannel}). The buffer ({@code max(chunkSize, 32)} bytes) is allocated at {@link #listen}
 * and reused by every transfer: nothing is allocated per chunk. One transfer at a time, like the RDMA
 * receiver; the design gives TCP no advantage the RDMA side lacks but the kernel's window.
 *
 * <p>Threads: {@link #receive} runs in the caller's thread, one transfer at a time (synchronized, the
 * only lock); {@link #close} on any thread.
 */
public final class TcpFileReceiver implements AutoCloseable {
    private final ServerSocketChannel server;
    private final Selector acceptor;
    private final int chunkSize;
    private final ByteBuffer buf;

    private TcpFileReceiver(InetSocketAddress address, int chunkSize) throws IOException {
        this.chunkSize = chunkSize;
        this.server = ServerSocketChannel.open();
        try {
            server.bind(address);
            server.configureBlocking(false);
            this.acceptor = Selector.open();
            server.register(acceptor, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        this.buf = ByteBuffer.allocateDirect(Math.max(chunkSize, FileProtocol.DIGEST_LENGTH));
    }

    /** Listens on {@code address} (port 0: any), writing out in chunks of {@code chunkSize} bytes (1 or more). */
    public static TcpFileReceiver listen(InetSocketAddress address, int chunkSize) throws IOException {
        if (chunkSize < 1) {
            throw new IllegalArgumentException("chunkSize " + chunkSize);
        }
        return new TcpFileReceiver(address, chunkSize);
    }

    public InetSocketAddress address() throws IOException {
        return (InetSocketAddress) server.getLocalAddress();
    }

    /**
     * Accepts one sender within {@code timeout} and writes its file to {@code out}; each read waits at
     * most {@code timeout} for the next bytes.
     *
     * @throws FileTransferException no sender, the sender went away or was silent, or a checksum mismatch
     */
    public synchronized TransferResult receive(Path out, Duration timeout) throws IOException {
        SocketChannel sc = accept(timeout);
        try (TimedChannel tc = new TimedChannel(sc, timeout); FileChannel fc = FileChannel.open(out, StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            sc.setOption(StandardSocketOptions.TCP_NODELAY, true);
            buf.clear().limit(Long.BYTES);
            tc.readFully(buf, "size");
            long size = buf.getLong(0);
            if (size < 0) {
                throw new FileTransferException("protocol: size " + size, null);
            }
            MessageDigest md = FileProtocol.sha256();
            for (long done = 0; done < size; ) {
                int len = (int) Math.min(chunkSize, size - done);
                buf.clear().limit(len);
                tc.readFully(buf, "file bytes");
                md.update(buf.flip());
                buf.position(0);
                while (buf.hasRemaining()) {
                    fc.write(buf);
                }
                done += len;
            }
            byte[] ours = md.digest();
            buf.clear().limit(FileProtocol.DIGEST_LENGTH);
            tc.readFully(buf, "SHA-256");
            boolean ok = buf.flip().equals(ByteBuffer.wrap(ours));
            buf.clear().put((byte) (ok ? 1 : 0)).flip();
            tc.writeFully(buf, "room to send the verdict");
            if (!ok) {
                throw new FileTransferException("checksum mismatch: received " + size
                        + " bytes whose SHA-256 differs from the sender's", null, true);
            }
            return new TransferResult(size, FileProtocol.chunks(size, chunkSize), ours, "tcp");
        }
    }

    /** The next sender's connection, within {@code timeout}. */
    private SocketChannel accept(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + Math.max(1, timeout.toNanos());
        while (true) {
            SocketChannel sc = server.accept();
            if (sc != null) {
                return sc;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new FileTransferException("no sender connected within " + timeout, null);
            }
            acceptor.select(Math.max(1, left / 1_000_000));
            acceptor.selectedKeys().clear();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            acceptor.close();
        } finally {
            server.close();
        }
    }
}
