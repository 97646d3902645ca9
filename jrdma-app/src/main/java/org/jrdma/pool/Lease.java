package org.jrdma.pool;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One buffer of registered memory, lent by a {@link RegisteredPool} until {@link #close()}.
 *
 * <p>Life: the lease holds one reference for its owner; {@link #pin()} adds one for each user of the
 * memory that is not the owner (an endpoint's work request, until its completion), {@link #unpin()}
 * drops it. {@link #close()} drops the owner's reference; the buffer goes back to the pool when the
 * last reference is dropped, so that closing a lease whose work request is still posted never lets
 * the device write into a buffer someone else has leased meanwhile. After {@link #close()} every
 * method but {@link #close()}, {@link #isOpen()}, {@link #length()} and {@link #capacity()} throws
 * {@link IllegalStateException}; the segment of {@link #segment()} is closed with the lease, so that
 * a stale reference to it throws too (the JDK's {@code IllegalStateException: Already closed}), never
 * touching memory now lent to someone else. Closing twice is a no-op.
 *
 * <p>Bytes are read and written in the platform's byte order (the order in which RDMA atomics leave
 * their 64-bit values in memory). Offsets are in bytes from the start of the buffer, in
 * {@code [0, capacity()]}; out of range throws {@link IndexOutOfBoundsException}.
 *
 * <p>Threads: any thread may use a lease; {@link #pin()}, {@link #unpin()} and {@link #close()} are
 * lock-free (a CAS on the reference count); the accessors pin the lease for their duration, so that a
 * close by another thread takes effect after them.
 */
public final class Lease implements AutoCloseable {
    private static final VarHandle REFS;

    static {
        try {
            REFS = MethodHandles.lookup().findVarHandle(Lease.class, "refs", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final RegisteredPool pool;
    private final PooledBuffer buffer;
    private final int length;
    @SuppressWarnings("unused") // through REFS
    private volatile int refs = 1;
    private volatile boolean closed;
    /** The arena of {@link #segment()}'s view, made on first use (guarded by this). */
    private Arena viewArena;

    Lease(RegisteredPool pool, PooledBuffer buffer, int length) {
        this.pool = pool;
        this.buffer = buffer;
        this.length = length;
    }

    /** The bytes asked for when leasing (at most {@link #capacity()}). */
    public int length() {
        return length;
    }

    /** The buffer's size: its size class, at least {@link #length()}. */
    public int capacity() {
        return buffer.sizeClass.size;
    }

    /** Whether the lease is open (not yet closed). */
    public boolean isOpen() {
        return !closed;
    }

    /** The buffer's virtual address, for an SGE. @throws IllegalStateException when closed */
    public long address() {
        checkOpen();
        return buffer.segment.address();
    }

    /** The local key of the buffer's memory region. @throws IllegalStateException when closed */
    public int lkey() {
        checkOpen();
        return buffer.slab.mr.lkey();
    }

    /**
     * The remote key of the buffer's memory region, which covers its whole slab (see
     * {@link PoolConfig#access(int)}). @throws IllegalStateException when closed
     */
    public int rkey() {
        checkOpen();
        return buffer.slab.mr.rkey();
    }

    /** The pool this lease came from. */
    public RegisteredPool pool() {
        return pool;
    }

    /**
     * The buffer's memory as a segment of {@link #capacity()} bytes that is closed with this lease
     * (any access after {@link #close()} throws {@link IllegalStateException}). Costs a shared arena
     * per lease (made on the first call, closed with the lease): for hot paths prefer the accessors.
     *
     * @throws IllegalStateException when closed
     */
    public synchronized MemorySegment segment() {
        checkOpen();
        if (viewArena == null) {
            viewArena = Arena.ofShared();
        }
        return buffer.segment.reinterpret(viewArena, null);
    }

    /** Copies {@code len} bytes of {@code src} from {@code srcOff} into the buffer at {@code offset}. */
    public Lease putBytes(long offset, byte[] src, int srcOff, int len) {
        pin();
        try {
            MemorySegment.copy(src, srcOff, buffer.segment, ValueLayout.JAVA_BYTE, offset, len);
        } finally {
            unpin();
        }
        return this;
    }

    /** Copies all of {@code src} into the buffer at {@code offset}. */
    public Lease putBytes(long offset, byte[] src) {
        return putBytes(offset, src, 0, src.length);
    }

    /** Copies {@code len} bytes from the buffer at {@code offset} into {@code dst} from {@code dstOff}. */
    public void getBytes(long offset, byte[] dst, int dstOff, int len) {
        pin();
        try {
            MemorySegment.copy(buffer.segment, ValueLayout.JAVA_BYTE, offset, dst, dstOff, len);
        } finally {
            unpin();
        }
    }

    /** {@code len} bytes from the buffer at {@code offset}, as a new array. */
    public byte[] getBytes(long offset, int len) {
        byte[] b = new byte[len];
        getBytes(offset, b, 0, len);
        return b;
    }

    /** Writes a 64-bit value (platform order, unaligned allowed) at {@code offset}. */
    public Lease putLong(long offset, long value) {
        pin();
        try {
            buffer.segment.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, value);
        } finally {
            unpin();
        }
        return this;
    }

    /** Reads a 64-bit value (platform order) at {@code offset}. */
    public long getLong(long offset) {
        pin();
        try {
            return buffer.segment.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
        } finally {
            unpin();
        }
    }

    /** Writes a 32-bit value (platform order) at {@code offset}. */
    public Lease putInt(long offset, int value) {
        pin();
        try {
            buffer.segment.set(ValueLayout.JAVA_INT_UNALIGNED, offset, value);
        } finally {
            unpin();
        }
        return this;
    }

    /** Reads a 32-bit value (platform order) at {@code offset}. */
    public int getInt(long offset) {
        pin();
        try {
            return buffer.segment.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
        } finally {
            unpin();
        }
    }

    /** Fills {@code len} bytes at {@code offset} with {@code value}. */
    public Lease fill(long offset, long len, byte value) {
        pin();
        try {
            buffer.segment.asSlice(offset, len).fill(value);
        } finally {
            unpin();
        }
        return this;
    }

    /**
     * Adds a reference for a user of the memory other than the owner (e.g. a posted work request):
     * the buffer stays lent until the matching {@link #unpin()}, even if the lease is closed meanwhile.
     *
     * @throws IllegalStateException when the lease is closed
     */
    public void pin() {
        while (true) {
            int r = (int) REFS.getVolatile(this);
            if (closed || r <= 0) {
                throw closedException();
            }
            if (REFS.compareAndSet(this, r, r + 1)) {
                return;
            }
        }
    }

    /** Drops a reference taken by {@link #pin()}; the last reference returns the buffer to the pool. */
    public void unpin() {
        release();
    }

    /** Ends the lease: no more use by the owner; the buffer returns when no work request holds it. */
    @Override
    public void close() {
        Arena view;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            view = viewArena;
            viewArena = null;
        }
        if (view != null) {
            view.close();
        }
        release();
    }

    private void release() {
        int r = (int) REFS.getAndAdd(this, -1) - 1;
        if (r == 0) {
            pool.giveBack(buffer);
        } else if (r < 0) {
            throw new IllegalStateException("Lease.unpin without a pin");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw closedException();
        }
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("lease of " + length + " bytes is closed (its buffer went back to the pool)");
    }

    @Override
    public String toString() {
        return "Lease[" + length + "/" + capacity() + " B" + (closed ? ", closed" : "") + "]";
    }
}
