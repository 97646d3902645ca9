package org.jrdma.perftest;

import java.io.PrintStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code jrdma} command: {@code jrdma <tool> [options]} runs one of the perftest-compatible
 * tools ({@code ib_write_bw}, {@code ib_write_lat}, {@code ib_read_bw}, {@code ib_read_lat},
 * {@code ib_send_bw}, {@code ib_send_lat}, {@code ib_atomic_bw}, {@code ib_atomic_lat}),
 * {@code rc_pingpong} and {@code ud_pingpong} (rdma-core's {@code ibv_rc_pingpong}, {@code ibv_ud_pingpong}),
 * {@code imm_pingpong} (SEND and RDMA WRITE with immediate), {@code rping} (rdmacm-utils' rping over the
 * connection manager), {@code ucmatose} (rdmacm-utils' ucmatose), {@code udaddy} (rdma-core's udaddy: UD
 * through the CM's SIDR), {@code devinfo}, {@code stat} (device
 * counters), {@code pcap-check} or {@code fabric} (the fabric model, {@code org.jrdma.fabric}:
 * {@code jrdma fabric run SCENARIO}).
 */
@Command(name = "jrdma", description = "RDMA for Java: perftest-compatible tools and device information.",
        subcommandsRepeatable = false)
public final class Jrdma implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    private Jrdma() {
    }

    /** No tool named: the usage, as a usage error. */
    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a tool: "
                + String.join(", ", spec.subcommands().keySet()));
    }

    /** The {@code jrdma} command line with every tool as a subcommand. */
    public static CommandLine commandLine(PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new Jrdma());
        add(cl, "ib_write_bw", Verb.WRITE, Params.Kind.BW, out);
        add(cl, "ib_write_lat", Verb.WRITE, Params.Kind.LAT, out);
        add(cl, "ib_read_bw", Verb.READ, Params.Kind.BW, out);
        add(cl, "ib_read_lat", Verb.READ, Params.Kind.LAT, out);
        add(cl, "ib_send_bw", Verb.SEND, Params.Kind.BW, out);
        add(cl, "ib_send_lat", Verb.SEND, Params.Kind.LAT, out);
        add(cl, "ib_atomic_bw", Verb.ATOMIC, Params.Kind.BW, out);
        add(cl, "ib_atomic_lat", Verb.ATOMIC, Params.Kind.LAT, out);
        cl.addSubcommand("rc_pingpong", new RcPingpong(out));
        cl.addSubcommand("ud_pingpong", new UdPingpong(out));
        cl.addSubcommand("imm_pingpong", new ImmPingpong(out));
        cl.addSubcommand("rping", new Rping(out, err));
        cl.addSubcommand("ucmatose", new Ucmatose(out));
        cl.addSubcommand("udaddy", new Udaddy(out, err));
        cl.addSubcommand("devinfo", new DevInfo(out));
        cl.addSubcommand("stat", new Stat(out));
        CommandLine pcap = new CommandLine(new PcapCheckCommand(out, err));
        pcap.setUnmatchedOptionsArePositionalParams(true); // --port, -h ... go to PcapCheck as they are
        cl.addSubcommand("pcap-check", pcap);
        cl.addSubcommand("fabric", org.jrdma.fabric.cli.FabricCommand.commandLine());
        // issue 17: the NVMe over Fabrics host (org.jrdma.nvmeof): jrdma nvme discover|id-ctrl|id-ns|read|write
        cl.addSubcommand("nvme", org.jrdma.nvmeof.cli.NvmeCommand.commandLine());
        // issue 14: the chart of bench/qp-sweep
        cl.addSubcommand("plot-qp-sweep", new QpSweepPlot(err));

        // issue 15: the example applications (kv, rpc, file) run and checked
        cl.addSubcommand("examples", new Examples(out));
        // issue 13 (native): several tools in one JVM (lab guests start a JVM slowly)
        cl.addSubcommand("batch", new Batch(out));
        return Tools.configure(cl, out, err);
    }

    private static void add(CommandLine cl, String name, Verb verb, Params.Kind kind, PrintStream out) {
        cl.addSubcommand(name, new PerftestCommand(verb, kind, out));
    }

    public static void main(String[] args) {
        System.exit(commandLine(System.out, System.err).execute(args));
    }
}
