package org.jrdma.perftest;

import java.io.PrintStream;

/**
 * perftest 4.5's text output, line for line (formats of {@code perftest_parameters.h} and
 * {@code perftest_communication.h}; checked against the logs of the reference captures).
 * Every method returns the text (with its trailing newline) so tests can compare it; {@link #out}
 * prints it.
 */
public final class Printer {
    /** {@code RESULT_LINE}: 87 dashes. */
    public static final String RESULT_LINE = "-".repeat(87) + "\n";
    /** The box the server prints before it accepts the client. */
    public static final String WAITING = "\n" + "*".repeat(36) + "\n* Waiting for client to connect... *\n"
            + "*".repeat(36) + "\n";
    /** {@code RESULT_FMT} (perftest 4.5 labels MiB/s "MB/sec"). */
    public static final String RESULT_FMT =
            " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n";
    /** {@code RESULT_FMT_G}. */
    public static final String RESULT_FMT_G =
            " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n";
    /** {@code RESULT_FMT_LAT}. */
    public static final String RESULT_FMT_LAT = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
            + "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n";
    /** {@code RESULT_FMT_LAT_DUR}. */
    public static final String RESULT_FMT_LAT_DUR = " #bytes        #iterations       t_avg[usec]    tps average\n";

    private final PrintStream out;

    public Printer(PrintStream out) {
        this.out = out;
    }

    /** Prints and flushes. */
    public void out(String text) {
        out.print(text);
        out.flush();
    }

    /**
     * {@code ctx_print_test_info}: the header block from the first dashes to the last.
     *
     * @param device the device name
     */
    public static String testInfo(Params p, String device) {
        StringBuilder sb = new StringBuilder(RESULT_LINE);
        sb.append("                    ").append(p.verb.title()).append(' ');
        if (p.verb == Verb.ATOMIC) {
            sb.append(p.atomicType.name()).append(' ');
        }
        if (p.kind == Params.Kind.BW) {
            if (p.postList > 1) {
                sb.append("Post List ");
            }
            sb.append("BW ");
        } else {
            sb.append("Latency ");
        }
        sb.append("Test\n");
        if (p.useEvent) {
            sb.append(" Test with events. Using ").append(device).append("_comp0\n");
        }
        sb.append(" Dual-port       : OFF\t\tDevice         : ").append(device).append('\n');
        sb.append(" Number of qps   : ").append(p.numQps).append("\t\tTransport type : ").append(p.transport).append('\n');
        sb.append(" Connection type : ").append(p.connection.name()).append("\t\tUsing SRQ      : ")
                .append(p.useSrq ? "ON" : "OFF").append('\n');
        sb.append(" PCIe relax order: ").append(p.disablePcir ? "OFF" : "ON").append('\n');
        sb.append(" ibv_wr* API     : OFF\n");
        if (p.machine == Params.Machine.CLIENT) {
            sb.append(" TX depth        : ").append(p.txDepth).append('\n');
        }
        if (p.postList > 1) {
            sb.append(" Post List       : ").append(p.postList).append('\n');
        }
        if (p.verb == Verb.SEND && p.machine == Params.Machine.SERVER) {
            sb.append(" RX depth        : ").append(p.rxDepth).append('\n');
        }
        if (p.kind == Params.Kind.BW) {
            sb.append(" CQ Moderation   : ").append(p.cqMod).append('\n');
        }
        sb.append(" Mtu             : ").append(p.mtuBytes()).append("[B]\n");
        sb.append(" Link type       : ").append(p.linkType).append('\n');
        if (p.gidIndex != -1) {
            sb.append(" GID index       : ").append(p.gidIndex).append('\n');
        }
        if (p.verb != Verb.READ && p.verb != Verb.ATOMIC) {
            sb.append(" Max inline data : ").append(p.inlineSize).append("[B]\n");
        } else {
            sb.append(" Outstand reads  : ").append(p.outReads).append('\n');
        }
        sb.append(" rdma_cm QPs\t : ").append(p.rdmaCm ? "ON" : "OFF").append('\n');
        sb.append(" Data ex. method : ").append(p.commRdmaCm() ? "rdma_cm" : "Ethernet");
        if (p.rdmaCm && p.machine == Params.Machine.SERVER) {
            sb.append('\n').append(RESULT_LINE).append(" Waiting for client rdma_cm QP to connect\n")
                    .append(" Please run the same command with the IB/RoCE interface IP");
        }
        sb.append('\n');
        sb.append(RESULT_LINE);
        return sb.toString();
    }

