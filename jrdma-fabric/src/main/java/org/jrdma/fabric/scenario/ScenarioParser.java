package org.jrdma.fabric.scenario;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jrdma.congestion.DcqcnParameters;

/**
 * Reads a scenario file (format: {@code jrdma-fabric/scenarios/README.md}): one directive per
 * line, {@code #} starts a comment, fields are {@code key=value}. Every error names the line and
 * the field; impossible values (negative or zero rates, a buffer smaller than one MTU, Kmin above
 * Kmax, a host with other than one link, a flow to an unknown host) are refused here, before any
 * run.
 */
public final class ScenarioParser {
    private static final long US = 1_000_000L;

    private final String source;
    private final Map<String, NodeSpec> nodes = new LinkedHashMap<>();
    private final List<LinkSpec> links = new ArrayList<>();
    private final List<FlowSpec> flows = new ArrayList<>();
    private final List<RouteSpec> routes = new ArrayList<>();
    private String name;
    private long durationPs = 10_000 * US;
    private long seed = 1;
    private int mtu = 1000;
    private int header = 62;
    private Scenario.BufferSpec buffer = new Scenario.BufferSpec(32L << 20, 4 * 1024, 3 * 1024, 3, 3);
    private int bufferLine;
    private Scenario.EcnSpec ecn;
    private Scenario.PfcSpec pfc = new Scenario.PfcSpec(false, 65535);
    private DcqcnParameters dcqcn;
    private int ackInterval = 1;
    private long rtoPs = 1_000 * US;
    private long nackIntervalPs = 500 * US;
    private long ccDelayPs;
    private long goBack0MessageBytes;
    private Scenario.IrnSpec irn;
    private int dropEvery;
    private String transport = "roce";
    private TcpSpec tcp = TcpSpec.LINUX;
    private WorkloadSpec workload;
    private CpuSpec cpu;
    private IbSpec ib;
    private int ibLine;
    private Scenario.HpccSpec hpcc;
    private int hpccLine;
    private Scenario.SchedulerSpec scheduler = Scenario.SchedulerSpec.ROUND_ROBIN;
    private int schedulerLine;
    private Fields cpuFields;
    private long samplePs = 10 * US;
    private long eventBudget = 2_000_000_000L;
    private long memoryBudget = 1L << 30;
    private Scenario.WatchdogSpec watchdog;
    private final List<Scenario.StuckSpec> stuck = new ArrayList<>();
    private boolean topologySeen;
    private int cpuLine;
    private int line;

    private ScenarioParser(String source) {
        this.source = source;
        this.name = source.replaceFirst("\\.fabric$", "");
    }

    /** Parses a file; the file's name is the source in messages. */
    public static Scenario parse(Path file) throws IOException, ScenarioException {
        return parse(file.getFileName().toString(), Files.readString(file, StandardCharsets.UTF_8));
    }

    /** Parses scenario text; {@code source} names it in messages. */
    public static Scenario parse(String source, String text) throws ScenarioException {
        ScenarioParser p = new ScenarioParser(source);
        String[] lines = text.split("\\R", -1);
        for (int i = 0; i < lines.length; i++) {
            p.line = i + 1;
            String l = lines[i];
            int hash = l.indexOf('#');
            if (hash >= 0) {
                l = l.substring(0, hash);
            }
            l = l.strip();
            if (!l.isEmpty()) {
                p.directive(l.split("\\s+"));
            }
        }
        return p.finish();
    }

    private ScenarioException error(String field, String detail) {
        return new ScenarioException(source, line, field, detail);
    }

    /** The key=value fields of a directive after its positional words. */
    private final class Fields {
        final String directive;
        final Map<String, String> values = new HashMap<>();
        final List<String> positional = new ArrayList<>();
        final Set<String> known;

        Fields(String[] words, int first, String... known) throws ScenarioException {
            this.directive = words[0];
            this.known = new TreeSet<>(List.of(known));
            for (int i = first; i < words.length; i++) {
                int eq = words[i].indexOf('=');
                if (eq < 0) {
                    positional.add(words[i]);
                    continue;
                }
                String k = words[i].substring(0, eq);
                if (!this.known.contains(k)) {
                    throw error(k, "unknown field of '" + directive + "' (known: " + String.join(", ", this.known) + ")");
                }
                if (values.put(k, words[i].substring(eq + 1)) != null) {
                    throw error(k, "given twice");
                }
            }
        }

        String string(String k, String dflt) throws ScenarioException {
            String v = values.get(k);
            if (v == null) {
                if (dflt == null) {
                    throw error(k, "missing (" + directive + " needs it)");
                }
                return dflt;
            }
            if (v.isEmpty()) {
                throw error(k, "empty value");
            }
            return v;
        }

