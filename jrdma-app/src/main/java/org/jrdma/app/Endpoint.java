package org.jrdma.app;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.jrdma.cm.CmEvent;
import org.jrdma.cm.CmId;
import org.jrdma.pool.Lease;
import org.jrdma.pool.RegisteredPool;
import org.jrdma.verbs.CompletionQueue;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.ProtectionDomain;
import org.jrdma.verbs.QpAttr;
import org.jrdma.verbs.QpAttrMask;
import org.jrdma.verbs.QpInitAttr;
import org.jrdma.verbs.QpState;
import org.jrdma.verbs.QueuePair;
import org.jrdma.verbs.RecvWr;
import org.jrdma.verbs.SendFlags;
import org.jrdma.verbs.SendWr;
import org.jrdma.verbs.Sge;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.WcFlags;
import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;
import org.jrdma.verbs.WorkCompletion;
import org.jrdma.verbs.WrOpcode;

/**
 * A connected RC endpoint: one CM ID, its QP and one CQ, with a {@link CompletableFuture} per work
 * request, or (the callback form of each operation) an {@link EndpointCompletionHandler} and an
 * attachment kept in the work request's slot. Made by {@link EndpointGroup#connect} or
 * {@link EndpointListener#accept}.
 *
 * <p><b>Operations.</b> {@link #send}, {@link #write}, {@link #writeWithImm}, {@link #read},
 * {@link #compareAndSwap} and {@link #fetchAndAdd} post one signaled work request over memory of a
 * pool {@link Lease} and return its future; {@link #receive()} returns the next arriving message
 * (the endpoint keeps {@link EndpointConfig#recvDepth()} pool buffers posted). Every argument is
 * checked before anything is posted: the lease must be open and {@code [offset, offset + length)}
 * inside its capacity, the remote range inside the {@link RemoteBuffer} (a descriptor a peer sent
 * is not trusted), an atomic's remote address 8-byte aligned (all: {@link VerbsException} EINVAL);
 * more than {@link EndpointConfig#sendDepth()} outstanding work requests is ENOMEM. The lease is
 * pinned until its work request completes, so closing it early never lets its buffer be reused
 * while the device may still read or write it. On soft iWARP, immediate data and atomics fail at post
 * with EINVAL, as on siw.
 *
 * <p><b>Futures.</b> A future completes normally when its work completion is polled with status
 * SUCCESS (value: null; atomics: the remote value before the operation); exceptionally with
 * {@link WorkRequestException} for an error status, with {@link TimeoutException} when no completion
 * came within {@link EndpointConfig#timeout()} of the post, with {@link EndpointClosedException} when
 * the endpoint closed or broke while it was outstanding. Futures are completed by whoever progresses
 * the endpoint (the group's progress thread, or the application through {@link #progress()}), in
 * that thread: dependent actions run there unless made async; they must not block it.
 * {@code cancel} on a future only detaches the caller: RDMA cannot withdraw a posted work request,
 * which still runs (its buffer stays pinned until its completion, and its effect on the peer may
 * happen). A {@link #receive()} future that times out or is cancelled takes no message.
 *
 * <p><b>Breaking and closing.</b> The first error completion, timed-out work request, DISCONNECTED
 * event or device loss breaks the endpoint: the QP goes to ERR and is disconnected (the peer gets
 * DISCONNECTED), every outstanding future fails at once with {@link EndpointClosedException} (its
 * cause: what broke it), and new operations return failed futures. A peer that vanishes without a
 * word is noticed by the first work request that gets no answer: within {@link EndpointConfig#timeout()}
 * (or earlier, by RETRY_EXC_ERR after the QP's retries), every outstanding future has failed. With
 * nothing outstanding nothing notices it (RDMA has no keep-alive); a waiting {@link #receive()} times
 * out. {@link #close()} disconnects, fails what is outstanding, destroys the QP and CQ and the CM ID,
 * returns the posted receive buffers and those of messages not yet taken; it is idempotent.
 *
 * <p><b>Threads and locks.</b> Any thread may post; posts and the bookkeeping of completions serialize
 * on the endpoint's lock (held only for table updates and {@code postSend}/{@code postRecv}, never while
 * completing a future). {@link #progress()} runs in one thread at a time (a try-lock: a concurrent
 * call returns 0). Lock order: progress lock → CM dispatcher lock → endpoint lock.
 *
 * <p><b>Callbacks.</b> {@code read(lease, offset, length, remote, remoteOffset, attachment, handler)}
 * and the same form of every other send-queue operation post exactly as the future form and tell the
 * handler instead (NIO's {@code CompletionHandler} style): once per posted operation, with the same
 * outcomes and in the same threads as a future's (see {@link EndpointCompletionHandler}); a late
 * completion of an operation already failed by a timeout or by the endpoint breaking tells nothing.
 * {@link #receive(Object, EndpointReceiveHandler)} is the callback form of {@link #receive()}: its
 * {@link EndpointReceiveHandler} is told once, with a {@link ReceivedView} of the endpoint's own
 * receive buffer (valid until the handler returns, or until {@link ReceivedView#release()} after
 * {@link ReceivedView#retain()}; then the same buffer is posted again), with a
 * {@link TimeoutException}, or with {@link EndpointClosedException} when the endpoint closes or
 * breaks first.
 *
 * <p><b>Allocation</b> (steady state, one operation at a time; measured by
 * {@code EndpointAllocationTest}, figures per kind in jrdma-app/README.md). The callback form
 * allocates nothing in the posting thread (0 bytes per operation of every kind, on soft RoCE and soft
 * iWARP). The progress thread that completes it allocates nothing either, per completion or per
 * idle wait on a soft device's completion channel (0 bytes measured over 10,000 operations of each
 * kind with thousands of waits). The future form
 * allocates its {@link CompletableFuture} (24 bytes) in the posting thread, and an atomic's value is
 * boxed as a {@link Long} when the future completes (16 bytes, outside the Long cache). An atomic's
 * 8-byte result lives in the endpoint's results lease (a slot's 8 bytes; leased once at creation, so
 * an endpoint holds one more pool lease, returned by close), unless {@code 8 * sendDepth} is more than
 * the pool's largest lease (then each atomic leases 8 bytes). The work request, its SGE and the
 * completion array are reused; {@link #receive()} allocates its future, the {@link Received} and
 * (reposting) the next receive buffer's {@link Lease}. The callback form of receive allocates nothing
 * per message when the receive waits before its message arrives (its entry in a reused ring, the
 * slot's view and buffer reused, the buffer posted again as it was); {@code EndpointAllocationTest}
 * measures it on both soft providers.
 */
