package org.jrdma.iwarp;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import org.jrdma.iwarp.transport.SiwAgent;
import org.jrdma.soft.SoftResources;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.TransportType;

/**
 * A software iWARP device: one IP address on which its connections listen and connect over TCP.
 * The first {@link #open()} starts the device's I/O thread ({@code jrdma-NAME-io}); closing the
 * last context stops it. Several processes may open the same device at once: iWARP names no QP on
 * the wire (a connection is a TCP connection), so each process's QPs and listening ports are its
 * own, as with siw (two processes listening on the same port get EADDRINUSE from the second).
 *
 * <p>GID 0 is the address in the form rxe uses ({@code ::ffff:a.b.c.d} for IPv4). Linux siw puts
 * the netdev's MAC address into the first 6 bytes instead ({@code siw_query_gid}); a jrdma device
 * is an address, not a netdev, and the CM finds a device by the address its GID names.
 *
 * <p>{@code -Djrdma.pcap.NAME=FILE} (or {@code -Djrdma.pcap=FILE}) captures the device's TCP
 * streams from open to close ({@link org.jrdma.iwarp.transport.SiwCapture}).
 */
public final class SiwDevice implements Device {
    /** Bytes of IP and TCP headers with Linux's default timestamp option: IPv4 20 + TCP 20 + 12. */
    private static final int IPV4_TCP_OVERHEAD = 52;
    private static final int IPV6_TCP_OVERHEAD = 72;

    private final String name;
    private final InetAddress address;
    private final Gid gid;
    private final long guid;
    private int opens;
    private SoftResources resources;
    private SiwAgent agent;
    private int mtu;

    SiwDevice(String name, InetAddress address) {
        this.name = name;
        this.address = address;
        this.gid = Gid.of(address);
        byte[] g = gid.raw();
        long h = 0x02_00_00_00_00_00_00_00L;
        for (int i = 8; i < 16; i++) {
            h = h * 37 + (g[i] & 0xff) + (g[i - 8] & 0xff) * 11;
        }
        this.guid = h ^ 0x5157L; // not the RoCE device's GUID for the same address
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long guid() {
        return guid;
    }

    /** IWARP: perftest prints "IW"; libibverbs' node type is RNIC. */
    @Override
    public TransportType transportType() {
        return TransportType.IWARP;
    }

    /** The address the device listens and connects on. */
    public InetAddress address() {
        return address;
    }

    /** GID 0. */
    public Gid gid() {
        return gid;
    }

    /** The one GID (the address), known without opening: the CM maps addresses to devices with it. */
    @Override
    public java.util.List<Gid> gids() {
        return java.util.List.of(gid);
    }

    @Override
    public synchronized Context open() {
        if (opens == 0) {
            mtu = interfaceMtu(address);
            int mss = mtu - (address instanceof java.net.Inet6Address ? IPV6_TCP_OVERHEAD : IPV4_TCP_OVERHEAD);
            resources = new SoftResources();
            agent = new SiwAgent(name, address, resources, mss, pollProgressOption(name));
            java.nio.file.Path pcap = pcapOption(name);
            if (pcap != null) {
                agent.capture().start(pcap);
            }
            agent.start();
        }
        opens++;
        return new SiwContext(this, resources, agent, mtu);
    }

    synchronized void contextClosed() {
        if (--opens == 0) {
            agent.capture().stop();
            agent.stop();
            agent = null;
        }
    }

    /**
     * The capture file asked for at open time: {@code -Djrdma.pcap.NAME=FILE}, else
     * {@code -Djrdma.pcap=FILE} (as the RoCE devices); a blank value means none.
     */
    static java.nio.file.Path pcapOption(String name) {
        String v = System.getProperty("jrdma.pcap." + name);
        if (v == null) {
            v = System.getProperty("jrdma.pcap");
        }
        return v == null || v.isBlank() ? null : java.nio.file.Path.of(v.strip());
    }

    /**
     * Whether threads polling an empty CQ receive for the device: {@code -Djrdma.iwarp.pollProgress.NAME},
     * else {@code -Djrdma.iwarp.pollProgress}, {@code true} or {@code false}; default false (opt-in:
     * an {@code ib_write_lat} ping-pong was seen to stall with it on, not yet explained; see the
     * module README).
     *
     * @throws IllegalArgumentException another value
     */
    static boolean pollProgressOption(String name) {
        String v = System.getProperty("jrdma.iwarp.pollProgress." + name);
        if (v == null || v.isBlank()) {
            v = System.getProperty("jrdma.iwarp.pollProgress");
        }
        if (v == null || v.isBlank()) {
            return false;
        }
        return switch (v.strip()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("jrdma.iwarp.pollProgress is '" + v + "': true or false");
        };
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
        return name + " (iWARP, " + address.getHostAddress() + ")";
    }
}
