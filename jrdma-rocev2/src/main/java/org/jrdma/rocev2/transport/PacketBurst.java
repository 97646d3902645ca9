package org.jrdma.rocev2.transport;

import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.PacketBuffer;

/**
 * A burst of received datagrams ({@link PacketPort#receiveBurst}): pre-allocated slots, each a
 * {@link PacketBuffer} for one UDP payload (from offset 0), its length, its source address and
 * port, and its IPv4 Identification and flags where the port saw the IP header. Reused for every
 * burst; nothing allocates after construction. Owned by one receiving thread at a time.
 */
public final class PacketBurst {
    private final PacketBuffer[] buffers;
    private final SockAddr[] from;
    private final int[] lengths;
    private final long[] idFlags;
    private final int[] tos;

    /**
     * A burst of {@code slots} datagrams of up to {@code slotBytes} bytes each (a longer datagram
     * is reported as dropped: a negative length).
     *
     * @param slots 1..1024
     * @param slotBytes 16..65536
     */
    public PacketBurst(int slots, int slotBytes) {
        if (slots < 1 || slots > 1024 || slotBytes < 16 || slotBytes > 65536) {
            throw new IllegalArgumentException(slots + " slots of " + slotBytes + " bytes");
        }
        buffers = new PacketBuffer[slots];
        from = new SockAddr[slots];
        lengths = new int[slots];
        idFlags = new long[slots];
        tos = new int[slots];
        for (int i = 0; i < slots; i++) {
            buffers[i] = PacketBuffer.allocate(slotBytes);
            from[i] = new SockAddr();
            idFlags[i] = -1;
            tos[i] = -1;
        }
    }

    /** The number of slots. */
    public int capacity() {
        return buffers.length;
    }

    /** Bytes a slot holds. */
    public int slotBytes() {
        return buffers[0].capacity();
    }

    /** Slot {@code i}'s buffer: the datagram's UDP payload from offset 0. */
    public PacketBuffer buffer(int i) {
        return buffers[i];
    }

    /** Slot {@code i}'s source address and UDP port (filled by the port). */
    public SockAddr from(int i) {
        return from[i];
    }

    /** Slot {@code i}'s length in bytes, or a negative value for a datagram the port dropped. */
    public int length(int i) {
        return lengths[i];
    }

    /** Slot {@code i}'s {@code (id << 16) | flags}, or -1 when the port cannot see the IP header. */
    public long ipv4IdAndFlags(int i) {
        return idFlags[i];
    }

    /**
     * Slot {@code i}'s IPv4 TOS / IPv6 Traffic Class byte (0–255; its low 2 bits are the ECN field,
     * 3 = CE, RFC 3168), or -1 when the port did not see it.
     */
    public int trafficClass(int i) {
        return tos[i];
    }

    /** For ports: records slot {@code i}'s length and IPv4 Identification and flags (-1 when unknown); traffic class unknown. */
    public void set(int i, int length, long ipv4IdAndFlags) {
        set(i, length, ipv4IdAndFlags, -1);
    }

    /** For ports: records slot {@code i}'s length, IPv4 Identification and flags and traffic class (-1 when unknown). */
    public void set(int i, int length, long ipv4IdAndFlags, int trafficClass) {
        lengths[i] = length;
        idFlags[i] = ipv4IdAndFlags;
        tos[i] = trafficClass;
    }

    /** For a shim: changes slot {@code i}'s traffic class (e.g. marks it CE). */
    public void trafficClass(int i, int trafficClass) {
        tos[i] = trafficClass;
    }
}
