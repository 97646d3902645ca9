package org.jrdma.rocev2.transport;

import java.net.InetAddress;
import org.jrdma.rocev2.net.SockAddr;
import org.jrdma.rocev2.net.UdpSocket;
import org.jrdma.rocev2.wire.PacketBuffer;

/**
 * The plain UDP path: one non-blocking libc socket bound to the device's address and UDP port
 * 4791 ({@link UdpSocket}; on IPv6 it accepts rxe's zero UDP checksums). One datagram per packet.
 */
public final class UdpPacketPort implements PacketPort {
    /** How long a send waits for room in a full socket buffer before the packet is dropped, ns. */
    private static final long SEND_WAIT_NANOS = 10_000_000;
    private final UdpSocket socket;

    private UdpPacketPort(UdpSocket socket) {
        this.socket = socket;
    }

    /**
     * Binds {@code address}:{@code port}.
     *
     * @throws org.jrdma.rocev2.net.NetException when the address cannot be bound (in use, not local)
     */
    public static UdpPacketPort open(InetAddress address, int port) {
        UdpSocket s = UdpSocket.open(address, port, UdpSocket.Options.defaults().nonBlocking(true)
                .receiveBufferBytes(8 << 20).sendBufferBytes(8 << 20));
        return new UdpPacketPort(s);
    }

    @Override
    public boolean send(PacketBuffer buf, int len, SockAddr dst) {
        int r = socket.sendTo(buf.seg, 0, len, dst);
        if (r > 0) {
            return true;
        }
        if (r < 0) {
            return false;
        }
        long deadline = System.nanoTime() + SEND_WAIT_NANOS;
        do {
            Thread.yield();
            r = socket.sendTo(buf.seg, 0, len, dst);
        } while (r == 0 && System.nanoTime() - deadline < 0);
        return r > 0;
    }

    @Override
    public int receive(PacketBuffer buf, SockAddr from) {
        return socket.receive(buf.seg, 0, buf.capacity(), from);
    }

    @Override
    public void awaitReadable(long timeoutNanos) {
        socket.awaitReadable(timeoutNanos);
    }

    @Override
    public void wakeup() {
        socket.wakeup();
    }

    @Override
    public int localPort() {
        return socket.localPort();
    }

    @Override
    public void close() {
        socket.close();
    }
}
