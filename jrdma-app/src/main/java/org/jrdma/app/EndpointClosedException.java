package org.jrdma.app;

/**
 * The endpoint is closed or broken: closed by the application, disconnected by the peer, or failed
 * (an error completion, a timed-out work request, a lost peer). Every future outstanding when that
 * happens fails with it; its cause, when there is one, is what broke the endpoint.
 */
public final class EndpointClosedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public EndpointClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
