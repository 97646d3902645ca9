package org.jrdma.verbs;

/**
 * Memory window types, {@code enum ibv_mw_type} (verbs.h; {@code ibv_alloc_mw(3)}; IBTA Vol 1
 * §10.6.7). A type 1 window is bound with {@link QueuePair#bindMw} (a bind WR the provider posts) and
 * stays with its PD; a type 2 window is bound with a {@link WrOpcode#BIND_MW} work request, belongs to
 * the QP that bound it (type 2B: only requests arriving on that QP may use it) and must be invalidated
 * ({@link WrOpcode#LOCAL_INV} or a peer's {@link WrOpcode#SEND_WITH_INV}) before it is bound again.
 */
public enum MwType {
    /** {@code IBV_MW_TYPE_1}. */
    TYPE_1(1),
    /** {@code IBV_MW_TYPE_2} (rxe implements type 2B). */
    TYPE_2(2);

    private final int value;

    MwType(int value) {
        this.value = value;
    }

    /** The libibverbs value ({@code IBV_MW_TYPE_1} = 1). */
    public int value() {
        return value;
    }

    /**
     * The type with libibverbs value {@code value}.
     *
     * @throws VerbsException EINVAL for anything but 1 and 2 (the kernel's {@code ib_uverbs_alloc_mw}
     *                        refuses other types, e.g. 3, with EINVAL)
     */
    public static MwType of(int value) {
        return switch (value) {
            case 1 -> TYPE_1;
            case 2 -> TYPE_2;
            default -> throw new VerbsException(Errno.EINVAL, "mw_type " + value + " is not IBV_MW_TYPE_1 or IBV_MW_TYPE_2");
        };
    }
}
