package org.jrdma.cm;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * The CM of this JVM: its one lock, its one thread, the port table of every port space.
 *
 * <p>Threads and locks: the CM lock ({@link #lock}) guards every {@link CmId}'s state, the port table
 * and each transport's connection tables. Application threads take it inside the {@link CmId} calls;
 * the thread {@code jrdma-cm} (a daemon) takes it for each received MAD, each MAD timeout the
 * provider reports and each CM timer (timewait, resolution). Under it the CM calls the verbs (QP
 * modify, MAD sends), whose locks come after it; the provider calls back into the CM only through
 * {@link #execute}, which queues a task and takes no lock, so the CM lock comes first in the whole
 * lock order (before docs/DESIGN.md's level 1). Events go to an {@link EventChannel}'s lock-free queue.
 */
final class CmService {
    /** Ephemeral ports as Linux's default {@code ip_local_port_range}. */
    static final int EPHEMERAL_LOW = 32768;
    static final int EPHEMERAL_HIGH = 60999;

    private static final CmService INSTANCE = new CmService();

    final ReentrantLock lock = new ReentrantLock();
    private final ScheduledThreadPoolExecutor thread;
    /** (port space, port) → the IDs bound to it. */
    private final Map<Long, List<CmId>> ports = new HashMap<>();

    private CmService() {
        thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "jrdma-cm");
            t.setDaemon(true);
            return t;
        });
        thread.setRemoveOnCancelPolicy(true);
        Runtime.getRuntime().addShutdownHook(new Thread(this::processExit, "jrdma-cm-exit"));
    }

    /**
     * The JVM is exiting (normal exit, {@code System.exit}, SIGTERM, SIGINT; not SIGKILL): every
     * connection of every device ends as its ID's destroy ends it (DREQ when connected, REJ while
     * connecting), as the kernel's {@code ucma_close} destroys a closing process's IDs, so that the
     * peers see DISCONNECTED or REJECTED instead of a silent QP. Runs on the hook's thread under the
     * CM lock, waited for at most a second (a CM task that hangs does not hold the exit up).
     */
    private void processExit() {
        try {
            if (!lock.tryLock(1, TimeUnit.SECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            return;
        }
        try {
            for (CmDevice d : CmDevice.opened()) {
                d.provider.processExit();
            }
        } catch (RuntimeException e) {
            // the exit goes on; a peer then learns of the end from its QP
        } finally {
            lock.unlock();
        }
    }

    static CmService get() {
        return INSTANCE;
    }

    /** Runs {@code task} on the CM thread under the CM lock (any thread; takes no lock). */
    void execute(Runnable task) {
        thread.execute(() -> locked(task));
    }

    /** Runs {@code task} on the CM thread under the CM lock after {@code delayMs}. */
    ScheduledFuture<?> schedule(Runnable task, long delayMs) {
        return thread.schedule(() -> locked(task), delayMs, TimeUnit.MILLISECONDS);
    }

    private void locked(Runnable task) {
        lock.lock();
        try {
            task.run();
        } catch (RuntimeException e) {
            // a task's failure is the task's (it reports through events); the CM thread goes on
            System.getLogger(CmService.class.getName()).log(System.Logger.Level.WARNING, "CM task failed", e);
        } finally {
            lock.unlock();
        }
    }

    private static long key(PortSpace ps, int port) {
        return ((long) ps.value() << 16) | port;
    }

    /**
     * Binds {@code id} to {@code port} (0: an ephemeral port) of {@code address} in its port space, as
     * {@code cma_get_port}: a port is in use when another ID has it on the same address or either
     * address is the wildcard. Under the CM lock.
     *
     * @return the port bound
     * @throws VerbsException EADDRINUSE
     */
    int bindPort(CmId id, InetAddress address, int port) {
        if (port == 0) {
            int span = EPHEMERAL_HIGH - EPHEMERAL_LOW + 1;
            int start = ThreadLocalRandom.current().nextInt(span);
            for (int i = 0; i < span; i++) {
                int p = EPHEMERAL_LOW + (start + i) % span;
                if (free(id.portSpace(), address, p)) {
                    add(id, p);
                    return p;
                }
            }
            throw new VerbsException(Errno.EADDRINUSE, "rdma_bind_addr: no free ephemeral port");
        }
        if (!free(id.portSpace(), address, port)) {
            throw new VerbsException(Errno.EADDRINUSE, "rdma_bind_addr: port " + port + " of " + address.getHostAddress()
                    + " is in use in " + id.portSpace());
        }
        add(id, port);
        return port;
    }

    private boolean free(PortSpace ps, InetAddress address, int port) {
        for (CmId other : ports.getOrDefault(key(ps, port), List.of())) {
            InetAddress a = other.boundAddress();
            if (a == null || a.isAnyLocalAddress() || address.isAnyLocalAddress() || a.equals(address)) {
                return false;
            }
        }
        return true;
    }

    private void add(CmId id, int port) {
        ports.computeIfAbsent(key(id.portSpace(), port), k -> new ArrayList<>()).add(id);
    }

    /** Frees the port of {@code id} (under the CM lock). */
    void unbindPort(CmId id, int port) {
        List<CmId> l = ports.get(key(id.portSpace(), port));
        if (l != null) {
            l.remove(id);
            if (l.isEmpty()) {
                ports.remove(key(id.portSpace(), port));
            }
        }
    }

    /**
     * The listening ID for a connection request to {@code address}:{@code port} in {@code ps} on
     * {@code device}, as {@code cma_find_listener}: one bound to that address, else one bound to the
     * wildcard; null when none listens. Under the CM lock.
     */
    CmId findListener(PortSpace ps, int port, InetAddress address, CmDevice device) {
        CmId wildcard = null;
        for (CmId id : ports.getOrDefault(key(ps, port), List.of())) {
            if (!id.isListening()) {
                continue;
            }
            InetAddress a = id.boundAddress();
            if (a.isAnyLocalAddress()) {
                wildcard = id;
            } else if (a.equals(address) && id.device() == device) {
                return id;
            }
        }
        return wildcard;
    }
}
