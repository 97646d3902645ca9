package org.jrdma.rocev2.transport;

import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.wire.PacketBuffer;

/**
 * Where a device's RoCE v2 packets leave and arrive: UDP port 4791 of its address, possibly with a
 * fault shim or a capture tap wrapped around it. The transport builds complete packets (BTH to
 * ICRC); a port only moves them. Implementations must not allocate per packet.
 */
public interface PacketPort extends AutoCloseable {
    /**
     * Sends {@code len} bytes of {@code buf} (from offset 0) as one UDP datagram to {@code dst}.
     *
     * @return true when handed to the network, false when dropped (counted by the caller)
     */
    boolean send(PacketBuffer buf, int len, SockAddr dst);

    /**
     * Receives one datagram into {@code buf} from offset 0, without blocking.
     *
     * @return its length; 0 when none is waiting; negative when a datagram was dropped (too large,
     *         or a pending ICMP error): the caller counts it and goes on
     */
    int receive(PacketBuffer buf, SockAddr from);

    /** Blocks until a datagram may be waiting, {@link #wakeup()} is called, or the time passes. */
    void awaitReadable(long timeoutNanos);

    /** Ends a concurrent {@link #awaitReadable(long)} early. */
    void wakeup();

    /** The UDP source port the packets leave from (it is inside the ICRC). */
    int localPort();

    @Override
    void close();
}
