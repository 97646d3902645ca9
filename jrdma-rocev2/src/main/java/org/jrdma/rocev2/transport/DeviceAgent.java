package org.jrdma.rocev2.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.concurrent.Agent;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.stats.Counters;
import org.jrdma.rocev2.wire.PacketBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O loop of one device as an Agrona {@link Agent}: each {@link #doWork()} receives a burst
 * from the port ({@link PacketPort#receiveBurst}) and dispatches it ({@link RxeRecv}), sends the
 * coalesced ACKs ({@link AckCoalescer}), and runs the expired retransmission and RNR timers
 * ({@link TimerWheel}); it returns the packets received plus the timers fired, and its
 * {@link DeviceIdleStrategy} decides from that how to wait.
 *
 * <p>Who receives: application threads that poll an empty CQ receive in their own thread
 * ({@link #progress()}, one packet per call: the poller sees its completion without the system
 * call that would find the socket empty). While they do, the agent steps back: it only runs the
 * timers and naps ({@link #steppedBack()}), so that a busy-polling application does not share its
 * core with the device's thread; it receives again once a nap passed without a poll, or at once
 * when an application thread is about to block for a CQ event ({@link #applicationBlocking()}).
 * A polling thread defers its ACKs ({@code jrdma.deferAcks}) until after its next post
 * ({@link #flushDeferredAcks()}), its next poll, or the agent's next burst.
 *
 * <p>Threads and locks: {@link #doWork()} runs on the device's I/O agent thread, which alone owns
 * the timer wheel and the burst. Whoever receives holds the receive lock ({@code rxLock}, a
 * {@link ReentrantLock}: the agent takes it, polling threads only try it) and, inside it, a QP's
 * lock per packet (receive lock → QP lock → CQ lock, never the other way). Timers run with no lock
 * held but the QP's own. A malformed or unexpected packet is dropped and counted; no exception
 * leaves {@link #doWork()} or {@link #progress()}.
 */
final class DeviceAgent implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceAgent.class);
    /** Datagrams per burst. */
    static final int BURST = 64;
    /**
     * Bytes per burst slot: more than any RoCE packet (4096 bytes of payload, headers, ICRC); a
     * longer datagram is counted as {@code rcvd_drop_bad_length} unread.
     */
    static final int SLOT_BYTES = 8192;
    /** The buffer of a polling thread's single receive (as large as a UDP datagram). */
    private static final int RX_CAPACITY = 65536;
    /**
     * While application threads polled within about this time, the I/O thread leaves receiving to
     * them and naps this long between its looks (timers included).
     */
    static final long EXTERNAL_PROGRESS_NANOS = 1_000_000;
    private static final VarHandle EXTERNAL_ROUNDS;

    static {
        try {
            EXTERNAL_ROUNDS = MethodHandles.lookup().findVarHandle(DeviceAgent.class, "externalRounds", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final PacketPort port;
    private final Counters counters;
    private final RxeRecv recv;
    private final AckCoalescer acks;
    private final TimerWheel wheel;
    /** QPs whose requester waits for its DCQCN rate (issue 16). */
    private final Pacer pacer = new Pacer();
    /**
     * While the I/O thread blocks (in poll(2) or a nap): the System.nanoTime it blocks until at the
     * latest; 0 while it runs. A QP due earlier wakes it ({@link #wakeForPacing}).
     */
    private volatile long sleepingUntil;
    /** Whether polling threads receive ({@code jrdma.pollProgress=false} leaves it all to the I/O thread). */
    private final boolean pollProgress;
    /** Whether a polling thread defers its ACKs until after its next post ({@code jrdma.deferAcks}). */
    private final boolean deferAcks;

    private final PacketBurst burst = new PacketBurst(BURST, SLOT_BYTES);
    private final PacketBuffer rx = PacketBuffer.allocate(RX_CAPACITY);
    private final SockAddr from = new SockAddr();
    /** Held by whichever thread receives: the I/O thread, or an application thread in {@link #progress()}. */
    private final ReentrantLock rxLock = new ReentrantLock();
    /**
     * Receive attempts made by application threads in {@link #progress()}, successful or not (racy
     * increments by several threads lose counts, never the change), published with opaque accesses
     * (no fence, no clock read on the polling path); the I/O thread compares it between its naps to
     * tell whether an application thread is polling.
     */
    private long externalRounds;
    /** Times an application thread was about to block for a CQ event ({@link #applicationBlocking()}). */
    private final AtomicLong blockingWaits = new AtomicLong();
    // agent thread only
    private long roundsSeen;
    private long waitsSeen;
    private boolean steppedBack;
    private volatile Thread thread;
    /** Run once, on the first fatal error of the I/O loop (issue 10: IBV_EVENT_DEVICE_FATAL); set before the agent starts. */
    private Runnable onFatal = () -> { };
    private final java.util.concurrent.atomic.AtomicBoolean fatalRaised = new java.util.concurrent.atomic.AtomicBoolean();

    DeviceAgent(String name, PacketPort port, Counters counters, RxeRecv recv, AckCoalescer acks, boolean pollProgress,
                boolean deferAcks) {
        this.name = name;
        this.port = port;
        this.counters = counters;
        this.recv = recv;
        this.acks = acks;
        this.wheel = new TimerWheel(System.nanoTime(), this::onLoopError);
        this.pollProgress = pollProgress;
        this.deferAcks = deferAcks;
    }

    @Override
    public String roleName() {
        return "jrdma-" + name + "-io";
    }

    @Override
    public void onStart() {
        thread = Thread.currentThread();
        roundsSeen = (long) EXTERNAL_ROUNDS.getOpaque(this);
        waitsSeen = blockingWaits.get();
    }

    @Override
    public void onClose() {
        thread = null;
    }

    /**
     * One round of the I/O thread: unless application threads are receiving, a burst (dispatched,
     * ACKs sent); then the timers.
     *
     * @return packets received + timers fired
     */
    @Override
    public int doWork() {
        int work = 0;
        try {
            long rounds = (long) EXTERNAL_ROUNDS.getOpaque(this);
            long waits = blockingWaits.get();
            if (waits != waitsSeen) {
                // an application thread blocks for an event: receive (and send its deferred ACKs) now
                waitsSeen = waits;
                roundsSeen = rounds;
                steppedBack = false;
            } else if (rounds != roundsSeen) {
                // an application thread polled since the last look: leave receiving (and the ACKs it
                // deferred, which it sends on its next poll or post) to it, keep the timers going, and
                // nap (the idle strategy), so that a busy-polling application keeps its core to itself
                roundsSeen = rounds;
                steppedBack = true;
            } else {
                steppedBack = false;
            }
            if (!steppedBack) {
                rxLock.lock();
                try {
                    work += receiveBurst();
                } finally {
                    rxLock.unlock();
                }
            }
            long now = System.nanoTime();
            work += wheel.poll(now);
            pacer.poll(now); // not counted as work: the idle strategy still blocks between paced packets
        } catch (Throwable t) {
            onLoopError(t);
        }
        return work;
    }

    /** The device's timer wheel, owned by the agent thread ({@link TimerWheel#set} from any thread). */
    TimerWheel timers() {
        return wheel;
    }

    /** Whether the last {@link #doWork()} left receiving to polling application threads (agent thread). */
    boolean steppedBack() {
        return steppedBack;
    }

    /** ns until the timers or a paced QP may next have work (agent thread), for the idle strategy's longest block. */
    long nanosToNextTimer(long now) {
        return Math.min(wheel.nanosToNextTick(now), pacer.nanosToNext(now));
    }

    /** ns until a paced QP is due, {@link Long#MAX_VALUE} when none waits (agent thread). */
    long nanosToNextPace(long now) {
        return pacer.nanosToNext(now);
    }

    /** The idle strategy is about to block until {@code deadline} (System.nanoTime), or 0: it runs again. */
    void sleeping(long deadline) {
        sleepingUntil = deadline;
    }

    /**
     * A QP's requester waits for its rate until {@code qp.paceDeadline} (any thread, under the QP's
     * lock): the I/O thread resumes it then, and is woken now if it blocks for longer.
     */
    void pace(RxeQp qp) {
        if (pacer.add(qp)) {
            wakeForPacing(qp.paceDeadline);
        }
    }

    /** Wakes the I/O thread if it blocks past {@code deadline}. */
    void wakeForPacing(long deadline) {
        long s = sleepingUntil;
        if (s != 0 && deadline - s < 0) {
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
            port.wakeup();
        }
    }

    /** The pacer (for tests in this package). */
    Pacer pacer() {
        return pacer;
    }

    /**
     * Receives and processes one packet in the calling thread, if no other thread is receiving
     * (lock-free try). Called by application threads that poll an empty CQ: while they do, they are
     * the device's receive path and the I/O thread steps back.
     */
    void progress() {
        if (!pollProgress) {
            return;
        }
        // counted before the lock is tried: while the I/O thread receives, every try of a poller fails,
        // and counting only successes would let the I/O thread keep the socket (and the core) from it
        EXTERNAL_ROUNDS.setOpaque(this, (long) EXTERNAL_ROUNDS.getOpaque(this) + 1);
        if (rxLock.tryLock()) {
            try {
                acks.flush(); // what an earlier call deferred
                int n = port.receive(rx, from);
                if (n != 0) {
                    recv.dispatch(rx, n, from, port.lastIpv4IdAndFlags(), port.lastTrafficClass());
                }
                if (!deferAcks) {
                    acks.flush();
                }
            } catch (Throwable t) {
                onLoopError(t);
            } finally {
                rxLock.unlock();
            }
        }
    }

    /**
     * An application thread is about to block until a CQ event: it receives no more, so the I/O
     * thread must, now (it may be napping because that thread received in {@link #progress()}).
     */
    void applicationBlocking() {
        blockingWaits.incrementAndGet();
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * Sends the ACKs a polling thread deferred, if no thread is receiving right now (then that one
     * sends them). Called after a post: the application's reply leaves before the ACK of the
     * received message, which takes a system call off the request-to-reply path.
     */
    void flushDeferredAcks() {
        if (acks.pending() && rxLock.tryLock()) {
            try {
                acks.flush();
            } finally {
                rxLock.unlock();
            }
        }
    }

    /**
     * Sends the ACKs that polling threads deferred, whoever is receiving (waits for the receive
     * lock): before a QP goes away and before the device stops.
     */
    void flushOwedAcks() {
        rxLock.lock();
        try {
            acks.flush();
        } finally {
            rxLock.unlock();
        }
    }

    /** A responder owes an ACK (receiving thread, under the receive lock). */
    void scheduleAck(RxeQp qp) {
        acks.schedule(qp);
    }

    /**
     * Receives a burst and dispatches it, then sends the coalesced ACKs. Under the receive lock.
     *
     * @return datagrams received
     */
    private int receiveBurst() {
        int n = 0;
        try {
            n = port.receiveBurst(burst);
            for (int i = 0; i < n; i++) {
                try {
                    recv.dispatch(burst.buffer(i), burst.length(i), burst.from(i), burst.ipv4IdAndFlags(i),
                            burst.trafficClass(i));
                } catch (RuntimeException | StackOverflowError | AssertionError e) {
                    onLoopError(e); // this packet is lost, the rest of the burst goes on
                }
            }
        } finally {
            acks.flush();
        }
        return n;
    }

    /**
     * What runs once when the I/O loop first catches a fatal error (a VM {@link Error} other than an
     * assertion or a stack overflow: out of memory, a linkage error): a packet was left half
     * processed, so the device's state can no longer be trusted; the provider raises
     * IBV_EVENT_DEVICE_FATAL. Set before the agent starts.
     */
    void onFatal(Runnable action) {
        onFatal = action;
    }

    void onLoopError(Throwable t) {
        counters.increment(Counters.RCVD_DROP_INTERNAL);
        LOG.debug("{}: error in the I/O loop (packet dropped)", name, t);
        if (t instanceof Error && !(t instanceof AssertionError) && !(t instanceof StackOverflowError)) {
            LOG.error("{}: fatal error in the I/O loop", name, t);
            if (fatalRaised.compareAndSet(false, true)) {
                onFatal.run();
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