public final class Endpoint implements AutoCloseable {
    private static final long RECV = 1L << 62;

    private enum State { CONNECTING, CONNECTED, BROKEN, CLOSED }

    private enum Kind {
        SEND("send"), WRITE("write"), WRITE_WITH_IMM("write_with_imm"), READ("read"), COMP_SWAP("comp_swap"), FETCH_ADD("fetch_add");

        /** The name in messages (made once: a post builds no string). */
        final String what;

        Kind(String what) {
            this.what = what;
        }

        boolean atomic() {
            return this == COMP_SWAP || this == FETCH_ADD;
        }
    }

    /**
     * An outstanding send-queue work request: a slot, reused, indexed by its wr_id. Exactly one of
     * {@code future} and {@code handler} is set while it is active.
     */
    private static final class Op {
        Kind kind;
        CompletableFuture<Object> future;
        EndpointCompletionHandler<Object> handler;
        Object attachment;
        Lease lease;
        /** An atomic's own 8-byte result lease, when the endpoint has no {@code results} lease (else null). */
        Lease result;
        long deadline;
        boolean active;
        /** The application was told (timeout, break, close) before the completion came: the completion tells nothing. */
        boolean notified;

        void clear() {
            active = false;
            notified = false;
            future = null;
            handler = null;
            attachment = null;
            lease = null;
            result = null;
        }
    }

    private final EndpointGroup group;
    private final CmId id;
    private final CmDispatch dispatch;
    private final boolean ownsDispatch;
    private final EndpointGroup.GroupDevice device;
    private final EndpointConfig cfg;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final long timeoutNanos;
    private final Object lock = new Object();

    /** A receive waiting for its message: a future, or a handler and its attachment. */
    private static final class Waiter {
        CompletableFuture<Received> future;
        EndpointReceiveHandler<Object> handler;
        Object attachment;
        long deadline;

        void clear() {
            future = null;
            handler = null;
            attachment = null;
        }

        /** A copy to tell outside the lock (failure paths only: allocates). */
        Waiter copy() {
            Waiter x = new Waiter();
            x.future = future;
            x.handler = handler;
            x.attachment = attachment;
            return x;
        }

        /** Tells this receive {@code exc} (outside the lock). */
        void fail(Throwable exc) {
            if (future != null) {
                future.completeExceptionally(exc);      // a cancelled one ignores it
            } else {
                tellReceiveFailed(handler, exc, attachment);
            }
        }
    }

    private static Waiter[] newWaiters(int n) {
        Waiter[] w = new Waiter[n];
        for (int i = 0; i < n; i++) {
            w[i] = new Waiter();
        }
        return w;
    }
    private final ReentrantLock progressLock = new ReentrantLock();
    private final WorkCompletion[] wcs = new WorkCompletion[16];
    /**
     * The 8-byte results of atomics, one per slot ({@code slot * 8}), leased once so that an atomic leases
     * nothing; null when {@code 8 * sendDepth} is more than the pool's largest lease (then each atomic
     * leases 8 bytes).
     */
    private final Lease results;
    private final CompletableFuture<Void> established = new CompletableFuture<>();
    // guarded by lock
    private final Op[] ops;
    private final int[] freeOps;
    private int freeCount;
    /** Each receive slot's buffer: posted, lent to a handler ({@code views[i]} valid), or null (to be leased and posted). */
    private final Lease[] recvs;
    /** A view per receive slot, lent to a receive handler with the slot's buffer (made once). */
    private final ReceivedView[] views;
    private final boolean[] lent;
    private int recvPosted;
    private int recvLent;
    /** Messages that came before a receive asked for them (each with its own lease, out of its slot). */
    private final ArrayDeque<Received> arrived = new ArrayDeque<>();
    /**
     * The receives waiting for a message, oldest first: a ring of reused entries (grown when full,
     * never shrunk), so that a receive with a handler allocates nothing. Invariant (under the lock):
     * {@code arrived} and the ring are not both non-empty for longer than until the next progress round.
     */
    private Waiter[] waiters = newWaiters(8);
    private int waiterHead;
    private int waiterCount;
    private final SendWr swr = new SendWr();
    private final Sge ssge = new Sge();
    private final RecvWr rwr = new RecvWr();
    private final Sge rsge = new Sge();
    private State state = State.CONNECTING;
    private Throwable failure;
    private volatile byte[] peerPrivateData = new byte[0];
    private long nextTimeoutCheck;

