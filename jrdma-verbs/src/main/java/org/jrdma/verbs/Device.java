package org.jrdma.verbs;

/**
 * An RDMA device, {@code struct ibv_device}: obtained from {@link Verbs#getDeviceList()} and opened
 * with {@link #open()} ({@code ibv_open_device(3)}).
 */
public interface Device {
    /** The device name, e.g. {@code "jrxe0"} ({@code ibv_get_device_name(3)}). */
    String name();

    /** The node GUID, 64 bits ({@code ibv_get_device_guid(3)}). */
    long guid();

    /** IB for InfiniBand and RoCE, IWARP for iWARP. */
    TransportType transportType();

    /**
     * Opens the device. Each call returns a new context; a software device starts its I/O thread
     * on the first open and stops it when the last context is closed.
     *
     * @throws VerbsException EADDRINUSE / EADDRNOTAVAIL when a software device cannot bind its
     *                        address, ENODEV when the device is gone
     */
    Context open();

    // ---- issue 11 (cm): connection manager, QP1 ----

    /**
     * The GIDs of port 1 that can be known without opening the device, in GID-table order: on a
     * software RoCE v2 device its IP address as a GID (what Linux's rdma_cm learns from the netdev
     * an address is on). The connection manager maps IP addresses to devices with it, so that it
     * opens only the device it uses (opening claims the device's QP1 for this process).
     *
     * @return the GIDs, empty when the provider does not know them before an open (the default)
     */
    default java.util.List<Gid> gids() {
        return java.util.List.of();
    }
}
