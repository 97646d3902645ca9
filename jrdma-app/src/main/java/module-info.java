/**
 * jrdma for applications (issue 15): a pool of registered memory ({@code org.jrdma.pool}) and
 * connected endpoints over the connection manager with a future per work request
 * ({@code org.jrdma.app}). Requires only the verbs API and the CM; the providers (jrdma-rocev2,
 * jrdma-iwarp, jrdma-native) are runtime dependencies found by {@link java.util.ServiceLoader}.
 */
module org.jrdma.app {
    requires transitive org.jrdma.cm;
    exports org.jrdma.pool;
    exports org.jrdma.app;
}
