package org.jrdma.iwarp.transport;

import java.util.Optional;
import org.jrdma.cm.spi.CmHost;
import org.jrdma.cm.spi.CmTransport;
import org.jrdma.cm.spi.CmTransportProvider;
import org.jrdma.iwarp.SiwContext;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;

/** Serves the CM of jrdma's iWARP devices ({@link SiwCm}): found by the CM through {@code ServiceLoader}. */
public final class SiwCmProvider implements CmTransportProvider {
    @Override
    public Optional<CmTransport> open(Device device, Context context, CmHost host) {
        if (context instanceof SiwContext sc) {
            return Optional.of(new SiwCm(sc.agent(), host));
        }
        return Optional.empty();
    }
}
