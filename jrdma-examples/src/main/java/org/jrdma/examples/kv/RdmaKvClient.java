package org.jrdma.examples.kv;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.app.EndpointCompletionHandler;
import org.jrdma.app.Endpoint;
import org.jrdma.app.EndpointGroup;
import org.jrdma.app.Received;
import org.jrdma.app.RemoteBuffer;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * The key-value client over RDMA: {@link #get} READs the slots of the key's probe sequence straight
 * from the server's table (one READ of {@link KvLayout#SLOT} bytes per probe; a torn slot is read
 * again, up to {@link #MAX_RETRIES} times), {@link #put} SENDs the request and waits for the server's
 * one-byte answer. The table's address, rkey and size come from the connection's private data; every
 * READ is checked against them by the endpoint before it is posted.
 *
 * <p>One thread at a time per client (a GET or PUT at a time). A GET's READs use the endpoint's
 * callback form (a handler made once: a GET allocates only the value it returns), and the GET thread
 * waits for each by parking until the group's progress thread tells the handler, which unparks it. It
 * does not spin on {@link Endpoint#progress()}: on a machine with fewer cores than runnable threads a
 * spinning thread is a CPU hog to the scheduler and waits a whole time slice for its turn after every
 * hand-off, while a parked thread is woken at once (bench/kv on two cores at load 20-30: a spinning
 * GET took 0.5-1.7 ms at p50, a parking one 30-60 µs; see jrdma-examples/README.md). Only when the group
 * has no progress thread does the GET thread progress the endpoint itself (spinning, yielding the core).
 */
public final class RdmaKvClient implements AutoCloseable {
    /** Reads of one slot before a GET gives up on a slot that stays torn (EAGAIN). */
    public static final int MAX_RETRIES = 100_000;
    private final Endpoint ep;
    private final RemoteBuffer table;
    private final int buckets;
    private final Lease slot;
    private final MemorySegment slotView;
    private final Lease request;
    private final byte[][] value = new byte[1][];
    /** Whether the GET thread must progress the endpoint itself (the group has no progress thread). */
    private final boolean ownProgress;
    private final ReadDone readDone = new ReadDone();
    private long tornReads;
    private long reads;

    private RdmaKvClient(Endpoint ep, boolean ownProgress) {
        this.ep = ep;
        this.ownProgress = ownProgress;
        byte[] pd = ep.peerPrivateData();
        this.table = RemoteBuffer.decode(pd, 0);
        this.buckets = ByteBuffer.wrap(pd, RemoteBuffer.ENCODED_LENGTH, 4).getInt();
        if (buckets <= 0 || (long) buckets * KvLayout.SLOT > table.length()) {
            ep.close();
            throw new VerbsException(Errno.EPROTO, "kv: the server advertised " + buckets + " buckets in " + table.length() + " bytes");
        }
        this.slot = ep.pool().lease(KvLayout.SLOT);
        this.slotView = slot.segment().asSlice(0, KvLayout.SLOT);
        this.request = ep.pool().lease(3 + KvLayout.MAX_KEY + KvLayout.MAX_VALUE);
    }

    /** Connects to an {@link RdmaKvServer} at {@code server} from {@code local}'s device (null: routing's choice). */
    public static RdmaKvClient connect(EndpointGroup group, InetSocketAddress server, InetSocketAddress local) {
        return new RdmaKvClient(group.connect(server, local, null), !group.config().progressThread());
    }

    /**
     * The handler of a GET's READs, one READ at a time: the progress thread (or the GET thread itself,
     * in {@link Endpoint#progress()}) sets the outcome and unparks the GET thread, the attachment.
     */
    private static final class ReadDone implements EndpointCompletionHandler<Thread> {
        /** 0 while the READ is outstanding, 1 done, 2 failed. */
        volatile int state;
        Throwable failure;

        @Override
        public void completed(long v, Thread waiter) {
            state = 1;
            LockSupport.unpark(waiter);
        }

        @Override
        public void failed(Throwable exc, Thread waiter) {
            failure = exc;
            state = 2;
            LockSupport.unpark(waiter);
        }
    }

    /** One READ of the slot at {@code off} of the table into {@link #slot}, waited for. */
    private void readSlot(long off) {
        ReadDone d = readDone;
        d.state = 0;
        ep.read(slot, 0, KvLayout.SLOT, table, off, Thread.currentThread(), d);
        while (d.state == 0) {
            if (ownProgress) {
                if (ep.progress() == 0) {
                    Thread.yield();
                }
            } else {
                LockSupport.park(d);            // bounded by the endpoint's timeout, which fails the handler
            }
        }
        if (d.state == 2) {
            Throwable t = d.failure;
            d.failure = null;
            throw new CompletionException(t);
        }
    }

    private <T> T await(CompletableFuture<T> f) {
        if (ownProgress) {
            while (!f.isDone()) {
                if (ep.progress() == 0) {
                    Thread.yield();
                }
            }
        }
        return f.join();
    }

    /**
     * The value of {@code key}, or null when it is not there.
     *
     * @throws VerbsException EAGAIN when a slot stayed torn for {@link #MAX_RETRIES} reads
     */
    public byte[] get(byte[] key) {
        int b = KvLayout.bucket(key, buckets);
        for (int p = 0; p < KvLayout.PROBES; p++) {
            long off = (long) ((b + p) % buckets) * KvLayout.SLOT;
            for (int attempt = 0; ; attempt++) {
                readSlot(off);
                reads++;
                KvLayout.Look look = KvLayout.look(slotView, key, value);
                if (look == KvLayout.Look.TORN) {
                    tornReads++;
                    if (attempt == MAX_RETRIES) {
                        throw new VerbsException(Errno.EAGAIN, "kv get: slot " + (b + p) % buckets + " stayed torn");
                    }
                    continue;
                }
                if (look == KvLayout.Look.FOUND) {
                    return value[0];
                }
                if (look == KvLayout.Look.EMPTY) {
                    return null;
                }
                break;                                           // another key: the next probe
            }
        }
        return null;
    }

    /**
     * Stores {@code value} under {@code key} (key 1 to 32 bytes, value up to 80).
     *
     * @throws VerbsException ENOSPC when the key's probe sequence is full, EINVAL for lengths out of range
     */
    public void put(byte[] key, byte[] value) {
        if (key.length == 0 || key.length > KvLayout.MAX_KEY || value.length > KvLayout.MAX_VALUE) {
            throw new VerbsException(Errno.EINVAL, "kv put: key 1..32 bytes, value 0..80 bytes");
        }
        byte[] r = KvTable.request((byte) 1, key, value);
        request.putBytes(0, r);
        CompletableFuture<Received> answer = ep.receive();
        await(ep.send(request, 0, r.length));
        byte status;
        try (Received a = await(answer)) {
            status = a.bytes()[0];
        }
        if (status == KvTable.FULL) {
            throw new VerbsException(Errno.ENOSPC, "kv put: the key's " + KvLayout.PROBES + " slots hold other keys");
        }
        if (status != KvTable.OK) {
            throw new VerbsException(Errno.EINVAL, "kv put: the server refused the request (status " + status + ")");
        }
    }

    /** Slot reads that were torn (and read again). */
    public long tornReads() {
        return tornReads;
    }

    /** Slot reads in all. */
    public long reads() {
        return reads;
    }

    @Override
    public void close() {
        ep.close();
        slot.close();
        request.close();
    }
}
