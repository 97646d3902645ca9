package org.jrdma.verbs;

/** {@code enum ibv_gid_type} ({@code ibv_query_gid_ex(3)}). Ordinal = libibverbs value. */
public enum GidType {
    /** {@code IBV_GID_TYPE_IB}: an InfiniBand GID. */
    IB,
    /** {@code IBV_GID_TYPE_ROCE_V1}: RoCE v1 (Ethertype 0x8915). */
    ROCE_V1,
    /** {@code IBV_GID_TYPE_ROCE_V2}: RoCE v2 (UDP port 4791), every GID of a jrdma software device. */
    ROCE_V2;

    /** The libibverbs value, 0..2. */
    public int value() {
        return ordinal();
    }
}
