package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.ibverbs.bind.LibIbverbs;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.spi.Provider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native provider ({@code "ibverbs"}): the kernel's RDMA devices as libibverbs lists them
 * ({@code ibv_get_device_list(3)}), named as the kernel names them ({@code mlx5_0}, {@code rxe0},
 * {@code siw0}). Found through {@link java.util.ServiceLoader}. On the first {@link #devices()} it
 * loads {@code libibverbs.so.1} and checks its ABI; when the library is absent, refused, or lists no
 * device, it offers no devices and says why at debug level (no error for users without RDMA hardware;
 * {@link #unavailableReason()} gives the reason). The device list is read once per process (a device
 * plugged in later is not seen). Any thread.
 */
public final class IbvProvider implements Provider {
    private static final Logger LOG = LoggerFactory.getLogger(IbvProvider.class);

    private static final Object LOCK = new Object();
    private static List<Device> devices; // guarded by LOCK
    private static String reason;        // guarded by LOCK

    @Override
    public String name() {
        return "ibverbs";
    }

    @Override
    public List<Device> devices() {
        synchronized (LOCK) {
            if (devices == null) {
                devices = discover();
            }
            return devices;
        }
    }

    /** Why {@link #devices()} is empty, or null when it is not (after a first call). */
    public static String unavailableReason() {
        synchronized (LOCK) {
            return reason;
        }
    }

    private static List<Device> discover() {
        LibIbverbs lib;
        try {
            lib = LibIbverbs.load();
        } catch (LibIbverbs.Unavailable e) {
            return none(e.getMessage());
        } catch (IllegalCallerException e) {
            return none("native access is not enabled for module org.jrdma.ibverbs (--enable-native-access): "
                    + e.getMessage());
        }
        MemorySegment list;
        int n;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment num = a.allocate(JAVA_INT);
            list = lib.getDeviceList(num);
            n = num.get(JAVA_INT, 0);
        } catch (VerbsException e) {
            if (e.errno() == org.jrdma.verbs.Errno.ENOSYS) {
                return none(lib.file() + " finds no RDMA device: the kernel has no uverbs devices"
                        + " (ibv_get_device_list: ENOSYS; no /sys/class/infiniband_verbs, ib_uverbs not loaded)");
            }
            return none(e.getMessage());
        }
        // the list stays allocated for the life of the process: the devices point into it
        MemorySegment entries = list.reinterpret(ADDRESS.byteSize() * (n + 1L));
        List<Device> found = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            MemorySegment dev = entries.getAtIndex(ADDRESS, i).reinterpret(IbvLayouts.DEVICE.byteSize());
            try {
                found.add(IbvDevice.of(lib, dev));
            } catch (VerbsException e) {
                LOG.debug("native provider: skipping device {} of {}: {}", i, lib.file(), e.getMessage());
            }
        }
        if (found.isEmpty()) {
            return none(lib.file() + " finds no RDMA device (ibv_get_device_list lists none)");
        }
        LOG.debug("native provider: {} from {}", found.stream().map(Device::name).toList(), lib.file());
        return List.copyOf(found);
    }

    private static List<Device> none(String why) {
        reason = why;
        LOG.debug("native provider: no devices: {}", why);
        return List.of();
    }
}
