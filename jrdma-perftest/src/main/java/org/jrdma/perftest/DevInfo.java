package org.jrdma.perftest;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.Gid;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.TransportType;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.VerbsException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrdma devinfo}: the devices, their ports, port state, MTUs and GID tables, laid out like
 * rdma-core's {@code ibv_devinfo -v}. A device whose address another process holds cannot be
 * opened; it is listed with the reason.
 */
@Command(name = "devinfo", description = "List RDMA devices, ports, state, MTU and GIDs (like ibv_devinfo).")
public final class DevInfo implements Callable<Integer> {
    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "only this device")
    String ibDev;

    @Option(names = {"-l", "--list"}, description = "only list the device names")
    boolean list;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    private final PrintStream out;

    public DevInfo(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(Tools.configure(new CommandLine(new DevInfo(System.out)), System.out, System.err).execute(args));
    }

    @Override
    public Integer call() {
        List<Device> devices = Verbs.getDeviceList();
        if (list) {
            out.println(devices.size() + " HCA" + (devices.size() == 1 ? "" : "s") + " found:");
            for (Device d : devices) {
                out.println("\t" + d.name());
            }
            return 0;
        }
        if (devices.isEmpty()) {
            throw new PerftestException("no RDMA devices found");
        }
        boolean found = false;
        for (Device d : devices) {
            if (ibDev != null && !ibDev.equals(d.name())) {
                continue;
            }
            found = true;
            out.print(describe(d));
        }
        if (!found) {
            throw new PerftestException("no RDMA device '" + ibDev + "'");
        }
        return 0;
    }

    /** The text of one device. */
    static String describe(Device d) {
        StringBuilder sb = new StringBuilder();
        sb.append("hca_id:\t").append(d.name()).append('\n');
        sb.append("\ttransport:\t\t\t").append(d.transportType() == TransportType.IWARP ? "iWARP (1)" : "InfiniBand (0)")
                .append('\n');
        try (Context c = d.open()) {
            DeviceAttr a = c.queryDevice();
            sb.append("\tfw_ver:\t\t\t\t").append(a.fwVer()).append('\n');
            sb.append("\tnode_guid:\t\t\t").append(guid(a.nodeGuid())).append('\n');
            sb.append("\tvendor_id:\t\t\t0x").append(Integer.toHexString(a.vendorId())).append('\n');
            sb.append("\tvendor_part_id:\t\t\t").append(a.vendorPartId()).append('\n');
            sb.append("\tphys_port_cnt:\t\t\t1\n");
            sb.append("\tmax_qp:\t\t\t\t").append(a.maxQp()).append('\n');
            sb.append("\tmax_qp_wr:\t\t\t").append(a.maxQpWr()).append('\n');
            sb.append("\tmax_sge:\t\t\t").append(a.maxSge()).append('\n');
            sb.append("\tmax_cqe:\t\t\t").append(a.maxCqe()).append('\n');
            sb.append("\tmax_mr_size:\t\t\t0x").append(Long.toHexString(a.maxMrSize())).append('\n');
            sb.append("\tmax_qp_rd_atom:\t\t\t").append(a.maxQpRdAtom()).append('\n');
            sb.append("\tmax_qp_init_rd_atom:\t\t").append(a.maxQpInitRdAtom()).append('\n');
            PortAttr p = c.queryPort(1);
            sb.append("\t\tport:\t1\n");
            sb.append("\t\t\tstate:\t\t\tPORT_").append(p.state()).append(" (").append(p.state().ordinal()).append(")\n");
            sb.append("\t\t\tmax_mtu:\t\t").append(p.maxMtu().bytes()).append(" (").append(p.maxMtu().value()).append(")\n");
            sb.append("\t\t\tactive_mtu:\t\t").append(p.activeMtu().bytes()).append(" (").append(p.activeMtu().value())
                    .append(")\n");
            sb.append("\t\t\tport_lid:\t\t").append(p.lid()).append('\n');
            sb.append("\t\t\tlink_layer:\t\t").append(p.linkLayer() == org.jrdma.verbs.LinkLayer.ETHERNET ? "Ethernet" : "InfiniBand")
                    .append('\n');
            for (int i = 0; i < p.gidTblLen(); i++) {
                Gid g;
                try {
                    g = c.queryGid(1, i);
                } catch (VerbsException e) {
                    continue;
                }
                if (g.isZero()) {
                    continue;
                }
                sb.append("\t\t\tGID[").append(CFormat.f("%3d", i)).append("]:\t\t").append(g).append(", ")
                        .append(g.toInetAddress().getHostAddress()).append(", RoCE v2\n");
            }
        } catch (VerbsException e) {
            sb.append("\t(cannot open: ").append(e.getMessage()).append(")\n");
        }
        sb.append('\n');
        return sb.toString();
    }

    private static String guid(long g) {
        String h = CFormat.hex(g, 16);
        return h.substring(0, 4) + ":" + h.substring(4, 8) + ":" + h.substring(8, 12) + ":" + h.substring(12);
    }
}
