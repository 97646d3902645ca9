package org.jrdma.examples.file;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;

/**
 * The file transfer's TCP twin, receiving side: one connection per file; the sender writes
 * {@code size(u64)}, the file's bytes and its SHA-256 (32 bytes); this side writes the bytes to the
 * output file in chunks of {@code chunkSize}, compares SHA-256s and answers one byte (1 ok, 0 fail).
 * TCP's own flow control plays the part of the RDMA version's credits.
 *
 * <p>Threads: {@link #receive} runs in the caller's thread, one transfer at a time (synchronized).
 * Reads go through the socket channel's stream adaptor so that {@code timeout} bounds each of them.
 */
public final class TcpFileReceiver implements AutoCloseable {
    private final ServerSocketChannel server;
    private final int chunkSize;

    private TcpFileReceiver(InetSocketAddress address, int chunkSize) throws IOException {
        this.chunkSize = chunkSize;
        this.server = ServerSocketChannel.open().bind(address);
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
     * most {@code timeout}.
     *
     * @throws FileTransferException no sender, the sender went away or was silent, or a checksum mismatch
     */
    public synchronized TransferResult receive(Path out, Duration timeout) throws IOException {
        int ms = (int) Math.max(1, timeout.toMillis());
        server.socket().setSoTimeout(ms);
        SocketChannel sc;
        try {
            sc = server.socket().accept().getChannel();
        } catch (SocketTimeoutException e) {
            throw new FileTransferException("no sender connected within " + timeout, e);
        }
        try (sc; FileChannel fc = FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            sc.socket().setSoTimeout(ms);
            DataInputStream in = new DataInputStream(sc.socket().getInputStream());
            OutputStream os = sc.socket().getOutputStream();
            try {
                long size = in.readLong();
                if (size < 0) {
                    throw new FileTransferException("protocol: size " + size, null);
                }
                MessageDigest md = FileProtocol.sha256();
                byte[] buf = new byte[(int) Math.min(chunkSize, Math.max(1, size))];
                for (long done = 0; done < size; ) {
                    int len = (int) Math.min(buf.length, size - done);
                    in.readFully(buf, 0, len);
                    md.update(buf, 0, len);
                    ByteBuffer bb = ByteBuffer.wrap(buf, 0, len);
                    while (bb.hasRemaining()) {
                        fc.write(bb);
                    }
                    done += len;
                }
                byte[] theirs = new byte[FileProtocol.DIGEST_LENGTH];
                in.readFully(theirs);
                byte[] ours = md.digest();
                boolean ok = Arrays.equals(theirs, ours);
                os.write(ok ? 1 : 0);
                os.flush();
                if (!ok) {
                    throw new FileTransferException("checksum mismatch: received " + size
                            + " bytes whose SHA-256 differs from the sender's", null, true);
                }
                return new TransferResult(size, FileProtocol.chunks(size, chunkSize), ours, "tcp");
            } catch (SocketTimeoutException e) {
                throw new FileTransferException("the sender was silent for " + timeout + ": it is gone or stuck", e);
            } catch (java.io.EOFException e) {
                throw new FileTransferException("the peer went away (connection closed) mid-transfer", e);
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
