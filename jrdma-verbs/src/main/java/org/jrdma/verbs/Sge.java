package org.jrdma.verbs;

/**
 * A scatter/gather element, {@code struct ibv_sge}: {@code length} bytes at virtual address
 * {@code addr} inside the memory region whose lkey is {@code lkey}. Mutable and reusable.
 */
public final class Sge {
    private long addr;
    private int length;
    private int lkey;

    public Sge() {
    }

    public Sge(long addr, int length, int lkey) {
        set(addr, length, lkey);
    }

    /** Sets all three fields. */
    public Sge set(long addr, int length, int lkey) {
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

    public Sge length(int length) {
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
}
