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
}
