package org.jrdma.iwarp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.spi.Provider;

/**
 * The software iWARP provider ("siw"): one {@link SiwDevice} per configured address
 * ({@link SiwDeviceConfig}). Devices are created once per JVM and shared.
 */
public final class SiwProvider implements Provider {
    private static final Map<String, SiwDevice> DEVICES = new LinkedHashMap<>();

    @Override
    public String name() {
        return "siw";
    }

    @Override
    public List<Device> devices() {
        List<SiwDeviceConfig> configs;
        try {
            configs = SiwDeviceConfig.fromEnvironment();
        } catch (IllegalArgumentException e) {
            throw new VerbsException(Errno.EINVAL, e.getMessage());
        }
        List<Device> out = new ArrayList<>();
        synchronized (DEVICES) {
            for (SiwDeviceConfig c : configs) {
                SiwDevice d = DEVICES.get(c.name());
                if (d == null || !d.address().equals(c.address())) {
                    d = new SiwDevice(c.name(), c.address());
                    DEVICES.put(c.name(), d);
                }
                out.add(d);
            }
        }
        return out;
    }
}
