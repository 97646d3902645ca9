package org.jrdma.pool;

import java.util.Arrays;
import org.jrdma.verbs.AccessFlags;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * The shape of a {@link RegisteredPool}: its size classes, how much it registers at a time, the bound
 * on what it registers, the per-thread cache and the access flags of its memory regions. Setters
 * return {@code this}; the pool copies the configuration when it is created.
 */
public final class PoolConfig {
    private int[] sizeClasses = {64, 256, 1024, 4096, 16384, 65536, 262144, 1048576};
    private long slabBytes = 1 << 20;
    private long maxRegisteredBytes = 64L << 20;
    private int threadCacheSize = 32;
    private int access = AccessFlags.LOCAL_WRITE;

    /**
     * The buffer sizes, in bytes, each a power of two from 8 to 2^30, in any order (duplicates
     * ignored). A lease of {@code n} bytes gets a buffer of the smallest class of at least {@code n}.
     * Default 64, 256, 1 Ki, 4 Ki, 16 Ki, 64 Ki, 256 Ki, 1 Mi.
     */
    public PoolConfig sizeClasses(int... sizes) {
        if (sizes.length == 0) {
            throw new VerbsException(Errno.EINVAL, "PoolConfig: sizeClasses is empty");
        }
        for (int s : sizes) {
            if (s < 8 || s > (1 << 30) || Integer.bitCount(s) != 1) {
                throw new VerbsException(Errno.EINVAL, "PoolConfig: sizeClasses " + s + " is not a power of two in [8, 2^30]");
            }
        }
        this.sizeClasses = Arrays.stream(sizes).distinct().sorted().toArray();
        return this;
    }

    public int[] sizeClasses() {
        return sizeClasses.clone();
    }

    /**
     * The bytes the pool allocates and registers at once for a size class, as one memory region (a
     * slab) cut into buffers of the class; a class larger than this gets slabs of one buffer. Default
     * 1 MiB; range 4 KiB to {@link #maxRegisteredBytes()}.
     */
    public PoolConfig slabBytes(long bytes) {
        if (bytes < 4096) {
            throw new VerbsException(Errno.EINVAL, "PoolConfig: slabBytes " + bytes + " < 4096");
        }
        this.slabBytes = bytes;
        return this;
    }

    public long slabBytes() {
        return slabBytes;
    }

    /**
     * The bound on the bytes the pool keeps registered, over all size classes; a lease that would need
     * a new slab past it fails ({@link RegisteredPool#lease}: ENOMEM). Default 64 MiB; at least 4 KiB.
     */
    public PoolConfig maxRegisteredBytes(long bytes) {
        if (bytes < 4096) {
            throw new VerbsException(Errno.EINVAL, "PoolConfig: maxRegisteredBytes " + bytes + " < 4096");
        }
        this.maxRegisteredBytes = bytes;
        return this;
    }

    public long maxRegisteredBytes() {
        return maxRegisteredBytes;
    }

    /**
     * Buffers each thread keeps per size class for its next leases, without touching the shared
     * free list (0: no thread cache). Default 32; range 0 to 4096.
     */
    public PoolConfig threadCacheSize(int buffers) {
        if (buffers < 0 || buffers > 4096) {
            throw new VerbsException(Errno.EINVAL, "PoolConfig: threadCacheSize " + buffers + " not in [0, 4096]");
        }
        this.threadCacheSize = buffers;
        return this;
    }

    public int threadCacheSize() {
        return threadCacheSize;
    }

    /**
     * The access flags of the pool's memory regions ({@link AccessFlags}). Default
     * {@link AccessFlags#LOCAL_WRITE}: the buffers are sources and sinks of local work requests
     * (SEND, RECV, the local side of READ, WRITE and atomics) and no peer can touch them. With
     * REMOTE_READ/REMOTE_WRITE/REMOTE_ATOMIC a buffer may be offered to a peer
     * ({@code org.jrdma.app.RemoteBuffer.of(Lease)}), but note that the rkey covers the buffer's whole
     * slab: the responder's check is the slab's bounds, not the buffer's. Expose single buffers from a
     * pool of their own, or register the memory to expose as a memory region of its own.
     */
    public PoolConfig access(int accessFlags) {
        if ((accessFlags & ~AccessFlags.SUPPORTED) != 0) {
            throw new VerbsException(Errno.EINVAL, "PoolConfig: access 0x" + Integer.toHexString(accessFlags) + " has unknown bits");
        }
        this.access = accessFlags;
        return this;
    }

    public int access() {
        return access;
    }

    PoolConfig copy() {
        PoolConfig c = new PoolConfig();
        c.sizeClasses = sizeClasses.clone();
        c.slabBytes = slabBytes;
        c.maxRegisteredBytes = maxRegisteredBytes;
        c.threadCacheSize = threadCacheSize;
        c.access = access;
        return c;
    }
}