        long rate(String k, String dflt) throws ScenarioException {
            long r = convert(k, string(k, dflt), Units::rate);
            if (r <= 0) {
                throw error(k, "a rate must be positive: " + string(k, dflt));
            }
            return r;
        }

        long time(String k, String dflt) throws ScenarioException {
            long t = convert(k, string(k, dflt), Units::time);
            if (t < 0) {
                throw error(k, "a time must not be negative: " + string(k, dflt));
            }
            return t;
        }

        long size(String k, String dflt) throws ScenarioException {
            long b = convert(k, string(k, dflt), Units::size);
            if (b < 0) {
                throw error(k, "a size must not be negative: " + string(k, dflt));
            }
            return b;
        }

        long integer(String k, String dflt, long min, long max) throws ScenarioException {
            String v = string(k, dflt);
            long n;
            try {
                n = Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw error(k, "not an integer: '" + v + "'");
            }
            if (n < min || n > max) {
                throw error(k, v + " is out of range " + min + ".." + max);
            }
            return n;
        }

        double fraction(String k, String dflt, boolean oneAllowed) throws ScenarioException {
            String v = string(k, dflt);
            double d;
            try {
                d = Double.parseDouble(v);
            } catch (NumberFormatException e) {
                throw error(k, "not a number: '" + v + "'");
            }
            if (!(d >= 0 && (oneAllowed ? d <= 1 : d < 1))) {
                throw error(k, v + " is out of range [0, 1" + (oneAllowed ? "]" : ")"));
            }
            return d;
        }

        void noPositional(int max) throws ScenarioException {
            if (positional.size() > max) {
                throw error(null, "unexpected word '" + positional.get(max) + "' in '" + directive + "'");
            }
        }
    }

    private interface Converter {
        long apply(String s);
    }

    private long convert(String k, String v, Converter c) throws ScenarioException {
        try {
            return c.apply(v);
        } catch (IllegalArgumentException e) {
            throw error(k, e.getMessage());
        }
    }

