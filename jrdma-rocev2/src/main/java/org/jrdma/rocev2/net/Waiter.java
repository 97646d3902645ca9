package org.jrdma.rocev2.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Blocks one thread in {@code ppoll(2)} until a descriptor is readable, a timeout passes, or another
 * thread calls {@link #wakeup()}, which writes to an {@code eventfd(2)} polled together with it.
 * {@link #await} is for one thread at a time; {@link #wakeup()} is for any thread. Allocation-free
 * after construction.
 */
final class Waiter {
    private final int efd;
    private final MemorySegment pollfds;   // [fd, efd]
    private final MemorySegment timespec;  // struct timespec { long tv_sec; long tv_nsec; }
    private final MemorySegment errno;
    private final MemorySegment one;       // uint64_t 1, read-only after construction
    private final MemorySegment drain;     // uint64_t sink for read(efd)

    Waiter(Arena arena) {
        errno = LibC.newErrnoSegment(arena);
        pollfds = arena.allocate(2L * LibC.POLLFD_SIZE, 8);
        timespec = arena.allocate(16, 8);
        one = arena.allocate(8, 8);
        one.set(JAVA_LONG, 0, 1L);
        drain = arena.allocate(8, 8);
        int fd;
        try {
            fd = (int) LibC.EVENTFD.invokeExact(errno, 0, LibC.EFD_NONBLOCK | LibC.EFD_CLOEXEC);
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
        if (fd < 0) {
            throw NetException.of("eventfd", LibC.errno(errno));
        }
        efd = fd;
    }

    /**
     * Waits until {@code fd} is readable (true), or the timeout passes or {@link #wakeup()} was called
     * (false, unless {@code fd} is readable as well).
     *
     * @param timeoutNanos ns to wait at most; 0 checks without blocking; negative waits without limit
     */
    boolean await(int fd, long timeoutNanos) {
        pollfds.set(JAVA_INT, 0, fd);
        pollfds.set(JAVA_SHORT, 4, LibC.POLLIN);
        pollfds.set(JAVA_SHORT, 6, (short) 0);
        pollfds.set(JAVA_INT, 8, efd);
        pollfds.set(JAVA_SHORT, 12, LibC.POLLIN);
        pollfds.set(JAVA_SHORT, 14, (short) 0);
        long tmo = 0;
        if (timeoutNanos >= 0) {
            timespec.set(JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
            timespec.set(JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
            tmo = timespec.address();
        }
        int n;
        try {
            n = (int) LibC.PPOLL_NC.invokeExact(pollfds, 2L, tmo, 0L);
            if (n < 0) { // rare: again with errno captured (LibC's class doc), which EINTR ends
                n = (int) LibC.PPOLL.invokeExact(errno, pollfds, 2L, tmo, 0L);
            }
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
        if (n < 0) {
            int e = LibC.errno(errno);
            if (e == LibC.EINTR) {
                return false;
            }
            throw NetException.of("ppoll", e);
        }
        if (n == 0) {
            return false;
        }
        if (pollfds.get(JAVA_SHORT, 14) != 0) {
            try {
                long unused = (long) LibC.READ.invokeExact(efd, drain, 8L);
            } catch (Throwable t) {
                throw LibC.rethrow(t);
            }
        }
        return pollfds.get(JAVA_SHORT, 6) != 0;
    }

    /** Makes a current or the next {@link #await} return at once. Any thread. */
    void wakeup() {
        try {
            long unused = (long) LibC.WRITE.invokeExact(efd, one, 8L);
        } catch (Throwable t) {
            throw LibC.rethrow(t);
        }
    }

    void close() {
        LibC.closeQuietly(efd);
    }
}
