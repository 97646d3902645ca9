package org.jrdma.verbs;

/** Send work request flags, {@code enum ibv_send_flags} (verbs.h; {@code ibv_post_send(3)}). */
public final class SendFlags {
    /** Wait for outstanding RDMA READ and atomic operations to complete before this WR starts. */
    public static final int FENCE = 1;
    /** Generate a completion for this WR even when the QP does not signal all WRs. */
    public static final int SIGNALED = 1 << 1;
    /** Set the solicited event bit in the last packet of the message. */
    public static final int SOLICITED = 1 << 2;
    /** Copy the gathered data at post time; the lkeys of the SGEs are not checked. */
    public static final int INLINE = 1 << 3;
    /** Insert checksum offload (UD over Ethernet, not used by the software providers). */
    public static final int IP_CSUM = 1 << 4;

    private SendFlags() {
    }
}