    /**
     * {@code ctx_print_pingpong_data}: {@code BASIC_ADDR_FMT}, then {@code READ_FMT} (READ) and
     * {@code RDMA_FMT} (READ, WRITE), then the GID in decimal ({@code PERF_GID_FMT}).
     *
     * @param side "local" or "remote"
     */
    public static String address(String side, Dest d, Verb verb) {
        StringBuilder sb = new StringBuilder(160);
        sb.append(' ').append(side).append(" address: LID ").append(CFormat.altHex(d.lid(), 4))
                .append(" QPN ").append(CFormat.altHex(d.qpn(), 6))
                .append(" PSN ").append(CFormat.altHex(d.psn(), 6));
        if (verb == Verb.READ) {
            sb.append(" OUT ").append(CFormat.altHex(d.outReads(), 4));
        }
        if (verb == Verb.READ || verb == Verb.WRITE) {
            sb.append(" RKey ").append(CFormat.altHex(d.rkey() & 0xffffffffL, 8))
                    .append(" VAddr ").append(CFormat.altHex(d.vaddr(), 16));
        }
        sb.append("\n GID: ");
        for (int i = 0; i < 16; i++) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(CFormat.f("%02d", d.gid().byteAt(i)));
        }
        sb.append('\n');
        return sb.toString();
    }

    /** The BW column headers after a dash line. */
    public static String bwHeader(boolean gbits) {
        return RESULT_LINE + (gbits ? RESULT_FMT_G : RESULT_FMT);
    }

    /** The latency column headers after a dash line. */
    public static String latHeader(boolean duration) {
        return RESULT_LINE + (duration ? RESULT_FMT_LAT_DUR : RESULT_FMT_LAT);
    }

    /**
     * {@code print_full_bw_report}: {@code REPORT_FMT} ({@code REPORT_FMT_EXT} when in Gb/s under 0.1),
     * or one number with {@code --output}.
     */
    public static String bwRow(BwReport r, Params.Output output, boolean gbits) {
        if (output == Params.Output.BANDWIDTH) {
            return CFormat.f("%f\n", r.bwAvg());
        }
        if (output == Params.Output.MESSAGE_RATE) {
            return CFormat.f("%f\n", r.msgRate());
        }
        if (r.bwAvg() < 0.1 && gbits) {
            return CFormat.f(" %-7d    %d           %-7.6f            %-7.6f            %-7.6f\n", r.size(), r.iters(),
                    r.bwPeak(), r.bwAvg(), r.msgRate());
        }
        return CFormat.f(" %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f\n", r.size(), r.iters(), r.bwPeak(),
                r.bwAvg(), r.msgRate());
    }

    /** {@code print_report_lat}: {@code REPORT_FMT_LAT}, or t_avg alone with {@code --output=latency}. */
    public static String latRow(long size, long iters, LatencyStats.Result r, Params.Output output) {
        if (output == Params.Output.LATENCY) {
            return CFormat.f("%f\n", r.tAvg());
        }
        return CFormat.f(" %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
                size, iters, r.tMin(), r.tMax(), r.tTypical(), r.tAvg(), r.tStdev(), r.p99(), r.p999());
    }

    /** {@code print_report_lat_duration}: {@code REPORT_FMT_LAT_DUR}. */
    public static String latDurationRow(long size, long iters, double tAvg, double tps, Params.Output output) {
        if (output == Params.Output.LATENCY) {
            return CFormat.f("%f\n", tAvg);
        }
        return CFormat.f(" %-7d       %d            %-7.2f        %-7.2f\n", size, iters, tAvg, tps);
    }
}
