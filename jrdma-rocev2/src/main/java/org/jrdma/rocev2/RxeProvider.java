package org.jrdma.rocev2;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.spi.Provider;

/**
 * The software RoCE v2 provider ("rxe"): one {@link RxeDevice} per configured address
 * ({@link DeviceConfig}). Devices are created once per JVM and shared.
 */
public final class RxeProvider implements Provider {
    private static final Map<String, RxeDevice> DEVICES = new LinkedHashMap<>();

    @Override
    public String name() {
        return "rxe";
    }

    @Override
    public List<Device> devices() {
        List<DeviceConfig> configs;
        try {
            configs = DeviceConfig.fromEnvironment();
        } catch (IllegalArgumentException e) {
            throw new org.jrdma.verbs.VerbsException(org.jrdma.verbs.Errno.EINVAL, e.getMessage());
        }
        List<Device> out = new ArrayList<>();
        synchronized (DEVICES) {
            for (DeviceConfig c : configs) {
                if (c.name().startsWith("jsiw")) {
                    continue; // issue 12: an iWARP device, the jrdma-iwarp provider's (SiwDeviceConfig)
                }
                RxeDevice d = DEVICES.get(c.name());
                if (d == null || !d.address().equals(c.address())) {
                    d = new RxeDevice(c.name(), c.address());
                    DEVICES.put(c.name(), d);
                }
                out.add(d);
            }
        }
        return out;
    }
}
