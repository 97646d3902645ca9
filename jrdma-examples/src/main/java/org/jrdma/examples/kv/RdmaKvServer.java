package org.jrdma.examples.kv;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.jrdma.app.Endpoint;
import org.jrdma.app.EndpointGroup;
import org.jrdma.app.EndpointListener;
import org.jrdma.app.Received;
import org.jrdma.app.RemoteBuffer;
import org.jrdma.examples.server.ConnectionThreads;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.MemoryRegion;

/**
 * The key-value server over RDMA: registers its hash table (REMOTE_READ only) and advertises it in
 * each accept's private data ({@link RemoteBuffer#encode()} then the bucket count, big-endian u32);
 * clients GET by reading the table themselves (no server CPU), and PUT by SEND (the server applies it
 * and answers with a one-byte SEND: {@link KvTable#OK}, FULL or TOO_LONG).
 *
 * <p>Threads: {@code kv-accept} accepts; a {@code kv-conn} thread per connection takes its PUTs in order
 * ({@link ConnectionThreads}).
 */
public final class RdmaKvServer implements AutoCloseable {
    private final EndpointListener listener;
    private final Arena arena = Arena.ofShared();
    private final KvTable table;
    private final MemoryRegion mr;
    private final ConnectionThreads threads;

    private RdmaKvServer(EndpointGroup group, InetSocketAddress address, int buckets) {
        this.listener = group.listen(address);
        this.table = new KvTable(arena.allocate((long) buckets * KvLayout.SLOT, 4096), buckets);
        this.mr = listener.pd().regMr(table.segment, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
        byte[] advertisement = ByteBuffer.allocate(RemoteBuffer.ENCODED_LENGTH + 4).put(RemoteBuffer.of(mr).encode()).putInt(buckets).array();
        this.threads = new ConnectionThreads(listener, advertisement, "kv");
        threads.start(this::serve);
    }

    /** Listens on {@code address} (a device's address) with a table of {@code buckets} slots. */
    public static RdmaKvServer start(EndpointGroup group, InetSocketAddress address, int buckets) {
        return new RdmaKvServer(group, address, buckets);
    }

    public InetSocketAddress address() {
        return listener.localAddress();
    }

    /** The table (tests: to catch a slot mid-update). */
    KvTable table() {
        return table;
    }

    private void serve(Endpoint ep) {
        try (Lease reply = ep.pool().lease(1)) {
            while (true) {
                Received r = threads.next(ep);
                if (r == null) {
                    return;                                  // the connection ended, or the server closed
                }
                byte status;
                try (r) {
                    byte[] m = r.bytes();
                    status = m.length >= 3 && m[0] == 1 && m.length == 3 + (m[1] & 0xff) + (m[2] & 0xff)
                            ? table.put(java.util.Arrays.copyOfRange(m, 3, 3 + (m[1] & 0xff)),
                                    java.util.Arrays.copyOfRange(m, 3 + (m[1] & 0xff), m.length))
                            : KvTable.TOO_LONG;
                }
                reply.putBytes(0, new byte[] {status});
                ep.send(reply, 0, 1).join();
            }
        }
    }

    @Override
    public void close() {
        threads.close();                            // each connection thread returns its reply lease as its endpoint fails
        mr.close();
        arena.close();
    }
}
