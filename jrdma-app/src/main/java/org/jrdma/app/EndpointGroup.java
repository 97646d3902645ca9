package org.jrdma.app;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmEventType;
import org.jrdma.cm.CmId;
import org.jrdma.cm.ConnParam;
import org.jrdma.cm.EventChannel;
import org.jrdma.cm.PortSpace;
import org.jrdma.pool.RegisteredPool;
import org.jrdma.verbs.CompletionChannel;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.VerbsException;

/**
 * The application's entry: endpoints made through the connection manager ({@code org.jrdma.cm}),
 * a protection domain and a {@link RegisteredPool} per device they run on, and (by default) the
 * progress thread that completes their futures.
 *
 * <pre>
 * try (EndpointGroup g = EndpointGroup.create(new EndpointConfig())) {
 *     Endpoint ep = g.connect(new InetSocketAddress("127.0.0.1", 7471));
 *     try (Lease msg = ep.pool().lease(64)) {
 *         msg.putBytes(0, "hello".getBytes());
 *         ep.send(msg, 0, 5).get(5, TimeUnit.SECONDS);
 *     }
 *     Received r = ep.receive().get(5, TimeUnit.SECONDS);
 * }
 * </pre>
 *
 * <p>Progress: with {@link EndpointConfig#progressThread()} (the default) a daemon thread
 * {@code jrdma-app-progress} calls {@link Endpoint#progress()} on every endpoint of the group in
 * turn; when rounds have found nothing for 50 µs it arms every endpoint's CQ ({@code ibv_req_notify_cq})
 * and blocks on the devices' completion channels for up to 1 ms in all (so an idle group costs little
 * CPU and a completion wakes it at once; a blocked thread also hands a soft device's receiving back to
 * its I/O thread, which a polling thread had taken over), then goes round again (CM events and
 * deadlines are looked at at least every millisecond). Without it the application calls
 * {@link #progress()} (or each endpoint's).
 *
 * <p>Threads: every method may be called from any thread. {@link #connect} and
 * {@link EndpointListener#accept} block the caller up to {@link EndpointConfig#timeout()} per step.
 * Locks: the group's monitor guards the per-device table (PD and pool creation); the monitors of the
 * endpoint and listener lists guard their changes (each list is copied into the array a progress round
 * walks, so that a round allocates nothing). None is held while an endpoint progresses.
 */
public final class EndpointGroup implements AutoCloseable {
    /** A device's PD and pool, made when the group first uses the device. */
    static final class GroupDevice {
        final Context context;
        final ProtectionDomain pd;
        final RegisteredPool pool;
        /** The completion channel of the device's endpoint CQs, on which an idle progress thread blocks. */
        final CompletionChannel channel;

        GroupDevice(Context context, EndpointConfig cfg) {
            this.context = context;
            this.pd = context.allocPd();
            this.pool = RegisteredPool.create(pd, cfg.pool());
            this.channel = context.createCompChannel();
        }
    }

    private final EndpointConfig cfg;
    private final Map<Context, GroupDevice> devices = new IdentityHashMap<>();    // guarded by this
    private final CopyOnWriteArrayList<Endpoint> endpoints = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<EndpointListener> listeners = new CopyOnWriteArrayList<>();
    // what a progress round walks: arrays made again on every change (rare), so that a round allocates no iterator
    private volatile Endpoint[] endpointArray = new Endpoint[0];
    private volatile EndpointListener[] listenerArray = new EndpointListener[0];
    private volatile GroupDevice[] deviceArray = new GroupDevice[0];
    private final Thread progress;
    private volatile boolean closed;
    /** Times the progress thread blocked on the devices' channels (written by it alone; for tests and tuning). */
    private volatile long idleWaits;

    private EndpointGroup(EndpointConfig cfg) {
        this.cfg = cfg;
        if (cfg.progressThread()) {
            progress = Thread.ofPlatform().daemon().name("jrdma-app-progress").unstarted(this::progressLoop);
            progress.start();
        } else {
            progress = null;
        }
    }

