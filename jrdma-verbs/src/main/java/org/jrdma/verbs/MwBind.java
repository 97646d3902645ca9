package org.jrdma.verbs;

/**
 * A type 1 window bind, {@code struct ibv_mw_bind} ({@code ibv_bind_mw(3)}): the wr_id and send flags
 * of the bind work request the provider posts, and what to bind. Mutable and reusable.
 */
public final class MwBind {
    private long wrId;
    private int sendFlags;
    private final MwBindInfo bindInfo = new MwBindInfo();

    /** The wr_id of the bind's completion. */
    public long wrId() {
        return wrId;
    }

    public MwBind wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** {@link SendFlags} bits: SIGNALED for a completion on success, FENCE. */
    public int sendFlags() {
        return sendFlags;
    }

    public MwBind sendFlags(int sendFlags) {
        this.sendFlags = sendFlags;
        return this;
    }

    /** What to bind (this object's own, to fill in). */
    public MwBindInfo bindInfo() {
        return bindInfo;
    }
}
