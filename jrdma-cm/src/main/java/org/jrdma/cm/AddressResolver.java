package org.jrdma.cm;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.VerbsException;

/**
 * Which local jrdma device serves a connection to an address ({@code rdma_resolve_addr(3)}): with a
 * source address given, the device bound to it; else the device bound to the source address the
 * operating system's routing picks for the destination (a connected UDP socket's local address, as
 * the kernel's {@code rdma_resolve_ip} asks the routing table), which for a destination on a local
 * device is that device (loopback).
 */
final class AddressResolver {
    private AddressResolver() {
    }

    /**
     * The source address for {@code dst}: {@code src} when given (not the wildcard), else the routing's choice.
     *
     * @throws VerbsException ENETUNREACH when there is no route, EADDRNOTAVAIL when no jrdma device
     *         has the source address
     */
    static InetAddress source(InetAddress src, InetAddress dst) {
        if (src != null && !src.isAnyLocalAddress()) {
            return src;
        }
        if (CmDevice.forAddress(dst).isPresent()) {
            return dst;
        }
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.connect(new InetSocketAddress(dst, 9));
            return ((InetSocketAddress) ch.getLocalAddress()).getAddress();
        } catch (IOException e) {
            throw new VerbsException(Errno.ENETUNREACH, "rdma_resolve_addr: no route to " + dst.getHostAddress()
                    + ": " + e.getMessage());
        }
    }

    /** The device bound to {@code local}. @throws VerbsException EADDRNOTAVAIL when none is */
    static Device device(InetAddress local) {
        return CmDevice.forAddress(local).orElseThrow(() -> new VerbsException(Errno.EADDRNOTAVAIL,
                "no jrdma device has address " + local.getHostAddress() + " (JRDMA_DEVICES gives the devices' addresses)"));
    }
}
