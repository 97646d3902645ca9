package org.jrdma.cm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jrdma.mad.MadHeader;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.ext.ManagementDatagrams;

/**
 * A test double of QP1 for the CM's unit tests: a MAD layer with the semantics
 * {@link ManagementDatagrams} documents (copy on send, resend every timeout up to the retries,
 * cancel, modify, sendFailed), delivering MADs between the devices of this JVM by GID on its own
 * thread. Tests see every MAD sent ({@link #sent}) and may drop or duplicate them ({@link #dropIf},
 * {@link #duplicateIf}).
 */
final class MadFabric {
    static final MadFabric INSTANCE = new MadFabric();

    /** One MAD that went out: from, to, its 256 bytes. */
    record Sent(Gid from, Gid to, byte[] mad) {
        int attributeId() {
            return new MadHeader().wrap(MemorySegment.ofArray(mad), 0).attributeId();
        }
    }

    private final Map<Gid, ManagementDatagrams.MadHandler> handlers = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "test-mad-fabric");
        t.setDaemon(true);
        return t;
    });
    final List<Sent> sent = new CopyOnWriteArrayList<>();
    volatile Predicate<Sent> dropIf = s -> false;
    volatile Predicate<Sent> duplicateIf = s -> false;

    private MadFabric() {
    }

    /** Installs the fabric as the CM's QP1 for every device opened from now on. */
    static void install() {
        CmDevice.gsi = ctx -> Optional.of(INSTANCE.port(ctx));
    }

    void reset() {
        sent.clear();
        dropIf = s -> false;
        duplicateIf = s -> false;
    }

    List<Sent> sent(int attributeId) {
        List<Sent> l = new ArrayList<>();
        for (Sent s : sent) {
            if (s.attributeId() == attributeId) {
                l.add(s);
            }
        }
        return l;
    }

    /**
     * Hands {@code mad} to the CM of {@code to} as if it came from {@code from}'s QP1, on the
     * fabric's thread, without recording it in {@link #sent} (for storms of crafted MADs).
     */
    void inject(Gid from, Gid to, byte[] mad) {
        thread.execute(() -> {
            ManagementDatagrams.MadHandler h = handlers.get(to);
            if (h != null) {
                h.received(ManagementDatagrams.MadAddress.gsi(from), MemorySegment.ofArray(mad));
            }
        });
    }

    /** Waits until the fabric's thread has delivered everything handed to it so far. */
    void drain() throws Exception {
        thread.submit(() -> { }).get();
    }

    /** Delivers a MAD again as if its sender had sent it once more (a retry that crossed the answer). */
    void inject(Sent s) {
        deliver(s);
    }

    private ManagementDatagrams port(Context ctx) {
        Gid self = ctx.queryGid(1, 0);
        return (portNum, mgmtClass, classVersion, handler, methods) -> {
            handlers.put(self, handler);
            return new Agent(self, handler);
        };
    }

    private void deliver(Sent s) {
        sent.add(s);
        if (dropIf.test(s)) {
            return;
        }
        int copies = duplicateIf.test(s) ? 2 : 1;
        for (int i = 0; i < copies; i++) {
            thread.execute(() -> {
                ManagementDatagrams.MadHandler h = handlers.get(s.to());
                if (h != null) {
                    h.received(ManagementDatagrams.MadAddress.gsi(s.from()), MemorySegment.ofArray(s.mad().clone()));
                }
            });
        }
    }

    private final class Agent implements ManagementDatagrams.MadAgent {
        private final Gid self;
        private final ManagementDatagrams.MadHandler handler;
        private final Map<Long, Outstanding> outstanding = new ConcurrentHashMap<>();

        Agent(Gid self, ManagementDatagrams.MadHandler handler) {
            this.self = self;
            this.handler = handler;
        }

        private final class Outstanding {
            final Sent mad;
            int left;
            volatile ScheduledFuture<?> timer;

            Outstanding(Sent mad, int retries) {
                this.mad = mad;
                this.left = retries;
            }
        }

        @Override
        public void send(ManagementDatagrams.MadAddress to, MemorySegment mad, int timeoutMs, int retries) {
            byte[] copy = mad.asSlice(0, ManagementDatagrams.MAD_SIZE).toArray(ValueLayout.JAVA_BYTE);
            Sent s = new Sent(self, to.gid(), copy);
            long tid = new MadHeader().wrap(MemorySegment.ofArray(copy), 0).transactionId();
            if (timeoutMs > 0) {
                Outstanding o = new Outstanding(s, retries);
                outstanding.put(tid, o);
                arm(tid, o, timeoutMs);
            }
            deliver(s);
        }

        private void arm(long tid, Outstanding o, long timeoutMs) {
            o.timer = thread.schedule(() -> {
                if (outstanding.get(tid) != o) {
                    return;
                }
                if (o.left-- > 0) {
                    deliver(o.mad);
                    arm(tid, o, timeoutMs);
                } else {
                    outstanding.remove(tid);
                    handler.sendFailed(tid);
                }
            }, timeoutMs, TimeUnit.MILLISECONDS);
        }

        @Override
        public void cancel(long transactionId) {
            Outstanding o = outstanding.remove(transactionId);
            if (o != null && o.timer != null) {
                o.timer.cancel(false);
            }
        }

        @Override
        public void modify(long transactionId, int timeoutMs) {
            Outstanding o = outstanding.get(transactionId);
            if (o != null) {
                o.timer.cancel(false);
                arm(transactionId, o, timeoutMs);
            }
        }

        @Override
        public void close() {
            handlers.remove(self, handler);
        }
    }
}
