package org.jrdma.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One capture of the lab bridge's TCP traffic for a whole iWARP test class (issue 12), and its
 * three independent checks, each attributed to the runs by their TCP port (every run listens on a
 * port of its own, {@link Ports}, and every TCP stream of a run has that port on the passive side):
 * <ol>
 * <li>the lab's {@code tools/roce.py mpa} (independent of jrdma): exit 0, every MPA stream's CRC32c
 * right where negotiated and zero where not; per run: its streams, FPDUs, whether CRC was negotiated;</li>
 * <li>jrdma's {@code pcap-check}: exit 0 (MPA frames, FPDU framing, CRC, DDP/RDMAP headers);</li>
 * <li>tshark 4.0's iWARP dissectors ({@code iwarp_mpa}, {@code iwarp_ddp_rdmap}, found by their TCP
 * heuristic: tshark 4.0 offers no {@code -d tcp.port==N,iwarp_mpa} for them): no malformed
 * frame, no expert warning or error, except TCP's own sequence analysis (group Sequence:
 * retransmissions, D-SACK, segments not captured: the runs with loss on purpose have them, and so do
 * the others, whose emulated guest ACKs late enough for spurious retransmissions; counted in the
 * summary, with those of the lossy runs apart), and TCP resets (an ID
 * destroyed while connected is aborted with a RST, by siw as by jrdma; counted in the summary); each run's port has
 * DDP/RDMAP frames. Wireshark's RPC-over-RDMA heuristic is disabled (it misfires on perftest's
 * SEND payloads, as in {@link Captures}).</li>
 * </ol>
 * One capture instead of one per run: a checked run took twice as long as an unchecked one in
 * {@code RxeCmToolsInteropTest}, and the class budget is 5 minutes.
 */
final class IwarpCaptures {
    /** Wireshark's expert severities and the Sequence group (epan/proto.h). */
    private static final long PI_WARN = 0x00600000L;
    private static final long PI_SEQUENCE = 0x02000000L;
    /** TCP's expert note on a reset: how iw_cm/siw (and jrdma) abort a connection whose ID is destroyed. */
    private static final String RST = "Connection reset (RST)";

    /**
     * What a run is, for the checks: its name, whether loss was applied during it, and whether jrdma
     * asked for MPA CRC (then every stream of the run must carry right CRCs; else none may).
     */
    record Run(String name, boolean lossy, boolean crc) {
    }

    /** roce.py's view of one run's streams. */
    record Streams(int streams, int fpdus, int crcOk, int crcBad, int crcNegotiated, int gaps) {
    }

    private final Lab lab;
    private final Path pcap;
    private final Bounded dumpcap;
    private final Map<Integer, Run> runs = new LinkedHashMap<>();

    private IwarpCaptures(Lab lab, Path pcap, Bounded dumpcap) {
        this.lab = lab;
        this.pcap = pcap;
        this.dumpcap = dumpcap;
    }

    /** Starts dumpcap on the bridge, TCP only, into {@code target/interop/NAME.pcap}. */
    static IwarpCaptures start(Lab lab, String name) throws IOException, InterruptedException {
        Path dir = PerftestPair.outputDir();
        Path pcap = dir.resolve(name + ".pcap");
        return new IwarpCaptures(lab, pcap, lab.startCapture(pcap, dir.resolve(name + ".dumpcap.txt"), "tcp"));
    }

    Path file() {
        return pcap;
    }

    /** Notes that the run on TCP {@code port} is in the capture. */
    synchronized void add(int port, String name, boolean lossy, boolean crc) {
        runs.put(port, new Run(name, lossy, crc));
    }

    synchronized Map<Integer, Run> runs() {
        return Map.copyOf(runs);
    }

    /** Stops the capture (dumpcap finishes the file). */
    void stop() throws InterruptedException {
        Thread.sleep(500);
        dumpcap.close();
    }

    /** The result of the three checks, and roce.py's per-run stream figures. */
    record Result(List<Captures.Check> checks, Map<Integer, Streams> byPort, Map<Integer, Run> runs) {
        /** Every checker's problems, and each run whose CRC use (roce.py's figures) is not what it asked for. */
        List<String> problems() {
            List<String> p = new ArrayList<>(checks.stream().flatMap(c -> c.problems().stream()).toList());
            for (Map.Entry<Integer, Run> e : runs.entrySet()) {
                Streams s = byPort.get(e.getKey());
                if (s == null) {
                    continue; // reported by roce.py's check
                }
                if (e.getValue().crc() && (s.crcNegotiated() != s.streams() || s.crcOk() == 0 || s.crcBad() != 0)) {
                    p.add(e.getValue().name() + ": MPA CRC asked for, but not in use on every stream or not all right: " + s);
                }
                if (!e.getValue().crc() && s.crcNegotiated() != 0) {
                    p.add(e.getValue().name() + ": MPA CRC in use though nobody asked for it: " + s);
                }
            }
            return p;
        }