    private void directive(String[] w) throws ScenarioException {
        switch (w[0]) {
            case "name" -> {
                if (w.length < 2) {
                    throw error(null, "name needs a value");
                }
                name = String.join(" ", List.of(w).subList(1, w.length));
            }
            case "duration" -> {
                Fields f = new Fields(new String[] {"duration", "time=" + arg(w, "time")}, 1, "time");
                durationPs = f.time("time", null);
                if (durationPs == 0) {
                    throw error("time", "the duration must be positive");
                }
            }
            case "seed" -> seed = new Fields(new String[] {"seed", "value=" + arg(w, "value")}, 1, "value")
                    .integer("value", null, Long.MIN_VALUE, Long.MAX_VALUE);
            case "packet" -> {
                Fields f = new Fields(w, 1, "mtu", "header");
                f.noPositional(0);
                mtu = (int) f.integer("mtu", "1000", 64, 9000);
                header = (int) f.integer("header", "62", 0, 512);
            }
            case "host", "switch" -> {
                if (w.length < 2) {
                    throw error(null, w[0] + " needs at least one name");
                }
                for (int i = 1; i < w.length; i++) {
                    node(w[i], w[0].equals("switch"));
                }
            }
            case "link" -> {
                Fields f = new Fields(w, 1, "rate", "delay", "loss", "drop-every");
                if (f.positional.size() != 2) {
                    throw error(null, "link needs two node names, then rate=, delay=, loss=, drop-every=");
                }
                dropEvery = (int) f.integer("drop-every", "0", 0, 65536);
                link(f.positional.get(0), f.positional.get(1), f.rate("rate", null), f.time("delay", "1us"),
                        f.fraction("loss", "0", false));
                dropEvery = 0;
            }
            case "topology" -> topology(w);
            case "buffer" -> {
                Fields f = new Fields(w, 1, "size", "reserve", "resume-offset", "headroom-factor", "shift");
                f.noPositional(0);
                buffer = new Scenario.BufferSpec(f.size("size", "32MiB"), f.size("reserve", "4KiB"),
                        f.size("resume-offset", "3KiB"), (int) f.integer("headroom-factor", "3", 0, 100),
                        (int) f.integer("shift", "3", 0, 16));
                bufferLine = line;
            }
            case "ecn" -> {
                if (w.length == 2 && w[1].equals("off")) {
                    ecn = null;
                    return;
                }
                Fields f = new Fields(w, 1, "kmin", "kmax", "pmax");
                f.noPositional(0);
                long kmin = f.size("kmin", null);
                long kmax = f.size("kmax", null);
                if (kmax <= kmin) {
                    throw error("kmax", "must be above kmin (" + kmin + " B): " + kmax + " B");
                }
                ecn = new Scenario.EcnSpec(kmin, kmax, f.fraction("pmax", null, true));
            }
            case "pfc" -> {
                if (w.length == 2 && w[1].equals("off")) {
                    pfc = null;
                    return;
                }
                Fields f = new Fields(w, 1, "mode", "quanta");
                f.noPositional(0);
                String mode = f.string("mode", "xon-xoff");
                if (!mode.equals("xon-xoff") && !mode.equals("quanta")) {
                    throw error("mode", "'" + mode + "' is not xon-xoff or quanta");
                }
                pfc = new Scenario.PfcSpec(mode.equals("quanta"), (int) f.integer("quanta", "65535", 1, 65535));
            }
            case "dcqcn" -> {
                if (w.length < 2) {
                    throw error(null, "dcqcn needs a parameter set (" + String.join(", ", DcqcnParameters.NAMES)
                            + ") or off");
                }
                if (w[1].equals("off")) {
                    dcqcn = null;
                    return;
                }
                try {
                    dcqcn = DcqcnParameters.named(w[1]);
                } catch (IllegalArgumentException e) {
                    throw error("set", e.getMessage());
                }
                Fields f = new Fields(w, 2, "rate-ai", "rate-hai", "min-rate", "increase-timer", "cnp-interval");
                f.noPositional(0);
                DcqcnParameters d = dcqcn;
                try {
                    dcqcn = new DcqcnParameters(d.name(), d.variant(), f.time("cnp-interval", d.cnpIntervalNs() + "ns")
                            / 1000, d.alphaPeriodNs(), d.g(), d.initialAlpha(), d.rateDecreasePeriodNs(),
                            d.maxDecreaseFraction(), d.rateOnFirstCnpBps(), f.rate("min-rate", d.minRateBps() + "bps"),
                            f.time("increase-timer", d.increaseTimerNs() + "ns") / 1000, d.byteCounterBytes(),
                            d.fastRecoverySteps(), f.rate("rate-ai", d.rateAiBps() + "bps"),
                            f.rate("rate-hai", d.rateHaiBps() + "bps"), d.clampTargetRate(),
                            d.clampAfterTimeIncrease());
                } catch (IllegalArgumentException e) {
                    throw error(null, e.getMessage());
                }
            }
            case "nic" -> {
                Fields f = new Fields(w, 1, "ack-interval", "rto", "nack-interval", "cc-delay", "transport", "recovery",
                        "message", "rto-low", "rto-high", "rto-n", "bdp-fc");
                f.noPositional(0);
                transport = f.string("transport", "roce");
                if (!List.of("roce", "tcp", "iwarp").contains(transport)) {
                    throw error("transport", "'" + transport + "' is not roce, tcp or iwarp");
                }
                ackInterval = (int) f.integer("ack-interval", "1", 1, 1 << 20);
                rtoPs = f.time("rto", "1ms");
                nackIntervalPs = f.time("nack-interval", "500us");
                ccDelayPs = f.time("cc-delay", "0");
                String rec = f.string("recovery", "go-back-n");
                if (!rec.equals("go-back-n") && !rec.equals("go-back-0") && !rec.equals("selective-repeat")) {
                    throw error("recovery", "'" + rec + "' is not go-back-n, go-back-0 or selective-repeat");
                }
                irn = null;
                if (rec.equals("selective-repeat")) {
                    long lo = f.time("rto-low", "100us");
                    long hi = f.time("rto-high", "320us");
                    if (lo == 0 || hi < lo) {
                        throw error(lo == 0 ? "rto-low" : "rto-high", "need 0 < rto-low <= rto-high");
                    }
                    String bdp = f.string("bdp-fc", "on");
                    if (!bdp.equals("on") && !bdp.equals("off")) {
                        throw error("bdp-fc", "'" + bdp + "' is not on or off");
                    }
                    irn = new Scenario.IrnSpec(lo, hi, (int) f.integer("rto-n", "3", 0, 1 << 20), bdp.equals("on"));
                } else {
                    for (String k : new String[] {"rto-low", "rto-high", "rto-n", "bdp-fc"}) {
                        if (f.values.containsKey(k)) {
                            throw error(k, "only with recovery=selective-repeat");
                        }
                    }
                }
                long msg = f.size("message", "1GiB");
                if (msg == 0) {
                    throw error("message", "must be positive");
                }
                goBack0MessageBytes = rec.equals("go-back-0") ? msg : 0;
                if (rtoPs == 0) {
                    throw error("rto", "must be positive");
                }
            }
            case "flow" -> {
                Fields f = new Fields(w, 1, "src", "dst", "size", "start", "priority", "stop");
                if (f.positional.size() != 1) {
                    throw error(null, "flow needs one name, then src=, dst=, size=, start=, priority=, stop=");
                }
                flow(f.positional.get(0), f.string("src", null), f.string("dst", null), f);
            }
            case "flows" -> flows(w);
            case "ib" -> {
                Fields f = new Fields(w, 1, "vl-buffer", "credit-update");
                f.noPositional(0);
                long b = f.size("vl-buffer", "16KiB");
                if (b < IbSpec.BLOCK || b % IbSpec.BLOCK != 0) {
                    throw error("vl-buffer", "must be a positive multiple of 64 B (one credit block): " + b);
                }
                ib = new IbSpec(b, f.time("credit-update", "256ns"));
                ibLine = line;
            }
            case "tcp" -> {
                Fields f = new Fields(w, 1, "min-rto", "initial-rto", "init-cwnd", "dctcp", "dctcp-g");
                f.noPositional(0);
                String d = f.string("dctcp", "off");
                if (!d.equals("on") && !d.equals("off")) {
                    throw error("dctcp", "'" + d + "' is not on or off");
                }
                long minRto = f.time("min-rto", "200ms");
                long initRto = f.time("initial-rto", "1s");
                if (minRto == 0 || initRto == 0) {
                    throw error(minRto == 0 ? "min-rto" : "initial-rto", "must be positive");
                }
                double g = f.fraction("dctcp-g", "0.0625", true);
                if (g == 0) {
                    throw error("dctcp-g", "must be positive");
                }
                tcp = new TcpSpec(minRto, initRto, (int) f.integer("init-cwnd", "10", 1, 1000), d.equals("on"), g);
            }
            case "workload" -> {
                if (w.length < 2 || !w[1].equals("ceph-read")) {
                    throw error("kind", "workload supports 'ceph-read'");
                }
                Fields f = new Fields(w, 2, "osds", "clients", "iops", "request", "response", "osd-service",
                        "osd-jitter", "osd-workers", "priority", "warmup");
                f.noPositional(0);
                long hosts = nodes.values().stream().filter(x -> !x.isSwitch()).count();
                int osds = (int) f.integer("osds", null, 1, 4096);
                int clients = (int) f.integer("clients", null, 1, 4096);
                if (osds + clients > hosts) {
                    throw error("clients", "osds + clients = " + (osds + clients) + " but there are " + hosts + " hosts");
                }
                double iops;
                try {
                    iops = Double.parseDouble(f.string("iops", null));
                } catch (NumberFormatException e) {
                    throw error("iops", "not a number: '" + f.string("iops", null) + "'");
                }
                if (!(iops > 0)) {
                    throw error("iops", "must be positive");
                }
                long req = f.size("request", "512B");
                long resp = f.size("response", "4KiB");
                if (req == 0 || resp == 0) {
                    throw error(req == 0 ? "request" : "response", "must be positive");
                }
                workload = new WorkloadSpec(osds, clients, iops, req, resp, f.time("osd-service", null),
                        f.time("osd-jitter", "0"), (int) f.integer("osd-workers", "16", 1, 1024),
                        (int) f.integer("priority", "3", 1, 7), f.time("warmup", "0"), line);
            }
            case "cpu" -> {
                cpuFields = new Fields(w, 1, "per-message", "per-packet", "osd-op", "cores");
                cpuFields.noPositional(0);
                cpuFields.integer("cores", "16", 1, 4096); // checked here, applied in finish (after transport)
                cpuFields.time("per-message", "0");
                cpuFields.time("per-packet", "0");
                cpuFields.time("osd-op", "0");
                cpuLine = line;
            }
            case "route" -> {
                Fields f = new Fields(w, 1, "to", "via");
                if (f.positional.size() != 1) {
                    throw error(null, "route needs one switch name, then to= (a host) and via= (a neighbour)");
                }
                route(f.positional.get(0), f.string("to", null), f.string("via", null));
            }
            case "watchdog" -> {
                if (w.length < 2) {
                    throw error("preset", "watchdog needs a preset (sonic, juniper) or off");
                }
                if (w[1].equals("off")) {
                    watchdog = null;
                    return;
                }
                String[] d = switch (w[1]) {
                    case "sonic" -> new String[] {"200ms", "200ms", "200ms"};
                    case "juniper" -> new String[] {"100ms", "200ms", "200ms"};
                    default -> throw error("preset", "unknown watchdog preset '" + w[1] + "' (known: sonic, juniper)");
                };
                Fields f = new Fields(w, 2, "poll", "detect", "restore", "action", "scope");
                f.noPositional(0);
                String action = f.string("action", "drop");
                String scope = f.string("scope", "host-ports");
                if (!action.equals("drop") && !action.equals("forward")) {
                    throw error("action", "'" + action + "' is not drop or forward");
                }
                if (!scope.equals("host-ports") && !scope.equals("all")) {
                    throw error("scope", "'" + scope + "' is not host-ports or all");
                }
                long poll = f.time("poll", d[0]);
                if (poll == 0) {
                    throw error("poll", "must be positive");
                }
                watchdog = new Scenario.WatchdogSpec(w[1], poll, f.time("detect", d[1]), f.time("restore", d[2]),
                        action.equals("drop"), scope.equals("host-ports"));
            }
            case "stuck" -> {
                Fields f = new Fields(w, 1, "at");
                if (f.positional.size() != 1) {
                    throw error(null, "stuck needs one host name, then at=");
                }
                NodeSpec h = nodes.get(f.positional.get(0));
                if (h == null || h.isSwitch()) {
                    throw error("host", "'" + f.positional.get(0) + "' is not a host");
                }
                stuck.add(new Scenario.StuckSpec(h.name(), f.time("at", null), line));
            }
            case "hpcc" -> {
                if (w.length == 2 && w[1].equals("off")) {
                    hpcc = null;
                    return;
                }
                Fields f = new Fields(w, 1, "eta", "max-stage", "rate-ai", "min-rate");
                f.noPositional(0);
                double eta = f.fraction("eta", "0.95", true);
                if (eta == 0) {
                    throw error("eta", "must be positive");
                }
                hpcc = new Scenario.HpccSpec(eta, (int) f.integer("max-stage", "0", 0, 1000), f.rate("rate-ai", "50Mbps"),
                        f.rate("min-rate", "100Mbps"));
                hpccLine = line;
            }
            case "scheduler" -> {
                if (w.length < 2 || !(w[1].equals("rr") || w[1].equals("dwrr"))) {
                    throw error("kind", "scheduler needs a kind: rr (round-robin, HPCC) or dwrr (deficit weighted "
                            + "round robin)");
                }
                Fields f = new Fields(w, 2, "weights", "quantum", "strict");
                f.noPositional(0);
                int[] weights = {0, 1, 1, 1, 1, 1, 1, 1};
                if (f.values.containsKey("weights")) {
                    String[] ws = f.string("weights", null).split(",", -1);
                    if (ws.length != 7) {
                        throw error("weights", "seven weights, for queues 1-7 (e.g. 1,1,2,4,1,1,1): "
                                + f.string("weights", null));
                    }
                    for (int q = 1; q <= 7; q++) {
                        try {
                            weights[q] = Integer.parseInt(ws[q - 1]);
                        } catch (NumberFormatException e) {
                            throw error("weights", "the weight of queue " + q + " is not an integer: '" + ws[q - 1] + "'");
                        }
                        if (weights[q] < 1 || weights[q] > 1000) {
                            throw error("weights", "the weight of queue " + q + " is out of range 1..1000: " + weights[q]);
                        }
                    }
                }
                boolean[] strict = new boolean[8];
                if (f.values.containsKey("strict")) {
                    for (String q : f.string("strict", null).split(",", -1)) {
                        int n;
                        try {
                            n = Integer.parseInt(q);
                        } catch (NumberFormatException e) {
                            throw error("strict", "not a queue number: '" + q + "'");
                        }
                        if (n < 1 || n > 7) {
                            throw error("strict", "queue " + n + " is out of range 1..7 (queue 0 is always first)");
                        }
                        strict[n] = true;
                    }
                }
                long quantum = f.values.containsKey("quantum") ? f.size("quantum", null) : 0;
                if (f.values.containsKey("quantum") && quantum == 0) {
                    throw error("quantum", "must be positive");
                }
                scheduler = new Scenario.SchedulerSpec(w[1].equals("dwrr"), weights, quantum, strict);
                schedulerLine = line;
            }
            case "sample" -> {
                Fields f = new Fields(w, 1, "interval");
                f.noPositional(0);
                samplePs = f.time("interval", "10us");
                if (samplePs == 0) {
                    throw error("interval", "must be positive");
                }
            }
            case "budget" -> {
                Fields f = new Fields(w, 1, "events", "memory");
                f.noPositional(0);
                eventBudget = f.integer("events", "2000000000", 1, Long.MAX_VALUE);
                memoryBudget = f.size("memory", "1GiB");
                if (memoryBudget == 0) {
                    throw error("memory", "must be positive");
                }
            }
            default -> throw error(null, "unknown directive '" + w[0] + "' (known: name, duration, seed, packet, host, "
                    + "switch, link, topology, buffer, ecn, pfc, ib, dcqcn, nic, tcp, flow, flows, route, workload, cpu, watchdog, stuck, "
                    + "scheduler, hpcc, sample, budget)");
        }
    }

