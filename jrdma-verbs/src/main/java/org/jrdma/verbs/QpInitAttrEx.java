package org.jrdma.verbs;

/**
 * Extended queue pair creation attributes, {@code struct ibv_qp_init_attr_ex} ({@code ibv_create_qp_ex(3)}):
 * the attributes of {@code ibv_create_qp} ({@link #attr()}: CQs, capabilities, type, sq_sig_all)
 * plus the comp_mask-selected fields. Setting {@link #pd} or {@link #sendOpsFlags} sets its
 * comp_mask bit. Mutable and reusable.
 */
public final class QpInitAttrEx {
    /** comp_mask: {@link #pd()} is valid ({@code IBV_QP_INIT_ATTR_PD}); required. */
    public static final int MASK_PD = 1;
    /** comp_mask: XRC domain ({@code IBV_QP_INIT_ATTR_XRCD}); not supported (EOPNOTSUPP). */
    public static final int MASK_XRCD = 1 << 1;
    /** comp_mask: {@link #createFlags()} is valid ({@code IBV_QP_INIT_ATTR_CREATE_FLAGS}). */
    public static final int MASK_CREATE_FLAGS = 1 << 2;
    /** comp_mask: max_tso_header ({@code IBV_QP_INIT_ATTR_MAX_TSO_HEADER}); not supported (EOPNOTSUPP). */
    public static final int MASK_MAX_TSO_HEADER = 1 << 3;
    /** comp_mask: RSS indirection table ({@code IBV_QP_INIT_ATTR_IND_TABLE}); not supported (EOPNOTSUPP). */
    public static final int MASK_IND_TABLE = 1 << 4;
    /** comp_mask: RSS hash ({@code IBV_QP_INIT_ATTR_RX_HASH}); not supported (EOPNOTSUPP). */
    public static final int MASK_RX_HASH = 1 << 5;
    /** comp_mask: {@link #sendOpsFlags()} is valid ({@code IBV_QP_INIT_ATTR_SEND_OPS_FLAGS}). */
    public static final int MASK_SEND_OPS_FLAGS = 1 << 6;

    private final QpInitAttr attr = new QpInitAttr();
    private int compMask;
    private ProtectionDomain pd;
    private int createFlags;
    private int sendOpsFlags;

    /** The base attributes ({@code send_cq}, {@code recv_cq}, {@code cap}, {@code qp_type}, {@code sq_sig_all}), mutable in place. */
    public QpInitAttr attr() {
        return attr;
    }

    /** Which optional fields are valid: {@code MASK_*} bits. */
    public int compMask() {
        return compMask;
    }

    public QpInitAttrEx compMask(int compMask) {
        this.compMask = compMask;
        return this;
    }

    /** The protection domain of the QP ({@code pd}). */
    public ProtectionDomain pd() {
        return pd;
    }

    /** Sets the PD and {@link #MASK_PD}. */
    public QpInitAttrEx pd(ProtectionDomain pd) {
        this.pd = pd;
        this.compMask |= MASK_PD;
        return this;
    }

    /** {@code create_flags} ({@code enum ibv_qp_create_flags}); the software providers support none (any bit: EOPNOTSUPP, as rxe). */
    public int createFlags() {
        return createFlags;
    }

    /** Sets {@code create_flags} and {@link #MASK_CREATE_FLAGS}. */
    public QpInitAttrEx createFlags(int createFlags) {
        this.createFlags = createFlags;
        this.compMask |= MASK_CREATE_FLAGS;
        return this;
    }

    /** {@link SendOpsFlags} bits: the operations {@link QpEx}'s builders may post. */
    public int sendOpsFlags() {
        return sendOpsFlags;
    }

    /** Sets {@code send_ops_flags} and {@link #MASK_SEND_OPS_FLAGS}. */
    public QpInitAttrEx sendOpsFlags(int sendOpsFlags) {
        this.sendOpsFlags = sendOpsFlags;
        this.compMask |= MASK_SEND_OPS_FLAGS;
        return this;
    }
}