    /** A group with {@code config} (copied; null: the defaults). */
    public static EndpointGroup create(EndpointConfig config) {
        return new EndpointGroup((config == null ? new EndpointConfig() : config).copy());
    }

    public EndpointConfig config() {
        return cfg.copy();
    }

    /** Connects to {@code remote} from the device routing chooses; see {@link #connect(InetSocketAddress, InetSocketAddress, byte[])}. */
    public Endpoint connect(InetSocketAddress remote) {
        return connect(remote, null, null);
    }

    /**
     * Connects an RC endpoint to a listener at {@code remote}: resolves the address (from
     * {@code local}'s device when given) and route, creates the QP with the group's PD of that
     * device, posts the receive buffers and connects, carrying {@code privateData} (up to 56 bytes on
     * RoCE, 196 minus MPA's on iWARP; e.g. {@link RemoteBuffer#encode()}). Blocks up to
     * {@link EndpointConfig#timeout()} per step.
     *
     * @throws VerbsException ECONNREFUSED when rejected (nobody listens, or the peer refused),
     *         ETIMEDOUT when unanswered, EADDRNOTAVAIL/ENETUNREACH when no device reaches
     *         {@code remote}, EINVAL for private data too long
     */
    public Endpoint connect(InetSocketAddress remote, InetSocketAddress local, byte[] privateData) {
        checkOpen();
        long deadline = System.nanoTime() + cfg.timeout().toNanos();
        EventChannel ch = EventChannel.create();
        CmDispatch dispatch = new CmDispatch(ch);
        CmId id = CmId.create(ch, null, PortSpace.TCP);
        Endpoint ep;
        try {
            id.resolveAddr(local, remote, cfg.timeout());
            expect(ch, CmEventType.ADDR_RESOLVED, deadline, "connect: resolve " + remote);
            id.resolveRoute(cfg.timeout());
            expect(ch, CmEventType.ROUTE_RESOLVED, deadline, "connect: route to " + remote);
            ep = new Endpoint(this, id, dispatch, true, device(id.verbs()), cfg);
        } catch (RuntimeException e) {
            id.destroy();
            dispatch.close();
            throw e;
        }
        try {
            id.connect(new ConnParam().privateData(privateData).responderResources(cfg.rdAtomic()).initiatorDepth(cfg.rdAtomic())
                    .retryCount(cfg.retryCount()).rnrRetryCount(cfg.rnrRetryCount()));
        } catch (RuntimeException e) {
            ep.close();
            throw e;
        }
        ep.awaitEstablished(deadline, "connect to " + remote);
        added(ep);
        return ep;
    }

    /**
     * Listens on {@code local} (a device's address and a port; port 0: an ephemeral one, see
     * {@link EndpointListener#localAddress()}) with a backlog of 128 requests.
     *
     * @throws VerbsException EADDRNOTAVAIL when no device has the address, EADDRINUSE when the port is taken
     */
    public EndpointListener listen(InetSocketAddress local) {
        checkOpen();
        EventChannel ch = EventChannel.create();
        CmId id = CmId.create(ch, null, PortSpace.TCP);
        try {
            id.bind(local);
            id.listen(128);
        } catch (RuntimeException e) {
            id.destroy();
            ch.close();
            throw e;
        }
        EndpointListener l = new EndpointListener(this, id, new CmDispatch(ch), cfg);
        synchronized (listeners) {
            listeners.add(l);
            listenerArray = listeners.toArray(new EndpointListener[0]);
        }
        return l;
    }

    /** The group's PD and pool for the device of {@code context}, made on first use. */
    synchronized GroupDevice device(Context context) {
        checkOpen();
        GroupDevice d = devices.get(context);
        if (d == null) {
            d = new GroupDevice(context, cfg);
            devices.put(context, d);
            deviceArray = devices.values().toArray(new GroupDevice[0]);
        }
        return d;
    }

    /** The group's pool for the device of {@code context} (made on first use). */
    public RegisteredPool pool(Context context) {
        return device(context).pool;
    }

