package org.jrdma.perftest;

import java.io.Serial;

/**
 * A failure a tool reports to its user as one line on stderr (never with a stack trace), for
 * example {@code "cannot connect to 10.0.0.9:18515: Connection refused"}. The tools exit with
 * status 1 after printing it.
 */
public final class PerftestException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    public PerftestException(String message) {
        super(message, null, false, false);
    }

    public PerftestException(String message, Throwable cause) {
        super(message, cause, false, false);
    }
}
