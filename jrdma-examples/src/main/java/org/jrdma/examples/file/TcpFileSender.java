package org.jrdma.examples.file;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;

/**
 * The file transfer's TCP twin, sending side (see {@link TcpFileReceiver} for the stream): reads the
 * file in chunks of {@code chunkSize} into one direct buffer, adds each to its SHA-256 and writes it to
 * the socket channel, then the SHA-256, then waits for the receiver's one-byte verdict.
 *
 * <p>Threads: the caller's.
 */
public final class TcpFileSender {
    private TcpFileSender() {
    }

    /**
     * Sends {@code in} to {@code receiver}; the verdict is awaited at most {@code timeout}. A receiver
     * that goes away fails a write (connection reset / broken pipe) or the verdict's read.
     *
     * @throws FileTransferException the receiver went away, was silent, or reported a checksum mismatch
     */
    public static TransferResult send(InetSocketAddress receiver, Path in, int chunkSize, Duration timeout) throws IOException {
        return send(receiver, in, chunkSize, timeout, -1);
    }

    static TransferResult send(InetSocketAddress receiver, Path in, int chunkSize, Duration timeout, long corruptChunk)
            throws IOException {
        SocketChannel sc;
        try {
            sc = SocketChannel.open(receiver);
        } catch (IOException e) {
            throw new FileTransferException("could not connect to the receiver at " + receiver, e);
        }
        try (sc; FileChannel fc = FileChannel.open(in, StandardOpenOption.READ)) {
            sc.socket().setSoTimeout((int) Math.max(1, timeout.toMillis()));
            long size = fc.size();
            ByteBuffer head = ByteBuffer.allocate(8).putLong(size).flip();
            MessageDigest md = FileProtocol.sha256();
            ByteBuffer buf = ByteBuffer.allocateDirect(chunkSize);
            long n = FileProtocol.chunks(size, chunkSize);
            try {
                writeFully(sc, head);
                for (long i = 0; i < n; i++) {
                    int len = FileProtocol.chunkLength(size, chunkSize, i);
                    buf.clear().limit(len);
                    while (buf.hasRemaining()) {
                        if (fc.read(buf, i * chunkSize + buf.position()) < 0) {
                            throw new FileTransferException(in + " shrank during the transfer", null);
                        }
                    }
                    md.update(buf.flip());
                    if (i == corruptChunk) {
                        buf.put(len / 2, (byte) ~buf.get(len / 2));   // test: damaged after the checksum
                    }
                    writeFully(sc, buf.position(0));
                }
                byte[] digest = md.digest();
                writeFully(sc, ByteBuffer.wrap(digest));
                InputStream is = sc.socket().getInputStream();
                int verdict = is.read();
                if (verdict < 0) {
                    throw new FileTransferException("the peer went away (connection closed) before its verdict", null);
                }
                if (verdict != 1) {
                    throw new FileTransferException("checksum mismatch: the receiver's SHA-256 of " + size
                            + " bytes differs from the sender's", null, true);
                }
                return new TransferResult(size, n, digest, "tcp");
            } catch (SocketTimeoutException e) {
                throw new FileTransferException("no verdict within " + timeout + ": the peer is gone or stuck", e);
            } catch (FileTransferException e) {
                throw e;
            } catch (IOException e) {
                throw new FileTransferException("the peer went away (" + e.getMessage() + ") mid-transfer", e);
            }
        }
    }

    private static void writeFully(SocketChannel sc, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            sc.write(b);
        }
    }
}