    private String arg(String[] w, String field) throws ScenarioException {
        if (w.length != 2) {
            throw error(field, w[0] + " takes one value");
        }
        return w[1];
    }

    private void node(String n, boolean isSwitch) throws ScenarioException {
        if (!n.matches("[A-Za-z_][A-Za-z0-9_.-]*")) {
            throw error("name", "'" + n + "' is not a node name (a letter, then letters, digits, _ . -)");
        }
        if (nodes.putIfAbsent(n, new NodeSpec(n, isSwitch, line)) != null) {
            throw error("name", "node '" + n + "' declared twice");
        }
    }

    private void link(String a, String b, long rate, long delay, double loss) throws ScenarioException {
        for (String n : new String[] {a, b}) {
            if (!nodes.containsKey(n)) {
                throw error("node", "unknown node '" + n + "' (declare it with host or switch first)");
            }
        }
        if (a.equals(b)) {
            throw error("node", "a link from '" + a + "' to itself");
        }
        links.add(new LinkSpec(a, b, rate, delay, loss, line, dropEvery));
    }

    private void route(String sw, String to, String via) throws ScenarioException {
        NodeSpec s = nodes.get(sw);
        if (s == null || !s.isSwitch()) {
            throw error("switch", "'" + sw + "' is not a switch");
        }
        NodeSpec d = nodes.get(to);
        if (d == null || d.isSwitch()) {
            throw error("to", "'" + to + "' is not a host");
        }
        boolean neighbour = links.stream().anyMatch(l -> l.a().equals(sw) && l.b().equals(via)
                || l.b().equals(sw) && l.a().equals(via));
        if (!neighbour) {
            throw error("via", "'" + via + "' is not a neighbour of '" + sw + "'");
        }
        routes.add(new RouteSpec(sw, to, via, line));
    }

