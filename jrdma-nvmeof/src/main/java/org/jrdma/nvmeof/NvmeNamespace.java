package org.jrdma.nvmeof;

import java.util.concurrent.CompletableFuture;
import org.jrdma.nvmeof.wire.Commands;
import org.jrdma.nvmeof.wire.IdentifyNamespace;
import org.jrdma.nvmeof.wire.Opcodes;

/**
 * An active namespace of a controller (NVM command set): its size and block size from Identify
 * Namespace, and block I/O on the controller's I/O queues (round robin). Data moves by the controller's
 * RDMA READ (write) or RDMA WRITE (read) of an {@link IoBuffer} range, granted for the I/O only.
 *
 * <p>The asynchronous calls may be made from any thread; they block only while the chosen queue is
 * full. Their futures complete on the queue's poller thread: exceptionally with
 * {@link NvmeStatusException} for an error status (e.g. SC 80h LBA Out of Range), with
 * {@link NvmeException} when the queue failed, with {@link IllegalArgumentException} for a range
 * outside the buffer or the namespace.
 */
public final class NvmeNamespace {
    private final NvmeController ctrl;
    private final int nsid;
    private final IdentifyNamespace id;

    NvmeNamespace(NvmeController ctrl, int nsid, IdentifyNamespace id) {
        this.ctrl = ctrl;
        this.nsid = nsid;
        this.id = id;
    }

    public int nsid() {
        return nsid;
    }

    /** Bytes per logical block (2^LBADS of the format in use). */
    public int blockSize() {
        return id.blockSize();
    }

    /** NSZE: the namespace's size in logical blocks. */
    public long blockCount() {
        return id.nsze();
    }

    /** The Identify Namespace data read at connect. */
    public IdentifyNamespace identify() {
        return id;
    }

    /**
     * Reads {@code blocks} logical blocks from {@code slba} into {@code buf} at {@code offset}.
     *
     * @param blocks 1..65536, and blocks × block size ≤ {@link NvmeController#maxTransferBytes()}
     */
    public CompletableFuture<Void> read(long slba, int blocks, IoBuffer buf, long offset) {
        return io(false, slba, blocks, buf, offset);
    }

    /** Writes {@code blocks} logical blocks from {@code buf} at {@code offset} to the namespace at {@code slba}. */
    public CompletableFuture<Void> write(long slba, int blocks, IoBuffer buf, long offset) {
        return io(true, slba, blocks, buf, offset);
    }

    /** Flush: the volatile write cache's data for the namespace reaches non-volatile media. */
    public CompletableFuture<Void> flush() {
        return ctrl.ioQueue().submit("Flush (NSID " + nsid + ")", Opcodes.IO_FLUSH,
                (s, cid) -> Commands.flush(s, cid, nsid), null, 0, 0, false).thenApply(c -> null);
    }

    private CompletableFuture<Void> io(boolean write, long slba, int blocks, IoBuffer buf, long offset) {
        String what = (write ? "Write" : "Read") + " (NSID " + nsid + ", SLBA " + slba + ", " + blocks + " blocks)";
        long bytes = (long) blocks * blockSize();
        if (blocks < 1 || blocks > 65536 || bytes > ctrl.maxTransferBytes()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(what + ": 1.." + Math.min(65536,
                    ctrl.maxTransferBytes() / blockSize()) + " blocks per command"));
        }
        if (slba < 0 || slba + blocks > blockCount()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(what + ": the namespace has " + blockCount() + " blocks"));
        }
        return ctrl.ioQueue().submit(what, write ? Opcodes.IO_WRITE : Opcodes.IO_READ,
                (s, cid) -> Commands.readWrite(s, write, cid, nsid, slba, blocks), buf, offset, (int) bytes, write)
                .thenApply(c -> null);
    }

    /** {@link #read} and wait. @throws NvmeException (or its status subclass) on failure */
    public void readSync(long slba, int blocks, IoBuffer buf, long offset) {
        join(read(slba, blocks, buf, offset), "Read");
    }

    /** {@link #write} and wait. */
    public void writeSync(long slba, int blocks, IoBuffer buf, long offset) {
        join(write(slba, blocks, buf, offset), "Write");
    }

    /** {@link #flush} and wait. */
    public void flushSync() {
        join(flush(), "Flush");
    }

    private void join(CompletableFuture<Void> f, String what) {
        ctrl.await(f.thenApply(v -> new NvmeCompletion(0, 0)), what + " (NSID " + nsid + ")");
    }
}
