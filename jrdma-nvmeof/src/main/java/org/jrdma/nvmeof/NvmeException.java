package org.jrdma.nvmeof;

/**
 * A failure of the NVMe/RDMA transport or of the host's protocol logic: a queue that could not be
 * connected (the RDMA CM's REJECTED with the target's {@code nvme_rdma_cm_rej} status, UNREACHABLE), a
 * work completion in error, a malformed or unexpected response capsule (the queue is then cut off), a
 * command that timed out, a disconnect by the target. The futures of the commands outstanding on the
 * queue complete exceptionally with it.
 */
public class NvmeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NvmeException(String message) {
        super(message);
    }

    public NvmeException(String message, Throwable cause) {
        super(message, cause);
    }
}