    private void flow(String n, String src, String dst, Fields f) throws ScenarioException {
        for (String[] e : new String[][] {{"src", src}, {"dst", dst}}) {
            NodeSpec s = nodes.get(e[1]);
            if (s == null || s.isSwitch()) {
                throw error(e[0], "'" + e[1] + "' is not a host");
            }
        }
        if (src.equals(dst)) {
            throw error("dst", "a flow from '" + src + "' to itself");
        }
        long size = f.size("size", null);
        if (size == 0) {
            throw error("size", "must be positive");
        }
        long start = f.time("start", "0");
        long stop = f.values.containsKey("stop") ? f.time("stop", null) : Long.MAX_VALUE;
        if (stop <= start) {
            throw error("stop", "must be after start");
        }
        flows.add(new FlowSpec(n, src, dst, size, start, (int) f.integer("priority", "3", 1, 7), stop, line));
    }

    private void flows(String[] w) throws ScenarioException {
        if (w.length < 2 || !(w[1].equals("incast") || w[1].equals("permutation"))) {
            throw error("pattern", "flows supports 'incast' (every other host sends to dst) and 'permutation' "
                    + "(host i sends to host i + H/2 mod H)");
        }
        if (w[1].equals("permutation")) {
            Fields f = new Fields(w, 2, "size", "start", "priority", "stop");
            f.noPositional(0);
            List<String> hosts = nodes.values().stream().filter(x -> !x.isSwitch()).map(NodeSpec::name).toList();
            if (hosts.size() < 2) {
                throw error("pattern", "a permutation needs at least two hosts");
            }
            for (int i = 0; i < hosts.size(); i++) {
                flow("perm-" + hosts.get(i), hosts.get(i), hosts.get((i + hosts.size() / 2) % hosts.size()), f);
            }
            return;
        }
        Fields f = new Fields(w, 2, "dst", "size", "start", "priority", "senders", "stop");
        f.noPositional(0);
        String dst = f.string("dst", null);
        List<String> hosts = nodes.values().stream().filter(x -> !x.isSwitch()).map(NodeSpec::name).toList();
        long senders = f.integer("senders", String.valueOf(Math.max(1, hosts.size() - 1)), 1, hosts.size());
        int k = 0;
        for (String h : hosts) {
            if (!h.equals(dst) && k < senders) {
                flow("incast-" + h, h, dst, f);
                k++;
            }
        }
    }

