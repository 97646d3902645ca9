package org.jrdma.examples.file;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jrdma.app.Endpoint;
import org.jrdma.app.EndpointGroup;
import org.jrdma.app.RemoteBuffer;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.TransportType;
import org.jrdma.verbs.VerbsException;

/**
 * The sending side of the RDMA file transfer: connects to an {@link RdmaFileReceiver}, takes the ring's
 * address, rkey, chunk size and slot count from the accept's private data, and for each chunk of the
 * file reads it into a pool lease, adds it to its SHA-256 and RDMA WRITEs it into ring slot
 * {@code i % chunks}. The receiver is notified by WRITE_WITH_IMM ({@code imm = i}) on InfiniBand/RoCE
 * devices, and by a WRITE followed by a CHUNK SEND on iWARP devices (transport type IWARP: no immediate
 * data, as siw), both ordered on the one QP. A chunk is written only with a credit in hand: it starts
 * with one per slot and gets one back per chunk the receiver wrote out, so no unconsumed slot is
 * overwritten. Finally it sends END with its SHA-256 and waits for RESULT.
 *
 * <p>Threads: {@link #send} runs in the caller's thread; completions come from the group's progress
 * thread. One lease per slot is reused only after its previous WRITE completed.
 */
public final class RdmaFileSender {
    private RdmaFileSender() {
    }

    /**
     * Sends {@code in} to the receiver at {@code receiver} from {@code local}'s device (null: routing's
     * choice); every wait (connect aside, which has the group's timeout) is bounded by {@code timeout}.
     *
     * @throws FileTransferException the receiver is not there, went away, did not answer in time, broke
     *         the protocol, or reported a checksum mismatch ({@link FileTransferException#checksumMismatch()})
     * @throws IOException reading {@code in} failed
     */
    public static TransferResult send(EndpointGroup group, InetSocketAddress receiver, InetSocketAddress local, Path in,
            Duration timeout) throws IOException {
        return send(group, receiver, local, in, timeout, -1);
    }

    /** As above; {@code corruptChunk} (test hook, -1: none) flips a byte of that chunk after it was checksummed. */
    static TransferResult send(EndpointGroup group, InetSocketAddress receiver, InetSocketAddress local, Path in,
            Duration timeout, long corruptChunk) throws IOException {
        Endpoint ep;
        try {
            ep = group.connect(receiver, local, null);
        } catch (VerbsException e) {
            throw new FileTransferException("could not connect to the receiver at " + receiver, e);
        }
        try (ep; FileChannel fc = FileChannel.open(in, StandardOpenOption.READ)) {
            byte[] pd = ep.peerPrivateData();
            if (pd == null || pd.length < FileProtocol.ADVERTISEMENT_LENGTH) {
                throw new FileTransferException("protocol: the receiver advertised no ring", null);
            }
            RemoteBuffer ring = RemoteBuffer.decode(pd, 0);
            ByteBuffer adv = ByteBuffer.wrap(pd, RemoteBuffer.ENCODED_LENGTH, 8);
            int chunkSize = adv.getInt();
            int chunks = adv.getInt();
            if (chunkSize < 1 || chunks < 1 || (long) chunkSize * chunks > ring.length() || chunkSize > ep.pool().maxLease()) {
                throw new FileTransferException("protocol: a ring of " + chunks + " x " + chunkSize + " bytes in "
                        + ring.length() + " (pool lease limit " + ep.pool().maxLease() + ")", null);
            }
            boolean imm = ep.context().device().transportType() != TransportType.IWARP;
            long size = fc.size();
            long n = FileProtocol.chunks(size, chunkSize);
            int slots = (int) Math.min(chunks, Math.max(n, 1));
            Lease[] data = new Lease[slots];
            Lease[] notes = new Lease[slots];
            @SuppressWarnings("unchecked")
            CompletableFuture<?>[] inflight = new CompletableFuture<?>[slots];
            try (Lease control = ep.pool().lease(64)) {
                for (int s = 0; s < slots; s++) {
                    data[s] = ep.pool().lease(chunkSize);
                    notes[s] = ep.pool().lease(8);
                }
                control.putBytes(0, ByteBuffer.allocate(9).put(FileProtocol.START).putLong(size).array());
                FileProtocol.await(ep.send(control, 0, 9), timeout, "START");
                MessageDigest md = FileProtocol.sha256();
                long credits = chunks;
                for (long i = 0; i < n; i++) {
                    while (credits == 0) {
                        credits += takeCredit(ep, timeout, i);
                    }
                    int s = (int) (i % slots);
                    if (inflight[s] != null) {
                        FileProtocol.await(inflight[s], timeout, "WRITE of chunk " + (i - slots));
                    }
                    int len = FileProtocol.chunkLength(size, chunkSize, i);
                    FileProtocol.readChunk(fc, in, data[s].segment().asSlice(0, len).asByteBuffer(), i * chunkSize, md, i == corruptChunk);
                    long remote = (i % chunks) * chunkSize;
                    if (imm) {
                        inflight[s] = ep.writeWithImm(data[s], 0, len, ring, remote, (int) i);
                    } else {
                        CompletableFuture<Void> w = ep.write(data[s], 0, len, ring, remote);
                        notes[s].putBytes(0, ByteBuffer.allocate(5).put(FileProtocol.CHUNK).putInt((int) i).array());
                        inflight[s] = CompletableFuture.allOf(w, ep.send(notes[s], 0, 5));
                    }
                    credits--;
                }
                for (int s = 0; s < slots; s++) {
                    if (inflight[s] != null) {
                        FileProtocol.await(inflight[s], timeout, "the last WRITEs");
                    }
                }
                byte[] digest = md.digest();
                control.putBytes(0, ByteBuffer.allocate(1 + FileProtocol.DIGEST_LENGTH).put(FileProtocol.END).put(digest).array());
                FileProtocol.await(ep.send(control, 0, 1 + FileProtocol.DIGEST_LENGTH), timeout, "END");
                boolean ok = takeResult(ep, timeout);
                if (!ok) {
                    throw new FileTransferException("checksum mismatch: the receiver's SHA-256 of " + size
                            + " bytes differs from the sender's", null, true);
                }
                return new TransferResult(size, n, digest, n == 0 ? "rdma" : imm ? "rdma-imm" : "rdma-send");
            } finally {
                for (int s = 0; s < slots; s++) {
                    if (data[s] != null) {
                        data[s].close();                         // pinned until its WRITE completes
                    }
                    if (notes[s] != null) {
                        notes[s].close();
                    }
                }
            }
        }
    }

    private static long takeCredit(Endpoint ep, Duration timeout, long chunk) throws FileTransferException {
        ByteBuffer m = FileProtocol.takeMessage(ep, timeout, FileProtocol.CREDIT, 5, "a credit for chunk " + chunk);
        int c = m.getInt();
        if (c < 1) {
            throw new FileTransferException("protocol: a credit of " + c, null);
        }
        return c;
    }

    /** Skips the credits still coming, then RESULT's ok byte. */
    private static boolean takeResult(Endpoint ep, Duration timeout) throws FileTransferException {
        while (true) {
            try (var r = FileProtocol.take(ep, timeout, "RESULT")) {
                byte[] m = r.bytes();
                if (!r.hasImm() && m.length >= 5 && m[0] == FileProtocol.CREDIT) {
                    continue;
                }
                if (r.hasImm() || m.length < 2 || m[0] != FileProtocol.RESULT) {
                    throw new FileTransferException("protocol: expected RESULT, got " + FileProtocol.describe(r, m), null);
                }
                return m[1] == 1;
            }
        }
    }
}