    Endpoint(EndpointGroup group, CmId id, CmDispatch dispatch, boolean ownsDispatch, EndpointGroup.GroupDevice device,
             EndpointConfig cfg) {
        this.group = group;
        this.id = id;
        this.dispatch = dispatch;
        this.ownsDispatch = ownsDispatch;
        this.device = device;
        this.cfg = cfg;
        this.timeoutNanos = cfg.timeout().toNanos();
        this.ops = new Op[cfg.sendDepth()];
        this.freeOps = new int[cfg.sendDepth()];
        for (int i = 0; i < ops.length; i++) {
            ops[i] = new Op();
            freeOps[i] = ops.length - 1 - i;
        }
        this.freeCount = ops.length;
        swr.sgList(ssge);
        rwr.sgList(rsge);
        this.recvs = new Lease[cfg.recvDepth()];
        this.views = new ReceivedView[cfg.recvDepth()];
        this.lent = new boolean[cfg.recvDepth()];
        for (int i = 0; i < views.length; i++) {
            views[i] = new ReceivedView(this, i);
        }
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        this.results = 8 * cfg.sendDepth() <= device.pool.maxLease() ? device.pool.lease(8 * cfg.sendDepth()) : null;
        try {
            this.cq = id.verbs().createCq(cfg.sendDepth() + cfg.recvDepth(), device.channel);
        } catch (RuntimeException e) {
            closeQuietly(results);
            throw e;
        }
        try {
            QpInitAttr a = new QpInitAttr().sendCq(cq).recvCq(cq);
            a.cap().maxSendWr(cfg.sendDepth()).maxRecvWr(cfg.recvDepth()).maxSendSge(1).maxRecvSge(1);
            this.qp = id.createQp(device.pd, a);
        } catch (RuntimeException e) {
            cq.close();
            closeQuietly(results);
            throw e;
        }
        dispatch.register(id, this);
        synchronized (lock) {
            postReceives();
        }
    }

    // ---- what it is ----

    /** The device context the connection runs on. */
    public Context context() {
        return id.verbs();
    }

    /** The protection domain of the endpoint's QP (the group's for this device). */
    public ProtectionDomain pd() {
        return device.pd;
    }

    /** The pool of the endpoint's device, whose leases the operations take. */
    public RegisteredPool pool() {
        return device.pool;
    }

    /** The endpoint's QP (for inspection; posting to it directly bypasses the endpoint's bookkeeping). */
    public QueuePair qp() {
        return qp;
    }

    public InetSocketAddress localAddress() {
        return id.localAddress();
    }

    public InetSocketAddress peerAddress() {
        return id.peerAddress();
    }

    /**
     * The private data the peer sent when connecting: for the accepting side the connect request's
     * (56 bytes on RoCE, zero-padded), for the connecting side the accept's (196 bytes on RoCE). Empty
     * before the connection is made.
     */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /** Whether the endpoint is connected (not yet broken or closed). */
    public boolean isConnected() {
        synchronized (lock) {
            return state == State.CONNECTED;
        }
    }

    /** What broke the endpoint, or null while it is connected. */
    public Throwable failure() {
        synchronized (lock) {
            return failure;
        }
    }

    // ---- operations ----

    /** SEND of {@code [offset, offset + length)} of {@code lease} (RC SEND, signaled). */
    public CompletableFuture<Void> send(Lease lease, int offset, int length) {
        return post(Kind.SEND, lease, offset, length, null, 0, 0, 0, 0, null, null);
    }

    /** SEND of the lease's first {@link Lease#length()} bytes. */
    public CompletableFuture<Void> send(Lease lease) {
        return send(lease, 0, lease.length());
    }

    /** RDMA WRITE of {@code [offset, offset + length)} of {@code lease} to {@code remote} at {@code remoteOffset}. */
    public CompletableFuture<Void> write(Lease lease, int offset, int length, RemoteBuffer remote, long remoteOffset) {
        return post(Kind.WRITE, lease, offset, length, remote, remoteOffset, 0, 0, 0, null, null);
    }

    /**
     * RDMA WRITE with immediate data: as {@link #write}, and the peer's next receive completes with
     * {@code imm} ({@link Received#immData()}), consuming one of its receive buffers.
     */
    public CompletableFuture<Void> writeWithImm(Lease lease, int offset, int length, RemoteBuffer remote, long remoteOffset, int imm) {
        return post(Kind.WRITE_WITH_IMM, lease, offset, length, remote, remoteOffset, imm, 0, 0, null, null);
    }

    /** RDMA READ of {@code length} bytes of {@code remote} at {@code remoteOffset} into {@code lease} at {@code offset}. */
    public CompletableFuture<Void> read(Lease lease, int offset, int length, RemoteBuffer remote, long remoteOffset) {
        return post(Kind.READ, lease, offset, length, remote, remoteOffset, 0, 0, 0, null, null);
    }

    /**
     * ATOMIC compare-and-swap on the 8 bytes of {@code remote} at {@code remoteOffset}: if they equal
     * {@code expect} they become {@code swap}. The future's value is the 8 bytes before (the swap
     * happened if it equals {@code expect}). Needs REMOTE_ATOMIC on the peer's region.
     */
    public CompletableFuture<Long> compareAndSwap(RemoteBuffer remote, long remoteOffset, long expect, long swap) {
        return post(Kind.COMP_SWAP, null, 0, 8, remote, remoteOffset, 0, expect, swap, null, null);
    }

    /** ATOMIC fetch-and-add of {@code add} to the 8 bytes of {@code remote} at {@code remoteOffset}; the value before. */
    public CompletableFuture<Long> fetchAndAdd(RemoteBuffer remote, long remoteOffset, long add) {
        return post(Kind.FETCH_ADD, null, 0, 8, remote, remoteOffset, 0, add, 0, null, null);
    }

    // ---- the same operations with a completion handler (nothing allocated per operation) ----

    /**
     * As {@link #send(Lease, int, int)}, telling {@code handler} instead of returning a future (value 0).
     * Arguments are checked as there (EINVAL, ENOMEM thrown, nothing posted, the handler not called); on
     * an endpoint that is not connected the handler's {@code failed} is called in this thread before
     * this returns.
     */
    public <A> void send(Lease lease, int offset, int length, A attachment, EndpointCompletionHandler<? super A> handler) {
        post(Kind.SEND, lease, offset, length, null, 0, 0, 0, 0, attachment, handler(handler));
    }

    /** As {@link #write}, telling {@code handler} (value 0); see {@link #send(Lease, int, int, Object, EndpointCompletionHandler)}. */
    public <A> void write(Lease lease, int offset, int length, RemoteBuffer remote, long remoteOffset, A attachment,
                          EndpointCompletionHandler<? super A> handler) {
        post(Kind.WRITE, lease, offset, length, remote, remoteOffset, 0, 0, 0, attachment, handler(handler));
    }

