package org.jrdma.iwarp.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 * <p>Threads and locks: the loop holds no lock between events; a connection takes its QP's lock for
 * each FPDU it places (docs/DESIGN.md lock order: QP lock and below), never the CM lock (CM work is
 * handed to the CM thread).
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

    public SiwAgent(String name, InetAddress address, SoftResources resources, int mss) {
        this.name = name;
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

    private void loop() {
        while (running) {
            try {
                selector.select(onKey, 1000);
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
