package org.jrdma.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The three independent checks of a capture of the lab bridge (RoCE v2 = UDP port 4791):
 * <ol>
 * <li>the lab's own ICRC checker, {@code tools/roce.py icrc} (independent of jrdma): every ICRC valid;</li>
 * <li>jrdma's {@code pcap-check} ({@code bin/jrdma pcap-check FILE}): every RoCE v2
 * packet well formed with a valid ICRC (exit 0);</li>
 * <li>tshark (Wireshark's dissectors): every RoCE v2 packet dissected as InfiniBand with a BTH, no
 * malformed packet, no expert warning or error, except {@code UDP: Illegal checksum value (0)} on IPv6
 * packets a lab guest sent (rxe really sends UDP checksum 0 over IPv6; {@code captures/README.md}).
 * Wireshark's RPC-over-RDMA heuristic is disabled: it misfires on perftest's SEND payloads.</li>
 * </ol>
 * Each result is written next to the capture ({@code NAME.roce-icrc.txt}, {@code NAME.pcap-check.txt},
 * {@code NAME.tshark.txt}).
 */
final class Captures {
    /** The addresses of the lab guests' RoCE interfaces (rxe0), whose IPv6 zero UDP checksum is expected. */
    private static final Set<String> GUEST_IPV6 = Set.of("fd77::11", "fd77::12");
    /** Wireshark's expert severities (epan/proto.h PI_WARN). */
    private static final long PI_WARN = 0x00600000L;
    private static final String ZERO_CHECKSUM = "Illegal checksum value (0)";

    /** One checker's verdict: a one-line summary, and the problems found (empty = passed). */
    record Check(String checker, String summary, List<String> problems) {
        boolean ok() {
            return problems.isEmpty();
        }
    }

    private Captures() {
    }

    /** Runs the three checks on {@code pcap}, at the same time (three processes; the guests are idle then). */
    static List<Check> checkAll(Lab lab, Path pcap) throws IOException, InterruptedException {
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            var icrc = pool.submit(() -> roceIcrc(lab, pcap));
            var own = pool.submit(() -> pcapCheck(pcap));
            var ws = pool.submit(() -> tshark(pcap));
            return List.of(icrc.get(), own.get(), ws.get());
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException("capture check of " + pcap + " failed", e.getCause());
        }
    }

    /** {@code tools/roce.py icrc FILE}: its last line is the summary; exit 0 and "bad 0" = passed. */
    static Check roceIcrc(Lab lab, Path pcap) throws IOException, InterruptedException {
        Lab.Checked c = lab.checkIcrc(pcap);
        if (c == null) {
            return new Check("roce.py icrc", "not run", List.of("python3 not found: cannot run the lab's tools/roce.py"));
        }
        Files.write(sibling(pcap, "roce-icrc.txt"), c.lines());
        String last = "roce.py: " + (c.lines().isEmpty() ? "(no output)" : c.lines().getLast().replaceFirst("^.*\\.pcap: ", ""));
        List<String> problems = new ArrayList<>();
        if (c.rc() != 0 || !last.matches(".*\\bbad 0\\b.*")) {
            problems.add("tools/roce.py icrc (exit " + c.rc() + "): " + tail(c.lines(), 8));
        }
        return new Check("roce.py icrc", last, problems);
    }

    /** jrdma's own {@code pcap-check}: exit 0 = every RoCE v2 packet well formed, ICRC ok. */
    static Check pcapCheck(Path pcap) throws IOException, InterruptedException {
        Path out = sibling(pcap, "pcap-check.txt");
        List<String> cmd = new ArrayList<>(pcapCheckCommand());
        cmd.add(pcap.toAbsolutePath().toString());
        int rc = Bounded.run(cmd, Map.of("JRDMA_BUILD", "never"), out, Duration.ofSeconds(60));
        List<String> lines = Files.readAllLines(out);
        String summary = lines.stream().filter(l -> l.contains(" frames, ")).reduce((a, b) -> b)
                .map(l -> "pcap-check: " + l.replaceFirst("^.*\\.pcap: ", "")).orElse("pcap-check: (no summary line)");
        List<String> problems = new ArrayList<>();
        if (rc != 0) {
            problems.add("jrdma pcap-check (exit " + rc + ", " + String.join(" ", cmd.subList(cmd.size() - 2, cmd.size()))
                    + "): " + tail(lines.stream().filter(l -> !l.startsWith("#") || l.contains("BAD")).toList(), 8));
        }
        return new Check("pcap-check", summary, problems);
    }

    /** tshark's dissection of the RoCE v2 packets: see the class comment for the rules. */
    static Check tshark(Path pcap) throws IOException, InterruptedException {
        Path out = sibling(pcap, "tshark.txt");
        List<String> cmd = List.of("tshark", "-r", pcap.toAbsolutePath().toString(), "--disable-protocol", "rpcordma",
                "-Y", "udp.port==4791", "-T", "fields", "-e", "frame.number", "-e", "ip.src", "-e", "ipv6.src",
                "-e", "infiniband.bth.opcode", "-e", "_ws.malformed", "-e", "_ws.expert.message",
                "-e", "_ws.expert.severity", "-e", "frame.protocols", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=|");
        int rc;
        try {
            rc = Bounded.run(cmd, Map.of(), out, Duration.ofSeconds(120));
        } catch (IOException e) {
            return new Check("tshark", "not run", List.of("tshark not found (lab setup installs it): " + e.getMessage()));
        }
        List<String> lines = Files.readAllLines(out).stream().filter(l -> !l.startsWith("Running as user")).toList();
        long packets = 0;
        long zeroChecksum = 0;
        long payloadGuesses = 0;
        Map<String, Integer> bad = new TreeMap<>();
        String firstBad = null;
        for (String l : lines) {
            String[] f = l.split("\t", -1);
            if (f.length < 8 || !f[0].matches("\\d+")) {
                bad.merge("unexpected tshark output: " + l, 1, Integer::sum);
                continue;
            }
            packets++;
            String src = !f[1].isEmpty() ? f[1] : f[2];
            List<String> why = new ArrayList<>();
            if (f[3].isEmpty()) {
                why.add("not dissected as RoCE v2 (no BTH)");
            }
            // the InfiniBand dissector guesses at payloads: two bytes that look like an EtherType followed
            // by two zero bytes (a 2-byte READ response and its pad) go to that EtherType's dissector,
            // which then finds the packet malformed. Such a failure is in perftest's (random) data, not
            // in the RoCE headers, which were dissected in full before the hand-over.
            boolean payloadGuessed = payloadDissectedAs(f[7]) != null;
            if (!f[4].isEmpty() && !payloadGuessed) {
                why.add("malformed");
            }
            String[] msgs = f[5].isEmpty() ? new String[0] : f[5].split("\\|", -1);
            String[] sev = f[6].isEmpty() ? new String[0] : f[6].split("\\|", -1);
            for (int i = 0; i < msgs.length; i++) {
                long s = i < sev.length && sev[i].matches("\\d+") ? Long.parseLong(sev[i]) : Long.MAX_VALUE;
                if (s < PI_WARN) {
                    continue;
                }
                if (msgs[i].equals(ZERO_CHECKSUM) && !f[2].isEmpty() && GUEST_IPV6.contains(f[2])) {
                    zeroChecksum++;
                    continue;
                }
                if (payloadGuessed && msgs[i].equals(MALFORMED_EXCEPTION)) {
                    continue;
                }
                why.add(msgs[i]);
            }
            if (payloadGuessed && !f[4].isEmpty()) {
                payloadGuesses++;
            }
            for (String w : why) {
                bad.merge(w + " (from " + src + ")", 1, Integer::sum);
            }
            if (!why.isEmpty() && firstBad == null) {
                firstBad = "frame " + f[0] + " from " + src + ": " + String.join("; ", why);
            }
        }
        String summary = "tshark: " + packets + " RoCE v2 packets, " + bad.values().stream().mapToInt(Integer::intValue).sum()
                + " with errors" + (zeroChecksum > 0 ? " (" + zeroChecksum + " rxe IPv6 zero UDP checksums expected)" : "")
                + (payloadGuesses > 0 ? " (" + payloadGuesses + " payloads mis-guessed by tshark's InfiniBand"
                        + " dissector, ignored)" : "");
        List<String> problems = new ArrayList<>();
        if (rc != 0) {
            problems.add("tshark exited " + rc + ": " + tail(lines, 5));
        } else if (!bad.isEmpty()) {
            problems.add(summary + ": " + bad + "; first: " + firstBad);
        }
        return new Check("tshark", summary, problems);
    }

    /** tshark's expert message for an exception in a dissector ("malformed"). */
    static final String MALFORMED_EXCEPTION = "Malformed Packet (Exception occurred)";

    /**
     * The protocol tshark handed a RoCE packet's payload to, from {@code frame.protocols} (e.g.
     * {@code eth:ethertype:ipv6:udp:infiniband:ethertype:lldp} gives {@code ethertype:lldp}); null
     * when the payload stayed plain data (or there was none).
     */
    static String payloadDissectedAs(String frameProtocols) {
        int at = frameProtocols.indexOf(":infiniband:");
        if (at < 0) {
            return null;
        }
        String rest = frameProtocols.substring(at + ":infiniband:".length());
        return rest.isEmpty() || rest.equals("data") ? null : rest;
    }

    /**
     * The frames of {@code pcap} matching a Wireshark display filter, one line each with the fields
     * asked for (tab-separated), e.g. {@code frames(p, "infiniband.aeth.syndrome == 0x62 && ip.src ==
     * 10.77.0.11", "frame.number")}; tshark's own dissection, independent of jrdma.
     */
    static List<String> frames(Path pcap, String filter, String... fields) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-r", pcap.toAbsolutePath().toString(),
                "--disable-protocol", "rpcordma", "-Y", filter, "-T", "fields", "-E", "separator=/t"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        Path out = Files.createTempFile("tshark", ".txt");
        try {
            int rc = Bounded.run(cmd, Map.of(), out, Duration.ofSeconds(120));
            List<String> lines = Files.readAllLines(out).stream().filter(l -> !l.startsWith("Running as user")).toList();
            if (rc != 0) {
                throw new IllegalStateException("tshark -Y '" + filter + "' failed (rc " + rc + "): " + lines);
            }
            return lines;
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** {@code bin/jrdma pcap-check}. */
    static List<String> pcapCheckCommand() {
        return List.of(Tools.root().resolve("bin/jrdma").toString(), "pcap-check");
    }

    private static Path sibling(Path pcap, String suffix) {
        String n = pcap.getFileName().toString();
        return pcap.resolveSibling((n.endsWith(".pcap") ? n.substring(0, n.length() - 5) : n) + "." + suffix);
    }

    private static String tail(List<String> lines, int n) {
        return String.join(" | ", lines.size() > n ? lines.subList(lines.size() - n, lines.size()) : lines);
    }
}
