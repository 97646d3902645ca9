package org.jrdma.verbs;

/** The flags of {@code ibv_rereg_mr(3)}, {@code enum ibv_rereg_mr_flags} (verbs.h). Combine with {@code |}. */
public final class ReregMrFlags {
    /** {@code IBV_REREG_MR_CHANGE_TRANSLATION}: new memory (address and length). */
    public static final int CHANGE_TRANSLATION = 1;
    /** {@code IBV_REREG_MR_CHANGE_PD}: a new protection domain. */
    public static final int CHANGE_PD = 1 << 1;
    /** {@code IBV_REREG_MR_CHANGE_ACCESS}: new access flags. */
    public static final int CHANGE_ACCESS = 1 << 2;
    /** {@code IBV_REREG_MR_KEEP_VALID}: libibverbs knows it, the kernel refuses it (EINVAL). */
    public static final int KEEP_VALID = 1 << 3;

    private ReregMrFlags() {
    }
}