    /** As {@link #writeWithImm}, telling {@code handler} (value 0); see {@link #send(Lease, int, int, Object, EndpointCompletionHandler)}. */
    public <A> void writeWithImm(Lease lease, int offset, int length, RemoteBuffer remote, long remoteOffset, int imm, A attachment,
                                 EndpointCompletionHandler<? super A> handler) {
        post(Kind.WRITE_WITH_IMM, lease, offset, length, remote, remoteOffset, imm, 0, 0, attachment, handler(handler));
    }

    /** As {@link #read}, telling {@code handler} (value 0); see {@link #send(Lease, int, int, Object, EndpointCompletionHandler)}. */
    public <A> void read(Lease lease, int offset, int length, RemoteBuffer remote, long remoteOffset, A attachment,
                         EndpointCompletionHandler<? super A> handler) {
        post(Kind.READ, lease, offset, length, remote, remoteOffset, 0, 0, 0, attachment, handler(handler));
    }

    /**
     * As {@link #compareAndSwap(RemoteBuffer, long, long, long)}, telling {@code handler}, whose value is
     * the 8 remote bytes before (no boxing); see {@link #send(Lease, int, int, Object, EndpointCompletionHandler)}.
     */
    public <A> void compareAndSwap(RemoteBuffer remote, long remoteOffset, long expect, long swap, A attachment,
                                   EndpointCompletionHandler<? super A> handler) {
        post(Kind.COMP_SWAP, null, 0, 8, remote, remoteOffset, 0, expect, swap, attachment, handler(handler));
    }

    /** As {@link #fetchAndAdd(RemoteBuffer, long, long)}, telling {@code handler} the value before; see the SEND form. */
    public <A> void fetchAndAdd(RemoteBuffer remote, long remoteOffset, long add, A attachment, EndpointCompletionHandler<? super A> handler) {
        post(Kind.FETCH_ADD, null, 0, 8, remote, remoteOffset, 0, add, 0, attachment, handler(handler));
    }

    @SuppressWarnings("unchecked")
    private static EndpointCompletionHandler<Object> handler(EndpointCompletionHandler<?> h) {
        if (h == null) {
            throw new NullPointerException("handler");
        }
        return (EndpointCompletionHandler<Object>) h;
    }

    /**
     * The next message to arrive (or one that arrived before and was not taken), within
     * {@link EndpointConfig#timeout()}; see the class comment for how it fails.
     */
    public CompletableFuture<Received> receive() {
        return receive(cfg.timeout());
    }

