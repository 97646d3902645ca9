package org.jrdma.app;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.VerbsException;

/**
 * Warm-up of the data path (issue 15): runs work requests before the application's first real one,
 * so that the JIT has compiled the code they go through (the endpoint's post and poll, the future,
 * the provider's requester, responder and completer, the socket calls) and the first operations the
 * application times or serves run at the warm speed. In a fresh JVM the first 2,000 one-sided READs of
 * a soft device run in the interpreter and in C1 code for most of their way; see {@code docs/warmup.md}
 * for what this helper saves, what a JDK 25 AOT cache saves, and how they were measured.
 *
 * <ul>
 * <li>{@link #loopback} makes a private connected pair in the application's {@link EndpointGroup}
 *     (a listener on one of its devices' addresses and a client on another, or on the same device),
 *     runs READ, WRITE and SEND in turn, one at a time, and closes the pair. Nothing reaches the
 *     application's peers and none of their memory is touched: call it at start-up, before connecting.
 *     It warms both sides of each operation in this JVM (a server that answers READs warms its
 *     responder here too).</li>
 * <li>{@link #run} READs the first (at most) 64 bytes of a {@link RemoteBuffer} the peer advertised,
 *     {@code ops} times, on an endpoint of the application: it warms this JVM's requester side and the
 *     peer's responder, and reads (never writes) the peer's memory.</li>
 * </ul>
 *
 * <p>Threads: the calling thread posts every work request and progresses the endpoints itself
 * ({@link Endpoint#progress()}, busy) until each completes; the group's progress thread, if any, may
 * complete them instead. Each operation is bounded by {@link EndpointConfig#timeout()} (the endpoint's
 * own timeout). Allocation: a future per operation, as every {@link Endpoint} operation; the helper is
 * for start-up, not for the steady state.
 */
public final class Warmup {
    /** Bytes each warm-up READ, WRITE and SEND moves: 64. */
    public static final int MESSAGE_BYTES = 64;

    /**
     * What a warm-up did.
     *
     * @param ops work requests completed (READs, WRITEs and SENDs; a SEND's receive is not counted)
     * @param nanos wall time of the whole call, connection setup and teardown included, in ns
     */
    public record Report(int ops, long nanos) {
        /** {@link #nanos()} in milliseconds. */
        public double millis() {
            return nanos / 1e6;
        }
    }

    private Warmup() {
    }

    /**
     * {@code ops} RDMA READs of {@code min(64, remote.length())} bytes at offset 0 of {@code remote}
     * into a lease of {@code ep}'s pool, one at a time. The endpoint stays as it was (connected, its
     * receive buffers posted, no work request outstanding).
     *
     * @param ep a connected endpoint of the application
     * @param remote memory the peer advertised with REMOTE_READ access
     * @param ops READs to run, 0 or more
     * @return {@code ops} and the time taken
     * @throws IllegalArgumentException when {@code ops < 0}
     * @throws VerbsException from the posts (e.g. EINVAL for a closed endpoint) and EIO when a READ fails
     *         (its cause: the {@link WorkRequestException}, {@link TimeoutException} or
     *         {@link EndpointClosedException}; the endpoint is then broken, as after any failed operation)
     */
    public static Report run(Endpoint ep, RemoteBuffer remote, int ops) {
        if (ops < 0) {
            throw new IllegalArgumentException("warm-up: ops " + ops + " < 0");
        }
        long t0 = System.nanoTime();
        int len = (int) Math.min(MESSAGE_BYTES, remote.length());
        try (Lease buf = ep.pool().lease(MESSAGE_BYTES)) {
            for (int i = 0; i < ops; i++) {
                await(ep.read(buf, 0, len, remote, 0), "read", ep);
            }
        }
        return new Report(ops, System.nanoTime() - t0);
    }

