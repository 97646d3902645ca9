package org.jrdma.verbs;

/**
 * The capability bits above the 32 of {@code ibv_device_attr.device_cap_flags} that
 * {@code ibv_query_device_ex(3)} reports in {@code device_cap_flags_ex} for the Memory Placement
 * Extensions (IBTA Vol 1 Annex A19; {@code enum ib_uverbs_device_cap_flags} of the kernel's
 * {@code ib_user_ioctl_verbs.h}, which rdma-core's verbs.h uses; rxe sets all three since Linux 6.2).
 * The software RoCE v2 provider supports all three: {@link WrOpcode#FLUSH} of both placement types
 * and {@link WrOpcode#ATOMIC_WRITE}.
 */
public final class DeviceCapFlagsEx {
    /** FLUSH with placement type global visibility ({@code IB_UVERBS_DEVICE_FLUSH_GLOBAL}). */
    public static final long FLUSH_GLOBAL = 1L << 38;
    /** FLUSH with placement type persistence ({@code IB_UVERBS_DEVICE_FLUSH_PERSISTENT}). */
    public static final long FLUSH_PERSISTENT = 1L << 39;
    /** ATOMIC WRITE ({@code IB_UVERBS_DEVICE_ATOMIC_WRITE}). */
    public static final long ATOMIC_WRITE = 1L << 40;

    private DeviceCapFlagsEx() {
    }
}
