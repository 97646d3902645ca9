package org.jrdma.verbs;

/**
 * Memory region and QP access flags, {@code enum ibv_access_flags} (verbs.h; {@code ibv_reg_mr(3)}).
 * Combine with {@code |}. A region with {@link #REMOTE_WRITE} or {@link #REMOTE_ATOMIC} must
 * also have {@link #LOCAL_WRITE}, else registration fails with EINVAL.
 */
public final class AccessFlags {
    /** Local write access (receives and READ responses land here). */
    public static final int LOCAL_WRITE = 1;
    /** Remote peers may RDMA WRITE into the region. */
    public static final int REMOTE_WRITE = 1 << 1;
    /** Remote peers may RDMA READ from the region. */
    public static final int REMOTE_READ = 1 << 2;
    /** Remote peers may perform atomic operations on the region. */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** Memory windows may be bound to the region ({@code IBV_ACCESS_MW_BIND}; IBTA C10-73). */
    public static final int MW_BIND = 1 << 4;
    /**
     * Zero-based addressing ({@code IBV_ACCESS_ZERO_BASED}): for a type 2 window's bind only (remote
     * addresses are offsets into the window); a region or a type 1 window cannot be zero-based (rxe).
     */
    public static final int ZERO_BASED = 1 << 5;
    /** On-demand paging. */
    public static final int ON_DEMAND = 1 << 6;
    /**
     * Remote peers may FLUSH the region for global visibility ({@code IBV_ACCESS_FLUSH_GLOBAL},
     * {@link WrOpcode#FLUSH} with {@link SendWr#FLUSH_GLOBAL}; IBTA Vol 1 Annex A19). On a QP
     * ({@code qp_access_flags}) it lets remote peers flush through it at all.
     */
    public static final int FLUSH_GLOBAL = 1 << 8;
    /**
     * Remote peers may FLUSH the region for persistence ({@code IBV_ACCESS_FLUSH_PERSISTENT}). As rxe
     * allows it only on persistent memory (pmem), the software providers allow it only on a
     * file-backed segment ({@code MemorySegment.isMapped()}, from {@code FileChannel.map}): a persistent
     * flush writes the range to the file ({@code MemorySegment.force()}). Registering any other memory
     * with it fails with EINVAL.
     */
    public static final int FLUSH_PERSISTENT = 1 << 9;
    /** Relaxed ordering hint. */
    public static final int RELAXED_ORDERING = 1 << 20;

    /** All bits the software providers accept for a memory region. */
    public static final int SUPPORTED = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC | MW_BIND | RELAXED_ORDERING
            | FLUSH_GLOBAL | FLUSH_PERSISTENT;

    private AccessFlags() {
    }
}
