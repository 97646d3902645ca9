package org.jrdma.cm;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.Errno;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.Mtu;
import org.jrdma.verbs.TransportType;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.VerbsException;
import org.jrdma.verbs.ext.ManagementDatagrams;

/**
 * A device as the CM uses it: opened once by the CM (as librdmacm opens every device it uses and
 * keeps it open for the life of the process), the {@link Context} every {@link CmId} on it shares
 * ({@code cm_id->verbs}), its GID 0 (its address) and the transport that makes its connections.
 *
 * <p>The registry is guarded by the CM lock.
 */
final class CmDevice {
    /** Where the CM finds a context's QP1; tests replace it to run the IB CM over another MAD layer. */
    static Function<Context, Optional<ManagementDatagrams>> gsi = c -> c.extension(ManagementDatagrams.class);

    private static final Map<String, CmDevice> OPEN = new HashMap<>();

    final Device device;
    final Context context;
    final Gid gid;
    final Mtu activeMtu;
    final long guid;
    final int maxQpRdAtom;
    final int maxQpInitRdAtom;
    /** The provider of connected IDs (PS_TCP). */
    final CmProvider provider;
    /** The provider of UD IDs (PS_UDP): SIDR. */
    final CmProvider udProvider;

    private CmDevice(Device device) {
        this.device = device;
        this.context = device.open();
        try {
            this.gid = context.queryGid(1, 0);
            this.activeMtu = context.queryPort(1).activeMtu();
            var attr = context.queryDevice();
            this.guid = attr.nodeGuid();
            this.maxQpRdAtom = attr.maxQpRdAtom();
            this.maxQpInitRdAtom = attr.maxQpInitRdAtom();
            // a transport of the SPI (org.jrdma.cm.spi, e.g. iWARP) first; else the IB CM over QP1
            java.util.Optional<CmProvider> spi = SpiCmProvider.find(this, device, context);
            if (spi.isPresent()) {
                this.provider = spi.get();
                this.udProvider = null;   // UD IDs need SIDR, an IB CM exchange: none on these transports
            } else {
                if (device.transportType() != TransportType.IB) {
                    throw new VerbsException(Errno.EOPNOTSUPP, "device " + device.name()
                            + ": no CM transport serves " + device.transportType() + " devices");
                }
                ManagementDatagrams mads = gsi.apply(context).orElseThrow(() -> new VerbsException(Errno.EOPNOTSUPP,
                        "device " + device.name() + " offers no QP1 (ManagementDatagrams) for the IB CM"));
                IbCm ib = new IbCm(this, mads);
                this.provider = ib;
                this.udProvider = ib.sidr();
            }
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
    }

    /**
     * The provider of IDs of port space {@code ps}.
     *
     * @throws VerbsException EOPNOTSUPP for UD IDs on a device whose transport has no SIDR (iWARP)
     */
    CmProvider provider(PortSpace ps) {
        if (ps != PortSpace.UDP) {
            return provider;
        }
        if (udProvider == null) {
            throw new VerbsException(Errno.EOPNOTSUPP, "device " + device.name() + " (" + device.transportType()
                    + "): no UD (PS_UDP) connections on this transport");
        }
        return udProvider;
    }

    String name() {
        return device.name();
    }

    /** The device's address (its GID 0 as an IP address). */
    InetAddress address() {
        return gid.toInetAddress();
    }

    /** The open CM device serving {@code device}, opening it on first use. Under the CM lock. */
    static CmDevice open(Device device) {
        CmDevice d = OPEN.get(device.name());
        if (d == null) {
            d = new CmDevice(device);
            OPEN.put(device.name(), d);
        }
        return d;
    }

    /** The devices opened so far (under the CM lock). */
    static List<CmDevice> opened() {
        return new ArrayList<>(OPEN.values());
    }

    /**
     * The device whose GID is {@code address} (IPv4 as {@code ::ffff:a.b.c.d}), from the GIDs devices
     * report before they are opened ({@link Device#gids()}).
     *
     * @return the device, or empty when no jrdma device has the address
     */
    static Optional<Device> forAddress(InetAddress address) {
        Gid g = Gid.of(address);
        for (Device d : Verbs.getDeviceList()) {
            if (d.gids().contains(g)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    /** Every device that reports GIDs (the candidates of a wildcard listen). */
    static List<Device> addressed() {
        List<Device> l = new ArrayList<>();
        for (Device d : Verbs.getDeviceList()) {
            if (!d.gids().isEmpty()) {
                l.add(d);
            }
        }
        return l;
    }

    @Override
    public String toString() {
        return device.name() + "(" + address().getHostAddress() + ")";
    }
}
