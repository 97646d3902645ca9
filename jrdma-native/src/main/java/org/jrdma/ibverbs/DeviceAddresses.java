package org.jrdma.ibverbs;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import org.jrdma.verbs.Gid;

/**
 * The addresses of a kernel RDMA device's port 1 as GIDs (issue 13, {@link IbvDevice#gids()}), read from
 * sysfs ({@code /sys/class/infiniband/NAME/ports/1}) and from the net device behind the port, without
 * opening the device. Which net device that is:
 * <ul>
 * <li>RoCE (rxe, RNICs): {@code gid_attrs/ndevs/0} names it (the kernel's GID cache keeps a net device
 * per RoCE GID);</li>
 * <li>iWARP (siw, iWARP RNICs): the kernel has no {@code gid_attrs/ndevs} for iWARP ports (no RoCE GID
 * cache), and the GID is the net device's MAC address in bytes 0-5 with bytes 6-15 zero
 * ({@code siw_query_gid} in Linux's {@code drivers/infiniband/sw/siw/siw_verbs.c}), so the net device is
 * the one whose 6-byte hardware address is GID 0's first 6 bytes; when several have that MAC (a VLAN or
 * a bond over the same port) the first in {@code NetworkInterface}'s order (by index) is taken;</li>
 * <li>InfiniBand: none (no MAC-shaped GID either): the GID table alone.</li>
 * </ul>
 * Stateless; any thread; reads sysfs and the net devices on every call.
 */
final class DeviceAddresses {
    /** GID table entries looked at, at most ({@code ports/1/gids/0} ... {@code 255}). */
    static final int MAX_GIDS = 256;

    private DeviceAddresses() {
    }

    /** A net device as this class needs it: its name, hardware address (may be empty) and IP addresses. */
    record Netdev(String name, byte[] mac, List<InetAddress> addresses) {
    }

    /** The machine's net devices (a seam for the tests). */
    interface Netdevs {
        /** Every net device, in the order of {@link NetworkInterface#networkInterfaces()}. */
        List<Netdev> all();
    }

    /** The machine's own net devices ({@link NetworkInterface}); a device that cannot be read is left out. */
    static final Netdevs SYSTEM = () -> {
        List<Netdev> out = new ArrayList<>();
        try {
            List<NetworkInterface> nifs = Collections.list(NetworkInterface.getNetworkInterfaces());
            nifs.sort(Comparator.comparingInt(NetworkInterface::getIndex));
            for (NetworkInterface n : nifs) {
                try {
                    byte[] mac = n.getHardwareAddress();
                    out.add(new Netdev(n.getName(), mac == null ? new byte[0] : mac,
                            Collections.list(n.getInetAddresses())));
                } catch (SocketException e) {
                    // a device that went away meanwhile
                }
            }
        } catch (SocketException e) {
            // no net devices readable: the GID table is all there is
        }
        return out;
    };

    /**
     * The port's addresses: first every IP address of its net device, IPv4 before IPv6, then the other
     * non-zero entries of the GID table (on RoCE these are the same addresses, on iWARP the MAC-based
     * GID). Link-local addresses and GIDs (fe80::/10, rxe's GID 0) are left out: as an rdma_cm address
     * one needs a scope, which a GID does not carry. Empty when sysfs has no such entries.
     *
     * @param port the port's sysfs directory, e.g. {@code /sys/class/infiniband/siw0/ports/1}
     */
    static List<Gid> gids(Path port, Netdevs netdevs) {
        List<Gid> table = gidTable(port);
        LinkedHashSet<Gid> out = new LinkedHashSet<>();
        netdev(port, gid(port, 0), netdevs).ifPresent(nd -> {
            List<InetAddress> addrs = new ArrayList<>(nd.addresses());
            addrs.sort(Comparator.comparingInt(a -> a instanceof Inet4Address ? 0 : 1));
            for (InetAddress a : addrs) {
                if (!a.isLinkLocalAddress()) {
                    out.add(Gid.of(a));
                }
            }
        });
        for (Gid g : table) {
            if (!g.isZero() && !linkLocal(g)) {
                out.add(g);
            }
        }
        return List.copyOf(out);
    }

    /**
     * The net device behind the port: the one {@code gid_attrs/ndevs/0} names, else the one whose MAC
     * is {@code gid0}'s first 6 bytes when bytes 6-15 are zero (iWARP), else empty.
     */
    static Optional<Netdev> netdev(Path port, Gid gid0, Netdevs netdevs) {
        String name = null;
        try {
            name = Files.readString(port.resolve("gid_attrs/ndevs/0")).strip();
        } catch (IOException | RuntimeException e) {
            // iWARP and InfiniBand ports have no RoCE GID attributes
        }
        byte[] mac = name == null ? macOf(gid0) : null;
        if (name == null && mac == null) {
            return Optional.empty();
        }
        for (Netdev n : netdevs.all()) {
            if (name != null ? n.name().equals(name) : Arrays.equals(mac, n.mac())) {
                return Optional.of(n);
            }
        }
        return Optional.empty();
    }

    /** A MAC-based GID's MAC (bytes 0-5, bytes 6-15 zero, not all zero), else null. */
    static byte[] macOf(Gid g) {
        if (g == null || g.isZero()) {
            return null;
        }
        byte[] raw = g.raw();
        for (int i = 6; i < 16; i++) {
            if (raw[i] != 0) {
                return null;
            }
        }
        return Arrays.copyOf(raw, 6);
    }

    /** GID {@code index} of the port, or null when it cannot be read. */
    static Gid gid(Path port, int index) {
        try {
            return Gid.parseHex(Files.readString(port.resolve("gids").resolve(Integer.toString(index))).strip());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Port 1's GID table in index order; an entry that cannot be read (EINVAL for an unused RoCE slot) is left out. */
    static List<Gid> gidTable(Path port) {
        List<Gid> out = new ArrayList<>();
        for (int i = 0; i < MAX_GIDS; i++) {
            if (!Files.exists(port.resolve("gids").resolve(Integer.toString(i)))) {
                break;
            }
            Gid g = gid(port, i);
            if (g != null) {
                out.add(g);
            }
        }
        return out;
    }

    private static boolean linkLocal(Gid g) {
        return g.byteAt(0) == 0xfe && (g.byteAt(1) & 0xc0) == 0x80;
    }
}
