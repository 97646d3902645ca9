package org.jrdma.cm;

/**
 * A CM port space, {@code enum rdma_port_space} ({@code rdma_create_id(3)}): which QP type the IDs
 * of the space connect, and the high bits of the IB service ID ({@code RDMA_PS << 16 | port},
 * Linux {@code cma.c: cma_get_service_id}).
 */
public enum PortSpace {
    /** Reliable, connected QPs (RC) through the REQ/REP/RTU exchange; {@code RDMA_PS_TCP = 0x0106}. */
    TCP(0x0106),
    /** Unreliable datagram QPs (UD) through SIDR; {@code RDMA_PS_UDP = 0x0111}. */
    UDP(0x0111);

    private final int value;

    PortSpace(int value) {
        this.value = value;
    }

    /** {@code RDMA_PS_*}. */
    public int value() {
        return value;
    }

    /** The IB service ID of {@code port} in this space: {@code 0x0000000001PPxxxx} with PP the space's low byte. */
    public long serviceId(int port) {
        return ((long) value << 16) | (port & 0xffff);
    }

    /**
     * The largest private data an application may pass to connect ({@code rdma_connect(3)}): 92 bytes
     * of the REQ minus the 36-byte rdma_cm IP header for TCP (56); 216 - 36 of the SIDR_REQ for UDP (180).
     */
    public int maxConnectPrivateData() {
        return this == TCP ? 56 : 180;
    }

    /** The largest private data of an accept: the whole REP's 196 bytes for TCP, the SIDR_REP's 136 for UDP. */
    public int maxAcceptPrivateData() {
        return this == TCP ? 196 : 136;
    }

    /** The largest private data of a reject: the REJ's 148 bytes for TCP, the SIDR_REP's 136 for UDP. */
    public int maxRejectPrivateData() {
        return this == TCP ? 148 : 136;
    }
}
