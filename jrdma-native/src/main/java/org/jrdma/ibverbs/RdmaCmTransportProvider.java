package org.jrdma.ibverbs;

import java.util.Optional;
import org.jrdma.cm.spi.CmHost;
import org.jrdma.cm.spi.CmTransport;
import org.jrdma.cm.spi.CmTransportProvider;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;

/**
 * Serves the connection manager ({@code org.jrdma.cm}) of native devices through librdmacm
 * ({@link RdmaCmTransport}); found by the CM with {@code ServiceLoader}. A device of another provider
 * gets empty. Called under the CM lock.
 */
public final class RdmaCmTransportProvider implements CmTransportProvider {
    @Override
    public Optional<CmTransport> open(Device device, Context context, CmHost host) {
        if (context instanceof IbvContext ic) {
            return RdmaCmTransport.open(ic, host);
        }
        return Optional.empty();
    }
}
