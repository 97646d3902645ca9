package org.jrdma.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.jrdma.verbs.spi.Provider;

/**
 * Entry point: {@code ibv_get_device_list(3)} over every installed provider (found with
 * {@link ServiceLoader}: the software RoCE v2 provider, later iWARP and the native one).
 */
public final class Verbs {
    // issue 15 (app): no SLF4J "no providers" warning when the application has no SLF4J provider
    static {
        QuietLogging.apply();
    }

    private Verbs() {
    }

    /**
     * The devices of every provider, in provider then device order, InfiniBand-transport devices
     * (RoCE) before iWARP ones (a stable sort: ServiceLoader's order of provider modules is not
     * defined, and tools that take "the first device that opens" must keep finding the RoCE pair).
     */
    public static List<Device> getDeviceList() {
        List<Device> all = new ArrayList<>();
        for (Provider p : ServiceLoader.load(Provider.class, Verbs.class.getClassLoader())) {
            all.addAll(p.devices());
        }
        all.sort(java.util.Comparator.comparing(Device::transportType)); // issue 12: IB before IWARP
        return List.copyOf(all);
    }

    /**
     * The device with this name.
     *
     * @throws VerbsException ENODEV when there is none, naming those that exist
     */
    public static Device getDevice(String name) {
        List<Device> devices = getDeviceList();
        for (Device d : devices) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        List<String> names = devices.stream().map(Device::name).toList();
        throw new VerbsException(Errno.ENODEV, "no RDMA device '" + name + "' (devices: " + names + ")");
    }
}
