package org.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import org.jrdma.ibverbs.bind.IbvLayouts;
import org.jrdma.ibverbs.bind.LibIbverbs;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.TransportType;
import org.jrdma.verbs.VerbsException;

/**
 * A kernel RDMA device, {@code struct ibv_device} of libibverbs' device list. Immutable; any thread.
 */
final class IbvDevice implements Device {
    /** {@code IBV_TRANSPORT_IWARP}. */
    private static final int TRANSPORT_IWARP = 1;

    private final LibIbverbs lib;
    private final MemorySegment dev;
    private final String name;
    private final long guid;
    private final TransportType transport;

    private IbvDevice(LibIbverbs lib, MemorySegment dev, String name, long guid, TransportType transport) {
        this.lib = lib;
        this.dev = dev;
        this.name = name;
        this.guid = guid;
        this.transport = transport;
    }

    /**
     * Reads a device of the list. ABI check: {@code ibv_get_device_name} must point at the name
     * member of {@link IbvLayouts#DEVICE}.
     *
     * @throws VerbsException EPROTO when the device structure does not have the layout expected
     */
    static IbvDevice of(LibIbverbs lib, MemorySegment dev) {
        MemorySegment namePtr = lib.getDeviceName(dev);
        if (namePtr.address() != dev.address() + IbvLayouts.DEVICE_NAME_OFF) {
            throw new VerbsException(Errno.EPROTO, "struct ibv_device of " + lib.file()
                    + " does not have the layout of verbs.h 44: ibv_get_device_name points at offset "
                    + (namePtr.address() - dev.address()) + ", not " + IbvLayouts.DEVICE_NAME_OFF);
        }
        String name = dev.getString(IbvLayouts.DEVICE_NAME_OFF);
        long guid = Long.reverseBytes(lib.getDeviceGuid(dev));
        TransportType t = dev.get(JAVA_INT, IbvLayouts.DEVICE_TRANSPORT_OFF) == TRANSPORT_IWARP
                ? TransportType.IWARP : TransportType.IB;
        return new IbvDevice(lib, dev, name, guid, t);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long guid() {
        return guid;
    }

    @Override
    public TransportType transportType() {
        return transport;
    }

    /** {@code ibv_open_device(3)}. @throws VerbsException with its errno (e.g. ENODEV, EACCES on /dev/infiniband) */
    @Override
    public Context open() {
        return IbvContext.open(lib, this, dev);
    }

    /**
     * The device's addresses as GIDs, read without opening it (issue 13, for the connection manager's
     * address-to-device map and the tools' "device address"): every IP address of the net device behind
     * port 1 (RoCE: {@code gid_attrs/ndevs/0}; iWARP, which has no {@code gid_attrs/ndevs}: the net device
     * whose MAC is the MAC-based GID 0), IPv4 before IPv6, then the other non-zero, non-link-local
     * entries of port 1's GID table ({@link DeviceAddresses}). Empty when sysfs has no such entries. Any
     * thread; reads sysfs per call.
     */
    @Override
    public java.util.List<org.jrdma.verbs.Gid> gids() {
        return DeviceAddresses.gids(java.nio.file.Path.of("/sys/class/infiniband", name, "ports", "1"),
                DeviceAddresses.SYSTEM);
    }

    @Override
    public String toString() {
        return "ibverbs:" + name;
    }
}
