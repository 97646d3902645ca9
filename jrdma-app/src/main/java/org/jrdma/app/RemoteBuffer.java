package org.jrdma.app;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.jrdma.pool.Lease;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.MemoryRegion;
import org.jrdma.verbs.VerbsException;

/**
 * A peer's memory a one-sided operation may target: virtual address, rkey and length, as an
 * application advertises it (the triple of {@code struct ibv_sge}'s remote side in RDMA READ/WRITE
 * and atomics). It travels in the connection's private data or in a message, as {@link #ENCODED_LENGTH}
 * bytes ({@link #encode()}: magic {@code 'J' 'R'}, version 1, a zero byte, then big-endian
 * address (8), rkey (4), length (8)).
 *
 * <p>A descriptor that came from a peer is not trusted: {@link Endpoint} checks every operation's
 * offset and length against it before posting (EINVAL), and the responder checks the rkey, range and
 * access again against its memory region (a violation completes the work request with
 * {@code REM_ACCESS_ERR}).
 *
 * @param address the first byte's virtual address in the peer
 * @param rkey the remote key of the peer's memory region (or window) holding it
 * @param length bytes from {@code address}, 0 to 2^63 - 1
 */
public record RemoteBuffer(long address, int rkey, long length) {
    /** Bytes of {@link #encode()}. */
    public static final int ENCODED_LENGTH = 24;
    private static final short MAGIC = 0x4a52; // "JR"
    private static final byte VERSION = 1;

    public RemoteBuffer {
        if (length < 0) {
            throw new VerbsException(Errno.EINVAL, "RemoteBuffer: length " + length + " < 0");
        }
        if (length > 0 && address + length - 1 < address && Long.compareUnsigned(address + length - 1, address) < 0) {
            throw new VerbsException(Errno.EINVAL, "RemoteBuffer: address + length wraps around");
        }
    }

    /** The whole of a local memory region, to advertise to a peer (it needs remote access flags for the peer's operations). */
    public static RemoteBuffer of(MemoryRegion mr) {
        return new RemoteBuffer(mr.addr(), mr.rkey(), mr.length());
    }

    /**
     * A lease's buffer ({@link Lease#capacity()} bytes), to advertise to a peer; the pool needs remote
     * access flags, and its rkey covers the whole slab ({@code PoolConfig.access}).
     */
    public static RemoteBuffer of(Lease lease) {
        return new RemoteBuffer(lease.address(), lease.rkey(), lease.capacity());
    }

    /**
     * The part {@code [offset, offset + len)} of this buffer.
     *
     * @throws VerbsException EINVAL when it is not inside
     */
    public RemoteBuffer slice(long offset, long len) {
        check(offset, len, "slice");
        return new RemoteBuffer(address + offset, rkey, len);
    }

    /**
     * Checks that {@code [offset, offset + len)} lies inside this buffer.
     *
     * @throws VerbsException EINVAL naming {@code what} otherwise
     */
    public void check(long offset, long len, String what) {
        if (offset < 0 || len < 0 || offset > length || len > length - offset) {
            throw new VerbsException(Errno.EINVAL, what + ": remote range [" + offset + ", +" + len + ") is outside the remote buffer of "
                    + length + " bytes");
        }
    }

    /** The {@link #ENCODED_LENGTH}-byte form. */
    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(ENCODED_LENGTH).order(ByteOrder.BIG_ENDIAN);
        b.putShort(MAGIC).put(VERSION).put((byte) 0).putLong(address).putInt(rkey).putLong(length);
        return b.array();
    }

    /**
     * Reads the form of {@link #encode()} at {@code offset} of {@code data} (e.g. a connection's
     * private data, which the CM pads with zeros).
     *
     * @throws VerbsException EINVAL when the bytes are too few or not a descriptor (magic, version)
     */
    public static RemoteBuffer decode(byte[] data, int offset) {
        if (data == null || offset < 0 || data.length - offset < ENCODED_LENGTH) {
            throw new VerbsException(Errno.EINVAL, "RemoteBuffer.decode: fewer than " + ENCODED_LENGTH + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(data, offset, ENCODED_LENGTH).order(ByteOrder.BIG_ENDIAN);
        if (b.getShort() != MAGIC || b.get() != VERSION) {
            throw new VerbsException(Errno.EINVAL, "RemoteBuffer.decode: not a remote buffer descriptor (magic or version)");
        }
        b.get();
        return new RemoteBuffer(b.getLong(), b.getInt(), b.getLong());
    }
}
