package org.jrdma.perftest;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jrdma.verbs.Context;
import org.jrdma.verbs.Device;
import org.jrdma.verbs.DeviceAttr;
import org.jrdma.verbs.DeviceAttrEx;
import org.jrdma.verbs.DeviceCapFlags;
import org.jrdma.verbs.GidEntry;
import org.jrdma.verbs.GidType;
import org.jrdma.verbs.LinkLayer;
import org.jrdma.verbs.PortAttr;
import org.jrdma.verbs.TransportType;
import org.jrdma.verbs.Verbs;
import org.jrdma.verbs.VerbsException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrdma devinfo}: rdma-core's {@code ibv_devinfo} ({@code libibverbs/examples/devinfo.c}), the
 * same fields in the same order and layout as rdma-core 44 prints them (the lab's Debian 12:
 * {@code testdata/devinfo/}); {@code -v} adds every {@code ibv_device_attr} and
 * {@code ibv_device_attr_ex} field, the port's full attributes and its GID table ({@code GID[  i]:
 * address, RoCE v2}, the non-zero entries of {@code ibv_query_gid_ex}). A device whose address
 * another program holds cannot be opened; it is listed with the reason. Runs in the calling thread.
 */
@Command(name = "devinfo", description = "Print RDMA devices' attributes, ports and GIDs (like ibv_devinfo).")
public final class DevInfo implements Callable<Integer> {
    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "use IB device DEV (default all devices)")
    String ibDev;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "use port PORT of the device (default all ports)")
    Integer ibPort;

    @Option(names = {"-l", "--list"}, description = "print only the device names")
    boolean list;

    @Option(names = {"-v", "--verbose"}, description = "print all the attributes of the device(s)")
    boolean verbose;

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
        if (ibPort != null && ibPort <= 0) {
            throw new PerftestException("invalid port " + ibPort + " for -i (1..)");
        }
        List<Device> devices = Verbs.getDeviceList();
        if (list) {
            out.println(devices.size() + " HCA" + (devices.size() == 1 ? "" : "s") + " found:");
            for (Device d : devices) {
                out.println("\t" + d.name());
            }
            out.println();
            return 0;
        }
        if (devices.isEmpty()) {
            throw new PerftestException("No IB devices found");
        }
        boolean found = false;
        for (Device d : devices) {
            if (ibDev != null && !ibDev.equals(d.name())) {
                continue;
            }
            found = true;
            out.print(describe(d, verbose, ibPort == null ? 0 : ibPort));
        }
        if (!found) {
            throw new PerftestException("IB device '" + ibDev + "' wasn't found");
        }
        return 0;
    }

    /** The text of one device: queried, then {@link #format}ted. {@code port} 0 = every port. */
    static String describe(Device d, boolean verbose, int port) {
        try (Context c = d.open()) {
            DeviceAttrEx ex = c.queryDeviceEx();
            int n = ex.origAttr().physPortCnt();
            if (port > n) {
                throw new PerftestException("Invalid port requested for device");
            }
            List<Port> ports = new ArrayList<>();
            for (int p = 1; p <= n; p++) {
                if (port != 0 && p != port) {
                    continue;
                }
                PortAttr pa = c.queryPort(p);
                List<GidEntry> gids = new ArrayList<>();
                for (int i = 0; i < pa.gidTblLen(); i++) {
                    try {
                        GidEntry g = c.queryGidEx(p, i);
                        if (!g.gid().isZero()) {
                            gids.add(g);
                        }
                    } catch (VerbsException e) {
                        // ENODATA: an empty entry, which ibv_devinfo skips too
                    }
                }
                ports.add(new Port(p, pa, gids));
            }
            return format(d.name(), d.transportType(), ex, c.numCompVectors(), ports, verbose);
        } catch (VerbsException e) {
            return "hca_id:\t" + d.name() + "\n\t(cannot open: " + e.getMessage() + ")\n\n";
        }
    }

    /** One port's attributes and valid GID entries, as {@link #format} prints them. */
    record Port(int num, PortAttr attr, List<GidEntry> gids) {
    }

    /**
     * The text {@code ibv_devinfo [-v]} prints for a device with these attributes (rdma-core 44's
     * {@code print_hca_cap}: tabs, hex and decimal forms, the conditional lines: {@code fw_ver} only
     * when set, {@code max_map_per_fmr} with FMRs, {@code max_srq_wr} and {@code max_srq_sge} with
     * SRQs, {@code phys_state} on InfiniBand-transport devices, {@code cq moderation caps} and device
     * memory only when the device has them). Pure: no device needed.
     */
    static String format(String name, TransportType transport, DeviceAttrEx ex, int numCompVectors, List<Port> ports,
                         boolean verbose) {
        DeviceAttr a = ex.origAttr();
        StringBuilder sb = new StringBuilder();
        int transportValue = transport == TransportType.IWARP ? 1 : 0;
        sb.append("hca_id:\t").append(name).append('\n');
        line(sb, "transport:\t\t\t", (transportValue == 1 ? "iWARP" : "InfiniBand") + " (" + transportValue + ")");
        if (!a.fwVer().isEmpty()) {
            line(sb, "fw_ver:\t\t\t\t", a.fwVer());
        }
        line(sb, "node_guid:\t\t\t", guid(a.nodeGuid()));
        line(sb, "sys_image_guid:\t\t\t", guid(a.sysImageGuid()));
        line(sb, "vendor_id:\t\t\t", "0x" + CFormat.hex(Integer.toUnsignedLong(a.vendorId()), 4));
        line(sb, "vendor_part_id:\t\t\t", a.vendorPartId());
        line(sb, "hw_ver:\t\t\t\t", "0x" + Integer.toHexString(a.hwVer()).toUpperCase(java.util.Locale.ROOT));
        line(sb, "phys_port_cnt:\t\t\t", a.physPortCnt());
        if (verbose) {
            verboseDevice(sb, ex, numCompVectors);
        }
        for (Port p : ports) {
            PortAttr pa = p.attr();
            sb.append("\t\tport:\t").append(p.num()).append('\n');
            port(sb, "state:\t\t\t", portState(pa.state().ordinal()) + " (" + pa.state().ordinal() + ")");
            port(sb, "max_mtu:\t\t", pa.maxMtu().bytes() + " (" + pa.maxMtu().value() + ")");
            port(sb, "active_mtu:\t\t", pa.activeMtu().bytes() + " (" + pa.activeMtu().value() + ")");
            port(sb, "sm_lid:\t\t\t", pa.smLid());
            port(sb, "port_lid:\t\t", pa.lid());
            port(sb, "port_lmc:\t\t", "0x" + CFormat.hex(pa.lmc(), 2));
            port(sb, "link_layer:\t\t", pa.linkLayer() == LinkLayer.ETHERNET ? "Ethernet" : "InfiniBand");
            if (verbose) {
                port(sb, "max_msg_sz:\t\t", "0x" + Long.toHexString(pa.maxMsgSz()));
                port(sb, "port_cap_flags:\t\t", "0x" + CFormat.hex(Integer.toUnsignedLong(pa.portCapFlags()), 8));
                port(sb, "port_cap_flags2:\t", "0x" + CFormat.hex(pa.portCapFlags2(), 4));
                port(sb, "max_vl_num:\t\t", vl(pa.maxVlNum()) + " (" + pa.maxVlNum() + ")");
                port(sb, "bad_pkey_cntr:\t\t", "0x" + Integer.toHexString(pa.badPkeyCntr()));
                port(sb, "qkey_viol_cntr:\t\t", "0x" + Integer.toHexString(pa.qkeyViolCntr()));
                port(sb, "sm_sl:\t\t\t", pa.smSl());
                port(sb, "pkey_tbl_len:\t\t", pa.pkeyTblLen());
                port(sb, "gid_tbl_len:\t\t", pa.gidTblLen());
                port(sb, "subnet_timeout:\t\t", pa.subnetTimeout());
                port(sb, "init_type_reply:\t", pa.initTypeReply());
                port(sb, "active_width:\t\t", width(pa.activeWidth()) + "X (" + pa.activeWidth() + ")");
                port(sb, "active_speed:\t\t", speed(pa.activeSpeed()) + " (" + pa.activeSpeed() + ")");
                if (transportValue == 0) {
                    port(sb, "phys_state:\t\t", physState(pa.physState()) + " (" + pa.physState() + ")");
                }
                for (GidEntry g : p.gids()) {
                    sb.append("\t\t\tGID[").append(CFormat.f("%3d", g.gidIndex())).append("]:\t\t")
                            .append(InetNtop.ntop6(g.gid().raw())).append(", ").append(gidType(g.gidType()))
                            .append('\n');
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static void verboseDevice(StringBuilder sb, DeviceAttrEx ex, int numCompVectors) {
        DeviceAttr a = ex.origAttr();
        line(sb, "max_mr_size:\t\t\t", "0x" + Long.toHexString(a.maxMrSize()));
        line(sb, "page_size_cap:\t\t\t", "0x" + Long.toHexString(a.pageSizeCap()));
        line(sb, "max_qp:\t\t\t\t", a.maxQp());
        line(sb, "max_qp_wr:\t\t\t", a.maxQpWr());
        line(sb, "device_cap_flags:\t\t", "0x" + CFormat.hex(Integer.toUnsignedLong(a.deviceCapFlags()), 8));
        for (String f : DeviceCapFlags.names(a.deviceCapFlags())) {
            flag(sb, f);
        }
        int unknown = a.deviceCapFlags() & ~DeviceCapFlags.KNOWN;
        if (unknown != 0) {
            flag(sb, "Unknown flags: 0x" + Integer.toHexString(unknown).toUpperCase(java.util.Locale.ROOT));
        }
        line(sb, "max_sge:\t\t\t", a.maxSge());
        line(sb, "max_sge_rd:\t\t\t", a.maxSgeRd());
        line(sb, "max_cq:\t\t\t\t", a.maxCq());
        line(sb, "max_cqe:\t\t\t", a.maxCqe());
        line(sb, "max_mr:\t\t\t\t", a.maxMr());
        line(sb, "max_pd:\t\t\t\t", a.maxPd());
        line(sb, "max_qp_rd_atom:\t\t\t", a.maxQpRdAtom());
        line(sb, "max_ee_rd_atom:\t\t\t", a.maxEeRdAtom());
        line(sb, "max_res_rd_atom:\t\t", a.maxResRdAtom());
        line(sb, "max_qp_init_rd_atom:\t\t", a.maxQpInitRdAtom());
        line(sb, "max_ee_init_rd_atom:\t\t", a.maxEeInitRdAtom());
        line(sb, "atomic_cap:\t\t\t", "ATOMIC_" + a.atomicCap().name() + " (" + a.atomicCap().value() + ")");
        line(sb, "max_ee:\t\t\t\t", a.maxEe());
        line(sb, "max_rdd:\t\t\t", a.maxRdd());
        line(sb, "max_mw:\t\t\t\t", a.maxMw());
        line(sb, "max_raw_ipv6_qp:\t\t", a.maxRawIpv6Qp());
        line(sb, "max_raw_ethy_qp:\t\t", a.maxRawEthyQp());
        line(sb, "max_mcast_grp:\t\t\t", a.maxMcastGrp());
        line(sb, "max_mcast_qp_attach:\t\t", a.maxMcastQpAttach());
        line(sb, "max_total_mcast_qp_attach:\t", a.maxTotalMcastQpAttach());
        line(sb, "max_ah:\t\t\t\t", a.maxAh());
        line(sb, "max_fmr:\t\t\t", a.maxFmr());
        if (a.maxFmr() != 0) {
            line(sb, "max_map_per_fmr:\t\t", a.maxMapPerFmr());
        }
        line(sb, "max_srq:\t\t\t", a.maxSrq());
        if (a.maxSrq() != 0) {
            line(sb, "max_srq_wr:\t\t\t", a.maxSrqWr());
            line(sb, "max_srq_sge:\t\t\t", a.maxSrqSge());
        }
        line(sb, "max_pkeys:\t\t\t", a.maxPkeys());
        line(sb, "local_ca_ack_delay:\t\t", a.localCaAckDelay());
        sb.append("\tgeneral_odp_caps:\n");
        if (ex.generalOdpCaps() != 0) {
            flag(sb, "Unknown flags: 0x" + Long.toHexString(ex.generalOdpCaps()).toUpperCase(java.util.Locale.ROOT));
        }
        odp(sb, "rc_odp_caps", ex.rcOdpCaps());
        odp(sb, "uc_odp_caps", ex.ucOdpCaps());
        odp(sb, "ud_odp_caps", ex.udOdpCaps());
        odp(sb, "xrc_odp_caps", ex.xrcOdpCaps());
        if (ex.completionTimestampMask() != 0) {
            line(sb, "completion timestamp_mask:\t\t\t", "0x" + CFormat.hex(ex.completionTimestampMask(), 16));
        } else {
            sb.append("\tcompletion_timestamp_mask not supported\n");
        }
        if (ex.hcaCoreClock() != 0) {
            line(sb, "hca_core_clock:\t\t\t", ex.hcaCoreClock() + "kHZ");
        } else {
            sb.append("\tcore clock not supported\n");
        }
        line(sb, "device_cap_flags_ex:\t\t", "0x" + Long.toHexString(ex.deviceCapFlagsEx()).toUpperCase(java.util.Locale.ROOT));
        long exFlags = ex.deviceCapFlagsEx() & 0xffffffff00000000L;
        if (exFlags != 0) {
            flag(sb, "Unknown flags: 0x" + Long.toHexString(exFlags).toUpperCase(java.util.Locale.ROOT));
        }
        sb.append("\ttso_caps:\n");
        sb.append("\t\tmax_tso:\t\t\t").append(ex.maxTso()).append('\n');
        sb.append("\trss_caps:\n");
        sb.append("\t\tmax_rwq_indirection_tables:\t\t\t").append(Integer.toUnsignedString(ex.maxRwqIndirectionTables()))
                .append('\n');
        sb.append("\t\tmax_rwq_indirection_table_size:\t\t\t")
                .append(Integer.toUnsignedString(ex.maxRwqIndirectionTableSize())).append('\n');
        sb.append("\t\trx_hash_function:\t\t\t\t0x").append(Integer.toHexString(ex.rxHashFunction())).append('\n');
        sb.append("\t\trx_hash_fields_mask:\t\t\t\t0x")
                .append(Long.toHexString(ex.rxHashFieldsMask()).toUpperCase(java.util.Locale.ROOT)).append('\n');
        line(sb, "max_wq_type_rq:\t\t\t", Integer.toUnsignedString(ex.maxWqTypeRq()));
        sb.append("\tpacket_pacing_caps:\n");
        sb.append("\t\tqp_rate_limit_min:\t").append(Integer.toUnsignedString(ex.qpRateLimitMin())).append("kbps\n");
        sb.append("\t\tqp_rate_limit_max:\t").append(Integer.toUnsignedString(ex.qpRateLimitMax())).append("kbps\n");
        if (ex.tmMaxNumTags() != 0) {
            line(sb, "max_rndv_hdr_size:\t\t", Integer.toUnsignedString(ex.tmMaxRndvHdrSize()));
            line(sb, "max_num_tags:\t\t\t", Integer.toUnsignedString(ex.tmMaxNumTags()));
            line(sb, "max_ops:\t\t\t", Integer.toUnsignedString(ex.tmMaxOps()));
            line(sb, "max_sge:\t\t\t", Integer.toUnsignedString(ex.tmMaxSge()));
            sb.append("\tflags:\n");
        } else {
            sb.append("\ttag matching not supported\n");
        }
        if (ex.maxCqCount() != 0 && ex.maxCqPeriod() != 0) {
            sb.append("\n\tcq moderation caps:\n");
            sb.append("\t\tmax_cq_count:\t").append(Integer.toUnsignedString(ex.maxCqCount())).append('\n');
            sb.append("\t\tmax_cq_period:\t").append(Integer.toUnsignedString(ex.maxCqPeriod())).append(" us\n\n");
        }
        if (ex.maxDmSize() != 0) {
            line(sb, "maximum available device memory:\t", Long.toUnsignedString(ex.maxDmSize()) + "Bytes\n");
        }
        line(sb, "num_comp_vectors:\t\t", numCompVectors);
    }

    private static void line(StringBuilder sb, String label, Object value) {
        sb.append('\t').append(label).append(value).append('\n');
    }

    private static void port(StringBuilder sb, String label, Object value) {
        sb.append("\t\t\t").append(label).append(value).append('\n');
    }

    private static void flag(StringBuilder sb, String name) {
        sb.append("\t\t\t\t\t").append(name).append('\n');
    }

    private static void odp(StringBuilder sb, String label, int caps) {
        sb.append('\t').append(label).append(":\n");
        if (caps == 0) {
            flag(sb, "NO SUPPORT");
        } else {
            flag(sb, "Unknown flags: 0x" + Integer.toHexString(caps).toUpperCase(java.util.Locale.ROOT));
        }
    }

    private static String guid(long g) {
        String h = CFormat.hex(g, 16);
        return h.substring(0, 4) + ":" + h.substring(4, 8) + ":" + h.substring(8, 12) + ":" + h.substring(12);
    }

    private static String portState(int s) {
        return switch (s) {
            case 1 -> "PORT_DOWN";
            case 2 -> "PORT_INIT";
            case 3 -> "PORT_ARMED";
            case 4 -> "PORT_ACTIVE";
            default -> "invalid state";
        };
    }

    private static String physState(int s) {
        return switch (s) {
            case 1 -> "SLEEP";
            case 2 -> "POLLING";
            case 3 -> "DISABLED";
            case 4 -> "PORT_CONFIGURATION TRAINNING";
            case 5 -> "LINK_UP";
            case 6 -> "LINK_ERROR_RECOVERY";
            case 7 -> "PHY TEST";
            default -> "invalid physical state";
        };
    }

    private static String width(int w) {
        int lanes = PortAttr.lanes(w);
        return lanes == 0 ? "invalid width" : Integer.toString(lanes);
    }

    private static String speed(int s) {
        double g = PortAttr.laneGbps(s);
        return g == 0 ? "invalid speed" : CFormat.f("%.1f Gbps", g);
    }

    private static String vl(int v) {
        return switch (v) {
            case 1 -> "1";
            case 2 -> "2";
            case 3 -> "4";
            case 4 -> "8";
            case 5 -> "15";
            default -> "invalid value";
        };
    }

    private static String gidType(GidType t) {
        return switch (t) {
            case IB -> "IB";
            case ROCE_V1 -> "RoCE v1";
            case ROCE_V2 -> "RoCE v2";
        };
    }
}
