package org.jrdma.perftest;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The command line of one perftest tool ({@code perftest_parameters.c: parser}), with perftest's
 * option names. Started without an address it is the server; with the server's address the client.
 */
@Command(sortOptions = false, usageHelpAutoWidth = true,
        description = "perftest-compatible RDMA test over jrdma (server without SERVER, client with it).")
public final class PerftestCommand implements Callable<Integer> {
    private final Verb verb;
    private final Params.Kind kind;
    private final PrintStream stdout;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SERVER", description = "the server's address (client mode)")
    String server;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "RDMA device (default: the first that opens)")
    String ibDev;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "device port (default 1)")
    Integer ibPort;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "IDX", description = "GID index (default: the best GID, IPv4 first)")
    Integer gidIndex;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", description = "TCP port of the exchange (default 18515)")
    Integer port;

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", converter = SizeConverter.class,
            description = "message size, bytes; K and M suffixes (default 65536 for BW, 2 for latency)")
    Long size;

    @Option(names = {"-n", "--iters"}, paramLabel = "N", description = "iterations, 5..100000000 (default 5000 for ib_write_bw, else 1000)")
    Long iters;

    @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", description = "path MTU: 256, 512, 1024, 2048 or 4096 (default: the port's)")
    Integer mtu;

    @Option(names = {"-D", "--duration"}, paramLabel = "SEC", description = "run for SEC seconds instead of -n iterations")
    Integer duration;

    @Option(names = {"-F", "--CPU-freq"}, description = "accepted for compatibility (no CPU frequency check)")
    boolean cpuFreq;

    @Option(names = "--report_gbits", description = "report Gb/s (10^9 bit/s) instead of MiB/s")
    boolean reportGbits;

    @Option(names = {"-a", "--all"}, description = "run sizes 2 .. 2^23")
    boolean all;

    @Option(names = "--run_infinitely", description = "run until killed, printing every -D seconds (BW tests)")
    boolean runInfinitely;

    @Option(names = {"-c", "--connection"}, paramLabel = "TYPE", description = "RC, UC or UD (default RC)")
    String connection;

    @Option(names = {"-q", "--qp"}, paramLabel = "N", description = "number of QPs (BW tests; default 1)")
    Integer qps;

    @Option(names = {"-t", "--tx-depth"}, paramLabel = "N", description = "send queue depth (default 128 for BW, 1 for latency)")
    Integer txDepth;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "N", description = "receive queue depth (SEND tests; default 512)")
    Integer rxDepth;

    @Option(names = {"--use-srq", "--use_srq"}, description = "use a shared receive queue (SEND tests); -r sets its max_wr")
    boolean useSrq;

    @Option(names = {"-I", "--inline_size"}, paramLabel = "N", description = "max inline data, bytes (default 0)")
    Integer inline;

    @Option(names = {"-l", "--post_list"}, paramLabel = "N", description = "work requests per post (BW tests)")
    Integer postList;

    @Option(names = {"-e", "--events"}, description = "wait for completion events instead of polling")
    boolean events;

    @Option(names = {"-Q", "--cq-mod"}, paramLabel = "N", description = "signal every N-th work request, 1..1024 (default 100)")
    Integer cqMod;

    @Option(names = "--output", paramLabel = "WHAT", description = "print only: bandwidth, message_rate or latency")
    String output;

    @Option(names = "--perform_warm_up", description = "warm up before the measurement (BW tests)")
    boolean warmUp;

    @Option(names = "--jit_warm_up", paramLabel = "MS", defaultValue = "" + JitWarmUp.DEFAULT_MILLIS,
            description = "jrdma: before talking to the peer, warm up the JIT over a QP looped back on this device"
                    + " until it compiles nothing new, at most MS ms (default ${DEFAULT-VALUE}; 0 = off)")
    int jitWarmUpMillis;

    @Option(names = {"-A", "--atomic_type"}, paramLabel = "TYPE", description = "CMP_AND_SWAP or FETCH_AND_ADD (atomic tests)")
    String atomicType;

    @Option(names = {"-o", "--outs"}, paramLabel = "N", description = "outstanding READ/atomic operations (default: device max)")
    Integer outs;

    @Option(names = "--plot", paramLabel = "FILE", description = "draw the results versus message size (use with -a) into FILE.svg or FILE.png")
    String plot;

    @Option(names = "--stats-file", paramLabel = "FILE",
            description = "write the device counters to FILE while running and at exit (see 'jrdma stat')")
    String statsFile;

    @Option(names = {"-R", "--rdma_cm"}, description = "connect the QPs with rdma_cm (jrdma's CM) and run the test on"
            + " them; the exchange goes over rdma_cm too (RC)")
    boolean rdmaCm;

    @Option(names = {"-z", "--comm_rdma_cm"}, description = "exchange the QP data over rdma_cm instead of TCP")
    boolean commRdmaCm;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    @Option(names = {"-V", "--version"}, versionHelp = true, description = "print the version")
    boolean version;

    public PerftestCommand(Verb verb, Params.Kind kind, PrintStream stdout) {
        this.verb = verb;
        this.kind = kind;
        this.stdout = stdout;
    }

    /** The run parameters these options give. @throws CommandLine.ParameterException for a bad value */
    Params toParams() {
        String tool = spec.name();
        Params p = Params.defaults(tool, verb, kind);
        p.serverName = server;
        p.ibDev = ibDev;
        if (ibPort != null) {
            p.ibPort = range(ibPort, 1, 255, "-i/--ib-port");
        }
        if (gidIndex != null) {
            p.gidIndex = range(gidIndex, 0, 64, "-x/--gid-index");
            p.useGidUser = true;
        }
        if (port != null) {
            p.port = range(port, 1, 65535, "-p/--port");
        }
        if (size != null) {
            if (size < 1 || size > 0x7fffffffL) {
                throw bad("-s/--size must be between 1 and 2147483647 bytes");
            }
            p.size = size;
            p.reqSize = true;
        }
        if (iters != null) {
            if (iters < 5 || iters > 100_000_000) {
                throw bad("-n/--iters must be between 5 and 100000000");
            }
            p.iters = iters;
        }
        if (mtu != null) {
            if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
                throw bad("invalid MTU " + mtu + " for -m/--mtu (choose from 256, 512, 1024, 2048, 4096)");
            }
            p.mtu = mtu;
        }
        if (duration != null) {
            if (duration <= 0) {
                throw bad("-D/--duration must be positive");
            }
            p.duration = true;
            p.durationSec = duration;
        }
        p.cpuFreqF = cpuFreq;
        p.reportGbits = reportGbits;
        if (all) {
            p.method = Params.Method.ALL;
        }
        if (runInfinitely) {
            p.method = Params.Method.INFINITELY;
        }
        if (connection != null) {
            p.connection = switch (connection) {
                case "RC" -> Params.Connection.RC;
                case "UC" -> Params.Connection.UC;
                case "UD" -> Params.Connection.UD;
                default -> throw bad("invalid connection type '" + connection + "' for -c (choose from RC, UC, UD)");
            };
            if (p.connection == Params.Connection.UC && (verb == Verb.READ || verb == Verb.ATOMIC)) {
                throw bad("UC connection not possible in READ/ATOMIC verbs");
            }
            if (p.connection == Params.Connection.UD && verb != Verb.SEND) {
                throw bad("UD connection only possible in SEND verb");
            }
        }
        if (qps != null) {
            if (kind != Params.Kind.BW) {
                throw bad("multiple QPs (-q) only available on BW tests");
            }
            p.numQps = range(qps, 1, 16384, "-q/--qp");
        }
        if (txDepth != null) {
            p.txDepth = range(txDepth, 1, 15000, "-t/--tx-depth");
        }
        if (rxDepth != null) {
            p.rxDepth = range(rxDepth, 1, 16384, "-r/--rx-depth");
            if (verb != Verb.SEND && p.rxDepth > 1) {
                throw bad("on RDMA verbs the rx depth (-r) can be only 1");
            }
        }
        if (useSrq) {
            if (verb != Verb.SEND) {
                throw bad("SRQ (--use-srq) only works with SEND tests");
            }
            if (p.numQps > p.rxDepth) {
                throw bad("Using SRQ depth should be greater than number of QPs.");
            }
            p.useSrq = true;
        }
        if (inline != null) {
            if (verb == Verb.READ || verb == Verb.ATOMIC) {
                throw bad("inline (-I) not available on READ/atomic verbs");
            }
            p.inlineSize = range(inline, 0, Params.MAX_INLINE, "-I/--inline_size");
        }
        if (postList != null) {
            p.postList = range(postList, 1, 15000, "-l/--post_list");
        }
        if (events) {
            if (verb == Verb.WRITE) {
                throw bad("events (-e) not available on WRITE verb");
            }
            p.useEvent = true;
        }
        if (cqMod != null) {
            p.cqMod = range(cqMod, 1, 1024, "-Q/--cq-mod");
            p.reqCqMod = true;
        }
        if (output != null) {
            p.output = switch (output) {
                case "bandwidth" -> Params.Output.BANDWIDTH;
                case "message_rate" -> Params.Output.MESSAGE_RATE;
                case "latency" -> Params.Output.LATENCY;
                default -> throw bad("invalid --output '" + output + "' (choose from bandwidth, message_rate, latency)");
            };
        }
        p.performWarmUp = warmUp;
        if (jitWarmUpMillis < 0) {
            throw bad("invalid --jit_warm_up " + jitWarmUpMillis + " (ms, 0 or more)");
        }
        p.jitWarmUpMillis = jitWarmUpMillis;
        if (plot != null) {
            try {
                Plot.formatOf(plot);
            } catch (IllegalArgumentException e) {
                throw bad(e.getMessage());
            }
            p.plotFile = plot;
        }
        p.statsFile = statsFile;
        if (atomicType != null) {
            if (verb != Verb.ATOMIC) {
                throw bad("-A/--atomic_type is only for the atomic tests");
            }
            p.atomicType = switch (atomicType) {
                case "CMP_AND_SWAP" -> Params.AtomicType.CMP_AND_SWAP;
                case "FETCH_AND_ADD" -> Params.AtomicType.FETCH_AND_ADD;
                default -> throw bad("invalid atomic type '" + atomicType + "' (choose from CMP_AND_SWAP, FETCH_AND_ADD)");
            };
        }
        if (outs != null) {
            if (verb != Verb.READ && verb != Verb.ATOMIC) {
                throw bad("outstanding reads (-o) only available on READ/atomic verbs");
            }
            p.outReads = range(outs, 1, 65535, "-o/--outs");
        }
        if (rdmaCm) {
            // perftest_parameters.c force_dependecies: "UC is not supported in librdmacm"
            if (p.connection == Params.Connection.UC) {
                throw bad("UC is not supported in librdmacm (-R)");
            }
            p.rdmaCm = true;
        }
        p.commRdmaCmOnly = commRdmaCm && !rdmaCm;
        try {
            p.resolve();
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        return p;
    }

    private int range(int v, int min, int max, String name) {
        if (v < min || v > max) {
            throw bad(name + " must be between " + min + " and " + max + " (got " + v + ")");
        }
        return v;
    }

    private CommandLine.ParameterException bad(String msg) {
        return new CommandLine.ParameterException(spec.commandLine(), msg);
    }

    @Override
    public Integer call() {
        return new Perftest(toParams(), stdout).run();
    }

    /** {@code -s}: a number (decimal, or 0x hex) with an optional K (2^10) or M (2^20) suffix. */
    public static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            String v = value.trim();
            long factor = 1;
            if (v.endsWith("K")) {
                factor = 1024;
                v = v.substring(0, v.length() - 1);
            } else if (v.endsWith("M")) {
                factor = 1024 * 1024;
                v = v.substring(0, v.length() - 1);
            }
            try {
                long n = v.toLowerCase(Locale.ROOT).startsWith("0x") ? Long.parseLong(v.substring(2), 16)
                        : Long.parseLong(v);
                return Math.multiplyExact(n, factor);
            } catch (NumberFormatException | ArithmeticException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a size (e.g. 64, 4K, 1M)");
            }
        }
    }
}
