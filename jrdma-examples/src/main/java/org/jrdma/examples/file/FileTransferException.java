package org.jrdma.examples.file;

import java.io.IOException;

/**
 * A file transfer failed: the peer went away or did not answer within the transfer's timeout, it broke
 * the protocol, or the receiver's SHA-256 of the bytes it got differs from the sender's. The message
 * says which; the cause, when there is one, is what the endpoint or socket reported.
 */
public final class FileTransferException extends IOException {
    private static final long serialVersionUID = 1L;
    private final boolean checksumMismatch;

    FileTransferException(String message, Throwable cause) {
        this(message, cause, false);
    }

    FileTransferException(String message, Throwable cause, boolean checksumMismatch) {
        super(message, cause);
        this.checksumMismatch = checksumMismatch;
    }

    /** Whether the transfer completed but the checksums differed (the data was corrupted on the way). */
    public boolean checksumMismatch() {
        return checksumMismatch;
    }
}