    /**
     * Connects a private pair in {@code group} and runs {@code ops} work requests over it, cycling
     * RDMA READ, RDMA WRITE and SEND (each of {@value #MESSAGE_BYTES} bytes, one at a time; the SEND
     * is taken by the listener's endpoint), then closes the pair, its listener and its memory region.
     * The group's PDs and pools of the two devices are made if they were not (they stay).
     *
     * @param group the application's group (its configuration applies to the pair)
     * @param server a device's address to listen on; port 0 (an ephemeral port) unless the application
     *        wants a fixed one
     * @param client the local address to connect from (another device's, port 0), or null for the one
     *        routing chooses for {@code server} (then the listener's own device, where the provider
     *        connects a device to itself; only two devices are tested)
     * @param ops work requests to run, 0 or more (0 still connects and closes the pair)
     * @return {@code ops} and the time taken, connection setup and teardown included
     * @throws IllegalArgumentException when {@code ops < 0}
     * @throws VerbsException as {@link EndpointGroup#listen} and {@link EndpointGroup#connect} throw, and
     *         EIO when an operation fails (the pair is closed either way)
     */
    public static Report loopback(EndpointGroup group, InetSocketAddress server, InetSocketAddress client, int ops) {
        if (ops < 0) {
            throw new IllegalArgumentException("warm-up: ops " + ops + " < 0");
        }
        long t0 = System.nanoTime();
        Duration timeout = group.config().timeout();
        try (Arena arena = Arena.ofShared(); EndpointListener l = group.listen(server)) {
            MemorySegment target = arena.allocate(4096, 64);
            try (MemoryRegion mr = l.pd().regMr(target, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE)) {
                RemoteBuffer rb = RemoteBuffer.of(mr);
                CompletableFuture<Endpoint> accepted = new CompletableFuture<>();
                Thread acceptor = Thread.ofPlatform().daemon().name("jrdma-warmup-accept").start(() -> {
                    try {
                        accepted.complete(l.accept(timeout));
                    } catch (Throwable t) {
                        accepted.completeExceptionally(t);
                    }
                });
                Endpoint c = null;
                Endpoint s = null;
                try {
                    c = group.connect(l.localAddress(), client, null);
                    s = accepted.get(timeout.toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
                    exercise(c, s, rb, ops);
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : new VerbsException(Errno.EIO, "warm-up: accept failed", e.getCause());
                } catch (TimeoutException e) {
                    throw new VerbsException(Errno.ETIMEDOUT, "warm-up: no connection accepted in time");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new VerbsException(Errno.EIO, "warm-up: interrupted", e);
                } finally {
                    if (c != null) {
                        c.close();
                    }
                    l.close();                      // an accept still waiting gives up
                    joinQuietly(acceptor, timeout);
                    if (s == null && accepted.isDone() && !accepted.isCompletedExceptionally()) {
                        s = accepted.join();        // accepted after all (connect failed late): close it too
                    }
                    if (s != null) {
                        s.close();
                    }
                }
            }
        }
        return new Report(ops, System.nanoTime() - t0);
    }

    /**
     * READ, WRITE, SEND in turn from {@code c}; {@code s} takes the SENDs. Every wait progresses both
     * endpoints, so that this thread also receives on both devices (a soft device's I/O thread steps
     * back while an application thread polls its CQs) and runs the responder: the whole operation is
     * this thread's work, warmed in one go, and not paced by waking the devices' I/O threads (on a
     * loaded machine, milliseconds per operation).
     */
    private static void exercise(Endpoint c, Endpoint s, RemoteBuffer rb, int ops) {
        try (Lease out = c.pool().lease(MESSAGE_BYTES); Lease in = c.pool().lease(MESSAGE_BYTES)) {
            out.fill(0, MESSAGE_BYTES, (byte) 0x5a);
            for (int i = 0; i < ops; i++) {
                switch (i % 3) {
                    case 0 -> await(c.read(in, 0, MESSAGE_BYTES, rb, 0), "read", c, s);
                    case 1 -> await(c.write(out, 0, MESSAGE_BYTES, rb, MESSAGE_BYTES), "write", c, s);
                    default -> {
                        CompletableFuture<Received> r = s.receive();
                        await(c.send(out, 0, MESSAGE_BYTES), "send", c, s);
                        await(r, "receive", s, c).close();
                    }
                }
            }
        }
    }

    /** Progresses {@code eps} (in this thread) until {@code f} is done; its value, or EIO with its failure as the cause. */
    private static <T> T await(CompletableFuture<T> f, String what, Endpoint... eps) {
        while (!f.isDone()) {
            int n = 0;
            for (Endpoint e : eps) {
                n += e.progress();
            }
            if (n == 0) {
                Thread.onSpinWait();
            }
        }
        try {
            return f.join();
        } catch (CompletionException e) {
            throw new VerbsException(Errno.EIO, "warm-up: " + what + " failed: " + e.getCause(), e.getCause());
        }
    }

    private static void joinQuietly(Thread t, Duration timeout) {
        try {
            t.join(timeout.toMillis() + 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
