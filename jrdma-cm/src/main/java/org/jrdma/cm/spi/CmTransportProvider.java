package org.jrdma.cm.spi;

import java.util.Optional;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;

/**
 * A connection transport for devices the built-in IB CM does not serve (iWARP: TCP and MPA),
 * found with {@link java.util.ServiceLoader} ({@code provides org.jrdma.cm.spi.CmTransportProvider}).
 * The CM asks every provider, in {@code ServiceLoader} order, whether it serves a device when it
 * opens the device (once per process, as librdmacm); a device no provider serves gets the IB CM.
 */
public interface CmTransportProvider {
    /**
     * The transport of {@code device}, whose context the CM has just opened (shared by every ID on
     * the device), or empty when this provider does not serve the device. Called under the CM lock.
     */
    Optional<CmTransport> open(Device device, Context context, CmHost host);
}
