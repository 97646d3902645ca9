package org.jrdma.examples.file;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import org.jrdma.app.Endpoint;
import org.jrdma.app.EndpointGroup;
import org.jrdma.app.EndpointListener;
import org.jrdma.app.Received;
import org.jrdma.app.RemoteBuffer;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.VerbsException;

/**
 * The receiving side of the RDMA file transfer: registers a ring of {@code chunks} slots of
 * {@code chunkSize} bytes (one region, LOCAL_WRITE | REMOTE_WRITE) and advertises it in each accept's
 * private data (see {@link FileProtocol}); the sender WRITEs chunk {@code i} into slot {@code i % chunks}
 * and notifies it (WRITE_WITH_IMM with {@code imm = i}, or on iWARP a CHUNK SEND after the WRITE). For
 * each chunk, in order, this side appends the slot to the output file, adds it to its SHA-256 and
 * returns one credit (a SEND), so the sender never has more than {@code chunks} unconsumed chunks in
 * the ring. At the end it compares its SHA-256 with the sender's and answers RESULT ok or fail.
 *
 * <p>Threads: {@link #receive} runs a transfer in the caller's thread, one at a time (synchronized);
 * the endpoint's completions come from the group's progress thread.
 */
public final class RdmaFileReceiver implements AutoCloseable {
    /** Default chunk size: 64 KiB. */
    public static final int DEFAULT_CHUNK_SIZE = 64 * 1024;
    /** Default ring slots: 8 (512 KiB with the default chunk). */
    public static final int DEFAULT_CHUNKS = 8;
    private final EndpointListener listener;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment ring;
    private final MemoryRegion mr;
    private final int chunkSize;
    private final int chunks;
    private final byte[] advertisement;
    /** Test hook: after writing out this many chunks the receiver closes the connection (-1: never). */
    volatile long stopAfterChunks = -1;

    private RdmaFileReceiver(EndpointGroup group, InetSocketAddress address, int chunkSize, int chunks) {
        if (chunkSize < 1 || chunks < 1 || chunks > group.config().recvDepth() - 2) {
            throw new VerbsException(Errno.EINVAL, "file receiver: chunkSize >= 1, 1 <= chunks <= recvDepth - 2 ("
                    + (group.config().recvDepth() - 2) + "), got " + chunkSize + " x " + chunks);
        }
        this.chunkSize = chunkSize;
        this.chunks = chunks;
        this.listener = group.listen(address);
        this.ring = arena.allocate((long) chunkSize * chunks, 4096);
        this.mr = listener.pd().regMr(ring, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
        this.advertisement = ByteBuffer.allocate(FileProtocol.ADVERTISEMENT_LENGTH)
                .put(RemoteBuffer.of(mr).encode()).putInt(chunkSize).putInt(chunks).array();
    }

    /**
     * Listens on {@code address} (a device's address) with a ring of {@code chunks} slots of
     * {@code chunkSize} bytes; chunks must leave two of the group's receive buffers for START and END.
     *
     * @throws VerbsException EINVAL for sizes out of range, or as {@link EndpointGroup#listen}
     */
    public static RdmaFileReceiver listen(EndpointGroup group, InetSocketAddress address, int chunkSize, int chunks) {
        return new RdmaFileReceiver(group, address, chunkSize, chunks);
    }

    public InetSocketAddress address() {
        return listener.localAddress();
    }

    /**
     * Accepts one sender (waiting up to {@code timeout}) and writes the file it sends to {@code out}
     * (created or truncated). Every wait for the sender is bounded by {@code timeout}.
     *
     * @throws FileTransferException no sender came, the sender went away or broke the protocol, or
     *         the checksum did not match ({@link FileTransferException#checksumMismatch()}; the sender
     *         is told, and {@code out} holds what arrived)
     * @throws IOException writing {@code out} failed
     */
    public synchronized TransferResult receive(Path out, Duration timeout) throws IOException {
        Endpoint ep;
        try {
            ep = listener.accept(timeout, advertisement);
        } catch (VerbsException e) {
            throw new FileTransferException("no sender connected within " + timeout, e);
        }
        try (ep;
             Lease credit = ep.pool().lease(8);
             FileChannel fc = FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                     StandardOpenOption.TRUNCATE_EXISTING)) {
            long size = FileProtocol.takeMessage(ep, timeout, FileProtocol.START, 9, "START").getLong();
            if (size < 0) {
                throw new FileTransferException("protocol: START with size " + size, null);
            }
            long n = FileProtocol.chunks(size, chunkSize);
            MessageDigest md = FileProtocol.sha256();
            boolean imm = false;
            for (long i = 0; i < n; i++) {
                long index;
                try (Received r = FileProtocol.take(ep, timeout, "chunk " + i)) {
                    if (r.hasImm()) {
                        index = r.immData() & 0xffff_ffffL;
                        imm = true;
                    } else {
                        byte[] m = r.bytes();
                        if (m.length < 5 || m[0] != FileProtocol.CHUNK) {
                            throw new FileTransferException("protocol: expected chunk " + i + ", got " + FileProtocol.describe(r, m), null);
                        }
                        index = ByteBuffer.wrap(m, 1, 4).getInt() & 0xffff_ffffL;
                    }
                }
                if (index != (i & 0xffff_ffffL)) {
                    throw new FileTransferException("protocol: chunk " + index + " arrived, expected " + i, null);
                }
                int len = FileProtocol.chunkLength(size, chunkSize, i);
                ByteBuffer slot = ring.asSlice((i % chunks) * chunkSize, len).asByteBuffer();
                md.update(slot.duplicate());
                while (slot.hasRemaining()) {
                    fc.write(slot);
                }
                if (stopAfterChunks == i + 1) {
                    ep.close();                                   // test: the receiver goes away mid-transfer
                    throw new FileTransferException("test: receiver stopped after " + (i + 1) + " chunks", null);
                }
                credit.putBytes(0, ByteBuffer.allocate(5).put(FileProtocol.CREDIT).putInt(1).array());
                FileProtocol.await(ep.send(credit, 0, 5), timeout, "credit " + i);   // joined: credit is reused next
            }
            byte[] theirs = new byte[FileProtocol.DIGEST_LENGTH];
            FileProtocol.takeMessage(ep, timeout, FileProtocol.END, 1 + FileProtocol.DIGEST_LENGTH, "END").get(theirs);
            byte[] ours = md.digest();
            boolean ok = Arrays.equals(theirs, ours);
            credit.putBytes(0, new byte[] {FileProtocol.RESULT, (byte) (ok ? 1 : 0)});
            try {
                // the sender closes once it took RESULT (closing first could overtake RESULT on its side);
                // its disconnect travels apart from the data (CM messages, not this QP), so it can also
                // overtake the ACK of RESULT here and fail the SEND with the endpoint: the verdict is
                // ours either way, RESULT only tells the sender
                FileProtocol.await(ep.send(credit, 0, 2), timeout, "RESULT");
                FileProtocol.take(ep, timeout, "the sender's disconnect").close();
            } catch (FileTransferException expected) {
                // closed (or timed out): the sender took RESULT and left, or went away without it
            }
            if (!ok) {
                throw new FileTransferException("checksum mismatch: received " + size + " bytes whose SHA-256 differs from the sender's",
                        null, true);
            }
            return new TransferResult(size, n, ours, n == 0 ? "rdma" : imm ? "rdma-imm" : "rdma-send");
        }
    }

    @Override
    public void close() {
        listener.close();
        mr.close();
        arena.close();
    }
}
