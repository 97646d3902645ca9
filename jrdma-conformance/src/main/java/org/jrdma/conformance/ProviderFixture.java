package org.jrdma.conformance;

import org.jrdma.verbs.Context;

/**
 * How a provider takes part in the conformance suite: it opens two devices that can reach each
 * other and says which optional {@link Feature}s it has. A provider runs the suite by subclassing
 * every abstract {@code *Conformance} class in its own tests and returning its fixture from
 * {@link ConformanceBase#fixture()}.
 *
 * <p>Each test class opens one context on each device before its first test and closes both
 * after its last.
 */
public interface ProviderFixture {
    /** A short name for messages, e.g. {@code "rocev2"}. */
    String name();

    /** Opens a new context on the first device ({@code ibv_open_device(3)}). */
    Context openFirst();

    /** Opens a new context on the second device, which the first can reach. */
    Context openSecond();

    /** True when the provider implements {@code feature}. */
    boolean supports(Feature feature);

    /**
     * Connects two RC QPs in INIT ({@code a} on the first device, {@code b} on the second) and moves
     * both to RTS, for a provider whose QPs reach RTR and RTS only through its connection manager
     * (iWARP: siw refuses {@code ibv_modify_qp} to RTS without the CM's socket, see
     * {@link Feature#MODIFY_TO_RTS}). Returns false (the default) when the suite should connect
     * them itself with the libibverbs modify steps.
     *
     * @param depth the IRD and ORD of both
     */
    default boolean connectRc(org.jrdma.verbs.QueuePair a, org.jrdma.verbs.QueuePair b, int depth) {
        return false;
    }

    /** The port to use, 1 unless told. */
    default int portNum() {
        return 1;
    }

    /** The GID table index each device is addressed by, 0 unless told. */
    default int gidIndex() {
        return 0;
    }
}
