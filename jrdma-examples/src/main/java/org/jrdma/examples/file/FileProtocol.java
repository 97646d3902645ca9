package org.jrdma.examples.file;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jrdma.app.Endpoint;
import org.jrdma.app.EndpointClosedException;
import org.jrdma.app.Received;

/**
 * The messages of the RDMA file transfer (all SENDs, big-endian, the first byte their type) and the
 * helpers both sides share.
 *
 * <pre>
 * accept private data  RemoteBuffer(24) chunkSize(u32) chunks(u32)     receiver to sender
 * START   1 size(u64)                                                    sender to receiver
 * CHUNK   2 index(u32)   only where there is no immediate data (iWARP): after the chunk's WRITE
 * END     3 sha256(32)                                                   sender to receiver
 * CREDIT  4 count(u32)   the receiver wrote count more chunks out: their ring slots are free
 * RESULT  5 ok(u8)       1: the receiver's SHA-256 matched, 0: it did not
 * </pre>
 *
 * Chunk {@code i} (0-based, {@code chunkSize} bytes but the last) goes to ring slot
 * {@code i % chunks}; on RoCE its WRITE_WITH_IMM carries {@code imm = i}.
 */
final class FileProtocol {
    static final byte START = 1;
    static final byte CHUNK = 2;
    static final byte END = 3;
    static final byte CREDIT = 4;
    static final byte RESULT = 5;
    static final int DIGEST_LENGTH = 32;
    /** Bytes of the accept's private data. */
    static final int ADVERTISEMENT_LENGTH = org.jrdma.app.RemoteBuffer.ENCODED_LENGTH + 8;

    private FileProtocol() {
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Chunks of a file of {@code size} bytes. */
    static long chunks(long size, int chunkSize) {
        return (size + chunkSize - 1) / chunkSize;
    }

    /** Bytes of chunk {@code index}. */
    static int chunkLength(long size, int chunkSize, long index) {
        return (int) Math.min(chunkSize, size - index * chunkSize);
    }

    /**
     * Reads the {@code buf.remaining()} bytes of a chunk at {@code position} of {@code fc} into {@code buf}
     * (positional reads, as many as it takes), adds them to {@code md} and leaves {@code buf} at position 0
     * with the chunk's bytes before its limit; with {@code corrupt} (a test hook) it then flips the middle
     * byte, so the chunk no longer matches the checksum. Both senders' (RDMA and TCP) chunk read.
     *
     * @throws FileTransferException the file ended before the chunk ({@code in}, for the message, shrank)
     */
    static void readChunk(FileChannel fc, java.nio.file.Path in, ByteBuffer buf, long position, MessageDigest md, boolean corrupt)
            throws java.io.IOException {
        int start = buf.position();
        while (buf.hasRemaining()) {
            if (fc.read(buf, position + buf.position() - start) < 0) {
                throw new FileTransferException(in + " shrank during the transfer", null);
            }
        }
        md.update(buf.flip());
        buf.position(0);
        if (corrupt) {
            int mid = buf.limit() / 2;
            buf.put(mid, (byte) ~buf.get(mid));           // test: damaged after the checksum
        }
    }

    static byte[] message(byte type, int extra) {
        return ByteBuffer.allocate(1 + extra).put(type).array();
    }

    /** The next message from the peer, within {@code timeout}. */
    static Received take(Endpoint ep, Duration timeout, String what) throws FileTransferException {
        return await(ep.receive(timeout), timeout, what);
    }

    /** The next message, which must be a SEND of type {@code type} with at least {@code min} bytes. */
    static ByteBuffer takeMessage(Endpoint ep, Duration timeout, byte type, int min, String what) throws FileTransferException {
        try (Received r = take(ep, timeout, what)) {
            byte[] m = r.bytes();
            if (r.hasImm() || m.length < min || m[0] != type) {
                throw new FileTransferException("protocol: expected " + what + ", got " + describe(r, m), null);
            }
            return ByteBuffer.wrap(m, 1, m.length - 1).slice();
        }
    }

    static String describe(Received r, byte[] m) {
        return r.hasImm() ? "a WRITE_WITH_IMM " + r.immData() : "a " + m.length + "-byte SEND of type " + (m.length == 0 ? -1 : m[0]);
    }

    /** Waits for {@code f} up to {@code timeout}; a failure becomes a {@link FileTransferException} naming {@code what}. */
    static <T> T await(CompletableFuture<T> f, Duration timeout, String what) throws FileTransferException {
        try {
            return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new FileTransferException("no " + what + " within " + timeout + ": the peer is gone or stuck", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof TimeoutException) {
                throw new FileTransferException("no " + what + " within " + timeout + ": the peer is gone or stuck", c);
            }
            if (c instanceof EndpointClosedException) {
                throw new FileTransferException("the peer went away (connection closed) during " + what, c);
            }
            throw new FileTransferException(what + " failed: " + c, c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FileTransferException("interrupted during " + what, e);
        }
    }
}
