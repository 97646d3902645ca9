package org.jrdma.iwarp;

import org.jrdma.iwarp.transport.DirectConnect;
import org.jrdma.verbs.QueuePair;

/**
 * Connects two QPs of jrdma iWARP devices in this JVM without the CM, for test harnesses such as
 * the conformance suite (siw's QPs reach RTS only through iw_cm; applications use
 * {@code org.jrdma.cm}). See {@link DirectConnect#connect}.
 */
public final class SiwDirectConnect {
    private SiwDirectConnect() {
    }

    /**
     * {@code a} (passive) and {@code b} (active), both RC QPs in INIT, connected over TCP between
     * their devices' addresses and moved to RTS, IRD and ORD {@code depth} (1..128) each way.
     *
     * @throws org.jrdma.verbs.VerbsException EINVAL unless both are iWARP QPs in INIT
     */
    public static void connect(QueuePair a, QueuePair b, int depth) {
        DirectConnect.connect(a, b, depth);
    }
}
