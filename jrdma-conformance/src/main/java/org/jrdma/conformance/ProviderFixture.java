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

    /** The port to use, 1 unless told. */
    default int portNum() {
        return 1;
    }

    /** The GID table index each device is addressed by, 0 unless told. */
    default int gidIndex() {
        return 0;
    }
}
