package org.jrdma.verbs;

/**
 * A memory window, {@code struct ibv_mw} ({@code ibv_alloc_mw(3)}, {@code ibv_bind_mw(3)}; IBTA Vol 1
 * §10.6.7): a remote key for a range of a memory region registered with {@link AccessFlags#MW_BIND},
 * with its own remote rights, that can be bound, moved and invalidated without re-registering the
 * region. A window grants nothing until bound. Each bind gives the window a new rkey: the upper 24
 * bits stay, the low 8 bits (the "key" of IBTA) are the ones the bind names, so an rkey handed out for
 * an earlier binding stops working (a request with it gets a NAK remote access error, the requester's
 * completion REM_ACCESS_ERR).
 */
public interface MemoryWindow extends AutoCloseable {
    /**
     * The rkey ({@code ibv_mw.rkey}), 32 bits: as libibverbs, the key of the last bind posted
     * ({@link QueuePair#bindMw} sets it when the bind is posted, before it executes: an application may
     * send it to its peer behind the bind on the same QP). jrdma also sets it when a
     * {@link WrOpcode#BIND_MW} work request is posted for a type 2 window, since a Java application
     * cannot write the field. If the bind fails (completion MW_BIND_ERR) the key did not take effect.
     */
    int rkey();

    /** Type 1 or type 2. */
    MwType type();

    /** The protection domain. */
    ProtectionDomain pd();

    /**
     * {@code ibv_dealloc_mw(3)}: frees the window; its rkey stops working at once (a request already
     * checked against it finishes). A bound window may be deallocated (rxe drops its binding).
     */
    @Override
    void close();
}