    /** The group's protection domain for the device of {@code context} (made on first use). */
    public ProtectionDomain pd(Context context) {
        return device(context).pd;
    }

    void accepted(Endpoint ep) {
        added(ep);
    }

    private void added(Endpoint ep) {
        synchronized (endpoints) {
            endpoints.add(ep);
            endpointArray = endpoints.toArray(new Endpoint[0]);
        }
    }

    void removed(Endpoint ep) {
        synchronized (endpoints) {
            endpoints.remove(ep);
            endpointArray = endpoints.toArray(new Endpoint[0]);
        }
    }

    void removed(EndpointListener l) {
        synchronized (listeners) {
            listeners.remove(l);
            listenerArray = listeners.toArray(new EndpointListener[0]);
        }
    }

    /** Times the progress thread has blocked on the devices' completion channels (0 without a progress thread). */
    long idleWaits() {
        return idleWaits;
    }

    /** One round of {@link Endpoint#progress()} over every endpoint and listener; returns the completions handled. */
    public int progress() {
        int n = 0;
        for (EndpointListener l : listenerArray) {
            l.progress();
        }
        for (Endpoint e : endpointArray) {
            n += e.progress();
        }
        return n;
    }

    private void progressLoop() {
        long idleSince = 0;
        while (!closed) {
            int n;
            try {
                n = progress();
            } catch (RuntimeException e) {
                n = 0;    // an endpoint torn down under us; the next round sees the list without it
            }
            if (n > 0) {
                idleSince = 0;
                continue;
            }
            long now = System.nanoTime();
            if (idleSince == 0) {
                idleSince = now;
            }
            if (now - idleSince < 50_000) {
                Thread.onSpinWait();
                continue;
            }
            try {
                block();
            } catch (RuntimeException e) {
                LockSupport.parkNanos(1_000_000);   // a device or CQ closing under us
            }
        }
    }

    /** Arms every endpoint's CQ, looks once more, then waits on the devices' channels (1 ms in all). */
    private void block() {
        for (Endpoint e : endpointArray) {
            e.armCq();
        }
        if (progress() > 0) {
            return;
        }
        GroupDevice[] ds = deviceArray;
        if (ds.length == 0) {
            LockSupport.parkNanos(1_000_000);
            return;
        }
        idleWaits = idleWaits + 1;
        long each = 1_000_000 / ds.length;
        for (GroupDevice d : ds) {
            try {
                CompletionQueue cq = d.channel.getEvent(each, TimeUnit.NANOSECONDS);
                if (cq != null) {
                    cq.ackEvents(1);
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Closes every endpoint and listener, stops the progress thread, then closes the pools (which
     * fails with EBUSY if the application still holds leases) and the PDs.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (progress != null) {
            try {
                progress.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (EndpointListener l : listeners) {
            l.close();
        }
        for (Endpoint e : endpoints) {
            e.close();
        }
        List<GroupDevice> ds;
        synchronized (this) {
            ds = new ArrayList<>(devices.values());
            devices.clear();
            deviceArray = new GroupDevice[0];
        }
        RuntimeException first = null;
        for (GroupDevice d : ds) {
            try {
                d.pool.close();
                d.pd.close();
                d.channel.close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "EndpointGroup is closed");
        }
    }

    /** Waits for the next event on a client's own channel (only its ID is on it) and checks its type. */
    private static void expect(EventChannel ch, CmEventType type, long deadline, String what) {
        long left = deadline - System.nanoTime();
        CmEvent e = ch.getEvent(java.time.Duration.ofNanos(Math.max(0, left)))
                .orElseThrow(() -> new VerbsException(Errno.ETIMEDOUT, what + ": no " + type.eventStr() + " in time"));
        e.ack();
        if (e.type() != type) {
            int st = e.status();
            throw new VerbsException(st < 0 ? -st : Errno.EIO, what + ": " + e.type().eventStr() + " (status " + st + ")");
        }
    }
}
