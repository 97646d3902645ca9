package org.jrdma.verbs;

/**
 * What a memory window is bound to, {@code struct ibv_mw_bind_info} (verbs.h; {@code ibv_bind_mw(3)},
 * {@code ibv_post_send(3)}): a range [{@link #addr()}, {@link #addr()} + {@link #length()}) of a memory
 * region and the window's remote rights. Mutable and reusable; a bind copies it at post time.
 *
 * <p>The bind fails with completion status {@link WcStatus#MW_BIND_ERR} (rxe {@code rxe_check_bind_mw})
 * when the region lacks {@link AccessFlags#MW_BIND}, when the window grants REMOTE_WRITE or
 * REMOTE_ATOMIC over a region without LOCAL_WRITE, when the range is not inside the region, for a
 * type 2 window without a region or with length 0, or with rights other than REMOTE_READ,
 * REMOTE_WRITE, REMOTE_ATOMIC, LOCAL_WRITE, MW_BIND, FLUSH_GLOBAL, FLUSH_PERSISTENT and (type 2 only)
 * ZERO_BASED.
 */
public final class MwBindInfo {
    private MemoryRegion mr;
    private long addr;
    private long length;
    private int mwAccessFlags;

    /** The region the window lies in; null (with addr and length 0) unbinds a type 1 window. */
    public MemoryRegion mr() {
        return mr;
    }

    public MwBindInfo mr(MemoryRegion mr) {
        this.mr = mr;
        return this;
    }

    /** The virtual address of the window's first byte, inside the region. */
    public long addr() {
        return addr;
    }

    public MwBindInfo addr(long addr) {
        this.addr = addr;
        return this;
    }

    /** The window's length, bytes (0 unbinds a type 1 window). */
    public long length() {
        return length;
    }

    public MwBindInfo length(long length) {
        this.length = length;
        return this;
    }

    /**
     * The window's rights ({@code mw_access_flags}): {@link AccessFlags#REMOTE_READ},
     * {@link AccessFlags#REMOTE_WRITE}, {@link AccessFlags#REMOTE_ATOMIC}, {@link AccessFlags#FLUSH_GLOBAL},
     * {@link AccessFlags#FLUSH_PERSISTENT} (FLUSH through the window); {@link AccessFlags#ZERO_BASED}
     * for a type 2 window addressed from 0 (remote addresses are then offsets into the window).
     */
    public int mwAccessFlags() {
        return mwAccessFlags;
    }

    public MwBindInfo mwAccessFlags(int mwAccessFlags) {
        this.mwAccessFlags = mwAccessFlags;
        return this;
    }

    /** Sets every field. @return this */
    public MwBindInfo set(MemoryRegion mr, long addr, long length, int mwAccessFlags) {
        this.mr = mr;
        this.addr = addr;
        this.length = length;
        this.mwAccessFlags = mwAccessFlags;
        return this;
    }
}
