package org.jrdma.rocev2;

import org.jrdma.rocev2.stats.Counters;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import org.jrdma.rocev2.net.NetException;
import org.jrdma.rocev2.transport.PacketPort;
import org.jrdma.rocev2.transport.RxeAgent;
import org.jrdma.rocev2.transport.UdpPacketPort;
import org.jrdma.rocev2.transport.PcapTap;
import org.jrdma.rocev2.transport.RawIpv4PacketPort;
import org.jrdma.rocev2.transport.SharedPort;
import org.jrdma.rocev2.net.RawIpv4Socket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jrdma.rocev2.wire.RoceV2;
import org.jrdma.soft.SoftResources;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.TransportType;
import org.jrdma.verbs.VerbsException;

/**
 * A software RoCE v2 device: one IP address, UDP port 4791 on it, GID table of one entry (the
 * address as rxe forms a GID: IPv4 as {@code ::ffff:a.b.c.d}). The first {@link #open()} binds the
 * port and starts the device's I/O thread; closing the last context stops it.
 *
 * <p>Several processes may open the same device at once, as they share an RNIC: each joins it
 * ({@link DeviceShare}: SO_REUSEPORT on 4791, a slot of 262,144 QPNs per process claimed through a
 * lock file, the kernel steering each datagram to the process owning its destination QPN), so QPNs
 * stay unique on the device. Within one process, every open shares one device.
 *
 * <p>For tests and loss benchmarks, {@code -Djrdma.faults=loss=0.01,dup=0,reorder=0,corrupt=0,seed=1}
 * (or {@code -Djrdma.faults.NAME=...} for one device) puts a {@link org.jrdma.rocev2.transport.FaultShim}
 * between the device's transport and the network; {@code -Djrdma.pcap=FILE} (or
 * {@code -Djrdma.pcap.NAME=FILE}) captures every packet the device sends and receives
 * ({@link PcapTap}).
 */
public final class RxeDevice implements Device {
    /** Bytes of headers around a RoCE payload, for the active MTU: IPv6 40 + UDP 8 + BTH 12 + RETH 16 + ICRC 4. */
    private static final int HEADER_OVERHEAD = 80;

    private static final Logger LOG = LoggerFactory.getLogger(RxeDevice.class);
    private final String name;
    private final InetAddress address;
    private final Gid gid;
    private final long guid;
    private int opens;
    private PacketPort port;
    private DeviceShare share;
    private RxeAgent agent;
    /** The packet capture of the open device (its tap sits under the fault shim). */
    private DeviceCapture capture;
    private SoftResources resources;
    private Counters counters;
    private Mtu activeMtu;

    RxeDevice(String name, InetAddress address) {
        this.name = name;
        this.address = address;
        this.gid = Gid.of(address);
        byte[] g = gid.raw();
        long h = 0x02_00_00_00_00_00_00_00L;
        for (int i = 8; i < 16; i++) {
            h = h * 31 + (g[i] & 0xff) + (g[i - 8] & 0xff) * 7;
        }
        this.guid = h;
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
        return TransportType.IB;
    }

    /** The address the device binds. */
    public InetAddress address() {
        return address;
    }

    /** The packet port the transport sends to (the fault shim when configured, else the capture tap), or null when closed. */
    public synchronized PacketPort port() {
        return port;
    }

    /** The port on the network (UDP or raw IPv4), under the capture tap and the fault shim; null when closed. */
    synchronized PacketPort networkPort() {
        return share == null ? null : share.port();
    }

    /**
     * The QPNs this process hands out on the device while it is open, {@code {first, last}}
     * ({@link DeviceShare}: its slot's range), or null when closed.
     */
    public synchronized int[] qpnRange() {
        return share == null ? null : new int[] {share.firstQpn(), share.lastQpn()};
    }

    /** GID 0. */
    public Gid gid() {
        return gid;
    }

    /** The one GID (the address), known without opening. */
    @Override
    public java.util.List<Gid> gids() {
        return java.util.List.of(gid);
    }

