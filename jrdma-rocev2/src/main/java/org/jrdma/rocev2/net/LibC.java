package org.jrdma.rocev2.net;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The libc calls and constants jrdma's socket I/O needs, as FFM downcall handles cached in static
 * finals. Linux x86-64 (LP64) only: constants are checked against the UAPI headers
 * ({@code <linux/in.h>}, {@code <linux/in6.h>}, {@code <linux/udp.h>}, {@code <asm-generic/socket.h>},
 * {@code <asm-generic/errno*.h>}, {@code <bits/socket.h>}), struct offsets against the LP64 layouts of
 * {@code struct msghdr}, {@code struct mmsghdr}, {@code struct iovec}, {@code struct cmsghdr},
 * {@code struct pollfd}, {@code struct timespec}.
 *
 * <p>Every handle that can fail takes a leading capture segment ({@link #newErrnoSegment}) filled by
 * {@link Linker.Option#captureCallState(String...) captureCallState("errno")}; read it with
 * {@link #errno(MemorySegment)}. The calls of the data path have a second handle without the capture
 * ({@code *_NC}; issue 14): the JDK slices the capture segment on each call
 * ({@code SharedUtils.checkCaptureSegment}, not force-inlined), an allocation that only C2's escape
 * analysis removes, and only where the slice is inlined into the caller (deep call chains, such as a
 * requester's train through the port wrappers, exceed the inlining depth and keep it). The data path
 * calls the handle without capture first; when that fails it asks {@link #wouldBlock} whether the
 * thread's errno says EAGAIN (read from {@code __errno_location()}, which the JVM might have changed
 * since the call only in rare transitions, e.g. a safepoint), and only when it does not, calls again
 * with the capture, whose errno is exact. The one answer taken from the uncaptured errno is "would
 * block": taken wrongly it only makes the caller try again later; every error is reported from a
 * captured call (datagram sends and receives that fail move no data, so the second call is safe). Pointers into caller buffers are passed as {@code long} addresses
 * (identical to a C pointer on LP64) so that the data path builds no slice objects; pointers into
 * memory this package owns are passed as {@link MemorySegment}s.
 */
final class LibC {
    private LibC() {
    }

    // ---- address families, socket types, protocols (<bits/socket.h>, <linux/in.h>)
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_RAW = 3;
    static final int SOCK_NONBLOCK = 0x800;   // 00004000
    static final int SOCK_CLOEXEC = 0x80000;  // 02000000
    static final int IPPROTO_IP = 0;
    static final int IPPROTO_UDP = 17;
    static final int IPPROTO_IPV6 = 41;
    static final int IPPROTO_RAW = 255;

    // ---- socket options
    static final int SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2;
    static final int SO_ERROR = 4;
    static final int SO_REUSEPORT = 15;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_ATTACH_FILTER = 26;
    static final int SO_SNDBUFFORCE = 32;
    static final int SO_RCVBUFFORCE = 33;
    /** Classic BPF program choosing the socket of a SO_REUSEPORT group ({@code socket(7)}, Linux 4.5+). */
    static final int SO_ATTACH_REUSEPORT_CBPF = 51;
    static final int SOL_IP = 0;
    static final int IP_TOS = 1;
    static final int IP_HDRINCL = 3;
    static final int IP_MTU_DISCOVER = 10;
    static final int IP_RECVTOS = 13;
    static final int IP_PMTUDISC_DO = 2;
    static final int SOL_IPV6 = 41;
    static final int IPV6_CHECKSUM = 7;
    static final int IPV6_MTU_DISCOVER = 23;
    static final int IPV6_V6ONLY = 26;
    static final int IPV6_PMTUDISC_DO = 2;
    static final int IPV6_RECVTCLASS = 66;
    static final int IPV6_TCLASS = 67;
    static final int SOL_UDP = 17;
    static final int UDP_NO_CHECK6_TX = 101;
    static final int UDP_NO_CHECK6_RX = 102;
    static final int UDP_SEGMENT = 103;
    static final int UDP_GRO = 104;

    // ---- flags
    static final int MSG_CTRUNC = 0x08;
    static final int MSG_TRUNC = 0x20;
    static final int MSG_DONTWAIT = 0x40;
    static final int MSG_WAITFORONE = 0x10000;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int O_NONBLOCK = 0x800;
    static final int EFD_NONBLOCK = 0x800;
    static final int EFD_CLOEXEC = 0x80000;
    static final short POLLIN = 0x1;

    // ---- errno (<asm-generic/errno-base.h>, <asm-generic/errno.h>)
    static final int EPERM = 1;
    static final int EINTR = 4;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int EACCES = 13;
    static final int EINVAL = 22;
    static final int EMSGSIZE = 90;
    static final int ENOPROTOOPT = 92;
    static final int EADDRINUSE = 98;
    static final int EADDRNOTAVAIL = 99;
    static final int ENETDOWN = 100;
    static final int ENETUNREACH = 101;
    static final int ECONNRESET = 104;
    static final int ENOBUFS = 105;
    static final int ECONNREFUSED = 111;
    static final int EHOSTDOWN = 112;
    static final int EHOSTUNREACH = 113;

    // ---- struct layouts (LP64)
    /** sizeof(struct sockaddr_storage). */
    static final int SOCKADDR_STORAGE = 128;
    static final int SOCKADDR_IN = 16;
    static final int SOCKADDR_IN6 = 28;
    /** struct iovec { void *iov_base; size_t iov_len; }. */
    static final int IOVEC_SIZE = 16;
    /** struct msghdr: name@0, namelen@8, iov@16, iovlen@24, control@32, controllen@40, flags@48. */
    static final int MSGHDR_SIZE = 56;
    static final int MSG_NAME = 0;
    static final int MSG_NAMELEN = 8;
    static final int MSG_IOV = 16;
    static final int MSG_IOVLEN = 24;
    static final int MSG_CONTROL = 32;
    static final int MSG_CONTROLLEN = 40;
    static final int MSG_FLAGS = 48;
    /** struct mmsghdr { struct msghdr msg_hdr; unsigned int msg_len; } padded to 64. */
    static final int MMSGHDR_SIZE = 64;
    static final int MMSG_LEN = 56;
    /** struct cmsghdr { size_t cmsg_len; int cmsg_level; int cmsg_type; } data at 16. */
    static final int CMSGHDR_SIZE = 16;
    /** struct pollfd { int fd; short events; short revents; }. */
    static final int POLLFD_SIZE = 8;

    /** CMSG_ALIGN: round up to sizeof(size_t). */
    static long cmsgAlign(long len) {
        return (len + 7) & ~7L;
    }

    /** CMSG_SPACE(len). */
    static int cmsgSpace(int len) {
        return (int) (cmsgAlign(len) + CMSGHDR_SIZE);
    }

    /** CMSG_LEN(len). */
    static int cmsgLen(int len) {
        return CMSGHDR_SIZE + len;
    }

    /**
     * CMSG_FIRSTHDR/CMSG_NXTHDR over the control buffer of a received message: the offset in
     * {@code control} of the data of the first control message of {@code level}/{@code type}, or -1
     * when there is none. The buffer is {@code controlLen} bytes (the msghdr's msg_controllen after
     * the call) from {@code start}; a header whose length is shorter than a header or runs past the
     * end ends the walk, as CMSG_NXTHDR does. Allocation-free.
     */
    static long cmsgData(MemorySegment control, long start, long controlLen, int level, int type) {
        long off = 0;
        while (off + CMSGHDR_SIZE <= controlLen) {
            long len = control.get(JAVA_LONG, start + off);
            if (len < CMSGHDR_SIZE || off + len > controlLen) {
                return -1;
            }
            if (control.get(JAVA_INT, start + off + 8) == level && control.get(JAVA_INT, start + off + 12) == type) {
                return start + off + CMSGHDR_SIZE;
            }
            off += cmsgAlign(len);
        }
        return -1;
    }

    // ---- linker
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option CCS = Linker.Option.captureCallState("errno");
    private static final MemoryLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET =
            CAPTURE_LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("errno"));

    private static MethodHandle errnoHandle(String name, FunctionDescriptor fd) {
        MemorySegment sym = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return LINKER.downcallHandle(sym, fd, CCS);
    }

    private static MethodHandle handle(String name, FunctionDescriptor fd) {
        MemorySegment sym = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return LINKER.downcallHandle(sym, fd);
    }

    /** int socket(int domain, int type, int protocol). */
    static final MethodHandle SOCKET = errnoHandle("socket",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    /** int bind(int fd, const struct sockaddr *addr, socklen_t len). */
    static final MethodHandle BIND = errnoHandle("bind",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    /** int connect(int fd, const struct sockaddr *addr, socklen_t len). */
    static final MethodHandle CONNECT = errnoHandle("connect",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    /** int getsockname(int fd, struct sockaddr *addr, socklen_t *len). */
    static final MethodHandle GETSOCKNAME = errnoHandle("getsockname",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    /** int setsockopt(int fd, int level, int name, const void *val, socklen_t len). */
    static final MethodHandle SETSOCKOPT = errnoHandle("setsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    /** int getsockopt(int fd, int level, int name, void *val, socklen_t *len). */
    static final MethodHandle GETSOCKOPT = errnoHandle("getsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    /** int fcntl(int fd, int cmd, int arg) — the int-argument form. */
    static final MethodHandle FCNTL = errnoHandle("fcntl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
            Linker.Option.firstVariadicArg(2));
    /** ssize_t sendto(int fd, const void *buf (as address), size_t len, int flags, const struct sockaddr *, socklen_t). */
    static final MethodHandle SENDTO = errnoHandle("sendto",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    /** ssize_t recvfrom(int fd, void *buf (as address), size_t len, int flags, struct sockaddr *, socklen_t *). */
    static final MethodHandle RECVFROM = errnoHandle("recvfrom",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS));
    /** ssize_t sendmsg(int fd, const struct msghdr *msg, int flags). */
    static final MethodHandle SENDMSG = errnoHandle("sendmsg",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    /** ssize_t recvmsg(int fd, struct msghdr *msg, int flags). */
    static final MethodHandle RECVMSG = errnoHandle("recvmsg",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    /** int sendmmsg(int fd, struct mmsghdr *vec (as address), unsigned int vlen, int flags). */
    static final MethodHandle SENDMMSG = errnoHandle("sendmmsg",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT));
    /** int recvmmsg(int fd, struct mmsghdr *vec (as address), unsigned int vlen, int flags, struct timespec *timeout (as address)). */
    static final MethodHandle RECVMMSG = errnoHandle("recvmmsg",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG));
    /** int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo (as address, 0 = infinite), const sigset_t *mask (0)). */
    static final MethodHandle PPOLL = errnoHandle("ppoll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    /** uid_t geteuid(void): the effective UID, which the kernel requires equal in one SO_REUSEPORT group. */
    static final MethodHandle GETEUID = handle("geteuid", FunctionDescriptor.of(JAVA_INT));
    /** int close(int fd). */
    static final MethodHandle CLOSE = errnoHandle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    /** int eventfd(unsigned int initval, int flags). */
    static final MethodHandle EVENTFD = errnoHandle("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    /** ssize_t write(int fd, const void *buf, size_t n). */
    static final MethodHandle WRITE = handle("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    /** ssize_t read(int fd, void *buf, size_t n). */
    static final MethodHandle READ = handle("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    /** char *strerror(int errnum). */
    static final MethodHandle STRERROR = handle("strerror",
            FunctionDescriptor.of(ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(Long.MAX_VALUE,
                    ValueLayout.JAVA_BYTE)), JAVA_INT));

    // ---- the data path's handles without errno capture (see the class doc), same signatures less the capture segment
    /** sendto(2) without capture. */
    static final MethodHandle SENDTO_NC = handle("sendto",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    /** recvfrom(2) without capture. */
    static final MethodHandle RECVFROM_NC = handle("recvfrom",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS));
    /** sendmsg(2) without capture. */
    static final MethodHandle SENDMSG_NC = handle("sendmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    /** recvmsg(2) without capture. */
    static final MethodHandle RECVMSG_NC = handle("recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    /** sendmmsg(2) without capture. */
    static final MethodHandle SENDMMSG_NC = handle("sendmmsg",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT));
    /** recvmmsg(2) without capture. */
    static final MethodHandle RECVMMSG_NC = handle("recvmmsg",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG));
    /** ppoll(2) without capture. */
    static final MethodHandle PPOLL_NC = handle("ppoll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    /** int *__errno_location(void) (glibc, musl): the calling thread's errno, as an address. */
    private static final MethodHandle ERRNO_LOCATION = handle("__errno_location", FunctionDescriptor.of(JAVA_LONG));
    /** All of memory, to read errno at its address without building a segment per read. */
    private static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    /**
     * After a call without capture ({@code *_NC}) failed: true when the calling thread's errno is
     * EAGAIN (would block), which is then also stored in {@code capture} as if captured, so that the
     * caller's error handling reads it there; false otherwise (EINTR, an error, or a value the JVM
     * may have written since the call): the caller calls again with the capture. Allocation-free.
     */
    static boolean wouldBlock(MemorySegment capture) {
        int e;
        try {
            e = EVERYTHING.get(JAVA_INT, (long) ERRNO_LOCATION.invokeExact());
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (e != EAGAIN) {
            return false;
        }
        capture.set(JAVA_INT, ERRNO_OFFSET, EAGAIN);
        return true;
    }

    private static MethodHandle errnoHandle(String name, FunctionDescriptor fd, Linker.Option extra) {
        MemorySegment sym = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return LINKER.downcallHandle(sym, fd, CCS, extra);
    }

    /** A new capture segment for {@code captureCallState("errno")}. */
    static MemorySegment newErrnoSegment(Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    /** The errno captured by the last call that used {@code capture}. */
    static int errno(MemorySegment capture) {
        return capture.get(JAVA_INT, ERRNO_OFFSET);
    }

    /** strerror(3) text of an errno value; control and error paths only. */
    static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            if (s.address() == 0) {
                return "errno " + errno;
            }
            return s.getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    /** A throwable from a downcall is a JVM-level failure, never a socket error. */
    static Error rethrow(Throwable t) {
        if (t instanceof Error e) {
            return e;
        }
        if (t instanceof RuntimeException r) {
            throw r;
        }
        return new AssertionError("downcall failed", t);
    }

    /** close(2), ignoring errors (control path). */
    static void closeQuietly(int fd) {
        if (fd < 0) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            int unused = (int) CLOSE.invokeExact(newErrnoSegment(a), fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
