package org.jrdma.rocev2.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.SocketException;

/**
 * A socket system call failed in a way the caller cannot count and carry on from (a bad argument,
 * a closed descriptor, a refused bind). The message names the call, the address where one applies,
 * and the {@code strerror(3)} text; {@link #errno()} gives the Linux errno value.
 *
 * <p>The cause is a {@link BindException} when {@code bind(2)} failed and a {@link SocketException}
 * otherwise, with the same message.
 */
public final class NetException extends UncheckedIOException {
    private static final long serialVersionUID = 1L;

    private final int errno;

    NetException(String message, int errno, IOException cause) {
        super(message, cause);
        this.errno = errno;
    }

    /** A failure of {@code call} with {@code errno}: message "{@code call: strerror(errno)}". */
    static NetException of(String call, int errno) {
        String m = call + ": " + LibC.strerror(errno);
        return new NetException(m, errno, new SocketException(m));
    }

    /** A bind failure: message "cannot bind {@code address}: strerror(errno)". */
    static NetException bind(String address, int errno) {
        String m = "cannot bind " + address + ": " + LibC.strerror(errno);
        return new NetException(m, errno, new BindException(m));
    }

    /** The Linux errno value ({@code <asm-generic/errno-base.h>}, {@code <asm-generic/errno.h>}). */
    public int errno() {
        return errno;
    }
}