    /** As {@link #receive()}, waiting at most {@code timeout} (then {@link TimeoutException}). */
    public CompletableFuture<Received> receive(Duration timeout) {
        CompletableFuture<Received> f = new CompletableFuture<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            if (waiterCount == 0) {
                Received r = arrived.pollFirst();
                if (r != null) {
                    f.complete(r);
                    return f;
                }
            }
            if (waiterCount == 0 && state != State.CONNECTED && state != State.CONNECTING) {
                f.completeExceptionally(closedException());
                return f;
            }
            addWaiter(f, null, null, deadline);
        }
        return f;
    }

    /**
     * The callback form of {@link #receive()}: {@code handler} is told the next message (or why none
     * came within {@link EndpointConfig#timeout()}), exactly once; see
     * {@link #receive(Duration, Object, EndpointReceiveHandler)}.
     */
    public <A> void receive(A attachment, EndpointReceiveHandler<? super A> handler) {
        receive(cfg.timeout(), attachment, handler);
    }

    /**
     * The callback form of {@link #receive(Duration)}: asks for the next message and returns at once;
     * {@code handler} is told exactly once (see {@link EndpointReceiveHandler}): with a
     * {@link ReceivedView} of the message in the endpoint's own receive buffer, valid until the handler
     * returns (or, retained, until released), after which the same buffer is posted again; with
     * {@link TimeoutException} when no message came within {@code timeout} (nothing else changes);
     * with {@link EndpointClosedException} when the endpoint closes or breaks first, or (in this
     * thread, before this returns) when it is already broken or closed and no message is waiting.
     * Receives are served in the order they were made, the future form's and this form's alike.
     *
     * <p>Allocation: none when the receive is waiting before its message arrives (a server that asks
     * for the next request from its handler, a client that asks for the reply before it sends), in
     * this thread or in the thread that progresses the endpoint. A message that arrived before any
     * receive asked for it has already been moved out of its slot (the slot got a fresh buffer, a
     * {@link Received} holds it); such a message is told through a view made for it, by the next
     * progress round (with the group's progress thread, within a millisecond when it is idle), and its
     * buffer goes back to the pool after the handler.
     *
     * @param timeout how long to wait for a message (positive)
     * @throws NullPointerException when {@code handler} is null (nothing is told)
     */
    @SuppressWarnings("unchecked")
    public <A> void receive(Duration timeout, A attachment, EndpointReceiveHandler<? super A> handler) {
        if (handler == null) {
            throw new NullPointerException("handler");
        }
        EndpointReceiveHandler<Object> h = (EndpointReceiveHandler<Object>) handler;
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean refused = false;
        synchronized (lock) {
            if (arrived.isEmpty() && state != State.CONNECTED && state != State.CONNECTING) {
                refused = true;
            } else {
                addWaiter(null, h, attachment, deadline);     // a message already here: told by the next progress round
            }
        }
        if (refused) {
            tellReceiveFailed(h, closedException(), attachment);
        }
    }

    /** Under the lock: queues a receive. */
    private void addWaiter(CompletableFuture<Received> f, EndpointReceiveHandler<Object> h, Object attachment, long deadline) {
        if (waiterCount == waiters.length) {
            Waiter[] w = newWaiters(waiters.length * 2);
            for (int i = 0; i < waiterCount; i++) {
                w[i] = waiters[(waiterHead + i) % waiters.length];
            }
            waiters = w;
            waiterHead = 0;
        }
        Waiter w = waiters[(waiterHead + waiterCount) % waiters.length];
        w.future = f;
        w.handler = h;
        w.attachment = attachment;
        w.deadline = deadline;
        waiterCount++;
    }

    /**
     * Under the lock: the oldest receive still waiting (a cancelled future's is dropped), removed from
     * the ring (the entry is valid until the next {@link #addWaiter}: read it under the same lock), or null.
     */
    private Waiter takeWaiter() {
        while (waiterCount > 0) {
            Waiter w = waiters[waiterHead];
            waiterHead = (waiterHead + 1) % waiters.length;
            waiterCount--;
            if (w.future != null && w.future.isDone()) {
                w.clear();
                continue;
            }
            return w;
        }
        return null;
    }

    /**
     * Checks, pins and posts one signaled work request into a free slot; with {@code handler} null
     * returns its future, else null (the slot holds the handler and its attachment). Any thread.
     */
    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> post(Kind kind, Lease lease, int offset, int length, RemoteBuffer remote, long remoteOffset,
                                          int imm, long compareAdd, long swap, Object attachment, EndpointCompletionHandler<Object> handler) {
        String what = kind.what;
        if (lease != null) {
            if (offset < 0 || length < 0 || offset > lease.capacity() || length > lease.capacity() - offset) {
                throw new VerbsException(Errno.EINVAL, what + ": local range [" + offset + ", +" + length + ") is outside the lease's "
                        + lease.capacity() + " bytes");
            }
            if (lease.pool().pd() != device.pd) {
                throw new VerbsException(Errno.EINVAL, what + ": the lease is from a pool of another protection domain");
            }
        }
        if (remote != null) {
            remote.check(remoteOffset, length, what);
            if (kind.atomic() && ((remote.address() + remoteOffset) & 7) != 0) {
                throw new VerbsException(Errno.EINVAL, what + ": remote address 0x" + Long.toHexString(remote.address() + remoteOffset)
                        + " is not 8-byte aligned");
            }
        }
        if (lease != null) {
            try {
                lease.pin();
            } catch (IllegalStateException e) {
                throw new VerbsException(Errno.EINVAL, what + ": " + e.getMessage());
            }
        }
        Lease result = null;
        if (kind.atomic() && results == null) {
            result = device.pool.lease(8);
        }
        CompletableFuture<Object> f = handler == null ? new CompletableFuture<>() : null;
        boolean refused = false;
        synchronized (lock) {
            if (state != State.CONNECTED) {
                refused = true;
            } else {
                if (freeCount == 0) {
                    unpin(lease);
                    closeQuietly(result);
                    throw new VerbsException(Errno.ENOMEM, what + ": sendDepth " + ops.length + " work requests are outstanding");
                }
                int slot = freeOps[--freeCount];
                Op op = ops[slot];
                if (result != null) {
                    ssge.set(result.address(), 8, result.lkey());
                } else if (kind.atomic()) {
                    ssge.set(results.address() + 8L * slot, 8, results.lkey());
                } else {
                    ssge.set(lease.address() + offset, length, lease.lkey());
                }
                swr.wrId(slot).sendFlags(SendFlags.SIGNALED).next(null);      // sgList: ssge, set once (varargs would make an array)
                switch (kind) {
                    case SEND -> swr.opcode(WrOpcode.SEND);
                    case WRITE -> swr.opcode(WrOpcode.RDMA_WRITE).rdma(remote.address() + remoteOffset, remote.rkey());
                    case WRITE_WITH_IMM -> swr.opcode(WrOpcode.RDMA_WRITE_WITH_IMM).rdma(remote.address() + remoteOffset, remote.rkey()).immData(imm);
                    case READ -> swr.opcode(WrOpcode.RDMA_READ).rdma(remote.address() + remoteOffset, remote.rkey());
                    case COMP_SWAP -> swr.opcode(WrOpcode.ATOMIC_CMP_AND_SWP).atomic(remote.address() + remoteOffset, remote.rkey(), compareAdd, swap);
                    case FETCH_ADD -> swr.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).atomic(remote.address() + remoteOffset, remote.rkey(), compareAdd, 0);
                }
                try {
                    qp.postSend(swr);
                } catch (RuntimeException e) {
                    freeOps[freeCount++] = slot;
                    unpin(lease);
                    closeQuietly(result);
                    throw e;
                }
                op.kind = kind;
                op.future = f;
                op.handler = handler;
                op.attachment = attachment;
                op.lease = lease;
                op.result = result;
                op.deadline = System.nanoTime() + timeoutNanos;
                op.active = true;
                op.notified = false;
            }
        }
        if (refused) {
            unpin(lease);
            closeQuietly(result);
            EndpointClosedException x = closedException();
            if (f != null) {
                f.completeExceptionally(x);
            } else {
                tellFailed(handler, x, attachment);
            }
        }
        return (CompletableFuture<T>) (CompletableFuture<?>) f;
    }

    private static void closeQuietly(Lease l) {
        if (l != null) {
            l.close();
        }
    }

    private static void unpin(Lease pinned) {
        if (pinned != null) {
            pinned.unpin();
        }
    }

    /** Calls a handler's {@code completed}; what it throws goes to the thread's uncaught-exception handler. */
    private static void tellCompleted(EndpointCompletionHandler<Object> h, long value, Object attachment) {
        try {
            h.completed(value, attachment);
        } catch (RuntimeException | Error e) {
            uncaught(e);
        }
    }

    /** Calls a handler's {@code failed}; what it throws goes to the thread's uncaught-exception handler. */
    private static void tellFailed(EndpointCompletionHandler<Object> h, Throwable exc, Object attachment) {
        try {
            h.failed(exc, attachment);
        } catch (RuntimeException | Error e) {
            uncaught(e);
        }
    }

    private static void uncaught(Throwable e) {
        Thread t = Thread.currentThread();
        t.getUncaughtExceptionHandler().uncaughtException(t, e);
    }

    // ---- progress ----

    /**
     * Takes the endpoint's CM events and work completions and completes their futures, posts fresh
     * receive buffers, and fails what has timed out. Non-blocking; returns the completions handled
     * (0 also when another thread is progressing the endpoint).
     */
    public int progress() {
        if (!progressLock.tryLock()) {
            return 0;
        }
        try {
            dispatch.tryPoll();     // a listener's channel carries its accepted endpoints' events
            synchronized (lock) {
                if (state == State.CLOSED) {
                    return 0;
                }
            }
            int n = pollCq();
            long now = System.nanoTime();
            if (now - nextTimeoutCheck >= 0) {
                nextTimeoutCheck = now + 1_000_000;
                checkTimeouts(now);
            }
            synchronized (lock) {
                if (recvPosted + recvLent < recvs.length && state == State.CONNECTED) {
                    postReceives();
                }
            }
            deliverArrived();
            return n;
        } finally {
            progressLock.unlock();
        }
    }

    /** Asks for a completion event on the endpoint's CQ (the idle progress thread, before it blocks). */
    void armCq() {
        if (progressLock.tryLock()) {
            try {
                synchronized (lock) {
                    if (state == State.CLOSED) {
                        return;
                    }
                }
                cq.reqNotify(false);
            } finally {
                progressLock.unlock();
            }
        }
    }

    private int pollCq() {
        int n = 0;
        int k;
        while (n < 256 && (k = cq.poll(wcs)) > 0) {
            for (int i = 0; i < k; i++) {
                handle(wcs[i]);
            }
            n += k;
        }
        return n;
    }

    private void handle(WorkCompletion wc) {
        long wrId = wc.wrId();
        WcStatus status = wc.status();
        if ((wrId & RECV) != 0) {
            handleRecv(wc, (int) (wrId & 0xffff), status);
            return;
        }
        int slot = (int) wrId;
        CompletableFuture<Object> f;
        EndpointCompletionHandler<Object> h;
        Object attachment;
        long value = 0;
        Kind kind;
        boolean tell;
        synchronized (lock) {
            Op op = ops[slot];
            if (!op.active) {
                return;
            }
            f = op.future;
            h = op.handler;
            attachment = op.attachment;
            kind = op.kind;
            tell = !op.notified;
            if (kind.atomic() && status == WcStatus.SUCCESS) {
                value = op.result != null ? op.result.getLong(0) : results.getLong(8L * slot);
            }
            closeQuietly(op.result);
            unpin(op.lease);
            op.clear();
            freeOps[freeCount++] = slot;
        }
        if (status == WcStatus.SUCCESS) {
            if (f != null) {
                f.complete(kind.atomic() ? (Object) value : null);     // the future form boxes an atomic's value
            } else if (tell) {
                tellCompleted(h, value, attachment);
            }
        } else {
            WorkRequestException e = new WorkRequestException(status, status == WcStatus.WR_FLUSH_ERR ? null : wc.opcode(), kind.what);
            if (f != null) {
                f.completeExceptionally(e);
            } else if (tell) {
                tellFailed(h, e, attachment);
            }
            fail(e);
        }
    }

    /** A receive's completion: to the oldest waiting receive (a handler gets the slot's view), else kept for the next. */
    private void handleRecv(WorkCompletion wc, int slot, WcStatus status) {
        Received r = null;
        CompletableFuture<Received> future = null;
        EndpointReceiveHandler<Object> h = null;
        Object attachment = null;
        ReceivedView view = null;
        synchronized (lock) {
            Lease l = recvs[slot];
            recvPosted--;
            if (status == WcStatus.SUCCESS && l != null) {
                boolean imm = (wc.wcFlags() & WcFlags.WITH_IMM) != 0;
                Waiter w = arrived.isEmpty() ? takeWaiter() : null;     // older messages first
                if (w != null && w.handler != null) {
                    view = views[slot];                                 // lent with its buffer: nothing allocated
                    view.open(l, wc.byteLen(), wc.opcode(), imm, imm ? wc.immData() : 0);
                    lent[slot] = true;
                    recvLent++;
                    h = w.handler;
                    attachment = w.attachment;
                    w.clear();
                } else {
                    recvs[slot] = null;                                 // the message takes the buffer; the slot gets a fresh one
                    r = new Received(l, wc.byteLen(), wc.opcode(), imm, imm ? wc.immData() : 0);
                    if (w != null) {
                        future = w.future;
                        w.clear();
                    } else {
                        arrived.addLast(r);
                    }
                }
            } else {
                recvs[slot] = null;
                if (l != null) {
                    l.close();
                }
            }
        }
        if (view != null) {
            tellReceived(h, view, attachment);
        } else if (future != null && !future.complete(r)) {
            synchronized (lock) {
                arrived.addFirst(r);                                    // cancelled meanwhile: the next receive takes it
            }
        }
        if (status != WcStatus.SUCCESS) {
            fail(new WorkRequestException(status, wc.opcode(), "receive"));
        }
    }

    /**
     * Hands messages that came before their receive to the receives that have come since (progress
     * rounds only, so that a handler that asks for the next message is never called again inside
     * itself); once the endpoint is broken and no message is left, fails the receives still waiting.
     */
    private void deliverArrived() {
        while (true) {
            Received r;
            Waiter w;
            CompletableFuture<Received> future;
            EndpointReceiveHandler<Object> h;
            Object attachment;
            synchronized (lock) {
                if (waiterCount == 0) {
                    return;
                }
                if (arrived.isEmpty()) {
                    if (state == State.CONNECTED || state == State.CONNECTING) {
                        return;
                    }
                    r = null;
                } else {
                    r = arrived.peekFirst();
                }
                w = takeWaiter();
                if (w == null) {
                    return;
                }
                if (r != null) {
                    arrived.pollFirst();
                }
                future = w.future;
                h = w.handler;
                attachment = w.attachment;
                w.clear();
            }
            if (r == null) {
                EndpointClosedException x = closedException();
                if (future != null) {
                    future.completeExceptionally(x);
                } else {
                    tellReceiveFailed(h, x, attachment);
                }
            } else if (future != null) {
                if (!future.complete(r)) {
                    synchronized (lock) {
                        arrived.addFirst(r);
                    }
                }
            } else {
                ReceivedView v = new ReceivedView(this, -1);            // not a slot's: this message has its own lease
                synchronized (lock) {
                    v.open(r.lease(), r.byteLen(), r.opcode(), r.hasImm(), r.immData());
                }
                tellReceived(h, v, attachment);
            }
        }
    }

    /** Tells a receive handler its message; then, unless retained, the view ends and its buffer is posted again (or returned). */
    private void tellReceived(EndpointReceiveHandler<Object> h, ReceivedView view, Object attachment) {
        try {
            h.received(view, attachment);
        } catch (RuntimeException | Error e) {
            uncaught(e);
        } finally {
            if (view.handlerReturned()) {
                viewEnded(view);
            }
        }
    }

    /** {@link ReceivedView#release()}: any thread. */
    void released(ReceivedView view) {
        viewEnded(view);
    }

    /** A view is no longer valid: a slot's buffer is posted again (while connected), a message's own lease is closed. */
    private void viewEnded(ReceivedView view) {
        int slot = view.slot;
        if (slot < 0) {
            view.lease().close();
            return;
        }
        synchronized (lock) {
            if (!lent[slot]) {
                return;                                 // closed meanwhile: the buffer went back with the endpoint
            }
            lent[slot] = false;
            recvLent--;
            Lease l = recvs[slot];
            if (l == null || state != State.CONNECTED) {
                return;                                 // broken: close returns it
            }
            try {
                postRecv(slot, l);
            } catch (RuntimeException e) {
                recvs[slot] = null;                     // the QP refused (broken under us): give it back
                l.close();
            }
        }
    }

    private static void tellReceiveFailed(EndpointReceiveHandler<Object> h, Throwable exc, Object attachment) {
        try {
            h.failed(exc, attachment);
        } catch (RuntimeException | Error e) {
            uncaught(e);
        }
    }

    private void checkTimeouts(long now) {
        List<Waiter> expiredWaiters = null;
        CompletableFuture<Object> expiredOp = null;
        EndpointCompletionHandler<Object> expiredHandler = null;
        Object expiredAttachment = null;
        Kind expiredKind = null;
        synchronized (lock) {
            int kept = 0;
            for (int i = 0; i < waiterCount; i++) {     // in place: the kept entries move up, the expired are copied out
                Waiter w = waiters[(waiterHead + i) % waiters.length];
                if (now - w.deadline >= 0 || (w.future != null && w.future.isDone())) {
                    if (expiredWaiters == null) {
                        expiredWaiters = new ArrayList<>();
                    }
                    expiredWaiters.add(w.copy());
                    w.clear();
                } else {
                    int to = (waiterHead + kept) % waiters.length;
                    Waiter there = waiters[to];
                    waiters[to] = w;
                    waiters[(waiterHead + i) % waiters.length] = there;
                    kept++;
                }
            }
            waiterCount = kept;
            if (state == State.CONNECTED) {
                for (Op op : ops) {
                    if (op.active && !op.notified && now - op.deadline >= 0 && (op.future == null || !op.future.isDone())) {
                        expiredOp = op.future;
                        expiredHandler = op.handler;
                        expiredAttachment = op.attachment;
                        expiredKind = op.kind;
                        op.notified = true;
                        break;
                    }
                }
            }
        }
        if (expiredWaiters != null) {
            for (Waiter w : expiredWaiters) {
                w.fail(new TimeoutException("receive: no message within the timeout"));
            }
        }
        if (expiredKind != null) {
            TimeoutException t = new TimeoutException(expiredKind.what + ": no completion within " + cfg.timeout().toMillis() + " ms");
            if (expiredOp != null) {
                expiredOp.completeExceptionally(t);
            } else {
                tellFailed(expiredHandler, t, expiredAttachment);
            }
            fail(t);
        }
    }

    /** Under the lock: posts receive buffers into the empty slots, as far as the pool allows. */
    private void postReceives() {
        for (int i = 0; i < recvs.length && recvPosted + recvLent < recvs.length; i++) {
            if (recvs[i] != null) {
                continue;                    // posted, or lent to a receive handler
            }
            Lease l = device.pool.tryLease(cfg.recvBufferSize());
            if (l == null) {
                return;                      // the pool is at its bound: try again on the next progress
            }
            try {
                postRecv(i, l);
            } catch (RuntimeException e) {
                l.close();
                throw e;
            }
        }
    }

    /** Under the lock: posts {@code l} as slot {@code i}'s receive buffer. */
    private void postRecv(int i, Lease l) {
        rsge.set(l.address(), l.capacity(), l.lkey());
        rwr.wrId(RECV | i).next(null);
        qp.postRecv(rwr);
        recvs[i] = l;
        recvPosted++;
    }

    // ---- CM events and the connection's life ----

    /** From the dispatcher (its lock held). */
    void onCmEvent(CmEvent e) {
        switch (e.type()) {
            case ESTABLISHED -> {
                byte[] pd = e.privateData();
                synchronized (lock) {
                    if (state == State.CONNECTING) {
                        state = State.CONNECTED;
                        if (pd != null && pd.length > 0) {
                            peerPrivateData = pd;
                        }
                    }
                }
                established.complete(null);
            }
            case DISCONNECTED -> fail(new EndpointClosedException("the peer disconnected", null));
            case REJECTED, UNREACHABLE, CONNECT_ERROR, DEVICE_REMOVAL -> {
                VerbsException x = new VerbsException(e.type() == org.jrdma.cm.CmEventType.REJECTED ? Errno.ECONNREFUSED
                        : e.type() == org.jrdma.cm.CmEventType.UNREACHABLE ? Errno.ETIMEDOUT : Errno.EIO,
                        "connection: " + e.type().eventStr() + " (status " + e.status() + ")");
                established.completeExceptionally(x);
                fail(x);
            }
            default -> {
            }
        }
    }

    void setPeerPrivateData(byte[] pd) {
        peerPrivateData = pd == null ? new byte[0] : pd;
    }

    /** Waits (routing CM events itself) until ESTABLISHED or a failure, within {@code deadline} (nanoTime). */
    void awaitEstablished(long deadline, String what) {
        while (!established.isDone()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                VerbsException x = new VerbsException(Errno.ETIMEDOUT, what + ": not established within " + cfg.timeout().toMillis() + " ms");
                established.completeExceptionally(x);
                fail(x);
                break;
            }
            dispatch.poll(Duration.ofNanos(Math.min(left, 10_000_000L)));
        }
        try {
            established.join();
        } catch (java.util.concurrent.CompletionException e) {
            close();
            if (e.getCause() instanceof VerbsException v) {
                throw new VerbsException(v.errno(), v.getMessage());
            }
            throw new VerbsException(Errno.EIO, what + ": " + e.getCause());
        }
    }

    /**
     * Breaks the endpoint (once): QP to ERR and disconnected, every outstanding future and waiting
     * receive failed with {@link EndpointClosedException}. Any thread.
     */
    void fail(Throwable cause) {
        List<CompletableFuture<?>> toFail = new ArrayList<>();
        List<EndpointCompletionHandler<Object>> handlers = new ArrayList<>();
        List<Object> attachments = new ArrayList<>();
        List<Waiter> receives = new ArrayList<>();
        synchronized (lock) {
            if (state == State.BROKEN || state == State.CLOSED) {
                return;
            }
            state = State.BROKEN;
            failure = cause;
            for (Op op : ops) {
                if (op.active && !op.notified) {
                    op.notified = true;
                    if (op.future != null) {
                        toFail.add(op.future);
                    } else {
                        handlers.add(op.handler);
                        attachments.add(op.attachment);
                    }
                }
            }
            if (arrived.isEmpty()) {              // else the receives take those messages first (deliverArrived)
                Waiter w;
                while ((w = takeWaiter()) != null) {
                    receives.add(w.copy());
                    w.clear();
                }
            }
        }
        try {
            qp.modify(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE);   // flushes what is posted
        } catch (VerbsException ignored) {
            // already in ERR or gone
        }
        try {
            id.disconnect();
        } catch (VerbsException ignored) {
            // not connected (any more)
        }
        EndpointClosedException ex = closedException();
        established.completeExceptionally(ex);
        for (CompletableFuture<?> f : toFail) {
            f.completeExceptionally(ex);
        }
        for (int i = 0; i < handlers.size(); i++) {
            tellFailed(handlers.get(i), ex, attachments.get(i));
        }
        for (Waiter w : receives) {
            w.fail(ex);
        }
    }

    private EndpointClosedException closedException() {
        Throwable c;
        State s;
        synchronized (lock) {
            c = failure;
            s = state;
        }
        return new EndpointClosedException("endpoint " + (s == State.CLOSED ? "closed" : "broken") + (c == null ? "" : ": " + c.getMessage()), c);
    }

    /**
     * Disconnects and tears the endpoint down (see the class comment). Waits up to 100 ms for the
     * flushed completions of what was outstanding. Idempotent; any thread.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
        }
        fail(new EndpointClosedException("closed by the application", null));
        progressLock.lock();
        try {
            long end = System.nanoTime() + 100_000_000L;
            while (System.nanoTime() - end < 0) {
                pollCq();
                synchronized (lock) {
                    if (freeCount == ops.length && recvPosted == 0) {
                        break;
                    }
                }
                Thread.onSpinWait();
            }
            List<Lease> leftover = new ArrayList<>();
            List<Waiter> unserved = new ArrayList<>();
            synchronized (lock) {
                state = State.CLOSED;
            }
            group.removed(this);
            dispatch.unregister(id);
            try {
                id.destroyQp();
            } catch (VerbsException ignored) {
                // the QP is gone with the device
            }
            synchronized (lock) {
                // the QP is destroyed: the device touches none of these buffers any more
                for (int slot = 0; slot < ops.length; slot++) {
                    Op op = ops[slot];
                    if (op.active) {
                        unpin(op.lease);
                        if (op.result != null) {
                            leftover.add(op.result);
                        }
                        op.clear();
                        freeOps[freeCount++] = slot;
                    }
                }
                for (int i = 0; i < recvs.length; i++) {
                    if (lent[i]) {
                        views[i].endpointClosed();      // a retained view: its accessors throw from now on
                        lent[i] = false;
                    }
                    if (recvs[i] != null) {
                        leftover.add(recvs[i]);
                        recvs[i] = null;
                    }
                }
                recvPosted = 0;
                recvLent = 0;
                for (Received r : arrived) {
                    leftover.add(r.lease());
                }
                arrived.clear();
                Waiter w;
                while ((w = takeWaiter()) != null) {    // those left waiting for messages that are now gone
                    unserved.add(w.copy());
                    w.clear();
                }
                if (results != null) {
                    leftover.add(results);
                }
            }
            leftover.forEach(Lease::close);
            if (!unserved.isEmpty()) {
                EndpointClosedException x = closedException();
                for (Waiter u : unserved) {
                    u.fail(x);
                }
            }
            try {
                cq.close();
            } catch (VerbsException ignored) {
                // gone with the device
            }
            id.destroy();
            if (ownsDispatch) {
                dispatch.close();
            }
        } finally {
            progressLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "Endpoint[" + id.localAddress() + " -> " + id.peerAddress() + ", qpn " + qp.qpNum() + "]";
    }
}
