package org.jrdma.verbs;

/** Device transport, {@code enum ibv_transport_type}: perftest prints it as "IB" or "IW". */
public enum TransportType {
    /** InfiniBand transport: InfiniBand and RoCE devices. */
    IB,
    /** iWARP (RDMAP/DDP/MPA over TCP). */
    IWARP
}
