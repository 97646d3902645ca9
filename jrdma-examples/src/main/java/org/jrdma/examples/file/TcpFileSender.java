package org.jrdma.examples.file;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;

/**
 * The file transfer's TCP twin, sending side (see {@link TcpFileReceiver} for the stream), over
 * java.nio: reads the file in chunks of {@code chunkSize} bytes with {@link FileChannel} positional reads
 * into one direct buffer (allocated per transfer, reused for every chunk, the size and the SHA-256),
 * adds each chunk to its SHA-256 and writes it to the socket channel, then the SHA-256, then waits for
 * the receiver's one-byte verdict. Nagle stays on for the data (a 64 KiB chunk is one full loopback
 * segment and a small tail, which Nagle joins to the next chunk); TCP_NODELAY goes on before the
 * SHA-256, so the file's tail and the SHA-256 do not wait for a delayed ACK.
 *
 * <p>The channel is non-blocking and every wait goes through a {@link TimedChannel}, so both a receiver
 * that goes silent and one that stops reading fail the transfer after {@code timeout} without progress.
 * Per chunk nothing is allocated. (Not {@code FileChannel.transferTo}: the bytes must pass through the
 * SHA-256 anyway.)
 *
 * <p>Threads: the caller's.
 */
public final class TcpFileSender {
    private TcpFileSender() {
    }

    /**
     * Sends {@code in} to {@code receiver} in chunks of {@code chunkSize} bytes (1 or more); connecting,
     * each wait for room to write and the wait for the verdict last at most {@code timeout}. A receiver
     * that goes away fails a write (connection reset / broken pipe) or the verdict's read.
     *
     * @throws FileTransferException the receiver went away, was silent, or reported a checksum mismatch
     */
    public static TransferResult send(InetSocketAddress receiver, Path in, int chunkSize, Duration timeout) throws IOException {
        return send(receiver, in, chunkSize, timeout, -1);
    }

    static TransferResult send(InetSocketAddress receiver, Path in, int chunkSize, Duration timeout, long corruptChunk)
            throws IOException {
        if (chunkSize < 1) {
            throw new IllegalArgumentException("chunkSize " + chunkSize);
        }
        SocketChannel sc;
        try {
            sc = SocketChannel.open();
            sc.socket().connect(receiver, (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis())));
        } catch (IOException e) {
            throw new FileTransferException("could not connect to the receiver at " + receiver, e);
        }
        try (TimedChannel tc = new TimedChannel(sc, timeout); FileChannel fc = FileChannel.open(in, StandardOpenOption.READ)) {
            long size = fc.size();
            MessageDigest md = FileProtocol.sha256();
            ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(chunkSize, FileProtocol.DIGEST_LENGTH));
            long n = FileProtocol.chunks(size, chunkSize);
            buf.clear().putLong(size).flip();
            tc.writeFully(buf, "room to send the size");
            for (long i = 0; i < n; i++) {
                int len = FileProtocol.chunkLength(size, chunkSize, i);
                FileProtocol.readChunk(fc, in, buf.clear().limit(len), i * chunkSize, md, i == corruptChunk);
                tc.writeFully(buf, "room to send a chunk");
            }
            byte[] digest = md.digest();
            sc.setOption(StandardSocketOptions.TCP_NODELAY, true);   // pushes out the tail; the SHA-256 goes at once
            buf.clear().put(digest).flip();
            tc.writeFully(buf, "room to send the SHA-256");
            buf.clear().limit(1);
            tc.readFully(buf, "verdict");
            if (buf.get(0) != 1) {
                throw new FileTransferException("checksum mismatch: the receiver's SHA-256 of " + size
                        + " bytes differs from the sender's", null, true);
            }
            return new TransferResult(size, n, digest, "tcp");
        }
    }
}