        String summary() {
            return checks.stream().map(Captures.Check::summary).reduce((a, b) -> a + "; " + b).orElse("");
        }
    }

    /** Stops the capture and runs the three checks at the same time. */
    Result check() throws IOException, InterruptedException {
        stop();
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            Map<Integer, Streams> byPort = new TreeMap<>();
            var mpa = pool.submit(() -> roceMpa(byPort));
            var own = pool.submit(() -> Captures.pcapCheck(pcap));
            var ws = pool.submit(this::tshark);
            List<Captures.Check> checks = List.of(mpa.get(), own.get(), ws.get());
            return new Result(checks, byPort, runs());
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException("capture check of " + pcap + " failed", e.getCause());
        }
    }

    private static final Pattern STREAM = Pattern.compile(
            "^.*?: (\\S+):(\\d+) -> (\\S+):(\\d+): MPA ID (Req|Rep) Frame rev=(\\d) M=(\\d) C=(\\d) R=(\\d).*$");
    private static final Pattern FIGURES = Pattern.compile(
            "^\\s+(\\d+) FPDUs .*?; (?:CRC32c ok (\\d+), bad (\\d+)|CRC not negotiated, non-zero CRC fields: (\\d+));"
                    + " (\\d+) trailing bytes; capture gaps (\\d+)$");

    /** {@code tools/roce.py mpa FILE}: exit 0; every stream's figures summed per run port into {@code byPort}. */
    private Captures.Check roceMpa(Map<Integer, Streams> byPort) throws IOException, InterruptedException {
        Path tool = lab.script.toAbsolutePath().getParent().resolve("tools/roce.py");
        Path out = sibling("roce-mpa.txt");
        int rc;
        try {
            rc = Bounded.run(List.of("python3", tool.toString(), "mpa", pcap.toAbsolutePath().toString()), Map.of(), out,
                    Duration.ofSeconds(120));
        } catch (IOException e) {
            return new Captures.Check("roce.py mpa", "not run", List.of("python3 not found: cannot run tools/roce.py"));
        }
        List<String> lines = Files.readAllLines(out);
        Map<Integer, Run> known = runs();
        List<String> problems = new ArrayList<>();
        int streams = 0;
        int bad = 0;
        Integer port = null;
        boolean crc = false;
        for (String l : lines) {
            Matcher s = STREAM.matcher(l);
            if (s.matches()) {
                int a = Integer.parseInt(s.group(2));
                int b = Integer.parseInt(s.group(4));
                port = known.containsKey(a) ? a : known.containsKey(b) ? b : null;
                crc = s.group(8).equals("1");
                streams++;
                if (port == null) {
                    problems.add("roce.py mpa: a stream of no run of this class: " + l.replaceFirst("^.*\\.pcap: ", ""));
                }
                continue;
            }
            Matcher f = FIGURES.matcher(l);
            if (f.matches() && port != null) {
                int ok = f.group(2) != null ? Integer.parseInt(f.group(2)) : 0;
                int b = f.group(3) != null ? Integer.parseInt(f.group(3)) : Integer.parseInt(f.group(4));
                bad += b;
                boolean negotiated = f.group(2) != null;
                Streams add = new Streams(1, Integer.parseInt(f.group(1)), ok, b, negotiated ? 1 : 0,
                        Integer.parseInt(f.group(6)));
                byPort.merge(port, add, (x, y) -> new Streams(x.streams() + y.streams(), x.fpdus() + y.fpdus(),
                        x.crcOk() + y.crcOk(), x.crcBad() + y.crcBad(), x.crcNegotiated() + y.crcNegotiated(),
                        x.gaps() + y.gaps()));
                if (b > 0) {
                    problems.add("roce.py mpa: " + known.get(port).name() + " (port " + port + "): " + b + " bad CRC fields" +
                            (crc ? "" : " (C not set in this direction's frame)"));
                }
            }
        }
        for (Map.Entry<Integer, Run> e : known.entrySet()) {
            if (!byPort.containsKey(e.getKey())) {
                problems.add("roce.py mpa: no MPA stream of " + e.getValue().name() + " (port " + e.getKey() + ") in the capture");
            }
        }
        if (rc != 0 && bad == 0) {
            problems.add("roce.py mpa exited " + rc + ": " + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size())));
        }
        int fpdus = byPort.values().stream().mapToInt(Streams::fpdus).sum();
        return new Captures.Check("roce.py mpa", "roce.py mpa: " + streams + " MPA streams, " + fpdus + " FPDUs, " + bad
                + " bad CRC fields", problems);
    }

    /** tshark's iWARP dissection; see the class comment for the rules. */
    private Captures.Check tshark() throws IOException, InterruptedException {
        Path out = sibling("tshark.txt");
        List<String> cmd = List.of("tshark", "-r", pcap.toAbsolutePath().toString(), "--disable-protocol", "rpcordma",
                "-Y", "tcp.len > 0 || _ws.malformed || _ws.expert", "-T", "fields", "-e", "frame.number", "-e", "tcp.srcport",
                "-e", "tcp.dstport", "-e", "frame.protocols", "-e", "_ws.malformed", "-e", "_ws.expert.message",
                "-e", "_ws.expert.severity", "-e", "_ws.expert.group", "-E", "separator=/t", "-E", "occurrence=a",
                "-E", "aggregator=|");
        int rc;
        try {
            rc = Bounded.run(cmd, Map.of(), out, Duration.ofSeconds(180));
        } catch (IOException e) {
            return new Captures.Check("tshark", "not run", List.of("tshark not found (lab setup installs it): " + e.getMessage()));
        }
        List<String> lines = Files.readAllLines(out).stream().filter(l -> !l.startsWith("Running as user")).toList();
        Map<Integer, Run> known = runs();
        Map<Integer, Integer> rdmap = new TreeMap<>();
        Map<String, Integer> bad = new TreeMap<>();
        long frames = 0;
        long mpa = 0;
        long sequence = 0;
        long lossySequence = 0;
        long resets = 0;
        String firstBad = null;
        for (String l : lines) {
            String[] f = l.split("\t", -1);
            if (f.length < 8 || !f[0].matches("\\d+")) {
                bad.merge("unexpected tshark output: " + l, 1, Integer::sum);
                continue;
            }
            frames++;
            Integer port = portOf(known, f[1], f[2]);
            String run = port == null ? "no run (ports " + f[1] + "/" + f[2] + ")" : known.get(port).name();
            boolean lossy = port != null && known.get(port).lossy();
            if (f[3].contains(":iwarp_mpa")) {
                mpa++;
            }
            if (f[3].contains(":iwarp_ddp_rdmap") && port != null) {
                rdmap.merge(port, 1, Integer::sum);
            }
            List<String> why = new ArrayList<>();
            if (!f[4].isEmpty()) {
                why.add("malformed");
            }
            String[] msgs = f[5].isEmpty() ? new String[0] : f[5].split("\\|", -1);
            String[] sev = f[6].isEmpty() ? new String[0] : f[6].split("\\|", -1);
            String[] grp = f[7].isEmpty() ? new String[0] : f[7].split("\\|", -1);
            for (int i = 0; i < msgs.length; i++) {
                long s = i < sev.length && sev[i].matches("\\d+") ? Long.parseLong(sev[i]) : Long.MAX_VALUE;
                long g = i < grp.length && grp[i].matches("\\d+") ? Long.parseLong(grp[i]) : 0;
                if (s < PI_WARN) {
                    continue;
                }
                if (g == PI_SEQUENCE) {
                    sequence++;
                    if (lossy) {
                        lossySequence++;
                    }
                    continue;
                }
                if (msgs[i].equals(RST)) {
                    resets++;
                    continue;
                }
                why.add(msgs[i]);
            }
            for (String w : why) {
                bad.merge(w + " in " + run, 1, Integer::sum);
            }
            if (!why.isEmpty() && firstBad == null) {
                firstBad = "frame " + f[0] + " (" + run + "): " + String.join("; ", why);
            }
        }
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Integer, Run> e : known.entrySet()) {
            if (!rdmap.containsKey(e.getKey())) {
                problems.add("tshark: no frame of " + e.getValue().name() + " (port " + e.getKey()
                        + ") dissected as iWARP DDP/RDMAP");
            }
        }
        String summary = "tshark: " + frames + " TCP frames with payload, " + mpa + " dissected as MPA, "
                + bad.values().stream().mapToInt(Integer::intValue).sum() + " with errors"
                + (sequence > 0 ? " (" + sequence + " TCP sequence-analysis warnings, " + lossySequence
                        + " of them in the runs with netem loss)" : "")
                + (resets > 0 ? " (" + resets + " TCP resets: an ID destroyed while connected aborts, as siw)" : "");
        if (rc != 0) {
            problems.add("tshark exited " + rc + ": " + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size())));
        } else if (!bad.isEmpty()) {
            problems.add(summary + ": " + bad + "; first: " + firstBad);
        }
        return new Captures.Check("tshark", summary, problems);
    }

    private static Integer portOf(Map<Integer, Run> known, String src, String dst) {
        for (String p : Set.of(src, dst)) {
            if (p.matches("\\d+") && known.containsKey(Integer.parseInt(p))) {
                return Integer.parseInt(p);
            }
        }
        return null;
    }

    private Path sibling(String suffix) {
        String n = pcap.getFileName().toString();
        return pcap.resolveSibling((n.endsWith(".pcap") ? n.substring(0, n.length() - 5) : n) + "." + suffix);
    }
}