    private void topology(String[] w) throws ScenarioException {
        if (topologySeen) {
            throw error("kind", "one topology directive per scenario");
        }
        topologySeen = true;
        if (w.length < 2) {
            throw error("kind", "topology needs a kind: single-switch, incast, leaf-spine, fat-tree, ring");
        }
        switch (w[1]) {
            case "single-switch", "incast" -> {
                boolean incast = w[1].equals("incast");
                Fields f = new Fields(w, 2, incast ? "senders" : "hosts", "rate", "delay", "loss", "drop-every");
                f.noPositional(0);
                dropEvery = (int) f.integer("drop-every", "0", 0, 65536);
                long hosts = incast ? f.integer("senders", null, 1, 4096) + 1 : f.integer("hosts", null, 1, 4096);
                long rate = f.rate("rate", null);
                long delay = f.time("delay", "1us");
                double loss = f.fraction("loss", "0", false);
                node("s0", true);
                for (int i = 0; i < hosts; i++) {
                    node("h" + i, false);
                    link("h" + i, "s0", rate, delay, loss);
                }
                dropEvery = 0;
            }
            case "leaf-spine" -> {
                Fields f = new Fields(w, 2, "leaves", "spines", "hosts-per-leaf", "rate", "fabric-rate", "delay", "loss");
                f.noPositional(0);
                int leaves = (int) f.integer("leaves", null, 1, 1024);
                int spines = (int) f.integer("spines", null, 1, 1024);
                int hpl = (int) f.integer("hosts-per-leaf", null, 1, 1024);
                long rate = f.rate("rate", null);
                long fabric = f.rate("fabric-rate", rate + "bps");
                long delay = f.time("delay", "1us");
                double loss = f.fraction("loss", "0", false);
                for (int s = 0; s < leaves + spines; s++) {
                    node("s" + s, true);
                }
                for (int l = 0; l < leaves; l++) {
                    for (int h = 0; h < hpl; h++) {
                        String host = "h" + (l * hpl + h);
                        node(host, false);
                        link(host, "s" + l, rate, delay, loss);
                    }
                    for (int s = 0; s < spines; s++) {
                        link("s" + l, "s" + (leaves + s), fabric, delay, loss);
                    }
                }
            }
            case "fat-tree" -> {
                Fields f = new Fields(w, 2, "k", "rate", "fabric-rate", "delay", "loss");
                f.noPositional(0);
                int k = (int) f.integer("k", null, 2, 64);
                if (k % 2 != 0) {
                    throw error("k", "must be even: " + k);
                }
                long rate = f.rate("rate", null);
                long fabric = f.rate("fabric-rate", rate + "bps");
                long delay = f.time("delay", "1us");
                double loss = f.fraction("loss", "0", false);
                int half = k / 2;
                // switches: edge pod by pod (s0 ..), then aggregation pod by pod, then core
                int edges = k * half;
                int aggs = k * half;
                int cores = half * half;
                for (int s = 0; s < edges + aggs + cores; s++) {
                    node("s" + s, true);
                }
                int host = 0;
                for (int pod = 0; pod < k; pod++) {
                    for (int e = 0; e < half; e++) {
                        String edge = "s" + (pod * half + e);
                        for (int h = 0; h < half; h++) {
                            node("h" + host, false);
                            link("h" + host, edge, rate, delay, loss);
                            host++;
                        }
                        for (int a = 0; a < half; a++) {
                            link(edge, "s" + (edges + pod * half + a), fabric, delay, loss);
                        }
                    }
                    for (int a = 0; a < half; a++) {
                        for (int c = 0; c < half; c++) {
                            link("s" + (edges + pod * half + a), "s" + (edges + aggs + a * half + c), fabric, delay,
                                    loss);
                        }
                    }
                }
            }
            case "ring" -> {
                Fields f = new Fields(w, 2, "switches", "hosts-per-switch", "rate", "fabric-rate", "delay", "loss",
                        "routing");
                f.noPositional(0);
                String routing = f.string("routing", "shortest");
                if (!routing.equals("shortest") && !routing.equals("clockwise")) {
                    throw error("routing", "'" + routing + "' is not shortest or clockwise");
                }
                int n = (int) f.integer("switches", null, 3, 1024);
                int hps = (int) f.integer("hosts-per-switch", "1", 1, 1024);
                long rate = f.rate("rate", null);
                long fabric = f.rate("fabric-rate", rate + "bps");
                long delay = f.time("delay", "1us");
                double loss = f.fraction("loss", "0", false);
                for (int s = 0; s < n; s++) {
                    node("s" + s, true);
                }
                for (int s = 0; s < n; s++) {
                    for (int h = 0; h < hps; h++) {
                        node("h" + (s * hps + h), false);
                        link("h" + (s * hps + h), "s" + s, rate, delay, loss);
                    }
                    link("s" + s, "s" + ((s + 1) % n), fabric, delay, loss);
                }
                if (routing.equals("clockwise")) { // every packet goes s(i) -> s(i+1) until its host's switch
                    for (int s = 0; s < n; s++) {
                        for (int h = 0; h < n * hps; h++) {
                            if (h / hps != s) {
                                route("s" + s, "h" + h, "s" + ((s + 1) % n));
                            }
                        }
                    }
                }
            }
            default -> throw error("kind", "unknown topology '" + w[1]
                    + "' (known: single-switch, incast, leaf-spine, fat-tree, ring)");
        }
    }

