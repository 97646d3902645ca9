package org.jrdma.verbs;

/**
 * A scatter/gather element, {@code struct ibv_sge}: {@code length} bytes at virtual address
 * {@code addr} inside the memory region whose lkey is {@code lkey}. Mutable and reusable.
 *
 * <p>{@code length} is 0..2^31-1 (IBTA's largest message is 2^31 bytes; C's {@code uint32_t}
 * lengths of 2^31 and more, e.g. {@code 0xffffffff}, are negative as a Java {@code int}): the
 * constructor and the setters refuse other values with {@link VerbsException} EINVAL, so a work
 * request never carries one.
 */
public final class Sge {
    private long addr;
    private int length;
    private int lkey;

    public Sge() {
    }

    /** @throws VerbsException EINVAL when {@code length} is negative (not in 0..2^31-1) */
    public Sge(long addr, int length, int lkey) {
        set(addr, length, lkey);
    }

    /**
     * Sets all three fields.
     *
     * @throws VerbsException EINVAL when {@code length} is negative (not in 0..2^31-1); nothing is changed then
     */
    public Sge set(long addr, int length, int lkey) {
        checkLength(length);
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    /** The virtual address of the first byte (a {@code MemorySegment.address()} inside a registered region). */
    public long addr() {
        return addr;
    }

    public Sge addr(long addr) {
        this.addr = addr;
        return this;
    }

    /** Bytes, 0..2^31-1. */
    public int length() {
        return length;
    }

    /** @throws VerbsException EINVAL when {@code length} is negative (not in 0..2^31-1) */
    public Sge length(int length) {
        checkLength(length);
        this.length = length;
        return this;
    }

    /** The lkey of the region that holds the bytes. */
    public int lkey() {
        return lkey;
    }

    public Sge lkey(int lkey) {
        this.lkey = lkey;
        return this;
    }

    private static void checkLength(int length) {
        if (length < 0) {
            throw new VerbsException(Errno.EINVAL, "SGE length " + Integer.toUnsignedString(length)
                    + " not in 0..2^31-1 (the largest message is 2^31 bytes)");
        }
    }
}
