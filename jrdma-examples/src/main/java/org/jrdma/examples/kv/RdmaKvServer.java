package org.jrdma.examples.kv;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jrdma.app.Endpoint;
import org.jrdma.app.EndpointClosedException;
import org.jrdma.app.EndpointGroup;
import org.jrdma.app.EndpointListener;
import org.jrdma.app.Received;
import org.jrdma.app.RemoteBuffer;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.VerbsException;

/**
 * The key-value server over RDMA: registers its hash table (REMOTE_READ only) and advertises it in
 * each accept's private data ({@link RemoteBuffer#encode()} then the bucket count, big-endian u32);
 * clients GET by reading the table themselves (no server CPU), and PUT by SEND (the server applies it
 * and answers with a one-byte SEND: {@link KvTable#OK}, FULL or TOO_LONG).
 *
 * <p>Threads: {@code kv-accept} accepts; a {@code kv-conn} thread per connection takes its PUTs in order.
 */
public final class RdmaKvServer implements AutoCloseable {
    private final EndpointListener listener;
    private final Arena arena = Arena.ofShared();
    private final KvTable table;
    private final MemoryRegion mr;
    private final byte[] advertisement;
    private final CopyOnWriteArrayList<Endpoint> connections = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Thread> servers = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile boolean closed;

    private RdmaKvServer(EndpointGroup group, InetSocketAddress address, int buckets) {
        this.listener = group.listen(address);
        this.table = new KvTable(arena.allocate((long) buckets * KvLayout.SLOT, 4096), buckets);
        this.mr = listener.pd().regMr(table.segment, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
        this.advertisement = ByteBuffer.allocate(RemoteBuffer.ENCODED_LENGTH + 4).put(RemoteBuffer.of(mr).encode()).putInt(buckets).array();
        this.acceptor = Thread.ofPlatform().daemon().name("kv-accept").start(this::acceptLoop);
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

    private void acceptLoop() {
        while (!closed) {
            try {
                Endpoint ep = listener.accept(Duration.ofMillis(200), advertisement);
                connections.add(ep);
                servers.add(Thread.ofPlatform().daemon().name("kv-conn").start(() -> serve(ep)));
            } catch (VerbsException e) {
                // no request within 200 ms, or the listener closed: look at closed again
            }
        }
    }

    private void serve(Endpoint ep) {
        try (Lease reply = ep.pool().lease(1)) {
            while (!closed && ep.isConnected()) {
                Received r;
                try {
                    r = ep.receive(Duration.ofSeconds(1)).join();
                } catch (java.util.concurrent.CompletionException e) {
                    if (e.getCause() instanceof java.util.concurrent.TimeoutException) {
                        continue;
                    }
                    return;                                  // the connection ended
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
        } catch (EndpointClosedException | java.util.concurrent.CompletionException e) {
            // the client went away
        } finally {
            connections.remove(ep);
            ep.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        listener.close();
        try {
            acceptor.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Endpoint ep : connections) {
            ep.close();
        }
        for (Thread t : servers) {                  // each returns its reply lease as its endpoint fails
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        mr.close();
        arena.close();
    }
}
