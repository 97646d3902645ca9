package org.jrdma.fabric.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jrdma.fabric.net.Network;
import org.jrdma.fabric.scenario.Scenario;
import org.jrdma.fabric.scenario.ScenarioException;
import org.jrdma.fabric.scenario.ScenarioParser;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jrdma fabric}: the fabric model's command. {@code jrdma fabric run SCENARIO [--seed N]
 * [--out DIR] [--duration TIME]} runs a scenario file (or a shipped scenario by name, e.g. {@code dcqcn-2to1}) and
 * writes every output into DIR; the run's summary and its speed (events per second of wall time
 * and of the simulating thread's CPU time, which is what a shared machine's load does not skew) go
 * to stdout (not into DIR, whose files stay byte-identical for one seed). Exit status 0 on a completed run, 1 when the scenario is refused or a budget stops
 * the run (the partial outputs are written), 2 on a usage error.
 */
@Command(name = "fabric", description = "The fabric model: a deterministic simulator of RoCE v2 fabrics (PFC, ECN, DCQCN).",
        mixinStandardHelpOptions = true, subcommands = {FabricCommand.Run.class, FabricCommand.Compare.class})
public final class FabricCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The command (picocli instantiates it). */
    public FabricCommand() {
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a subcommand: run");
    }

    /** The {@code fabric} command line, for a launcher to add as a subcommand. */
    public static CommandLine commandLine() {
        return new CommandLine(new FabricCommand());
    }

    /** Reads a scenario from a path, or a shipped scenario by name. */
    static Scenario load(String scenario) throws IOException, ScenarioException {
        String[] t = text(scenario);
        return ScenarioParser.parse(t[0], t[1]);
    }

    /** A scenario's (source name, text): a path, or a shipped scenario by name. */
    static String[] text(String scenario) throws IOException, ScenarioException {
        Path p = Path.of(scenario);
        if (Files.isRegularFile(p)) {
            return new String[] {p.getFileName().toString(), Files.readString(p, StandardCharsets.UTF_8)};
        }
        String name = scenario.endsWith(".fabric") ? scenario : scenario + ".fabric";
        if (name.matches("[A-Za-z0-9_.-]+")) {
            try (InputStream in = FabricCommand.class.getResourceAsStream("/org/jrdma/fabric/scenarios/" + name)) {
                if (in != null) {
                    return new String[] {name, new String(in.readAllBytes(), StandardCharsets.UTF_8)};
                }
            }
        }
        throw new ScenarioException(scenario, 0, null, "no such file, and no shipped scenario of that name");
    }

    /** {@code jrdma fabric run}. */
    @Command(name = "run", mixinStandardHelpOptions = true,
            description = "Run SCENARIO (a file, or a shipped scenario's name) and write its outputs into DIR: "
                    + "fct.txt, pfc.txt, qlen.txt (HPCC formats), queue.txt, rate.txt, summary.txt (and the SVG "
                    + "plots with --plot). A suite file (compare lines only) prints its before/after tables.")
    static final class Run implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "SCENARIO", description = "scenario file or shipped scenario name")
        String scenario;

        @Option(names = "--seed", paramLabel = "N", description = "the run's seed (default: the scenario's)")
        Long seed;

        @Option(names = "--out", paramLabel = "DIR", description = "output directory (default: fabric-out/NAME)")
        Path out;

        @Option(names = "--duration", paramLabel = "TIME",
                description = "simulated time to run, e.g. 2ms (default: the scenario's duration)")
        String duration;

        @Option(names = "--plot", description = "also draw SVG plots into DIR: rate.svg, queue.svg, pause.svg, "
                + "fct-slowdown.svg (from the run's files)")
        boolean plot;

        @Override
        public Integer call() throws IOException {
            PrintWriter o = spec.commandLine().getOut();
            PrintWriter e = spec.commandLine().getErr();
            Scenario s;
            Network net;
            long seedUsed;
            Path dir;
            try {
                String[] t = text(scenario);
                if (CompareSuite.isSuite(t[1])) {
                    Path d = out != null ? out : Path.of("fabric-out", t[0].replaceFirst("\\.fabric$", ""));
                    return CompareSuite.parse(t[0], t[1]).run(d, o, e);
                }
                s = ScenarioParser.parse(t[0], t[1]);
                if (duration != null) {
                    try {
                        s = s.withDuration(org.jrdma.fabric.scenario.Units.time(duration));
                    } catch (IllegalArgumentException ex) {
                        throw new CommandLine.ParameterException(spec.commandLine(), "--duration: " + ex.getMessage());
                    }
                }
                seedUsed = seed != null ? seed : s.seed();
                dir = out != null ? out : Path.of("fabric-out", s.name().replaceAll("[^A-Za-z0-9_.-]", "_"));
                net = Network.build(s, seedUsed, dir);
            } catch (ScenarioException ex) {
                e.println("fabric: " + ex.getMessage());
                e.flush();
                return 1;
            }
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long c0 = mx.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            Network.Result r = net.run();
            double wall = (System.nanoTime() - t0) / 1e9;
            double cpu = (mx.getCurrentThreadCpuTime() - c0) / 1e9;
            o.print(r.summary());
            o.printf(Locale.ROOT, "wall_seconds %.3f%ncpu_seconds %.3f%nevents_per_second %.0f%n"
                    + "events_per_cpu_second %.0f%nheap_used_bytes %d%noutputs %s%n", wall, cpu,
                    r.events() / Math.max(wall, 1e-9), r.events() / Math.max(cpu, 1e-9),
                    Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory(), dir);
            if (plot) {
                for (Path f : org.jrdma.fabric.plot.FabricPlots.write(dir)) {
                    o.println("plot " + f);
                }
            }
            o.flush();
            if (!r.summary().contains("status completed")) {
                e.println("fabric: " + r.summary().lines().filter(l -> l.startsWith("status ")).findFirst()
                        .orElse("status ?").substring(7));
                e.flush();
                return 1;
            }
            return 0;
        }
    }

    /** {@code jrdma fabric compare}: runs scenarios over seeds and prints their summaries side by side. */
    @Command(name = "compare", mixinStandardHelpOptions = true,
            description = "Run each SCENARIO with each seed and print a table of summary values (rows: seeds; "
                    + "columns: scenario x key), also written to DIR/table.txt; each run's outputs go to "
                    + "DIR/NAME-seedN.")
    static final class Compare implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(arity = "1..*", paramLabel = "SCENARIO", description = "scenario files or shipped names")
        java.util.List<String> scenarios;

        @Option(names = "--seeds", split = ",", paramLabel = "N", description = "seeds (default: 1,2,3)")
        java.util.List<Long> seeds = java.util.List.of(1L, 2L, 3L);

        @Option(names = "--keys", split = ",", paramLabel = "KEY",
                description = "summary.txt keys to show (default: the read latency and CPU keys with a workload, "
                        + "else pauses, drops, finished flows and deadlock keys)")
        java.util.List<String> keys;

        @Option(names = "--out", paramLabel = "DIR", description = "output directory (default: fabric-out/compare)")
        Path out = Path.of("fabric-out", "compare");

        @Option(names = "--duration", paramLabel = "TIME", description = "simulated time of every run")
        String duration;

        @Override
        public Integer call() throws IOException {
            Long d = null;
            if (duration != null) {
                try {
                    d = org.jrdma.fabric.scenario.Units.time(duration);
                } catch (IllegalArgumentException ex) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--duration: " + ex.getMessage());
                }
            }
            CompareSuite suite = new CompareSuite(java.util.List.of(new CompareSuite.Table("compare", scenarios, seeds,
                    keys, d)));
            return suite.run(out, spec.commandLine().getOut(), spec.commandLine().getErr());
        }
    }
}