    private Scenario finish() throws ScenarioException {
        CpuSpec d = CpuSpec.defaults(transport);
        if (cpuFields != null) {
            line = cpuLine;
            Fields f = cpuFields;
            cpu = new CpuSpec(f.values.containsKey("per-message") ? f.time("per-message", null) : d.perMessagePs(),
                    f.values.containsKey("per-packet") ? f.time("per-packet", null) : d.perPacketPs(),
                    f.values.containsKey("osd-op") ? f.time("osd-op", null) : d.osdOpPs(),
                    (int) f.integer("cores", String.valueOf(d.cores()), 1, 4096));
        } else {
            cpu = d;
        }
        line = 0;
        if (nodes.isEmpty()) {
            throw error(null, "no nodes: give a topology or host/switch/link lines");
        }
        Map<String, Integer> hostLinks = new HashMap<>();
        for (LinkSpec l : links) {
            hostLinks.merge(l.a(), 1, Integer::sum);
            hostLinks.merge(l.b(), 1, Integer::sum);
        }
        for (NodeSpec n : nodes.values()) {
            int c = hostLinks.getOrDefault(n.name(), 0);
            if (!n.isSwitch() && c != 1) {
                throw new ScenarioException(source, n.line(), "name", "host '" + n.name() + "' has " + c
                        + " links; a host (one NIC port) needs exactly one");
            }
            if (n.isSwitch() && c > 256) {
                throw new ScenarioException(source, n.line(), "name", "switch '" + n.name() + "' has " + c
                        + " ports; at most 256");
            }
        }
        if (pfc == null && !stuck.isEmpty()) {
            Scenario.StuckSpec st = stuck.getFirst();
            throw new ScenarioException(source, st.line(), "host", "a stuck NIC sends PFC pauses: PFC is off");
        }
        long wire = mtu + header;
        if (ib != null) {
            line = ibLine;
            if (pfc != null) {
                throw error("vl-buffer", "InfiniBand links use credits: turn PFC off ('pfc off')");
            }
            if (ib.vlBufferBytes() < wire) {
                throw error("vl-buffer", "a VL buffer (" + ib.vlBufferBytes() + " B) must hold one packet (" + wire
                        + " B with headers)");
            }
            if (!transport.equals("roce")) {
                throw error("vl-buffer", "InfiniBand links carry RC QPs: transport must be roce (the RC model)");
            }
        }
        if (hpcc != null && dcqcn != null) {
            line = hpccLine;
            throw error(null, "hpcc and dcqcn are both on: a NIC runs one congestion control ('dcqcn off')");
        }
        if (hpcc != null && !transport.equals("roce")) {
            line = hpccLine;
            throw error(null, "hpcc runs on RoCE QPs: transport must be roce");
        }
        if (scheduler.quantumBytes() == 0) {
            scheduler = new Scenario.SchedulerSpec(scheduler.dwrr(), scheduler.weights(), wire, scheduler.strict());
        } else if (scheduler.quantumBytes() < wire) {
            line = schedulerLine;
            throw error("quantum", "must hold one full frame (" + wire + " B with headers): "
                    + scheduler.quantumBytes() + " B");
        }
        if (buffer.bufferBytes() < wire) {
            line = bufferLine;
            throw error("size", "the switch buffer (" + buffer.bufferBytes() + " B) is smaller than one MTU ("
                    + wire + " B with headers)");
        }
        if (ecn != null && pfc != null && ecn.kmaxBytes() >= buffer.bufferBytes()) {
            line = bufferLine;
            throw error("size", "the buffer must exceed ECN's kmax");
        }
        return new Scenario(name, durationPs, seed, mtu, header, List.copyOf(nodes.values()), List.copyOf(links),
                List.copyOf(flows), List.copyOf(routes), buffer, ecn, pfc, dcqcn, ackInterval, rtoPs, nackIntervalPs, ccDelayPs, goBack0MessageBytes, samplePs,
                eventBudget, memoryBudget, watchdog, List.copyOf(stuck), transport, tcp, workload, cpu, ib, scheduler, hpcc, irn);
    }
}
