package org.jrdma.iwarp.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jrdma.soft.KeyTable;
import org.jrdma.soft.SoftMr;
import org.jrdma.soft.SoftResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O thread of one open iWARP device ({@code jrdma-NAME-io}), siw's receive path and the part
 * of its transmit threads that waits for socket space: one NIO {@link Selector} over the device's
 * TCP sockets (listening, connecting, connected). It accepts connections, finishes connects, reads
 * MPA frames and FPDUs and hands each to its connection, and resumes transmission when a socket
 * takes bytes again. Work from other threads (a CM call that opens a socket, a QP whose socket was
 * full) comes through {@link #execute}. The selector's key set is walked with a pre-made consumer,
 * so the loop allocates nothing per event.
 *
 * <p>Who receives (the RoCE provider's model, {@code DeviceAgent}): application threads that poll an
 * empty CQ of the device receive in their own thread ({@link #progress()}: one non-blocking read
 * per connection carrying FPDUs, {@code SiwConnection.pollReceive}), so a busy-polling application
 * sees its completion without a wake-up of this thread. While they do, this thread steps back: it
 * drops OP_READ on those sockets (their data wakes nobody) and looks again every
 * {@link #STEP_BACK_MILLIS} ms; it takes receiving up again once a look passed without a poll, at
 * once when an application thread is about to block for a CQ event ({@link #applicationBlocking()}),
 * and always for connecting sockets, the MPA exchange, the end of a stream and socket errors.
 * Transmission needs no thread switch at all: the posting thread writes its FPDUs to the socket
 * itself ({@code SiwQp.pump}); this thread only resumes what a full socket left (OP_WRITE).
 * Opt-in for now: {@code -Djrdma.iwarp.pollProgress=true} (or {@code jrdma.iwarp.pollProgress.NAME});
 * by default all receiving stays with this thread.
 *
 * <p>Threads and locks: the loop holds no lock between events; a connection takes its receive lock
 * (a try-lock shared with polling threads) and, inside it, its QP's lock for each FPDU it places
 * (docs/DESIGN.md lock order: QP lock and below), never the CM lock (CM work is handed to the CM
 * thread). The list of connections polling threads receive on ({@link #addPolled}) is a
 * copy-on-write array: changed under its own monitor on the control path, read lock-free.
 */
public final class SiwAgent {
    private static final Logger LOG = LoggerFactory.getLogger(SiwAgent.class);

    /** Something registered with the selector. */
    interface Handler {
        /** The key is ready (I/O thread, no lock held). Must not throw. */
        void ready(SelectionKey key);
    }

    private final String name;
    private final InetAddress address;
    private final SoftResources resources;
    private final int mss;
    private final Selector selector;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Consumer<SelectionKey> onKey = this::onKey;
    private final Thread thread;
    private volatile boolean running = true;
    /** Regions whose STag a LOCAL_INV or SEND with Invalidate invalidated (siw's {@code stag_valid = 0}). */
    private final KeyTable<SoftMr> invalidatedMrs = new KeyTable<>();
    private final SiwCounters counters = new SiwCounters();
    private final SiwCapture capture;
    /** How long (ms) the I/O thread naps between its looks while polling threads receive. */
    static final long STEP_BACK_MILLIS = 1;
    private static final SiwConnection[] NONE = {};
    private static final VarHandle EXTERNAL_ROUNDS;

    static {
        try {
            EXTERNAL_ROUNDS = MethodHandles.lookup().findVarHandle(SiwAgent.class, "externalRounds", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Whether threads polling an empty CQ receive ({@code jrdma.iwarp.pollProgress}, default false). */
    private final boolean pollProgress;
    /** The connections in RDMA mode, which polling threads receive on (copy-on-write under {@link #polledLock}). */
    private volatile SiwConnection[] polled = NONE;
    private final Object polledLock = new Object();
    /**
     * Calls of {@link #progress()} (racy increments by several threads lose counts, never the
     * change), published with opaque accesses; the I/O thread compares it between its looks.
     */
    private long externalRounds;
    /** Times an application thread was about to block for a CQ event. */
    private final AtomicLong blockingWaits = new AtomicLong();
    // I/O thread only
    private long roundsSeen;
    private long waitsSeen;

    /** An agent whose polling threads do not receive (all receiving on the I/O thread). */
    public SiwAgent(String name, InetAddress address, SoftResources resources, int mss) {
        this(name, address, resources, mss, false);
    }

    /** {@code pollProgress}: threads polling an empty CQ receive too ({@link #progress()}). */
    public SiwAgent(String name, InetAddress address, SoftResources resources, int mss, boolean pollProgress) {
        this.name = name;
        this.pollProgress = pollProgress;
        this.address = address;
        this.resources = resources;
        this.mss = mss;
        this.capture = new SiwCapture(name);
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.thread = new Thread(this::loop, "jrdma-" + name + "-io");
        thread.setDaemon(true);
    }

    /** Regions whose STag was invalidated, by key (lock-free lookups; see {@code SiwQp.invalidateStag}). */
    public KeyTable<SoftMr> invalidatedMrs() {
        return invalidatedMrs;
    }

    /** The device's counters (shared by its contexts in this process). */
    public SiwCounters counters() {
        return counters;
    }

    /** The device's packet capture (its connections' TCP streams). */
    public SiwCapture capture() {
        return capture;
    }

    /** The device name. */
    public String name() {
        return name;
    }

    /** The device's address. */
    public InetAddress address() {
        return address;
    }

    public SoftResources resources() {
        return resources;
    }

    /** The TCP maximum segment size the device sizes FPDUs to (interface MTU - IP/TCP headers and timestamps). */
    public int mss() {
        return mss;
    }

    public void start() {
        thread.start();
    }

    /** Stops the thread (joined up to 2 s) and closes every socket it served. */
    public void stop() {
        running = false;
        selector.wakeup();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SelectionKey k : selector.keys()) {
            try {
                k.channel().close();
            } catch (IOException e) {
                LOG.debug("{}: close: {}", name, e.toString());
            }
        }
        try {
            selector.close();
        } catch (IOException e) {
            LOG.debug("{}: selector close: {}", name, e.toString());
        }
    }

    /** Runs {@code task} on the I/O thread (any thread; lock-free). */
    public void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    /** True on the I/O thread. */
    boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    Selector selector() {
        return selector;
    }

    /**
     * Receives in the calling thread, a thread that found a CQ of the device empty (any thread, no
     * lock held; never blocks, allocates nothing): one non-blocking read on each connection that no
     * other thread is receiving on, and the FPDUs it completed.
     */
    public void progress() {
        if (!pollProgress) {
            return;
        }
        EXTERNAL_ROUNDS.setOpaque(this, (long) EXTERNAL_ROUNDS.getOpaque(this) + 1);
        for (SiwConnection c : polled) {
            c.pollReceive();
        }
    }

    /**
     * An application thread is about to block until a CQ event: it receives no more, so the I/O
     * thread must, now (any thread).
     */
    public void applicationBlocking() {
        blockingWaits.incrementAndGet();
        selector.wakeup();
    }

    /** Wakes the I/O thread (any thread). */
    void wakeup() {
        selector.wakeup();
    }

    /** {@code c} carries FPDUs now: polling threads may receive on it (CM thread; control path). */
    void addPolled(SiwConnection c) {
        synchronized (polledLock) {
            SiwConnection[] a = polled;
            for (SiwConnection x : a) {
                if (x == c) {
                    return;
                }
            }
            SiwConnection[] b = java.util.Arrays.copyOf(a, a.length + 1);
            b[a.length] = c;
            polled = b;
        }
    }

    /** {@code c} is closing (any thread; control path). */
    void removePolled(SiwConnection c) {
        synchronized (polledLock) {
            SiwConnection[] a = polled;
            for (int i = 0; i < a.length; i++) {
                if (a[i] == c) {
                    SiwConnection[] b = new SiwConnection[a.length - 1];
                    System.arraycopy(a, 0, b, 0, i);
                    System.arraycopy(a, i + 1, b, i, a.length - i - 1);
                    polled = b;
                    return;
                }
            }
        }
    }

    /**
     * Whether polling threads receive now (I/O thread, before each select): an application thread
     * polled since the last look and none is about to block. Drops or restores OP_READ on the
     * connections they receive on.
     */
    private boolean stepBack() {
        SiwConnection[] cs = polled;
        if (!pollProgress || cs.length == 0) {
            return false;
        }
        long rounds = (long) EXTERNAL_ROUNDS.getOpaque(this);
        long waits = blockingWaits.get();
        boolean back = rounds != roundsSeen && waits == waitsSeen;
        roundsSeen = rounds;
        waitsSeen = waits;
        for (SiwConnection c : cs) {
            c.readInterest(back);
        }
        return back;
    }

    private void loop() {
        while (running) {
            try {
                selector.select(onKey, stepBack() ? STEP_BACK_MILLIS : 1000);
                Runnable t;
                while ((t = tasks.poll()) != null) {
                    t.run();
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("{}: I/O loop: {}", name, e.toString(), e);
            }
        }
    }

    private void onKey(SelectionKey key) {
        if (key.isValid() && key.attachment() instanceof Handler h) {
            h.ready(key);
        }
    }
}
