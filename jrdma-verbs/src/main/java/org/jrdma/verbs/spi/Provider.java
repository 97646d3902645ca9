package org.jrdma.verbs.spi;

import java.util.List;
import org.jrdma.verbs.Device;

/**
 * A verbs provider (libibverbs' "driver"): registered with {@code provides org.jrdma.verbs.spi.Provider}
 * or {@code META-INF/services}, found by {@link org.jrdma.verbs.Verbs#getDeviceList()}.
 */
public interface Provider {
    /** A short name, e.g. {@code "rxe"}. */
    String name();

    /** The devices this provider offers now (may be empty). */
    List<Device> devices();
}
