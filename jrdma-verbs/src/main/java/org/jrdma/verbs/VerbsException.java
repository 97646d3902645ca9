package org.jrdma.verbs;

/**
 * A verbs call failed, with the errno libibverbs would return for the same call
 * (for example {@link Errno#EINVAL} for a work request posted to a QP in RESET, see
 * {@code ibv_post_send(3)}, or {@link Errno#ENOMEM} when the receive queue is full).
 *
 * <p>Unchecked, like a programming error: libibverbs reports these through return values that
 * correct programs do not expect to see.
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public VerbsException(int errno, String message) {
        super(Errno.name(errno) + ": " + message);
        this.errno = errno;
    }

    public VerbsException(int errno, String message, Throwable cause) {
        super(Errno.name(errno) + ": " + message, cause);
        this.errno = errno;
    }

    /** The errno libibverbs returns for this failure (positive, e.g. 22 for EINVAL). */
    public int errno() {
        return errno;
    }
}
