package org.jrdma.perftest;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jrdma.rocev2.pcap.PcapCheck;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code jrdma pcap-check FILE [--port N]}: {@link PcapCheck} of jrdma-wire (every RoCE v2 packet
 * of a pcap/pcapng capture decoded and its ICRC checked; every iWARP TCP stream cut into its MPA frames and
 * FPDUs, their framing, MPA CRC and DDP/RDMAP headers checked) as a subcommand. The arguments go to
 * {@link PcapCheck#run} unparsed, and its exit status is the command's: 0 all good, 1 a bad packet
 * or a damaged capture, 2 usage or not a capture.
 */
@Command(name = "pcap-check", description = "Check every RoCE v2 packet (headers, ICRC) and every iWARP stream"
    + " (MPA frames, FPDU framing, MPA CRC) of a pcap/pcapng capture.")
public final class PcapCheckCommand implements Callable<Integer> {
    @Parameters(arity = "0..*", paramLabel = "ARGS", description = "FILE [--port N]")
    List<String> args = new ArrayList<>();

    private final PrintStream out;
    private final PrintStream err;

    public PcapCheckCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        return PcapCheck.run(args.toArray(String[]::new), out, err);
    }
}
