package org.jrdma.verbs;

/**
 * The send operations a QP of the extended API may post, {@code enum ibv_qp_create_send_ops_flags}
 * (verbs.h; {@code ibv_create_qp_ex(3)}, {@code ibv_wr_post(3)}): {@link QpInitAttrEx#sendOpsFlags}
 * selects them at creation, each {@code wr*} builder of {@link QpEx} needs its bit. Combine with
 * {@code |}. The software providers support, as rxe does: on RC every bit but {@link #WITH_TSO}; on
 * UC RDMA WRITE (with immediate), SEND (with immediate), BIND_MW and SEND_WITH_INV; on UD SEND (with
 * immediate). Any other bit fails the creation with EOPNOTSUPP.
 */
public final class SendOpsFlags {
    public static final int WITH_RDMA_WRITE = 1;
    public static final int WITH_RDMA_WRITE_WITH_IMM = 1 << 1;
    public static final int WITH_SEND = 1 << 2;
    public static final int WITH_SEND_WITH_IMM = 1 << 3;
    public static final int WITH_RDMA_READ = 1 << 4;
    public static final int WITH_ATOMIC_CMP_AND_SWP = 1 << 5;
    public static final int WITH_ATOMIC_FETCH_AND_ADD = 1 << 6;
    public static final int WITH_LOCAL_INV = 1 << 7;
    public static final int WITH_BIND_MW = 1 << 8;
    public static final int WITH_SEND_WITH_INV = 1 << 9;
    /** TCP segmentation offload (raw packet QPs); no software provider supports it. */
    public static final int WITH_TSO = 1 << 10;
    public static final int WITH_FLUSH = 1 << 11;
    public static final int WITH_ATOMIC_WRITE = 1 << 12;

    private SendOpsFlags() {
    }

    /** The bit that enables {@code op}. */
    public static int of(WrOpcode op) {
        return switch (op) {
            case RDMA_WRITE -> WITH_RDMA_WRITE;
            case RDMA_WRITE_WITH_IMM -> WITH_RDMA_WRITE_WITH_IMM;
            case SEND -> WITH_SEND;
            case SEND_WITH_IMM -> WITH_SEND_WITH_IMM;
            case RDMA_READ -> WITH_RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> WITH_ATOMIC_CMP_AND_SWP;
            case ATOMIC_FETCH_AND_ADD -> WITH_ATOMIC_FETCH_AND_ADD;
            case LOCAL_INV -> WITH_LOCAL_INV;
            case BIND_MW -> WITH_BIND_MW;
            case SEND_WITH_INV -> WITH_SEND_WITH_INV;
            case FLUSH -> WITH_FLUSH;
            case ATOMIC_WRITE -> WITH_ATOMIC_WRITE;
        };
    }
}
