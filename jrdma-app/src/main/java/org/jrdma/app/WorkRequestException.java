package org.jrdma.app;

import org.jrdma.verbs.WcOpcode;
import org.jrdma.verbs.WcStatus;

/**
 * A work request completed with an error status ({@code ibv_wc.status} other than SUCCESS), e.g.
 * REM_ACCESS_ERR (the peer refused the rkey or range), RETRY_EXC_ERR (the peer stopped answering),
 * WR_FLUSH_ERR (the QP was already in the error state). The endpoint is broken afterwards.
 */
public final class WorkRequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient WcStatus status;
    private final transient WcOpcode opcode;

    public WorkRequestException(WcStatus status, WcOpcode opcode, String what) {
        super(what + " completed with " + status);
        this.status = status;
        this.opcode = opcode;
    }

    /** The completion's status. */
    public WcStatus status() {
        return status;
    }

    /** The completion's opcode (may be null for a flushed work request, whose opcode libibverbs leaves undefined). */
    public WcOpcode opcode() {
        return opcode;
    }
}