    @Override
    public synchronized Context open() {
        if (opens == 0) {
            DeviceOptions opts;
            try {
                opts = DeviceOptions.forDevice(name);
            } catch (IllegalArgumentException e) {
                throw new VerbsException(Errno.EINVAL, "device " + name + ": " + e.getMessage());
            }
            DeviceShare sh = DeviceShare.join(name, address, RoceV2.UDP_PORT, () -> openPort(opts));
            PacketPort p = sh.port();
            try {
                byte[] a = address.getAddress();
                java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(a);
                PcapTap tap = a.length == 4 ? new PcapTap(p, false, b.getInt(), 0, 0)
                        : new PcapTap(p, true, 0, b.getLong(), b.getLong(8));
                tap.sentTrafficClass(opts.trafficClass());
                p = tap;
                capture = new DeviceCapture(name, tap);
                if (opts.pcap() != null) {
                    capture.start(opts.pcap());
                }
                String faults = opts.faults();
                if (faults != null) {
                    try {
                        p = org.jrdma.rocev2.transport.FaultShim.parse(p, faults);
                    } catch (IllegalArgumentException e) {
                        throw new VerbsException(Errno.EINVAL, "jrdma.faults: " + e.getMessage());
                    }
                }
            } catch (RuntimeException e) {
                PacketPort opened = p;
                sh.leave(opened::close);
                throw e;
            }
            port = p;
            share = sh;
            resources = new SoftResources(sh.firstQpn(), sh.lastQpn());
            counters = new Counters();
            activeMtu = Mtu.largestNotAbove(interfaceMtu(address) - HEADER_OVERHEAD);
            agent = new RxeAgent(name, address, port, resources, counters, Mtu.MTU_4096, activeMtu, opts);
            agent.gsi().notOwner(sh.slot() == 0 ? null : () -> Qp1Owner.describe(name, address, RoceV2.UDP_PORT));
            agent.start();
        }
        opens++;
        return new RxeContext(this, resources, agent, counters, activeMtu, capture);
    }

    /**
     * Opens the packet port: over IPv6 a UDP socket; over IPv4 the raw port when the device's
     * {@link DeviceOptions#ipv4Mode()} is {@code raw}, or is {@code auto} (the default) and raw sockets are permitted and the address is not a loopback address; else a UDP
     * socket.
     */
    private SharedPort openPort(DeviceOptions opts) {
        String mode = opts.ipv4Mode();
        try {
            if (address instanceof java.net.Inet4Address a4) {
                boolean raw = mode.equals("raw")
                        || (mode.equals("auto") && !address.isLoopbackAddress() && RawIpv4Socket.permitted());
                if (raw) {
                    return RawIpv4PacketPort.open(a4, RoceV2.UDP_PORT, opts.trafficClass());
                }
                if (!address.isLoopbackAddress() && mode.equals("auto")) {
                    LOG.warn("{}: {} -- sending with an ordinary UDP socket, which only jrdma peers accept", name,
                            RawIpv4Socket.NOT_PERMITTED_MESSAGE);
                }
            }
            // ECN on: every packet ECT(0) (IP_TOS / IPV6_TCLASS), and each datagram's TOS read (IP_RECVTOS /
            // IPV6_RECVTCLASS) for CE; off: the kernel's TOS 0, as rxe sends with the tools' traffic class 0
            return UdpPacketPort.open(address, RoceV2.UDP_PORT, opts.perFlowSourcePorts(),
                    opts.ecn() ? opts.trafficClass() : -1, opts.ecn());
        } catch (NetException e) {
            int errno = e.errno() == Errno.EPERM ? Errno.EPERM
                    : e.getMessage() != null && e.getMessage().contains("in use") ? Errno.EADDRINUSE : Errno.EADDRNOTAVAIL;
            throw new VerbsException(errno, "device " + name + ": " + e.getMessage(), e);
        }
    }

    synchronized void contextClosed() {
        if (--opens == 0) {
            agent.stop();
            PacketPort p = port;
            share.leave(p::close);
            agent = null;
            port = null;
            share = null;
        }
    }

    /** The MTU of the network interface that holds {@code address} (65536 on loopback; 1500 if unknown). */
    static int interfaceMtu(InetAddress address) {
        try {
            NetworkInterface ni = NetworkInterface.getByInetAddress(address);
            if (ni == null && address.isLoopbackAddress()) {
                ni = NetworkInterface.getByName("lo");
            }
            return ni != null && ni.getMTU() > 0 ? ni.getMTU() : 1500;
        } catch (SocketException e) {
            return 1500;
        }
    }

    @Override
    public String toString() {
        return name + " (RoCE v2, " + address.getHostAddress() + ")";
    }
}
